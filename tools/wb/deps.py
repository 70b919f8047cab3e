# SPDX-License-Identifier: GPL-2.0
"""Installs the Debian packages the workbench needs, only when some are missing."""

import subprocess
from typing import List, Sequence

from . import settings
from .shell import WorkbenchError, is_root, log, run


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
