# SPDX-License-Identifier: GPL-2.0
"""The guest's initramfs: busybox-static, guest/, the build's modules and
the out-of-tree modules of guest/modules/, built against it, and, for an
Arch with guest_tools, the tracer tools of settings.GUEST_PROGRAMS and
guest/progs/ with their shared libraries. /etc/wb/ tells the guest
scripts what they got: the kernel's .config and the tools."""

import re
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Iterable, List, Optional, Sequence

from . import deps, ftracetest, kbuild, settings
from .kbuild import Build
from .shell import WorkbenchError, output, run


def _install_busybox(root: Path, busybox: Path) -> None:
	"""Installs @busybox with a link for each applet. The host's busybox
	lists them, as that of a guest of another architecture cannot run
	here: deps.busybox() makes sure that both are of the same version."""
	(root / 'bin').mkdir(parents=True)
	shutil.copy2(busybox, root / 'bin/busybox')
	for applet in output([settings.HOST_BUSYBOX, '--list-full']).split():
		# Never link 'busybox' itself: that would replace the binary.
		if applet.endswith('/busybox'):
			continue
		link = root / applet
		link.parent.mkdir(parents=True, exist_ok=True)
		if not link.exists():
			link.symlink_to('/bin/busybox')


def _shared_libraries(program: Path) -> Iterable[Path]:
	"""The shared libraries @program loads, its dynamic loader included."""
	for line in output(['ldd', str(program)]).splitlines():
		m = re.search(r'(/\S+) \(0x', line)
		if m:
			yield Path(m.group(1))


def _install_program(root: Path, program: Path, name: str) -> None:
	"""Installs @program as /usr/bin/@name, with its shared libraries at
	the paths they have here (their symbolic links resolved)."""
	dest = root / 'usr/bin' / name
	dest.parent.mkdir(parents=True, exist_ok=True)
	# A busybox applet of the same name is a link to /bin/busybox, which
	# copying through it would overwrite (the host's: the link is absolute).
	if dest.is_symlink():
		dest.unlink()
	shutil.copy2(program, dest)
	for lib in _shared_libraries(program):
		target = root / lib.relative_to('/')
		if not target.exists():
			target.parent.mkdir(parents=True, exist_ok=True)
			shutil.copy2(lib.resolve(), target)


def _build_progs(build: Build) -> Iterable[Path]:
	"""Builds the programs of guest/progs/ under the build directory."""
	out = build.dir / 'progs'
	out.mkdir(exist_ok=True)
	for source, libs in settings.GUEST_PROGS_BUILT:
		binary = out / Path(source).stem
		run(['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-o', str(binary),
		     str(settings.GUEST_DIR / 'progs' / source), *libs])
		yield binary


def kernel_headers(build: Build) -> List[Path]:
	"""The kernel headers that settings.HEADERS_CLANG reads for each of
	settings.HEADERS_ROOTS, with the flags bpftrace 0.17 compiles with
	(its get_kernel_cflags(): the include paths of the kernel's
	LINUXINCLUDE and USERINCLUDE, kconfig.h, __KERNEL__), as paths in
	the source tree or in the build directory."""
	src, obj = build.tree.src, build.dir
	arch = 'arch/' + build.config.arch.srcarch
	includes = [src / arch / 'include', obj / arch / 'include/generated',
		    src / 'include', obj / 'include', src / arch / 'include/uapi',
		    obj / arch / 'include/generated/uapi', src / 'include/uapi',
		    obj / 'include/generated/uapi']
	source = ''.join(f'#include <{h}>\n' for h in settings.HEADERS_ROOTS)
	deps = subprocess.run([settings.HEADERS_CLANG, '-M', '-nostdinc', '-D__KERNEL__',
			       *(f'-I{d}' for d in includes),
			       '-include', str(src / 'include/linux/kconfig.h'), '-x', 'c', '-'],
			      input=source, capture_output=True, text=True, check=False)
	if deps.returncode:
		raise WorkbenchError(f'{settings.HEADERS_CLANG} could not list the headers of '
				     f'{", ".join(settings.HEADERS_ROOTS)}:\n{deps.stderr}')
	words = deps.stdout.replace('\\\n', ' ').split()[1:]
	return sorted({Path(w).resolve() for w in words if w != '-'})


def _install_headers(root: Path, build: Build) -> None:
	"""Installs kernel_headers() where bpftrace looks for the kernel's
	headers when it has no BTF: /lib/modules/RELEASE/build, which it
	takes for the source tree and the build directory at once."""
	dest = root / 'lib/modules' / build.release() / 'build'
	# modules_install links it to the build directory of the host.
	if dest.is_symlink():
		dest.unlink()
	for header in kernel_headers(build):
		for top in (build.dir, build.tree.src):
			if header.is_relative_to(top.resolve()):
				target = dest / header.relative_to(top.resolve())
				break
		else:
			raise WorkbenchError(f'{header}: a header outside the kernel tree')
		target.parent.mkdir(parents=True, exist_ok=True)
		shutil.copy2(header, target)


def _install_tools(root: Path, build: Build) -> List[str]:
	"""Installs the tracer tools, those of the host and those of
	guest/progs/, and bpftrace where the kernel runs BPF on trace events;
	returns their names."""
	tools = []
	for program in map(Path, settings.GUEST_PROGRAMS):
		_install_program(root, program, program.name)
		tools.append(program.name)
	for binary in _build_progs(build):
		_install_program(root, binary, binary.name)
		tools.append(binary.name)
	if kbuild.enabled(build, 'CONFIG_BPF_EVENTS'):
		bpftrace = Path(settings.GUEST_BPFTRACE)
		_install_program(root, bpftrace, bpftrace.name)
		_install_headers(root, build)
		tools.append(bpftrace.name)
	return tools


