# SPDX-License-Identifier: GPL-2.0
"""What the workbench works on, as data: paths, packages, kernel configs, QEMU."""

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Tuple

REPO = Path(__file__).resolve().parents[2]
# What a run writes; a `make test` that spans bases gives each base's run
# a directory of its own (see TEST_PLAN).
OUT = Path(os.environ.get('MARKERS_OUT') or REPO / 'out')
LINUX_FILES = REPO / 'linux'
SERIES_DIR = REPO / 'series'
CONFIGS_DIR = REPO / 'configs'
GUEST_DIR = REPO / 'guest'

_xdg_cache = Path(os.environ.get('XDG_CACHE_HOME', Path.home() / '.cache'))
CACHE = Path(os.environ.get('MARKERS_CACHE', _xdg_cache / 'linux-markers'))
CCACHE_DIR = CACHE / 'ccache'



@dataclass(frozen=True)
class Base:
	"""A kernel the series applies to, as Debian packages its source.

	@apt_source: empty when the host's apt installs @package (a source of
	the host's Debian release); otherwise the sources.list line an apt of
	the workbench's own fetches it from, into the cache, as it fetches
	QEMU (deps.ensure_source()).
	@config_apt_source: the lines Debian's configs of that source come
	from (deps.debian_config()), with {arch} for the architecture.
	@llvm: the version suffix of the LLVM tools the clang config builds
	it with (LLVM=-16: clang-16, ld.lld-16...), from the host's apt: the
	oldest that the base's scripts/min-tool-version.sh takes and that
	has kCFI.
	"""
	name: str
	package: str
	apt_source: str
	config_package: str
	config_apt_source: str
	llvm: str

	@property
	def tarball(self) -> Path:
		prefix = Path('/') if not self.apt_source else CACHE / 'source' / self.package
		return prefix / 'usr/src' / f'{self.package}.tar.xz'


def _suites(*suites: str) -> str:
	return '\n'.join(f'deb [arch={{arch}}] http://deb.debian.org/{path} {suite} main'
			  for path, suite in suites)


BASES = {
	# Debian 12's 6.12 LTS, as its stable updates serve it.
	'6.12': Base('6.12', 'linux-source-6.12', '', 'linux-config-6.12',
		     _suites(('debian', 'bookworm'), ('debian', 'bookworm-updates'),
			     ('debian-security', 'bookworm-security')), '-16'),
	# The current kernel as Debian serves it to its stable users: Debian
	# 13's backports.
	'7.3': Base('7.3', 'linux-source-7.3',
		    'deb http://deb.debian.org/debian trixie-backports main',
		    'linux-config-7.3', _suites(('debian', 'trixie-backports')),
		    # 7.3 wants LLVM 17 or later; bookworm serves 19.
		    '-19'),
}
# The base the series is written for (series/, linux/): the current kernel.
# Every other base carries a delta on it (DELTA_DIR).
MAINLINE_BASE = '7.3'
# The base of this run: MARKERS_BASE (`make test BASE=6.12`), else the default.
DEFAULT_BASE = MAINLINE_BASE
BASE = BASES[os.environ.get('MARKERS_BASE') or DEFAULT_BASE]

# The delta on the series that this base carries (wb/series.py), if any.
DELTA_DIR = REPO / 'backport' / BASE.name
SOURCE_PACKAGE = BASE.package
SOURCE_TARBALL = BASE.tarball
SOURCE_TOPDIR = BASE.package

# Debian packages the workbench needs; installed with --no-install-recommends.
APT_PACKAGES = (
	*((SOURCE_PACKAGE,) if not BASE.apt_source else ()),
	'qemu-system-x86', 'busybox-static', 'ccache',
	# The cross compilers of the arm64 and riscv64 kernels (settings.ARCHS).
	'gcc-aarch64-linux-gnu', 'gcc-riscv64-linux-gnu',
	'build-essential', 'bc', 'bison', 'flex', 'libssl-dev', 'libelf-dev',
	'cpio', 'kmod', 'xz-utils', 'python3', 'git', 'perl', 'rsync', 'sparse',
	# scripts/checkpatch.pl runs scripts/spdxcheck.py, which needs these.
	'python3-ply', 'python3-git',
	# Documentation/markers.txt is checked as reStructuredText.
	'python3-docutils',
	# The tracer tools the guest runs on marker events (guest/tests/13-*):
	# perf and trace-cmd as Debian ships them, and guest/progs/marker-bpf.c,
	# built against Debian's libbpf.
	'linux-perf', 'trace-cmd', 'libbpf-dev',
	# bpftrace as Debian ships it, and the clang whose libclang it
	# carries: it lists the kernel headers bpftrace compiles against
	# (wb/initramfs.py, _install_headers()).
	'bpftrace', 'clang-14',
	# The clang config's toolchain (Base.llvm): kCFI needs clang 16, 7.3
	# LLVM 17.
	*(f'{tool}{BASE.llvm}' for tool in ('clang', 'lld', 'llvm')),
	# SystemTap 4.8, whose kernel.mark() probes read Module.markers of a
	# build tree (wb/checks.py, systemtap_cases()).
	'systemtap',
)

