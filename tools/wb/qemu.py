# SPDX-License-Identifier: GPL-2.0
"""Booting a kernel in QEMU: console to a log (and optionally the terminal),
results channel (see settings.Arch) to a file, a hard timeout, one of the
host's guest slots."""

import contextlib
import enum
import fcntl
import platform
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, TextIO

from . import settings
from .results import SPLAT
from .shell import log, run


class GuestStatus(enum.Enum):
	POWERED_OFF = 'powered off'
	TIMEOUT = 'timed out'
	QEMU_FAILED = 'QEMU failed'
	STALLED = 'stopped by the host'
	SIGNALLED = 'ended by a signal to QEMU'
	HUNG = 'silent after a splat'


# Console lines after which a guest cannot finish, so that the host stops
# it at once rather than at its timeout: the kernel disabled an interrupt
# line as spurious ("irq 3: nobody cared", then "Disabling IRQ #3"). The
# 8250 UARTs of x86 guests, the console and the results channel, wait for
# their interrupts to send: once one is disabled, whatever writes to that
# port sleeps for good. Seen on a loaded host, with two guests on two
# cores; settings.KERNEL_CMDLINE has noirqdebug, which keeps the kernel
# from disabling lines, and this catches any other way of losing one.
STALLING_LINES = re.compile(r'Disabling IRQ #\d+')

# What QEMU prints when a signal (SIGINT, SIGTERM, SIGHUP: a ^C, a kill of
# the run's process group) ends it: it then exits 0, as if the guest had
# powered off. Whatever the guest reported until then says nothing of its
# kernel, so such a run must never count as one that ran and failed.
SIGNAL_LINE = re.compile(r'terminating on signal \d+')


@dataclass
class _Console:
	"""What the pump saw of the console, for boot()'s wait: the first
	STALLING_LINES line, QEMU's SIGNAL_LINE, the first splat
	(results.SPLAT) and when the last line came."""
	stalled: str = ''
	signalled: str = ''
	splat: str = ''
	last: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class GuestRun:
	status: GuestStatus
	seconds: float
	console: Optional[Path]
	results: Optional[Path]
	# With STALLED: the console line that made the host stop the guest;
	# with SIGNALLED: QEMU's line that says which signal ended it.
	stalled_by: str = ''

	def channel(self) -> str:
		"""What the guest sent on its results channel: '' if nothing, even
		when QEMU failed before creating the file."""
		if not self.results or not self.results.is_file():
			return ''
		return self.results.read_text(errors='replace')


def host_tsc_khz() -> Optional[int]:
	"""The rate of the host's TSC in kHz (tools/host/tsc-khz.c), which is
	the rate of an x86 TCG guest's TSC: QEMU reads the host's for the
	guest's rdtsc. None on a host that is not x86-64.

	Given as tsc_early_khz=, it lets the guest use its TSC for
	sched_clock() and the trace clock: the guests have neither HPET nor
	ACPI PM timer to calibrate it against (allnoconfig has no ACPI) and
	the PIT calibration fails under TCG, so without it the kernel marks the
	TSC unstable and its clocks count jiffies, one step per tick."""
	if platform.machine() != 'x86_64':
		return None
	source = settings.REPO / 'tools/host/tsc-khz.c'
	binary = settings.CACHE / 'host/tsc-khz'
	if not binary.is_file() or binary.stat().st_mtime < source.stat().st_mtime:
		binary.parent.mkdir(parents=True, exist_ok=True)
		run(['gcc', '-O2', '-Wall', '-Wextra', '-Werror', '-o', str(binary), str(source)])
	return int(run([str(binary)], quiet=True, capture=True).stdout)


def binary(qemu: Path, arch: settings.Arch) -> Path:
	"""The QEMU of @arch's guests under @qemu, the prefix where the
	workbench unpacked its QEMU (deps.ensure_qemu())."""
	return qemu / 'usr/bin' / arch.qemu_binary


def command(qemu: Path, arch: settings.Arch, image: Path, initrd: Path,
	    cmdline: Sequence[str], smp: int, results: Optional[Path], interactive: bool,
	    extra: Sequence[str] = (), tcg: Optional[str] = None) -> list:
	"""The QEMU command line; @tcg is 'single' or 'multi' (default:
	settings.TCG_THREADS)."""
	channel = ([a.format(path=results, option_path=str(results).replace(',', ',,'))
		    for a in arch.results_args] if results else list(arch.results_null_args))
	cmd = [str(binary(qemu, arch)), '-L', str(qemu / 'usr/share/qemu'), *arch.qemu_args,
	       '-accel', f'tcg,thread={tcg or settings.TCG_THREADS}', '-smp', str(smp),
	       '-kernel', str(image), '-initrd', str(initrd),
	       '-append', ' '.join([f'console={arch.console}', *settings.KERNEL_CMDLINE,
				    *arch.cmdline, *cmdline]),
	       '-serial', 'mon:stdio' if interactive else 'stdio', *channel, *extra]
	return cmd


def _pump(proc: subprocess.Popen, logf: TextIO, echo: Optional[TextIO],
	  seen: _Console) -> None:
	"""Copies the console to @logf (and @echo) and notes in @seen what
	boot() judges by; kills QEMU on the first line of STALLING_LINES."""
	for raw in proc.stdout:
		line = raw.decode(errors='replace').replace('\r', '')
		logf.write(line)
		logf.flush()
		if echo:
			echo.write(line)
			echo.flush()
		seen.last = time.monotonic()
		if not seen.stalled and STALLING_LINES.search(line):
			seen.stalled = line.strip()
			proc.kill()
		if not seen.signalled and SIGNAL_LINE.search(line):
			seen.signalled = line.strip()
		if not seen.splat and SPLAT.search(line):
			seen.splat = line.strip()