def _install_ftracetest(root: Path, build: Build) -> None:
	"""Installs upstream's ftrace selftests in /opt/ftracetest, with the
	list of the cases where marker events take part (marker-cases), that of every case
	but settings.FTRACETEST_EXCLUDED (all-cases), and the host's programs
	they need."""
	dest = root / 'opt/ftracetest'
	shutil.copytree(build.tree.src / settings.FTRACETEST_SOURCE, dest)
	(dest / 'marker-cases').write_text(
		''.join(f'test.d/{case}\n' for case in settings.FTRACETEST_CASES))
	(dest / 'all-cases').write_text(
		''.join(f'test.d/{case}\n' for case in ftracetest.every_case(dest / 'test.d')))
	for program in map(Path, settings.FTRACETEST_PROGRAMS):
		_install_program(root, program, program.name)


def make(build: Build, modules: Optional[Sequence[Path]] = None) -> Path:
	"""Writes <build>/initramfs.cpio.gz and returns its path; the
	out-of-tree modules it carries are those of guest/modules/, or those
	of the directories @modules."""
	root = build.dir / 'initramfs'
	shutil.rmtree(root, ignore_errors=True)
	root.mkdir()
	arch = build.config.arch
	_install_busybox(root, deps.busybox(arch))
	for d in ('proc', 'sys', 'dev', 'tmp', 'etc', 'root'):
		(root / d).mkdir(exist_ok=True)
	(root / 'etc/passwd').write_text('root:x:0:0:root:/root:/bin/sh\n'
					 'nobody:x:65534:65534:nobody:/:/bin/sh\n')
	(root / 'etc/group').write_text('root:x:0:\nnogroup:x:65534:\n')
	shutil.copytree(settings.GUEST_DIR, root / 'guest',
			ignore=shutil.ignore_patterns('modules', 'bench-modules', 'progs'))
	shutil.copy2(settings.GUEST_DIR / 'init', root / 'init')
	(root / 'init').chmod(0o755)
	if build.modroot.is_dir():
		shutil.copytree(build.modroot / 'lib', root / 'lib', symlinks=True)
		extra = root / 'lib/modules' / build.release() / 'extra'
		extra.mkdir()
		for ko in kbuild.external_modules(build, modules):
			shutil.copy2(ko, extra)
		run(['depmod', '-b', str(root), build.release()])
	tools = _install_tools(root, build) if arch.guest_tools else []
	# Its programs are the host's, like the tracer tools.
	if arch.guest_tools and build.config.name == settings.FTRACETEST_CONFIG:
		_install_ftracetest(root, build)
	# What the guest scripts ask of the kernel and of the tools (lib.sh).
	(root / 'etc/wb').mkdir()
	(root / 'etc/wb/tools').write_text(''.join(f'{tool}\n' for tool in tools))
	shutil.copy2(build.dir / '.config', root / 'etc/wb/kernel.config')
	# The markers the build listed, which the guest compares with those the
	# kernel has: in the tree's modules, and in the external ones.
	if (build.dir / 'Module.markers').is_file():
		shutil.copy2(build.dir / 'Module.markers', root / 'etc/wb/Module.markers')
		(root / 'etc/wb/Module.markers.extmod').write_text(''.join(
			path.read_text() for path in sorted(build.dir.glob('extmod/*/Module.markers'))))

	image = build.dir / 'initramfs.cpio.gz'
	with open(image, 'wb') as f:
		find = subprocess.Popen(['find', '.', '-print0'], cwd=root, stdout=subprocess.PIPE)
		cpio = subprocess.Popen(['cpio', '--null', '-o', '-H', 'newc', '-R', '0:0',
					 '--quiet'], cwd=root, stdin=find.stdout,
					stdout=subprocess.PIPE)
		gz = subprocess.Popen(['gzip', '-1'], stdin=cpio.stdout, stdout=f)
		find.stdout.close()
		cpio.stdout.close()
		if gz.wait() or cpio.wait() or find.wait():
			raise WorkbenchError(f'could not write {image}')
	return image


# The end of an initrd that carries a bootconfig: its size with padding
# and its byte sum (little-endian 32-bit words), then this magic.
BOOTCONFIG_MAGIC = b'#BOOTCONFIG\n'
BOOTCONFIG_ALIGN = 4


def with_bootconfig(initrd: Path, text: str, dest: Path) -> Path:
	"""Writes @dest: @initrd with the bootconfig @text appended where the
	kernel looks for one (Documentation/admin-guide/bootconfig.rst), as
	tools/bootconfig's -a appends it: the text and its NUL, NULs that
	align the whole file to 4 bytes, the size and sum of those, the
	magic. The kernel reads it with "bootconfig" on its command line."""
	data = text.encode() + b'\0'
	image = initrd.read_bytes()
	footer = 8 + len(BOOTCONFIG_MAGIC)
	data += b'\0' * (-(len(image) + len(data) + footer) % BOOTCONFIG_ALIGN)
	dest.write_bytes(image + data + struct.pack('<II', len(data), sum(data) & 0xffffffff) +
			 BOOTCONFIG_MAGIC)
	return dest