# What the guest's initramfs carries besides busybox, with the shared
# libraries they need (see wb/initramfs.py): x86_64 binaries of the host,
# in the guests of an Arch with guest_tools only.
GUEST_PROGRAMS = ('/usr/bin/perf', '/usr/bin/trace-cmd')
# Programs of guest/progs/, built on the host: source, libraries.
GUEST_PROGS_BUILT = (('marker-bpf.c', ('-lbpf',)), ('macro-bench.c', ()), ('perf-open.c', ()))
# Debian's bpftrace, in the guests of a kernel that runs BPF programs on
# trace events (CONFIG_BPF_EVENTS): about 200 MB of libraries (LLVM and
# clang), which the others need not unpack. Without kernel BTF it compiles
# against the kernel's headers in /lib/modules/RELEASE/build: those that
# HEADERS_CLANG reads for HEADERS_ROOTS, with the flags bpftrace 0.17 gives
# its libclang 14 (kernel_headers()).
GUEST_BPFTRACE = '/usr/bin/bpftrace'
# Debian's SystemTap, run on the host against x86_64 build trees.
STAP = '/usr/bin/stap'
HEADERS_CLANG = 'clang-14'
HEADERS_ROOTS = ('linux/types.h',)
# What upstream's ftrace selftests run with in the guests of a config
# whose boots have the ftracetest phase: a POSIX shell that is not busybox
# (one of them looks for a shell named *sh in the maps of a uprobe's
# target, busybox is /bin/busybox there), and util-linux's chrt and
# coreutils' nice, whose options they use.
FTRACETEST_PROGRAMS = ('/usr/bin/dash', '/usr/bin/chrt', '/usr/bin/nice')
FTRACETEST_SOURCE = 'tools/testing/selftests/ftrace'

# Identity written into the generated patches.
AUTHOR = 'Linux Markers Team <markers@example.org>'
# Fixed dates keep the series commits reproducible, so that re-applying an
# unchanged series gives the same commits and touches no file.
COMMIT_DATE = '2026-01-01T00:00:00+0000'


# What a test guest does (guest/test.sh), in order: report the boot-time
# KUnit run, run every suite again after boot, run the end-to-end tests.
# A boot of a kmemleak kernel then scans for leaks (see wb/expect.py).
GUEST_PHASES = ('boot-kunit', 'after-boot-kunit', 'e2e')
# In a boot of KernelConfig.guests, 'e2e:A,B' is the e2e phase running
# only the scripts A and B (file stems of guest/tests), which the boot of
# the plain 'e2e' then leaves out (expect.guest_scripts()).
E2E_SOME = 'e2e:'


def phase_name(entry: str) -> str:
	"""The phase of guest/test.sh that @entry of a boot runs."""
	return entry.partition(':')[0]


