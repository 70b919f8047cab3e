# SPDX-License-Identifier: GPL-2.0
"""The guest's initramfs: busybox-static, guest/, the build's modules and
the out-of-tree modules of guest/modules/, built against it, and, for an
Arch with guest_tools, the tracer tools of settings.GUEST_PROGRAMS and
guest/progs/ with their shared libraries. /etc/wb/ tells the guest
scripts what they got: the kernel's .config and the tools."""

import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterable, List

from . import deps, kbuild, settings
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


def _install_tools(root: Path, build: Build) -> List[str]:
	"""Installs the tracer tools, those of the host and those of
	guest/progs/; returns their names."""
	tools = []
	for program in map(Path, settings.GUEST_PROGRAMS):
		_install_program(root, program, program.name)
		tools.append(program.name)
	for binary in _build_progs(build):
		_install_program(root, binary, binary.name)
		tools.append(binary.name)
	return tools


def make(build: Build) -> Path:
	"""Writes <build>/initramfs.cpio.gz and returns its path."""
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
			ignore=shutil.ignore_patterns('modules', 'progs'))
	shutil.copy2(settings.GUEST_DIR / 'init', root / 'init')
	(root / 'init').chmod(0o755)
	if build.modroot.is_dir():
		shutil.copytree(build.modroot / 'lib', root / 'lib', symlinks=True)
		extra = root / 'lib/modules' / build.release() / 'extra'
		extra.mkdir()
		for ko in kbuild.external_modules(build):
			shutil.copy2(ko, extra)
		run(['depmod', '-b', str(root), build.release()])
	tools = _install_tools(root, build) if arch.guest_tools else []
	# What the guest scripts ask of the kernel and of the tools (lib.sh).
	(root / 'etc/wb').mkdir()
	(root / 'etc/wb/tools').write_text(''.join(f'{tool}\n' for tool in tools))
	shutil.copy2(build.dir / '.config', root / 'etc/wb/kernel.config')

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
