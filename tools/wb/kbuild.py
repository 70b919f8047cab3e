# SPDX-License-Identifier: GPL-2.0
"""Configuring and building one kernel of the matrix, out of tree, with ccache."""

import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import deps, settings
from .settings import KernelConfig
from .shell import WorkbenchError, log, output, run
from .tree import Tree, git_out

STAMP = '.workbench-stamp'


@dataclass(frozen=True)
class Build:
	config: KernelConfig
	tree: Tree
	dir: Path

	@property
	def image(self) -> Path:
		return self.dir / self.config.arch.image

	@property
	def modroot(self) -> Path:
		return self.dir / 'modroot'

	@property
	def log(self) -> Path:
		return self.dir / 'build.log'

	@property
	def modules_log(self) -> Path:
		"""The log of the modules of KernelConfig.modules, built apart."""
		return self.dir / 'modules.log'

	def release(self) -> str:
		return (self.dir / 'include/config/kernel.release').read_text().strip()


def build_dir(tree: Tree, config: KernelConfig) -> Path:
	return settings.CACHE / 'build' / tree.package_version / config.name


def fragment_text(config: KernelConfig) -> str:
	"""@config's fragments, each followed by the base's overlay of it,
	configs/<base>/<name>.config, if any: what the same choice is called
	on that base. A line of the overlay overrides the fragment's (the
	last assignment of a symbol wins, in Kconfig and in _requested())."""
	parts = []
	for name in config.fragments:
		path = settings.CONFIGS_DIR / f'{name}.config'
		if not path.is_file():
			raise WorkbenchError(f'{config.name}: no fragment {path}; fragments are '
					     + ', '.join(p.stem for p in settings.CONFIGS_DIR.glob('*.config')))
		parts.append(f'# --- configs/{name}.config\n' + path.read_text())
		overlay = settings.CONFIGS_DIR / settings.BASE.name / f'{name}.config'
		if overlay.is_file():
			parts.append(f'# --- configs/{settings.BASE.name}/{name}.config\n' +
				     overlay.read_text())
	return '\n'.join(parts)


def _requested(fragment: str) -> Dict[str, str]:
	"""Maps CONFIG_X to its requested value ('n' for '# CONFIG_X is not set')."""
	wanted = {}
	for line in fragment.splitlines():
		m = re.match(r'^(CONFIG_\w+)=(.*)$', line)
		if m:
			wanted[m.group(1)] = m.group(2)
		m = re.match(r'^# (CONFIG_\w+) is not set$', line)
		if m:
			wanted[m.group(1)] = 'n'
	return wanted


# What a .config records of the toolchain it was made with, not a choice:
# Debian's records Debian's build machine.
_TOOLCHAIN_SYMBOL = re.compile(r'CONFIG_((CC|GCC|CLANG|AS|LD|LLD|RUSTC|RUSTC_LLVM|PAHOLE)_VERSION'
			       r'|CC_VERSION_TEXT|(CC|AS|LD|PAHOLE|TOOLS)_HAS_\w+|TOOLS_SUPPORT_\w+|CC_CAN_LINK\w*'
			       r'|RUST_IS_AVAILABLE|RUSTC_\w+|BINDGEN_\w+|CC_OPT_\w+|OPENSSL_SUPPORTS_\w+)$')


def _validate(build: Build, fragment: str) -> None:
	got = {}
	for line in (build.dir / '.config').read_text().splitlines():
		m = re.match(r'^(CONFIG_\w+)=(.*)$', line)
		if m:
			got[m.group(1)] = m.group(2)
	dropped = [f'{k}={v} (got {got.get(k, "n")})'
		   for k, v in _requested(fragment).items()
		   if got.get(k, 'n') != v and not _TOOLCHAIN_SYMBOL.match(k)]
	if dropped:
		raise WorkbenchError(
			f'{build.config.name}: the configuration did not keep these options, '
			'probably unmet dependencies (see `make O=' + str(build.dir) +
			' menuconfig`):\n  ' + '\n  '.join(dropped))


def debian_config_text(debian: str, fragment: str) -> str:
	"""The .config of a config that starts from Debian's (@debian, the text
	of its config file), before `make olddefconfig`: Debian's, with
	@fragment's options in place of Debian's. Every other option stays as
	Debian has it, modules included: KernelConfig.modules says which of
	them are built."""
	wanted = _requested(fragment)
	lines = [line for line in debian.splitlines()
		 if not ((m := re.match(r'^(?:# )?(CONFIG_\w+)[= ]', line)) and m.group(1) in wanted)]
	return '\n'.join(lines) + '\n# --- the fragments\n' + fragment