# A phase that a config may give one of its boots, after the others:
# upstream's ftrace selftests (FTRACETEST_SOURCE of the patched tree, run
# by guest/ftracetest.sh), every case of which must pass, or be one of
# FTRACETEST_SKIPS (its description, as ftracetest prints it: why this
# guest cannot run it), which must then be skipped.
FTRACETEST_PHASE = 'ftracetest'
FTRACETEST_SKIPS = {
	'Generic dynamic event - add/remove probes with BTF arguments':
		'needs the kernel\'s BTF (CONFIG_DEBUG_INFO_BTF): the matrix builds no debug '
		'info, which would cost each build minutes',
	'Test failure of registering kprobe on non unique symbol':
		'needs two local functions named name_show in /proc/kallsyms; the debug '
		'kernel, allnoconfig plus fragments, has at most one',
}
# Cases that `make ftracetest` does not run, by path under test.d, and why:
# what they would show is not of this kernel (a bug of 6.12.y's own that
# crashes it without the series too, a lint of the suite's own scripts).
FTRACETEST_EXCLUDED = {
	'selftest/bashisms.tc':
		'a lint of the suite\'s own shell scripts with checkbashisms (Debian\'s '
		'devscripts, a perl program the guest does not carry), nothing of the '
		'kernel. Run on the host (checkbashisms 2.23.4 on the 6.12.117 tree), it '
		'fails on upstream\'s kprobe/kprobe_non_uniq_symbol.tc, line 9, reading '
		'the regex "... t ${SYMBOL}$" as a $"..." string: a false positive',
	'dynevent/add_remove_tprobe_module.tc':
		'oopses 6.12.117: after the module of a tracepoint probe (t:) goes, '
		'trace_fprobe\'s module notifier unregisters its fprobe but leaves it looking '
		'registered (fprobe_is_registered() reads ops.saved_func) and its tracepoint '
		'TRACEPOINT_STUB; removing the event then unregisters the fprobe again '
		'(WARNING at kernel/trace/ftrace.c:387) and dereferences the stub '
		'(general protection fault in trace_fprobe_release()). trace_fprobe.c and '
		'fprobe.c are as upstream has them',
}
# Cases that change what every later run of their boot runs with, and that
# ftracetest's own reset between cases (initialize_ftrace() in test.d/
# functions) does not undo. make ftracetest gives each a boot of its own
# (ftracetest reruns the cases flagged "instance" after all the others, so
# last in a list is not last in a boot), after which guest/ftracetest.sh
# undoes it, before the boot's kmemleak scan.
FTRACETEST_LAST = {
	'ftrace/fgraph-profiler.tc':
		'turns the function profiler on (function_profile_enabled) and leaves it '
		'on, so each later case runs with every function of the kernel profiled: '
		'fgraph-retval.tc took 32 s alone and had not ended after 1320 s when it '
		'ran next (make ftracetest of 2026-11-27)',
}
# The whole suite is too slow for make test under TCG: 147 cases at up to
# a minute each in the debug guest, with another guest beside it (every
# case starts by reading the filter and trigger files of every event,
# syscall and network events included). `make ftracetest-markers` runs
# the cases that meet what the series adds to tracing, by path under
# test.d: those that enable every event or a subsystem's, add and remove
# dynamic events (among which the m: type registers), eprobes on events,
# hist and enable triggers, instances that come and go with an event on
# (with their runs in an instance, for those flagged so). Since v4 no
# marker event exists unless somebody makes one, and each case starts by
# removing every dynamic event: the marker events themselves are the
# end-to-end scripts' (13 and 14). `make ftracetest` runs them all, in
# FTRACETEST_CONFIG.
FTRACETEST_CASES = (
	'00basic/basic4.tc',
	'event/toplevel-enable.tc',
	'event/subsystem-enable.tc',
	'event/event-enable.tc',
	'instances/instance-event.tc',
	'dynevent/add_remove_eprobe.tc',
	'dynevent/test_duplicates.tc',
	'trigger/trigger-hist.tc',
	'trigger/trigger-eventonoff.tc',
	'trigger/inter-event/trigger-synthetic-eprobe.tc',
)
FTRACETEST_CONFIG = 'debug'
# `make ftracetest` cuts its cases into shares of about this many seconds,
# one boot each (ftracetest.shares()): long enough that booting and the
# kmemleak scan at the end (about a minute) are a small part of a share,
# short enough that no guest is left with much when the other has ended.
FTRACETEST_SHARE_SECONDS = 900
# A share's list goes on the kernel command line (2048 bytes on x86).
FTRACETEST_SHARE_CHARS = 1200
# What such a boot gets for booting and its scan, in its timeout
# (ftracetest.timeout()).
FTRACETEST_BOOT_SECONDS = 600
# Seconds of guest uptime a case takes in FTRACETEST_CONFIG, both of its
# runs added up (the second in an instance, for "# flags: instance"), as
# make ftracetest measures them (out/ftracetest/case-seconds.txt); a case
# not listed is expected to take FTRACETEST_DEFAULT_SECONDS, the median of
# the 77 cases timed. These are the longest of the boots of make ftracetest
# on 2026-11-27 (two guests side by side; the run was stopped after six of
# its nine boots) and of make test's ftracetest phase, whichever took
# longer, but for cases run after fgraph-profiler.tc in their boot (see
# FTRACETEST_LAST). fgraph-multi.tc took about 1300 s in a guest of 1564 s
# on 2026-11-26, and had not ended after 2740 s on 2026-11-27 with four
# more jobs on the host: its boot gets three times 1500 s.
FTRACETEST_SECONDS = {
	'direct/ftrace-direct.tc': 1830,
	'ftrace/fgraph-multi.tc': 1500,
	'ftrace/fgraph-profiler.tc': 490,
	'trigger/trigger-hist.tc': 410,
	'00basic/test_ownership.tc': 275,
	'kprobe/multiple_kprobes.tc': 265,
	'ftrace/func_profiler.tc': 245,
	'ftrace/func_set_ftrace_file.tc': 220,
	'kprobe/kprobe_syntax_errors.tc': 170,
	'00basic/basic2.tc': 170,
	'dynevent/fprobe_syntax_errors.tc': 165,
	'trigger/trigger-eventonoff.tc': 155,
	'ftrace/func_event_triggers.tc': 140,
	'dynevent/tprobe_syntax_errors.tc': 130,
	'ftrace/func_traceonoff_triggers.tc': 130,
	'00basic/ringbuffer_subbuf_size.tc': 125,
	'00basic/ringbuffer_size.tc': 105,
	'00basic/mount_options.tc': 100,
	'event/toplevel-enable.tc': 100,
	'00basic/trace_marker.tc': 95,
	'event/event-enable.tc': 90,
	'ftrace/func_profile_stat.tc': 85,
	'event/subsystem-enable.tc': 80,
	'00basic/basic3.tc': 80,
	'kprobe/kprobe_args_syntax.tc': 80,
	'ftrace/func_cpumask.tc': 80,
	'dynevent/fprobe_entry_arg.tc': 80,
	'instances/instance-event.tc': 70,
}
FTRACETEST_DEFAULT_SECONDS = 50
# The end-to-end scripts; a config names them by file stem (the guest
# reports each as "@@ script STEM" and "@@ script-end STEM STATUS"): a file
# name is what one adds, deletes or renames, and a script may emit several
# suites, or none when it is broken.
E2E_DIR = GUEST_DIR / 'tests'


