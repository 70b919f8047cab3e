# SPDX-License-Identifier: GPL-2.0
"""Installs the Debian packages the workbench needs, only when some are
missing, and fetches into the cache what it cannot install: QEMU 10, the
busybox of guests of another architecture, Debian's kernel configs."""

import re
import shutil
import subprocess
from pathlib import Path
from typing import List, Sequence

from . import settings
from .shell import WorkbenchError, is_root, log, output, run


def missing_packages(packages: Sequence[str]) -> List[str]:
	missing = []
	for pkg in packages:
		proc = subprocess.run(['dpkg-query', '-W', '-f=${Status}', pkg],
				      capture_output=True, text=True)
		if proc.returncode != 0 or 'install ok installed' not in proc.stdout:
			missing.append(pkg)
	return missing


def ensure_packages(packages: Sequence[str] = settings.APT_PACKAGES) -> None:
	missing = missing_packages(packages)
	if not missing:
		return
	if not is_root():
		raise WorkbenchError('missing Debian packages: ' + ' '.join(missing) +
				     '\nrun as root (the workbench installs them with apt-get), '
				     'or install them yourself')
	log('installing ' + ' '.join(missing))
	env = {'DEBIAN_FRONTEND': 'noninteractive'}
	run(['apt-get', 'update', '-q'], env=env)
	run(['apt-get', 'install', '-y', '-q', '--no-install-recommends', *missing], env=env)
	still = missing_packages(missing)
	if still:
		raise WorkbenchError('apt-get did not install: ' + ' '.join(still))


def _apt_private(root: Path, source: str, *args: str, arch: str = '') -> list:
	"""apt-get with its own @source, lists and cache under @root, so that the
	system's apt configuration is neither read nor changed; with @arch, a
	Debian architecture apt then knows besides the host's."""
	for d in ('lists/partial', 'cache/archives/partial'):
		(root / d).mkdir(parents=True, exist_ok=True)
	sources = root / 'sources.list'
	sources.write_text(source + '\n')
	foreign = ('-o', f'APT::Architectures::={arch}') if arch else ()
	return ['apt-get', '-q', '-o', f'Dir::Etc::sourcelist={sources}',
		'-o', 'Dir::Etc::sourceparts=-', '-o', f'Dir::State::Lists={root}/lists',
		'-o', f'Dir::Cache={root}/cache', '-o', 'APT::Sandbox::User=root', *foreign, *args]


def _apt_download(root: Path, source: str, packages: Sequence[str], arch: str = '') -> Path:
	"""Downloads @packages with the apt of @root and @source (_apt_private())
	into @root/debs, emptied first, and returns that directory."""
	run(_apt_private(root, source, 'update', arch=arch))
	debs = root / 'debs'
	shutil.rmtree(debs, ignore_errors=True)
	debs.mkdir(parents=True)
	run(_apt_private(root, source, 'download', *packages, arch=arch), cwd=debs)
	return debs


def _unpack(debs: Path, dest: Path) -> None:
	"""Unpacks every package of @debs into @dest, which it replaces."""
	tmp = dest.with_name(dest.name + '.tmp')
	shutil.rmtree(tmp, ignore_errors=True)
	for deb in sorted(debs.glob('*.deb')):
		run(['dpkg-deb', '-x', deb, tmp], quiet=True)
	shutil.rmtree(dest, ignore_errors=True)
	tmp.rename(dest)


def _booted_archs() -> List[settings.Arch]:
	"""The architectures whose kernels some config of the workbench boots."""
	configs = [*settings.MATRIX.values(), settings.BENCH]
	return [arch for arch in settings.ARCHS.values()
		if any(c.arch == arch and c.guests for c in configs)]


def ensure_qemu() -> Path:
	"""Returns the prefix of the QEMU the guests run on (its binaries in
	usr/bin), fetching it into the cache once, and again when the QEMU of
	an architecture that boots is missing there.

	Debian 12's QEMU 7.2, under multi-threaded TCG, oopses an unpatched
	6.12 kernel on an int3 of its own text_poke_bp() when ftrace is
	toggled while other vCPUs run; QEMU 10 from bookworm-backports does not
	(it still loses static key toggles, see settings.TCG_THREADS). It is
	unpacked under the cache and runs with the libraries Debian 12's
	qemu-system-x86 brought in.
	"""
	prefix = settings.CACHE / 'qemu'
	missing = [arch.qemu_binary for arch in _booted_archs()
		   if not (prefix / 'usr/bin' / arch.qemu_binary).is_file()]
	if not missing:
		return prefix
	if not is_root():
		raise WorkbenchError(f'{", ".join(missing)} missing from {prefix}/usr/bin; '
				     'run as root once to fetch them')
	log(f'fetching QEMU ({", ".join(missing)} missing) from {settings.QEMU_APT_SOURCE} '
	    f'into {prefix}')
	debs = _apt_download(settings.CACHE / 'apt', settings.QEMU_APT_SOURCE,
			     [f'{p}/{settings.QEMU_APT_RELEASE}' for p in settings.QEMU_PACKAGES])
	_unpack(debs, prefix)
	for arch in _booted_archs():
		version = output([prefix / 'usr/bin' / arch.qemu_binary, '--version'])
		log(f'using {version.splitlines()[0]} ({arch.qemu_binary})')
	return prefix


def source_version_file() -> Path:
	"""Where the version of a source package fetched by ensure_source() is kept."""
	return settings.CACHE / 'source' / f'{settings.SOURCE_PACKAGE}.version'