def _compiler(build: Build) -> str:
	if build.config.llvm:
		return 'clang' + build.config.llvm
	return build.config.arch.cross_compile + 'gcc'


def _make(build: Build, *targets: str, logfile: Path = None, extra=()) -> None:
	# Fixed build identity and release: an unchanged input rebuilds nothing.
	env = {'CCACHE_DIR': str(settings.CCACHE_DIR), 'KBUILD_BUILD_TIMESTAMP': settings.COMMIT_DATE,
	       'KBUILD_BUILD_USER': 'markers', 'KBUILD_BUILD_HOST': 'workbench',
	       'LOCALVERSION': ''}
	arch = build.config.arch
	cross = (f'CROSS_COMPILE={arch.cross_compile}',) if arch.cross_compile else ()
	# LLVM=-16: clang-16, ld.lld-16, llvm-ar-16... for every tool of the build.
	llvm = (f'LLVM={build.config.llvm}',) if build.config.llvm else ()
	# At the lowest priority: the guests of the kernels built before run
	# meanwhile, and their timeouts are hang detectors, which a build
	# competing for the same cores must not trip (in a make test from an
	# empty cache, debug's boots took 34 and 36 min, the rt build and the
	# other boot beside each, against a timeout of 45 min).
	run(['nice', '-n', '19',
	     'make', '-C', build.tree.src, f'O={build.dir}', f'ARCH={arch.make_arch}', *cross,
	     *llvm, f'CC=ccache {_compiler(build)}', f'-j{os.cpu_count() or 2}', *extra, *targets],
	    env=env, logfile=logfile)


def _stamp(build: Build, fragment: str) -> str:
	h = hashlib.sha256()
	h.update(git_out(build.tree.src, 'rev-parse', 'HEAD').encode())
	h.update(fragment.encode())
	h.update(output([_compiler(build), '--version']).encode())
	return h.hexdigest()


def _configure(b: Build, fragment: str, force: bool = False) -> bool:
	"""Configures @b as allnoconfig with @fragment forced (nothing else is
	built), or, for a config from Debian's, with @fragment as its .config
	(debian_config_text()) and olddefconfig, unless @force is false and
	its .config already came from that fragment; returns whether it
	configured. The caller records the fragment once it is satisfied with
	the result."""
	saved = b.dir / 'fragment.config'
	if (not force and saved.is_file() and saved.read_text() == fragment and
	    (b.dir / '.config').is_file()):
		return False
	if b.config.debian:
		# The whole input of a config from Debian's is its .config.
		(b.dir / '.config').write_text(fragment)
		_make(b, 'olddefconfig', logfile=b.dir / 'config.log')
		return True
	allconfig = b.dir / 'allconfig.config'
	allconfig.write_text(fragment)
	_make(b, 'allnoconfig', logfile=b.dir / 'config.log',
	      extra=(f'KCONFIG_ALLCONFIG={allconfig}',))
	return True


def build(tree: Tree, config: KernelConfig, dirname: str = None,
	  validate: bool = True, reconfigure: bool = False) -> Build:
	"""Configures and builds @config from @tree's worktree, if needed.

	@dirname names the build directory (default: the config's name). Without
	@validate, options that the configuration cannot have are let go, as
	those of patches not applied yet (make series-check). With @reconfigure
	it is configured again even if its fragment is the one it was
	configured from: the worktree gained options since (make bench-poke).
	"""
	bdir = build_dir(tree, config)
	b = Build(config, tree, bdir.with_name(dirname) if dirname else bdir)
	fragment = fragment_text(config)
	if config.debian:
		debian = deps.debian_config(config.arch, tree.package_version, config.debian)
		fragment = debian_config_text(debian.read_text(), fragment)
	stamp = _stamp(b, fragment)
	stamp_file = b.dir / STAMP
	if stamp_file.is_file() and stamp_file.read_text() == stamp and b.image.is_file():
		log(f'{config.name}: kernel is up to date ({b.dir})')
		return b

	b.dir.mkdir(parents=True, exist_ok=True)
	stamp_file.unlink(missing_ok=True)
	if _configure(b, fragment, force=reconfigure or not validate):
		if validate:
			_validate(b, fragment)
		(b.dir / 'fragment.config').write_text(fragment)

	log(f'{config.name}: building (log: {b.log})')
	if config.modules:
		_make(b, b.image.name, logfile=b.log)
		# Single .ko targets: kbuild builds, checks (modpost) and links
		# those only; modules_install installs what modules.order lists.
		_make(b, *config.modules, logfile=b.modules_log)
		(b.dir / 'modules.order').write_text(
			''.join(ko.removesuffix('.ko') + '.o\n' for ko in config.modules))
	else:
		b.modules_log.unlink(missing_ok=True)
		_make(b, b.image.name, 'modules', logfile=b.log)
	shutil.rmtree(b.modroot, ignore_errors=True)
	_make(b, 'modules_install', logfile=b.dir / 'modules_install.log',
	      extra=(f'INSTALL_MOD_PATH={b.modroot}', 'INSTALL_MOD_STRIP=1'))
	stamp_file.write_text(stamp)
	return b