@dataclass(frozen=True)
class Arch:
	"""How the kernels of one architecture are built and booted."""
	name: str
	make_arch: str			# ARCH= of the kernel's make
	cross_compile: str		# CROSS_COMPILE=; '' for the host's gcc
	image: str			# the boot image in the build dir; make target: its name
	deb_arch: str			# Debian's name of it, for busybox-static
	# Booting (none: its configs are built only). QEMU comes from
	# QEMU_PACKAGES, unpacked under the cache (deps.ensure_qemu()).
	qemu_binary: str = ''
	qemu_args: Tuple[str, ...] = ()	# machine, CPU, firmware, memory
	console: str = ''		# console= of the kernel command line
	# The results channel, a file on the host ({path}; {option_path} is
	# the same with its commas doubled, as an option list wants them), and
	# what stands in for it when nothing reads it (make run on a terminal);
	# the guest finds it with wb.results= in cmdline (guest/lib.sh, default
	# ttyS1).
	results_args: Tuple[str, ...] = ()
	results_null_args: Tuple[str, ...] = ()
	cmdline: Tuple[str, ...] = ()	# after console= and KERNEL_CMDLINE
	# Whether the guests get GUEST_PROGRAMS and GUEST_PROGS_BUILT, which
	# are binaries of the host (guest/tests/13-* skips their cases elsewhere).
	guest_tools: bool = False

	@property
	def srcarch(self) -> str:
		"""SRCARCH of the kernel's Makefile: its directory under arch/."""
		return {'x86_64': 'x86'}.get(self.make_arch, self.make_arch)


X86_64 = Arch(
	name='x86_64', make_arch='x86_64', cross_compile='', image='arch/x86/boot/bzImage',
	deb_arch='amd64', qemu_binary='qemu-system-x86_64',
	# qboot, and two serial ports: ttyS0 is the console, ttyS1 carries the
	# guest's results to the host.
	qemu_args=('-nodefaults', '-no-reboot', '-display', 'none',
		   '-bios', 'qboot.rom',
		   '-m', '1024'),
	console='ttyS0',
	results_args=('-serial', 'file:{path}'),
	results_null_args=('-serial', 'null'),
	guest_tools=True)
ARM64 = Arch(
	name='arm64', make_arch='arm64', cross_compile='aarch64-linux-gnu-',
	image='arch/arm64/boot/Image', deb_arch='arm64', qemu_binary='qemu-system-aarch64',
	# -cpu max: pointer authentication (ARMv8.3), which the kernel of
	# configs/arm64.config uses on its return addresses, and BTI (ARMv8.5),
	# which only its user space can use (ARM64_BTI_KERNEL needs clang).
	# cortex-a72 and neoverse-n1 have neither: their paciasp and autiasp
	# are NOPs, and live patching would never meet signed return addresses.
	# It costs: the whole test guest took 46 s with either, or with max
	# and pauth=off, and 54 to 56 s with pointer authentication (QEMU
	# 10.0.2, 2026-11-24). pauth-impdef=on asks for QEMU's own algorithm
	# rather than QARMA5, meant to be cheaper under TCG (no difference
	# measured in this guest); the kernel cannot tell them apart.
	qemu_args=('-nodefaults', '-no-reboot', '-display', 'none',
		   '-M', 'virt', '-cpu', 'max,pauth-impdef=on',
		   '-m', '1024'),
	# The PL011 of the virt machine is the console; the results go to a
	# virtio console, /dev/hvc0 in the guest.
	console='ttyAMA0',
	results_args=('-device', 'virtio-serial-device',
		      '-chardev', 'file,id=results,path={option_path}',
		      '-device', 'virtconsole,chardev=results'),
	results_null_args=('-device', 'virtio-serial-device',
			   '-chardev', 'null,id=results',
			   '-device', 'virtconsole,chardev=results'),
	cmdline=('wb.results=/dev/hvc0',))
RISCV64 = Arch(
	name='riscv64', make_arch='riscv', cross_compile='riscv64-linux-gnu-',
	image='arch/riscv/boot/Image', deb_arch='riscv64')
ARCHS = {arch.name: arch for arch in (X86_64, ARM64, RISCV64)}


