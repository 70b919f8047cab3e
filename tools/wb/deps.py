# SPDX-License-Identifier: GPL-2.0
"""Installs the Debian packages the workbench needs, only when some are missing."""

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


def _apt_private(*args: str) -> list:
	"""apt-get with its own sources, lists and cache under the workbench cache,
	so that the system's apt configuration is neither read nor changed."""
	root = settings.CACHE / 'apt'
	for d in ('lists/partial', 'cache/archives/partial'):
		(root / d).mkdir(parents=True, exist_ok=True)
	sources = root / 'sources.list'
	sources.write_text(settings.QEMU_APT_SOURCE + '\n')
	return ['apt-get', '-q', '-o', f'Dir::Etc::sourcelist={sources}',
		'-o', 'Dir::Etc::sourceparts=-', '-o', f'Dir::State::Lists={root}/lists',
		'-o', f'Dir::Cache={root}/cache', '-o', 'APT::Sandbox::User=root', *args]


def ensure_qemu() -> Path:
	"""Returns the QEMU the guests run on, fetching it into the cache once.

	Debian 12's QEMU 7.2, under multi-threaded TCG, oopses an unpatched
	6.12 kernel on an int3 of its own text_poke_bp() when ftrace is
	toggled while other vCPUs run; QEMU 10 from bookworm-backports does not
	(it still loses static key toggles, see settings.QEMU_ARGS). It is
	unpacked under the cache and runs with the libraries Debian 12's
	qemu-system-x86 brought in.
	"""
	prefix = settings.CACHE / 'qemu'
	binary = prefix / 'usr/bin' / settings.QEMU_BINARY
	if binary.is_file():
		return binary
	if not is_root():
		raise WorkbenchError(f'{binary} is missing; run as root once to fetch it')
	log(f'fetching QEMU from {settings.QEMU_APT_SOURCE} into {prefix}')
	run(_apt_private('update'))
	debs = settings.CACHE / 'apt/debs'
	shutil.rmtree(debs, ignore_errors=True)
	debs.mkdir(parents=True)
	run(_apt_private('download', *(f'{p}/{settings.QEMU_APT_RELEASE}'
				     for p in settings.QEMU_PACKAGES)), cwd=debs)
	tmp = prefix.with_name('qemu.tmp')
	shutil.rmtree(tmp, ignore_errors=True)
	for deb in sorted(debs.glob('*.deb')):
		run(['dpkg-deb', '-x', deb, tmp], quiet=True)
	shutil.rmtree(prefix, ignore_errors=True)
	tmp.rename(prefix)
	version = output([binary, '--version']).splitlines()[0]
	log(f'using {version}')
	return binary