def ensure_source() -> None:
	"""Fetches the kernel source package of a base that the host's apt does
	not serve (settings.Base.apt_source) into the cache, once: its tarball
	goes where settings.SOURCE_TARBALL says, its version next to it."""
	base = settings.BASE
	if not base.apt_source or (settings.SOURCE_TARBALL.is_file() and
				   source_version_file().is_file()):
		return
	if not is_root():
		raise WorkbenchError(f'{settings.SOURCE_TARBALL} is missing; run as root once '
				     'to fetch it')
	log(f'fetching {base.package} from {base.apt_source}')
	root = settings.CACHE / 'source' / f'apt-{base.name}'
	debs = _apt_download(root, base.apt_source, [base.package])
	deb = next(debs.glob('*.deb'))
	_unpack(debs, settings.CACHE / 'source' / base.package)
	if not settings.SOURCE_TARBALL.is_file():
		raise WorkbenchError(f'{deb.name} has no {settings.SOURCE_TARBALL.name}')
	source_version_file().write_text(output(['dpkg-deb', '-f', deb, 'Version']) + '\n')


def _upstream_version(version: str) -> str:
	"""1.35.0 of Debian's 1:1.35.0-4+deb12u1+b1."""
	return re.sub(r'^\d+:', '', version).rsplit('-', 1)[0]


def busybox(arch: settings.Arch) -> Path:
	"""The static busybox of @arch's guests: the host's (busybox-static of
	APT_PACKAGES) on the host's architecture, otherwise Debian's
	busybox-static of @arch, fetched into the cache once with an apt of
	its own (settings.BUSYBOX_APT_SOURCE), like QEMU.

	Its applets are listed by the host's busybox (initramfs.py), which can
	run: the fetched one must be of the same upstream version."""
	if arch.deb_arch == output(['dpkg', '--print-architecture']):
		return settings.HOST_BUSYBOX
	prefix = settings.CACHE / 'busybox' / arch.deb_arch
	binary = prefix / 'bin/busybox'
	if binary.is_file():
		return binary
	if not is_root():
		raise WorkbenchError(f'{binary} is missing; run as root once to fetch it')
	source = settings.BUSYBOX_APT_SOURCE.format(arch=arch.deb_arch)
	log(f'fetching busybox-static:{arch.deb_arch} from {source} into {prefix}')
	debs = _apt_download(settings.CACHE / 'busybox' / f'apt-{arch.deb_arch}', source,
			     [f'busybox-static:{arch.deb_arch}'], arch=arch.deb_arch)
	deb = next(debs.glob('*.deb'), None)
	if not deb:
		raise WorkbenchError(f'apt-get download left no busybox-static in {debs}')
	fetched = output(['dpkg-deb', '-f', deb, 'Version'])
	host = output(['dpkg-query', '-W', '-f=${Version}', 'busybox-static'])
	if _upstream_version(fetched) != _upstream_version(host):
		raise WorkbenchError(
			f'busybox-static:{arch.deb_arch} {fetched} and the host\'s {host} differ: the '
			'applets of the guest\'s busybox are those the host\'s lists (it cannot run '
			'the other); upgrade busybox-static on the host')
	_unpack(debs, prefix)
	log(f'using busybox-static:{arch.deb_arch} {fetched}')
	return binary


def debian_config(arch: settings.Arch, version: str, flavour: str) -> Path:
	"""Debian's kernel config of @flavour (config.<flavour>.xz) for @arch,
	from DEBIAN_CONFIG_PACKAGE of @version, the version of the source the
	series applies to: the config Debian builds that very source with.
	Fetched into the cache once, with an apt of its own, like QEMU; an
	error if apt does not serve that version (a config of another stable
	update may name options the source does not have)."""
	pkg = settings.DEBIAN_CONFIG_PACKAGE
	prefix = settings.CACHE / 'debian-config' / arch.deb_arch / version
	config = prefix / f'config.{flavour}'
	if config.is_file():
		return config
	if not is_root():
		raise WorkbenchError(f'{config} is missing; run as root once to fetch it')
	log(f'fetching {pkg}:{arch.deb_arch} {version} into {prefix}')
	root = settings.CACHE / 'debian-config' / f'apt-{arch.deb_arch}'
	source = settings.DEBIAN_CONFIG_APT_SOURCE.format(arch=arch.deb_arch)
	try:
		debs = _apt_download(root, source, [f'{pkg}:{arch.deb_arch}={version}'],
				     arch=arch.deb_arch)
	except WorkbenchError as e:
		raise WorkbenchError(f'no {pkg}:{arch.deb_arch} {version}, the version of '
				     f'{settings.SOURCE_PACKAGE}, from {root}/sources.list: {e}') from e
	unpacked = root / 'unpacked'
	_unpack(debs, unpacked)
	xz = unpacked / f'usr/src/{pkg}/config.{flavour}.xz'
	if not xz.is_file():
		flavours = sorted(p.name for p in xz.parent.glob('config.*.xz'))
		raise WorkbenchError(f'{pkg}:{arch.deb_arch} {version} has no {xz.name}; it has '
				     + ', '.join(flavours))
	prefix.mkdir(parents=True, exist_ok=True)
	tmp = config.with_name(config.name + '.tmp')
	tmp.write_text(output(['xz', '-dc', xz]) + '\n')
	tmp.rename(config)
	return config