@dataclass(frozen=True)
class KernelConfig:
	"""One kernel of the test matrix: allnoconfig plus its fragments."""
	name: str
	description: str
	fragments: Tuple[str, ...]
	# Boots of the kernel, each doing some of GUEST_PHASES (E2E_SOME gives
	# one boot some of the scripts); several boots run at once, on
	# different cores. Empty: build only.
	guests: Tuple[Tuple[str, ...], ...] = (GUEST_PHASES,)
	suites: Tuple[str, ...] = ()	# KUnit suites that must run, at and after boot
	# End-to-end scripts (file stems of guest/tests/*.sh) that a boot running
	# the e2e phase must run to their end: those of e2e= must run cases (each
	# suite at least one not skipped), those of e2e_skipped= must skip every
	# case (the config lacks what they test). Every script of guest/tests
	# must be in one of them: a new script fails until it is declared.
	e2e: Tuple[str, ...] = ()
	e2e_skipped: Tuple[str, ...] = ()
	# Seconds for the whole guest run: a hang detector, not a speed check.
	# An rt guest takes 500 to 750 s with one other guest beside it, and
	# ran past 900 s in its after-boot KUnit phase with three (2026-11-26).
	boot_timeout: int = 1800
	cmdline: Tuple[str, ...] = ()
	qemu_args: Tuple[str, ...] = ()	# after the Arch's (a CPU model, say)
	# What /sys/devices/system/cpu/vulnerabilities/ must say in each boot,
	# as (file, its first words): the mitigation a config is there to run.
	vulnerabilities: Tuple[Tuple[str, str], ...] = ()
	smp: int = 4
	lint: bool = False		# W=1 and sparse on the series' new files
	arch: Arch = X86_64
	# The version suffix of the LLVM tools it is built with (LLVM=-16:
	# clang-16, ld.lld-16...); '' for the Arch's gcc and binutils.
	llvm: str = ''
	# Whether it is in a base's whole matrix (`make test BASE=...`, `make
	# test-all`; TEST_PLAN takes from those); False only with the reason in
	# a comment at the config, which then runs only when CONFIGS= names it.
	in_make_test: bool = True
	# The configuration it starts from: '' for allnoconfig; otherwise the
	# flavour of a config that Debian ships in DEBIAN_CONFIG_PACKAGE of
	# the source's version (config.<flavour>.xz), which kbuild.py turns
	# into the build's (debian_config_text()): its fragments on top, and
	# its modules dropped but those the fragments ask for.
	debian: str = ''
	# The modules it builds, as kbuild targets (lib/foo.ko), when not
	# every one its configuration has: those its tests load, of a config
	# that has thousands (Debian's).
	modules: Tuple[str, ...] = ()


# What the kernels with the tracing fragment run: the KUnit suites
# (kprobes_test needs kprobes), and the end-to-end scripts but for those of
# E2E_DEBUG, which need the debug fragment (fault injection, kmemleak) and
# skip every case without it.
TRACING_SUITES = ('immediate', 'markers', 'marker_fuzz', 'kprobes_test')
E2E_TRACING = ('05-upstream-static-keys', '06-static-key-stress', '10-markers-tracefs',
	       '12-markers-kprobe-events', '13-markers-events', '14-markers-event-lifetimes',
	       '15-markers-ftrace', '20-markers-samples', '25-markers-out-of-tree',
	       '30-markers-fuzz', '50-markers-bench', '99-markers-lockdown')
E2E_DEBUG = ('40-markers-nomem', '90-kmemleak')
# The script of marker events made at boot: it runs its cases in a boot of
# its own, whose command line carries E2E_CMDLINE's, and skips every case
# in a boot without (the configs that give it none have it in e2e_skipped=).
E2E_BOOT_EVENTS = ('16-markers-boot-events',)

# What a boot whose E2E_SOME entry names a script adds to its kernel
# command line for it (workbench.guest_cmdline()): marker_event= makes
# two events and enables them in the top instance, with ',' for a blank
# and ';' between commands; given twice, as bootconfig gives an array,
# its second adds a command that names no marker and must fail alone.
# The script checks that the line is this one.
E2E_CMDLINE = {
	'16-markers-boot-events': (
		'marker_event=m,vfs_openat;m:boot/clone,task_clone,sig=$arg2,fl=$arg1:u64',
		'marker_event=m,no_such_marker'),
}
# What such a boot's initrd carries as its bootconfig, with "bootconfig" on
# its command line (workbench.guest_bootconfig()): an array of two values,
# which the kernel passes as two marker_event= before the command line's.
E2E_BOOTCONFIG = {
	'16-markers-boot-events':
		'kernel.marker_event = "m:bconf/exit,task_exit,code=$arg2:long", '
		'"m:bconf/pipe,pipe_write"\n',
}

# Of the 4000 modules of Debian's configs, those of the fragments, which
# the tests load: the KUnit suites' modules, the benchmark, upstream's
# static key tests, the samples.
DISTRO_MODULES = ('kernel/tests/immediate_kunit_mod.ko', 'kernel/tests/marker_kunit_mod.ko',
		  'lib/markers_bench/markers_bench.ko', 'lib/test_static_key_base.ko',
		  'lib/test_static_keys.ko', 'samples/markers/marker-example.ko',
		  'samples/markers/probe-example.ko')

