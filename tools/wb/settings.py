# SPDX-License-Identifier: GPL-2.0
"""What the workbench works on, as data: paths, packages, kernel configs, QEMU."""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Tuple

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / 'out'
LINUX_FILES = REPO / 'linux'
SERIES_DIR = REPO / 'series'
CONFIGS_DIR = REPO / 'configs'
GUEST_DIR = REPO / 'guest'

_xdg_cache = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache'))
CACHE = Path(os.environ.get('MARKERS_CACHE', _xdg_cache / 'linux-markers'))
CCACHE_DIR = CACHE / 'ccache'

SOURCE_PACKAGE = 'linux-source-6.12'
SOURCE_TARBALL = Path('/usr/src/linux-source-6.12.tar.xz')
SOURCE_TOPDIR = 'linux-source-6.12'

# Debian packages the workbench needs; installed with --no-install-recommends.
APT_PACKAGES = (
	SOURCE_PACKAGE,
	'qemu-system-x86', 'busybox-static', 'ccache',
	'build-essential', 'bc', 'bison', 'flex', 'libssl-dev', 'libelf-dev',
	'cpio', 'kmod', 'xz-utils', 'python3', 'git', 'perl', 'rsync',
)

# Identity written into the generated patches.
AUTHOR = 'Linux Markers Team <markers@example.org>'
# Fixed dates keep the series commits reproducible, so that re-applying an
# unchanged series gives the same commits and touches no file.
COMMIT_DATE = '2026-01-01T00:00:00+0000'


@dataclass(frozen=True)
class KernelConfig:
	"""One kernel of the test matrix."""
	name: str
	description: str
	fragments: Tuple[str, ...]
	boot_timeout: int = 900		# seconds, for the whole guest run
	cmdline: Tuple[str, ...] = ()
	smp: int = 4


# The matrix of `make test`, in build order.
MATRIX = {
	'test': KernelConfig(
		name='test',
		description='x86_64 defaults (IBT, retpolines, rethunk, ORC, '
			    'PREEMPT) with KUnit, kprobes, ftrace',
		fragments=('common', 'test'),
		boot_timeout=900),
}

QEMU_BINARY = 'qemu-system-x86_64'
# Where the workbench's own QEMU comes from (see deps.ensure_qemu()).
QEMU_APT_SOURCE = 'deb http://deb.debian.org/debian bookworm-backports main'
QEMU_APT_RELEASE = 'bookworm-backports'
QEMU_PACKAGES = ('qemu-system-x86', 'qemu-system-common', 'qemu-system-data')
QEMU_KERNEL_IMAGE = 'arch/x86/boot/bzImage'
# Multi-threaded TCG (no KVM here), qboot, and two serial ports: ttyS0 is
# the console, ttyS1 carries the guest's results to the host.
QEMU_ARGS = (
	'-nodefaults', '-no-reboot', '-display', 'none',
	'-bios', 'qboot.rom',
	'-accel', 'tcg,thread=single',
	'-m', '2048',
)
KERNEL_CMDLINE = (
	'console=ttyS0', 'panic=-1', 'oops=panic', 'initramfs_async=0',
	'printk.devkmsg=on',
)