@contextlib.contextmanager
def guest_slot(what: str, quiet: bool = False) -> Iterator[int]:
	"""Holds one of the host's settings.PARALLEL_GUESTS guest slots, an
	flock() on a file of settings.GUEST_SLOTS, until the block ends; waits
	for one if every slot is taken, by this process or by another run of
	the workbench, and logs the wait unless @quiet. The lock goes with its
	file descriptor, so a run that dies frees its slots."""
	with _slot_files() as files:
		waited = time.monotonic()
		told = False
		while True:
			slot = next((i for i, f in enumerate(files) if _try_lock(f)), None)
			if slot is not None:
				break
			if not told and not quiet:
				log(f'{what}: waiting for one of the host\'s '
				    f'{settings.PARALLEL_GUESTS} guest slots')
			told = True
			time.sleep(2)
		if told and not quiet:
			log(f'{what}: got guest slot {slot} after '
			    f'{time.monotonic() - waited:.0f} s')
		yield slot


@contextlib.contextmanager
def every_guest_slot(what: str) -> Iterator[None]:
	"""Holds all of the host's guest slots until the block ends, taken
	together: while any of them is held elsewhere, it holds none and tries
	again, so two runs that each want every slot never hold one each and
	wait for the other's for good."""
	with _slot_files() as files:
		told = False
		while True:
			taken = []
			for f in files:
				if not _try_lock(f):
					break
				taken.append(f)
			if len(taken) == len(files):
				break
			for f in taken:
				fcntl.flock(f, fcntl.LOCK_UN)
			if not told:
				log(f'{what}: waiting for all of the host\'s '
				    f'{settings.PARALLEL_GUESTS} guest slots')
				told = True
			time.sleep(2)
		yield


@contextlib.contextmanager
def _slot_files() -> Iterator[List[TextIO]]:
	"""The files of the host's guest slots, open until the block ends: a
	slot's flock() goes with its file."""
	settings.GUEST_SLOTS.mkdir(parents=True, exist_ok=True)
	files = [open(settings.GUEST_SLOTS / f'slot-{i}', 'a')
		 for i in range(settings.PARALLEL_GUESTS)]
	try:
		yield files
	finally:
		for f in files:
			f.close()


def _try_lock(f: TextIO) -> bool:
	try:
		fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
	except BlockingIOError:
		return False
	return True


def _wait(proc: subprocess.Popen, seen: '_Console', deadline: float,
	  hung_after_splat: Optional[float]) -> GuestStatus:
	"""Waits for the QEMU of @proc to exit; kills it at @deadline (of
	time.monotonic()), or once its console (@seen) has been silent for
	@hung_after_splat seconds after a splat."""
	while True:
		try:
			rc = proc.wait(timeout=1)
			return GuestStatus.POWERED_OFF if rc == 0 else GuestStatus.QEMU_FAILED
		except subprocess.TimeoutExpired:
			pass
		now = time.monotonic()
		if now >= deadline:
			status = GuestStatus.TIMEOUT
		elif (hung_after_splat is not None and seen.splat and
		      now - seen.last >= hung_after_splat):
			status = GuestStatus.HUNG
		else:
			continue
		proc.kill()
		proc.wait()
		return status


def boot(qemu: Path, image: Path, initrd: Path, cmdline: Sequence[str], smp: int, timeout: int,
	 console: Path, results: Optional[Path], *, arch: settings.Arch,
	 echo: Optional[TextIO] = None, extra: Sequence[str] = (),
	 tcg: Optional[str] = None, hung_after_splat: Optional[float] = None,
	 quiet_wait: bool = False) -> GuestRun:
	"""Boots an @arch kernel without a terminal: everything the guest prints
	lands in @console, what it sends on its results channel in @results.
	With @hung_after_splat, a guest whose console has said nothing for
	that many seconds since a splat is stopped as HUNG: it has failed
	already, and what it would print at its timeout adds nothing.
	The guest waits for a guest slot (guest_slot(), @quiet_wait for the
	harness's control case); its @timeout and its seconds count from
	when it has one."""
	with guest_slot(str(console), quiet_wait):
		console.parent.mkdir(parents=True, exist_ok=True)
		if results:
			results.unlink(missing_ok=True)
		cmd = command(qemu, arch, image, initrd, cmdline, smp, results, False, extra, tcg)
		log('$ ' + ' '.join(cmd))
		start = time.monotonic()
		with open(console, 'w') as logf:
			proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
						stderr=subprocess.STDOUT)
			seen = _Console()
			pump = threading.Thread(target=_pump, args=(proc, logf, echo, seen), daemon=True)
			pump.start()
			status = _wait(proc, seen, start + timeout, hung_after_splat)
			pump.join(timeout=10)
		if seen.stalled:
			status = GuestStatus.STALLED
		elif seen.signalled:
			status = GuestStatus.SIGNALLED
		return GuestRun(status, time.monotonic() - start, console, results,
				seen.stalled or seen.signalled)


def boot_interactive(qemu: Path, image: Path, initrd: Path, cmdline: Sequence[str],
		     smp: int, *, arch: settings.Arch, extra: Sequence[str] = ()) -> int:
	"""Boots on the terminal (Ctrl-A X quits QEMU); returns QEMU's exit code."""
	cmd = command(qemu, arch, image, initrd, cmdline, smp, None, True, extra)
	log('$ ' + ' '.join(cmd))
	return subprocess.call(cmd)