# The matrix of `make test`, in build order.
MATRIX = {
	'debug': KernelConfig(
		name='debug',
		description='x86_64 defaults (IBT, retpolines, rethunk, ORC, PREEMPT), '
			    'lockdep, KASAN, kmemleak, fault injection',
		fragments=('base', 'x86', 'tracing', 'x86-tracing', 'markers', 'debug',
			   'ftracetest'),
		suites=TRACING_SUITES,
		e2e=E2E_TRACING + E2E_DEBUG + E2E_BOOT_EVENTS,
		# The longest guest (KASAN): its after-boot KUnit run on a
		# core of its own, while another boot of the same kernel runs
		# the rest. Upstream's ftrace selftests (FTRACETEST_PHASE)
		# left this boot for `make ftracetest` (FTRACETEST_CASES with
		# `make ftracetest-markers`): this boot decides how long make
		# test takes, and in the CI run of 2026-12-03 it reached its
		# timeout in them. Alone on the host (2026-12-03), the first
		# boot took 2510 s, 685 of them in 15-markers-ftrace (the
		# markers suite again, under the function tracer), the second
		# 1331 s, 500 of them in the boot-time run it does not report
		# (now kunit.autorun=0: workbench.guest_cmdline()): the second
		# boot runs 15-markers-ftrace after its KUnit run.
		# A third boot makes marker events at boot (E2E_CMDLINE): the
		# only config with built-in sites a shell can hit (MARK_HOT()).
		guests=(('boot-kunit', 'e2e'), ('after-boot-kunit', 'e2e:15-markers-ftrace'),
			('e2e:16-markers-boot-events',)),
		# A hang detector, not a speed bound: under KASAN and lockdep,
		# sharing two cores with the next kernel's build, each boot
		# takes 12 to 20 min, and its e2e boot reached its kmemleak scan
		# after 20 min on a loaded host (2026-11-25); with bpftrace and
		# the ftracetest phase, in a make test from an empty cache, the
		# second boot took 34 min (2026-11-25).
		boot_timeout=3600,
		# KUnit waits for a case in D state; its own timeout (300 s a
		# case) detects a hung case, the hung task detector's 120 s
		# would flag the longest stress cases in these boots.
		#
		# Call depth tracking active, as Debian's kernel runs it on
		# Intel CPUs affected by Retbleed: on a Skylake, retbleed=stuff
		# (which needs spectre_v2=retpoline) makes every call of the
		# kernel, and every call a marker switch retargets, go through
		# the accounting thunk in the padding before its destination.
		# QEMU's default CPU is an AMD model, for which the kernel keeps
		# the thunks out of the text.
		#
		# The fuzz of the enable file (30-markers-fuzz) writes 100
		# commands, not 400: each write and its checks take about 2 s
		# here (786 s for 400, 2026-11-27, the longest script of the
		# longest boot of make test), 0.06 to 0.26 s in rt, clang and
		# arm64, which write 400 with a seed of their own. 100 writes
		# still draw each kind of command about ten times.
		cmdline=('sysctl.kernel.hung_task_timeout_secs=600',
			 'spectre_v2=retpoline', 'retbleed=stuff', 'wb.fuzz_writes=100'),
		qemu_args=('-cpu', 'Skylake-Client'),
		vulnerabilities=(('retbleed', 'Mitigation: Stuffing'),),
		lint=True),
	'rt': KernelConfig(
		name='rt',
		description='PREEMPT_RT, lockdep with RCU and sleeping checks',
		fragments=('base', 'x86', 'tracing', 'x86-tracing', 'markers', 'rt'),
		suites=TRACING_SUITES,
		e2e=E2E_TRACING,
		e2e_skipped=E2E_DEBUG + E2E_BOOT_EVENTS,
		# Two boots: the last config of make test (6.12's), its guest
		# alone at the end of the run, used one core of two for 705 s
		# (2026-12-02); the two halves take about 300 and 400 s.
		guests=(('boot-kunit', 'e2e'), ('after-boot-kunit',))),
	'generic': KernelConfig(
		name='generic',
		description='CONFIG_IMMEDIATE=n: asm-generic immediate values, patched marker sites; KASAN',
		fragments=('base', 'x86', 'markers', 'generic', 'kasan'),
		suites=('immediate', 'markers', 'marker_fuzz'),
		e2e=('06-static-key-stress', '20-markers-samples', '25-markers-out-of-tree'),
		# No tracing fragment: no tracefs, kprobe events, function tracer,
		# static key test modules, lockdown or benchmark (which needs
		# them); no debug fragment.
		e2e_skipped=('05-upstream-static-keys', '10-markers-tracefs',
			     '12-markers-kprobe-events', '13-markers-events',
		     '14-markers-event-lifetimes', '15-markers-ftrace',
			     '30-markers-fuzz',
			     '16-markers-boot-events', '40-markers-nomem', '50-markers-bench',
			     '90-kmemleak', '99-markers-lockdown')),
	'clang': KernelConfig(
		name='clang',
		description=f'built with clang (LLVM={BASE.llvm}), kCFI as Android and ChromeOS '
			    'build theirs; FineIBT built in',
		fragments=('base', 'x86', 'tracing', 'x86-tracing', 'markers', 'clang'),
		llvm=BASE.llvm,
		# The registry's fuzz is a module here (clang.config):
		# 30-markers-fuzz loads it, rather than the KUnit phases.
		suites=tuple(s for s in TRACING_SUITES if s != 'marker_fuzz'),
		e2e=E2E_TRACING,
		e2e_skipped=E2E_DEBUG + E2E_BOOT_EVENTS),
	# Debian's production amd64 kernel with the series on, as a distro
	# builder would turn it on (configs/distro.config says what differs
	# from Debian's), booted as debug is: call depth tracking active.
	# Not in make test without CONFIGS=distro: its build from an empty
	# build directory and ccache took 44 min here (2658 s, 2026-11-25,
	# sharing the cores with guests), which a cold make test cannot add
	# within CI's 90 min on two cores.
	'distro': KernelConfig(
		name='distro',
		description=f"Debian's amd64 config ({BASE.config_package}), the series on, lockdep",
		fragments=('markers', 'tracing', 'x86-tracing', 'distro'),
		debian='amd64_none_amd64',
		modules=DISTRO_MODULES,
		suites=TRACING_SUITES,
		e2e=E2E_TRACING,
		e2e_skipped=E2E_DEBUG + E2E_BOOT_EVENTS,
		cmdline=('spectre_v2=retpoline', 'retbleed=stuff'),
		qemu_args=('-cpu', 'Skylake-Client'),
		vulnerabilities=(('retbleed', 'Mitigation: Stuffing'),),
		in_make_test=False),
	# Debian's production arm64 kernel with the series on, built only:
	# configs/distro-arm64.config says what differs besides distro.config.
	# Not in make test without CONFIGS=distro-arm64, for distro's reason.
	'distro-arm64': KernelConfig(
		name='distro-arm64',
		description=f"Debian's arm64 config ({BASE.config_package}), the series on, lockdep; "
			    'built only',
		fragments=('markers', 'tracing', 'generic', 'distro', 'distro-arm64'),
		arch=ARM64,
		debian='arm64_none_arm64',
		modules=DISTRO_MODULES,
		guests=(),
		in_make_test=False),
	# After the kernels that boot on x86, so that its guest, which runs
	# alone, boots while the two that are only built build.
	'arm64': KernelConfig(
		name='arm64',
		description='arm64 defaults (PREEMPT, pointer authentication, strict RWX) on '
			    "QEMU's virt machine; patched marker sites, asm-generic immediate "
			    'values',
		arch=ARM64,
		fragments=('base', 'arm64', 'tracing', 'markers', 'generic'),
		suites=TRACING_SUITES,
		e2e=E2E_TRACING,
		e2e_skipped=E2E_DEBUG + E2E_BOOT_EVENTS),
	'nomarkers': KernelConfig(
		name='nomarkers',
		description='CONFIG_MARKERS=n with the samples: builds, carries nothing',
		fragments=('base', 'x86', 'nomarkers'),
		guests=()),
	'riscv64': KernelConfig(
		name='riscv64',
		description='riscv64, asm-generic immediate values: the markers, their samples '
			    'and KUnit suites build',
		arch=RISCV64,
		fragments=('base', 'riscv64', 'markers', 'generic'),
		guests=()),
}