def image_alone(b: Build) -> None:
	"""Makes the image of @b alone, as after an edit of vmlinux only: with
	vmlinux.symvers removed, its modpost run, which reads vmlinux.o without
	the modules, runs again. The log is modpost-vmlinux.log."""
	(b.dir / 'vmlinux.symvers').unlink(missing_ok=True)
	_make(b, b.image.name, logfile=b.dir / 'modpost-vmlinux.log')


def external_modules(b: Build, sources: Optional[Sequence[Path]] = None) -> List[Path]:
	"""Builds the out-of-tree modules of guest/modules/ (or those of the
	directories @sources) against @b, the way their users would (make M=),
	from copies under the build directory; returns the .ko files."""
	kos = []
	if sources is None:
		sources = sorted(p for p in (settings.GUEST_DIR / 'modules').iterdir() if p.is_dir())
	for src in sources:
		copy = b.dir / 'extmod' / src.name
		shutil.rmtree(copy, ignore_errors=True)
		shutil.copytree(src, copy)
		logfile = copy / 'build.log'
		_make(b, 'modules', logfile=logfile, extra=(f'M={copy}',))
		warned = _log_warnings(logfile)
		if warned:
			raise WorkbenchError(f'guest/modules/{src.name} builds with warnings:\n' +
					     '\n'.join(warned))
		kos += sorted(copy.glob('*.ko'))
	return kos


def enabled(b: Build, option: str) -> bool:
	"""Whether @option is y in the build's .config."""
	return f'\n{option}=y\n' in '\n' + (b.dir / '.config').read_text()


def _log_warnings(logfile: Path) -> List[str]:
	"""The compiler, linker and objtool warnings in a make log."""
	if not logfile.is_file():
		return []
	return [line for line in logfile.read_text(errors='replace').splitlines()
		if re.search(r'\bwarning:', line, re.I)]


def warnings(b: Build) -> List[str]:
	"""Compiler, linker and objtool warnings of the last full build."""
	return _log_warnings(b.log) + _log_warnings(b.modules_log)


def series_objects(arch: settings.Arch, build: Optional[Build] = None) -> List[str]:
	"""The objects of the C files the series adds, but for those of other
	architectures than @arch (arch/<SRCARCH>/) and, with @build, those
	that only a config @build does not have compiles
	(settings.OBJECTS_BUILT_WITH)."""
	objects = []
	for path in settings.LINUX_FILES.rglob('*.c'):
		rel = path.relative_to(settings.LINUX_FILES)
		obj = str(rel.with_suffix('.o'))
		option = settings.OBJECTS_BUILT_WITH.get(obj)
		if build and option and not enabled(build, option):
			continue
		if rel.parts[0] != 'arch' or rel.parts[1] == arch.srcarch:
			objects.append(obj)
	return sorted(objects)


def lint(tree: Tree, config: KernelConfig, objects: List[str]) -> Tuple[bool, str]:
	"""Compiles @objects with W=1 and sparse (C=2) in a build of its own,
	configured like @config; returns whether that gave no warning, and the log."""
	b = Build(config, tree, build_dir(tree, config).with_name(config.name + '-lint'))
	fragment = fragment_text(config)
	b.dir.mkdir(parents=True, exist_ok=True)
	if _configure(b, fragment):
		_make(b, 'modules_prepare', logfile=b.dir / 'prepare.log')
		(b.dir / 'fragment.config').write_text(fragment)
	logfile = b.dir / 'lint.log'
	_make(b, *objects, logfile=logfile, extra=('W=1', 'C=2', 'CHECK=sparse'))
	text = logfile.read_text(errors='replace')
	bad = [l for l in text.splitlines() if re.search(r'warning:|error:', l)]
	return not bad, '\n'.join(bad) if bad else text[-1500:]