# A base's whole matrix: what `make test BASE=<base>` runs, on any base.
WHOLE_MATRIX = tuple(name for name, config in MATRIX.items() if config.in_make_test)

# What `make test` runs without CONFIGS nor BASE, as "<base>/<config>", in
# this order; a plan that spans bases runs each base's part in a run of its
# own (out/<base>), the next base's builds starting when the previous
# base's are done. `make test-all` runs every base's whole matrix; CONFIGS
# may name "<base>/<config>".
#
# Both whole matrices do not fit CI's 90 min on two cores: 6.12's alone
# took 76 min from an empty cache here (2026-11-28), and the plan of 7.3's
# debug, rt, clang and arm64 with 6.12's rt took 89 min 42 s (2026-12-02).
# So make test runs the series where it is written, 7.3, in the configs
# whose code paths no other config of the plan runs: debug (KASAN,
# lockdep, call depth tracking), clang (kCFI, FineIBT) and arm64; and its
# backport in the 6.12 config that Debian's own kernel is closest to (gcc,
# x86 sites, lockdep), PREEMPT_RT, which boots the same suites. 7.3's rt
# runs the same code as 6.12's but for the fenced edges (README, "Two
# bases"), and costs about 12 min cold: it is the first to leave. What
# leaves runs in `make test-all`: 7.3's rt, generic, nomarkers and
# riscv64, and 6.12's other six configs. README gives the times.
TEST_PLAN = ('7.3/debug', '7.3/clang', '7.3/arm64', '6.12/rt')
assert all(name.partition('/')[2] in WHOLE_MATRIX for name in TEST_PLAN)

# The kernel of `make bench`: a production configuration (no debugging).
BENCH = KernelConfig(
	name='bench',
	description='x86_64 defaults, ftrace, kprobes, markers; no debugging options',
	fragments=('base', 'x86', 'bench', 'x86-bench'))
# The benchmark kernels of the other architectures: one -icount run each,
# the same rows (those the architecture has).
BENCH_OTHERS = (
	KernelConfig(
		name='bench-arm64',
		description='arm64 defaults, ftrace, kprobes, markers; no debugging options',
		arch=ARM64,
		fragments=('base', 'arm64', 'bench')),
)
# New files of the series that only a config outside the test matrix
# compiles, with that config: `make test` leaves them out of its W=1 and
# sparse check, and `make bench-macro` checks them in its kernels.
OBJECTS_BUILT_WITH = {
	'kernel/marker_hot.o': 'CONFIG_MARKERS_HOT_TRACEPOINTS',
}
# The kernels of `make bench-macro`: the benchmark kernel with the
# workloads' sockets and RAM disk, and patch 19's MARK_HOT() sites built
# as nothing (the reference), as markers and as tracepoints.
BENCH_MACRO = tuple(
	KernelConfig(
		name=f'macro-{variant}',
		description=f'the benchmark kernel, its hot paths instrumented with {variant}',
		fragments=('base', 'x86', 'bench', 'x86-bench', 'macro', f'hot-{variant}'))
	for variant in ('none', 'markers', 'tracepoints'))
# make bench-poke's variant of the series: a marker's switch in chunks of
# 256 entries, a batch each, against patch 04's one batch.
BENCH_POKE_CHUNKS = REPO / 'tests/bench/chunks-of-256.diff'
# Runs of the benchmark: one under -icount with single-threaded TCG (the
# guest clock counts guest instructions: exact and repeatable), then some
# on the host's clock with multi-threaded TCG (vCPUs are host threads).
BENCH_WALL_RUNS = 5
BENCH_ICOUNT_ARGS = ('-icount', 'shift=0,sleep=off')
BENCH_WALL_TCG = 'multi'
BENCH_TIMEOUT = 1200

# `make mutate` stops a guest whose console has been silent this many
# seconds after its first splat (qemu.boot()): it has failed already. A
# mutation that breaks the int3 patcher can leave a CPU in the middle of
# an instruction: mutation 76's debug guest warned at 4.5 s and was silent
# from 20 s to its 3600 s timeout. A splat fails the run whatever comes
# after it, so the stop changes no verdict, only how soon it comes.
MUTATION_HUNG_AFTER_SPLAT = 180

# The kernel `make run` boots; the configuration of `make series-check`
# (every option the series adds, built after each patch).
RUN_CONFIG = 'debug'
SERIES_CHECK_CONFIG = 'rt'

# Where the workbench's own QEMU comes from (see deps.ensure_qemu()): the
# QEMU binaries of every Arch that boots, and what they share.
QEMU_APT_SOURCE = 'deb http://deb.debian.org/debian bookworm-backports main'
QEMU_APT_RELEASE = 'bookworm-backports'
QEMU_PACKAGES = ('qemu-system-x86', 'qemu-system-arm', 'qemu-system-common',
		 'qemu-system-data')
# Where the busybox-static of a guest of another architecture than the
# host's comes from (see deps.busybox()).
BUSYBOX_APT_SOURCE = 'deb [arch={arch}] http://deb.debian.org/debian bookworm main'
# Debian's kernel configs, one per flavour, of the version of
# SOURCE_PACKAGE (see deps.debian_config()), from the suites that serve
# its stable updates.
DEBIAN_CONFIG_PACKAGE = BASE.config_package
DEBIAN_CONFIG_APT_SOURCE = BASE.config_apt_source
HOST_BUSYBOX = Path('/bin/busybox')
# TCG, as there is no usable KVM here; each Arch gives the machine.
#
# Single-threaded TCG: its vCPUs take turns, and a guest cpu_relax() hands
# over to the next, so code runs on one vCPU while another patches it, at
# translation-block granularity. Multi-threaded TCG (QEMU 7.2 and 10) loses
# cross-vCPU code modification: unpatched 6.12, toggling one upstream static
# key while three kthreads run its site, dies on a stale int3 (see
# README.md, "Why single-threaded TCG"); --tcg=multi reproduces it.
TCG_THREADS = 'single'
# Guests that run at once on this host, each on one host core (single-
# threaded TCG), while the next kernel of the matrix builds: a slot each
# (qemu.guest_slot()), shared by every run of the workbench, the two bases
# of a `make test` among them. Without that, 6.12's two guests booted
# beside 7.3's two: four guests on two cores, each at half speed, and
# debug's second boot reached its timeout (the CI of 2026-12-03).
PARALLEL_GUESTS = 2
GUEST_SLOTS = CACHE / 'guest-slots'

# After console= of the Arch. noirqdebug: with two guests on the two
# cores, an rt guest printed "irq 3: nobody cared" and "Disabling IRQ #3"
# after its boot-time KUnit run, and its results channel (ttyS1, IRQ 3)
# never sent again: under that load, QEMU's UART raises more interrupts
# than the driver finds work for, and the kernel's spurious-interrupt
# detector turns the line off. The driver handles the others as before;
# qemu.STALLING_LINES stops a guest that loses a line anyway.
KERNEL_CMDLINE = (
	'panic=-1', 'oops=panic', 'initramfs_async=0',
	'printk.devkmsg=on', 'noirqdebug',
)
