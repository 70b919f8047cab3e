# SPDX-License-Identifier: GPL-2.0
"""make bench: runs markers_bench.ko in the benchmark kernel, reads the
footprint rows from its objects, and writes one table.

The guest prints "markers_bench: ROW VALUE UNIT" lines (lib/markers_bench/
bench.c); guest/bench.sh forwards them on the results channel, in a
"bench" section. The record rows enable the marker event
markers:bench_fp_mark, which no kernel has until it is made through
dynamic_events: guest/bench.sh makes it before loading the module (whose
marker it is), and adds the footprint.mark_event.data row from
markers/events. Two modes:

  icount  single-threaded TCG with -icount shift=0: the guest clock counts
	  guest instructions (1 ns = 1 instruction), exact and repeatable;
  wall	  multi-threaded TCG, vCPUs are host threads: the host's clock,
	  median and range of several runs.

TCG models no caches and no branch predictor: the wall figures rank the
mechanisms, they are not the cycles of real hardware.
"""

import json
import platform
import re
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import initramfs, qemu, results, settings, silicon
from .kbuild import Build
from .shell import WorkbenchError, log, output

ROW = re.compile(r'^([a-z0-9_.]+) (\d+) (\S+)$')

# The footprint objects (lib/markers_bench/fp_*.c): one instrumented call
# each, the function bench_fp_<function>; fp_none is the reference.
FOOTPRINT = (('none', 'none'), ('mark', 'mark'), ('static', 'static_branch'),
	     ('trace', 'trace_event'), ('tp', 'tracepoint'), ('dyndbg', 'dyndbg'))

# The functions of lib/markers_bench/real.c, each built once per variant
# as bench_<function>_<variant>; "none" is the reference.
REAL_FUNCTIONS = ('csum', 'find', 'account')
REAL_VARIANTS = silicon.VARIANTS

Rows = Dict[str, Tuple[int, str]]

# Rows a run must have besides "done": those of the marker event, which
# only exists if guest/bench.sh made it (a run without it has
# record.mark_event_missing, or record.mark_event.make_failed, instead).
REQUIRED_ROWS = ('record.mark_event', 'footprint.mark_event.data')


def parse_rows(text: str) -> Rows:
	"""The rows of the "bench" section of a results channel."""
	rows = {}
	for _, lines in results.split_channel(text).get('bench', []):
		for line in lines:
			m = ROW.match(line.strip())
			if m:
				rows[m.group(1)] = (int(m.group(2)), m.group(3))
	return rows


def boot_rows(qemu_prefix: Path, build: Build, initrd: Path, outdir: Path,
	      cmdline: Sequence[str], icount: bool, what: str) -> Tuple[Rows, float]:
	"""Boots a benchmark guest once, under -icount or on the host clock;
	returns the rows of its "bench" section and how long it ran. Fails
	unless it powered off after ending its channel, without a splat."""
	guest = qemu.boot(qemu_prefix, build.image, initrd, list(cmdline), build.config.smp,
			  settings.BENCH_TIMEOUT, outdir / 'console.log', outdir / 'results.txt',
			  arch=build.config.arch, extra=settings.BENCH_ICOUNT_ARGS if icount else (),
			  tcg='single' if icount else settings.BENCH_WALL_TCG)
	text = guest.channel()
	if guest.status != qemu.GuestStatus.POWERED_OFF or not results.channel_ended(text):
		raise WorkbenchError(f'{what}: guest {guest.status.value}, see '
				     f'{outdir / "console.log"}')
	splats = results.splats(outdir / 'console.log')
	if splats:
		raise WorkbenchError(f'{what}: the kernel complained:\n' + '\n'.join(splats[:20]))
	return parse_rows(text), guest.seconds


def run_guest(qemu_prefix: Path, build: Build, initrd: Path, outdir: Path, mode: str,
	      module_args: Sequence[str]) -> Rows:
	"""Boots the benchmark kernel once in @mode ('icount' or 'wall')."""
	cmdline = ['wb.mode=bench', 'quiet']
	if module_args:
		cmdline.append('wb.bench_args=' + ','.join(module_args))
	rows, seconds = boot_rows(qemu_prefix, build, initrd, outdir, cmdline, mode == 'icount',
				  f'benchmark ({mode})')
	bad = [r for r in rows if re.search(r'failed|missing|not_optimized|needs_', r)]
	bad += [f'no {r} row' for r in ('done', *REQUIRED_ROWS) if r not in rows]
	if bad:
		raise WorkbenchError(f'benchmark ({mode}) incomplete: {", ".join(bad)}'
				     f'; see {outdir / "console.log"}')
	log(f'benchmark, {mode}: {len(rows)} rows in {seconds:.0f} s')
	return rows


# A wall run whose guest clock steps by more than this timed nothing: the
# kernel left the TSC (which TCG on a loaded host may make look unstable)
# for jiffies.
WALL_CLOCK_RESOLUTION_NS = 1000
WALL_TRIES = 3


def wall_run(qemu_prefix: Path, build: Build, initrd: Path, outdir: Path,
	     module_args: Sequence[str]) -> Rows:
	"""One wall run with a fine guest clock: a run whose clock went coarse
	is logged and made again, up to WALL_TRIES times."""
	for attempt in range(1, WALL_TRIES + 1):
		rows = run_guest(qemu_prefix, build, initrd, outdir, 'wall', module_args)
		resolution = rows.get('clock.resolution', (0, 'ns'))[0]
		if resolution <= WALL_CLOCK_RESOLUTION_NS:
			return rows
		log(f'benchmark, wall: the guest clock stepped by {resolution} ns in {outdir.name} '
		    f'(try {attempt} of {WALL_TRIES}); its figures are dropped')
	raise WorkbenchError(f'benchmark, wall: the guest clock stayed coarse in {WALL_TRIES} '
			     f'tries, see {outdir / "console.log"}')


# --- footprint ---------------------------------------------------------------

def _sections(obj: Path) -> Dict[str, Tuple[int, str]]:
	"""Allocated sections of @obj: name -> (size, flags)."""
	sections = {}
	for line in output(['readelf', '-S', '-W', str(obj)]).splitlines():
		m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+'
			     r'([0-9a-f]+)\s+[0-9a-f]+\s+([A-Z]*)', line)
		if m and 'A' in m.group(3):
			sections[m.group(1)] = (int(m.group(2), 16), m.group(3))
	return sections


def _hot_bytes(obj: Path, function: str) -> int:
	"""Bytes of @function from its entry to the end of its first return (a
	ret, or the jmp to __x86_return_thunk): the straight line a call runs
	through while the instrumentation is off."""
	start = last_jmp_end = None
	for line in output(['objdump', '-dr', '-j', '.text', str(obj)]).splitlines():
		if re.match(rf'^[0-9a-f]+ <{re.escape(function)}>:$', line):
			start = int(line.split()[0], 16)
			continue
		if start is None:
			continue
		if line.endswith('>:'):
			break
		m = re.match(r'^\s*([0-9a-f]+):\s+((?:[0-9a-f]{2} )+)\s*(.*)$', line)
		if m:
			end = int(m.group(1), 16) + len(m.group(2).split())
			insn = m.group(3)
			if re.match(r'ret\b', insn):
				return end - start
			last_jmp_end = end if re.match(r'jmp\b', insn) else None
		elif '__x86_return_thunk' in line and last_jmp_end is not None:
			return last_jmp_end - start
	raise WorkbenchError(f'{obj}: no return found in {function}')


def real_text(build: Build) -> Rows:
	"""The text of each function of lib/markers_bench/real.o per variant:
	the function itself, and the out-of-line part GCC may split off
	(<function>.cold)."""
	obj = build.dir / 'lib/markers_bench/real.o'
	sizes = {}
	for line in output(['nm', '-S', '--defined-only', str(obj)]).splitlines():
		fields = line.split()
		if len(fields) == 4 and fields[2] in 'tT':
			sizes[fields[3]] = int(fields[1], 16)
	rows = {}
	for function in REAL_FUNCTIONS:
		for variant in REAL_VARIANTS:
			symbol = f'bench_{function}_{variant}'
			if symbol not in sizes:
				raise WorkbenchError(f'{obj}: no function {symbol}')
			rows[f'real.{function}.{variant}.text'] = (sizes[symbol], 'bytes')
			rows[f'real.{function}.{variant}.cold_text'] = (sizes.get(f'{symbol}.cold', 0),
									'bytes')
	return rows


def footprint(build: Build) -> Rows:
	"""Bytes one instrumented call adds, from lib/markers_bench/fp_*.o, beyond
	fp_none.o: hot-path text (the straight line to the first return), other
	text (out-of-line blocks, helper functions), and data (every other
	allocated section: metadata tables, strings, keys, event descriptions)."""
	objdir = build.dir / 'lib/markers_bench'
	sizes = {}
	for name, function in FOOTPRINT:
		obj = objdir / f'fp_{name}.o'
		sections = _sections(obj)
		text = sum(size for size, flags in sections.values() if 'X' in flags)
		data = sum(size for size, flags in sections.values() if 'X' not in flags)
		hot = _hot_bytes(obj, f'bench_fp_{function}')
		sizes[name] = (hot, text - hot, data)
	base_hot, base_cold, base_data = sizes['none']
	rows = {}
	for name, _ in FOOTPRINT[1:]:
		hot, cold, data = sizes[name]
		rows[f'footprint.{name}.hot_text'] = (hot - base_hot, 'bytes')
		rows[f'footprint.{name}.cold_text'] = (cold - base_cold, 'bytes')
		rows[f'footprint.{name}.data'] = (data - base_data, 'bytes')
	return rows


# --- report ------------------------------------------------------------------

def _fmt(value: Optional[float], unit: str) -> str:
	if value is None:
		return '-'
	if unit == 'ps':
		return f'{value / 1000:.2f} ns'
	if unit == 'ns' and value >= 10000:
		return f'{value / 1000:.1f} us'
	return f'{value:.0f} {unit}' if unit != '-' else f'{value:.0f}'


def _icount_fmt(value: Optional[int], unit: str) -> str:
	"""Under -icount shift=0 a nanosecond is an instruction."""
	if value is None:
		return '-'
	if unit == 'ps':
		return f'{value / 1000:.2f} insn'
	if unit == 'ns':
		return f'{value} insn'
	return _fmt(value, unit)


def _insn(icount: Rows, row: str) -> float:
	"""A per-hit row of the icount run, in instructions."""
	return icount[row][0] / 1000


def real_table(icount: Rows, text: Rows) -> List[str]:
	"""Per function of real.c: the instructions of a call without
	instrumentation, what each kind adds while off, and the text of each
	build; then what a marker adds over a static branch."""
	def insn(row: str) -> float:
		return _insn(icount, row)

	lines = ['real functions (lib/markers_bench/real.c), instrumentation off: instructions '
		 'per call, text bytes:',
		 f'  {"function":<10} {"variant":<20} {"insn":>8} {"added":>8} {"text":>6} '
		 f'{"cold":>6}']
	for function in REAL_FUNCTIONS:
		none = insn(f'real.{function}.none')
		for variant in REAL_VARIANTS:
			row = f'real.{function}.{variant}'
			added = None if variant == 'none' else insn(row)
			total = none + (added or 0)
			added_text = '-' if added is None else f'{added:+.2f}'
			lines.append(f'  {function:<10} {variant:<20} {total:>8.2f} {added_text:>8} '
				     f'{text[row + ".text"][0]:>6} {text[row + ".cold_text"][0]:>6}')
	for function in REAL_FUNCTIONS:
		extra = insn(f'real.{function}.mark') - insn(f'real.{function}.static_branch')
		probe = insn(f'real.{function}.mark') - insn(f'real.{function}.static_branch_probe')
		far = insn(f'real.{function}.mark_far') - insn(f'real.{function}.static_branch')
		lines.append(f'  {function}: MARK() adds {extra:+.2f} instructions over '
			     f'static_branch_unlikely(), {probe:+.2f} over one calling with a '
			     f"probe's arguments; a far one {far:+.2f}")
	return lines


def table(icount: Rows, wall: List[Rows], footprint_rows: Rows, text: Rows) -> str:
	event_data = icount.get('footprint.mark_event.data', (0, 'bytes'))[0]
	lines = ['footprint (bytes added to one call, beyond no instrumentation):',
		 *(f'  {name:<38} {value:>6} {unit}' for name, (value, unit)
		   in footprint_rows.items()),
		 f'  a marker event of one int argument allocates {event_data} bytes and adds no '
		 'text;',
		 f'  a TRACE_EVENT of one int field adds {footprint_rows["footprint.trace.data"][0]}'
		 f' bytes of data and {footprint_rows["footprint.trace.cold_text"][0]} of cold '
		 'text (its fields and tracefs files are alike)',
		 '',
		 *real_table(icount, text),
		 '',
		 f'{"row":<40} {"icount":>14} {"wall median":>13} {"wall min..max":>24}']
	for name, (value, unit) in icount.items():
		runs = sorted(r[name][0] for r in wall if name in r)
		median = _fmt(statistics.median(runs), unit) if runs else '-'
		spread = f'{_fmt(runs[0], unit)}..{_fmt(runs[-1], unit)}' if runs else '-'
		lines.append(f'{name:<40} {_icount_fmt(value, unit):>14} {median:>13} {spread:>24}')
	lines += ['', 'icount: guest instructions (-icount shift=0, single-threaded TCG). wall: '
		  f'host clock, multi-threaded TCG, {len(wall)} runs.',
		  'TCG models no caches and no branch predictor: wall figures rank the '
		  'mechanisms, they are not hardware cycles.']
	return '\n'.join(lines)


@dataclass(frozen=True)
class Target:
	"""A target of the benchmark and whether this run met it."""
	text: str
	measured: str
	met: bool


def site_targets(rows: Rows, sync_rounds: int) -> List[Target]:
	"""The targets of the sites and their switches, in the instructions of an
	-icount run: those every architecture is held to, against its own
	static branch, tracepoint and kprobe. A switch takes @sync_rounds."""
	def insn(row: str) -> float:
		return _insn(rows, row)

	mark, static = insn('disabled.mark'), insn('disabled.static_branch')
	on, tp, kp = insn('enabled.mark_1fast'), insn('enabled.tracepoint_1probe'), \
		insn('enabled.kprobe')
	on2, tp2 = insn('enabled.mark_2fast'), insn('enabled.tracepoint_2probes')
	on3, tp3 = insn('enabled.mark_3fast'), insn('enabled.tracepoint_3probes')
	rounds = [rows[f'switch.1024.mark.{way}.rounds'][0] for way in ('on', 'off')]
	switch = {way: (rows[f'switch.1024.mark.{way}.ns'][0],
			rows[f'switch.1024.static_key.{way}.ns'][0]) for way in ('on', 'off')}
	return [
		Target('disabled MARK(): 1 instruction', f'{mark:.2f} insn', round(mark) == 1),
		Target('disabled MARK(): at most static_branch_unlikely() + 1',
		       f'{mark:.2f} vs {static:.2f} insn', mark <= static + 1),
		Target('enabled MARK(), 1 fast probe: below a tracepoint with 1 probe',
		       f'{on:.2f} vs {tp:.2f} insn', on < tp),
		Target('enabled MARK(), 2 fast probes: at most a tracepoint with 2 probes',
		       f'{on2:.2f} vs {tp2:.2f} insn', on2 <= tp2),
		Target('enabled MARK(), 3 fast probes: at most a tracepoint with 3 probes',
		       f'{on3:.2f} vs {tp3:.2f} insn', on3 <= tp3),
		Target('enabled MARK(), 1 fast probe: at most 1/10 of a kprobe',
		       f'{on:.2f} vs {kp / 10:.2f} insn', on <= kp / 10),
		Target(f'1024 MARK()s switched in {sync_rounds} sync round'
		       f'{"s" if sync_rounds > 1 else ""}',
		       f'{rounds[0]} on, {rounds[1]} off', rounds == [sync_rounds] * 2),
		*(Target(f'1024 MARK()s switched {way}: at most a static key of 1024 sites',
			 f'{mark / 1e6:.2f} M vs {key / 1e6:.2f} M insn', mark <= key)
		  for way, (mark, key) in switch.items()),
	]


def targets(icount: Rows, wall: List[Rows], fp: Rows,
	    on_silicon: Optional[silicon.Result] = None) -> List[Target]:
	"""The targets the series set itself (BENCHMARKS.md), against this run:
	site_targets(), and on x86-64 the value live across a site, the floor
	of 12 instructions, the wall clock (medians of the wall runs), the hot
	text of a site and the records of marker events."""
	def insn(row: str) -> float:
		return _insn(icount, row)

	def wall_median(row: str) -> float:
		return statistics.median(r[row][0] for r in wall if row in r)

	on = insn('enabled.mark_1fast')
	on_wall = wall_median('enabled.mark_1fast') if wall else None
	tp_wall = wall_median('enabled.tracepoint_1probe') if wall else None
	live, live_static = insn('disabled.live.mark'), insn('disabled.live.static_branch')
	live_plain_probe = insn('disabled.live.plain_probe')
	hot = fp['footprint.mark.hot_text'][0]
	rec, rec_te, rec_v1 = insn('record.mark_event'), insn('record.trace_event'), \
		insn('record.mark_vsnprintf')
	rec_wall = wall_median('record.mark_event') if wall else None
	rec_te_wall = wall_median('record.trace_event') if wall else None
	return [
		*site_targets(icount, 3),
		Target('disabled MARK(), a value live across it: at most static_branch_unlikely()',
		       f'{live:.2f} vs {live_static:.2f} insn', round(live) <= round(live_static)),
		Target('disabled MARK(), a value live across it: at most a plain load whose call '
		       "takes a probe's arguments",
		       f'{live:.2f} vs {live_plain_probe:.2f} insn',
		       round(live) <= round(live_plain_probe)),
		Target('enabled MARK(), 1 fast probe: at most 12 instructions',
		       f'{on:.2f} insn', round(on) <= 12),
		Target('enabled MARK(), 1 fast probe: below a tracepoint with 1 probe (wall median)',
		       f'{_fmt(on_wall, "ps")} vs {_fmt(tp_wall, "ps")}' if wall else 'no wall run',
		       bool(wall) and on_wall < tp_wall),
		Target('hot-path text per site: at most 16 bytes', f'{hot} bytes', hot <= 16),
		Target('a marker event record: at most a TRACE_EVENT record of the same field',
		       f'{rec:.2f} vs {rec_te:.2f} insn', rec <= rec_te),
		Target('a marker event record: at most a TRACE_EVENT record of the same field + 20%',
		       f'{rec:.2f} vs {rec_te:.2f} insn', rec <= 1.2 * rec_te),
		Target('a marker event record: at most a TRACE_EVENT record + 20% (wall median)',
		       f'{_fmt(rec_wall, "ps")} vs {_fmt(rec_te_wall, "ps")}' if wall
		       else 'no wall run', bool(wall) and rec_wall <= 1.2 * rec_te_wall),
		Target("a marker event record: below v1's vsnprintf() record",
		       f'{rec:.2f} vs {rec_v1:.2f} insn', rec < rec_v1),
		*(Target(*t) for t in (silicon.off_targets(on_silicon) if on_silicon else ())),
	]


def other_table(name: str, rows: Rows, x86: Rows) -> str:
	"""The rows of another architecture's icount run, beside x86-64's."""
	lines = [f'{name}: one -icount run, the rows it has (x86-64\'s icount beside them):',
		 f'{"row":<40} {name:>14} {"x86_64":>14}']
	for row, (value, unit) in rows.items():
		other = x86.get(row)
		lines.append(f'{row:<40} {_icount_fmt(value, unit):>14} '
			     f'{_icount_fmt(*other) if other else "-":>14}')
	return '\n'.join(lines)


def targets_text(result: List[Target]) -> str:
	return '\n'.join(['targets:'] + [f'  {"met   " if t.met else "MISSED"} {t.text}: {t.measured}'
					   for t in result])


def machine(qemu_prefix: Path, build: Build) -> Dict[str, str]:
	cpuinfo = Path('/proc/cpuinfo').read_text().splitlines()
	cpu = next((line.split(':', 1)[1].strip() for line in cpuinfo
		    if line.startswith('model name')), platform.processor())
	return {
		'host_cpu': cpu,
		'host_cpus': str(sum(line.startswith('processor') for line in cpuinfo)),
		'host_kernel': platform.release(),
		'qemu': output([str(qemu.binary(qemu_prefix, build.config.arch)),
				'-L', str(qemu_prefix / 'usr/share/qemu'),
				'--version']).splitlines()[0],
		'guest_kernel': build.release(),
		'guest_vcpus': str(build.config.smp),
		'compiler': output([build.config.arch.cross_compile + 'gcc',
				    '--version']).splitlines()[0],
	}


def run(qemu_prefix: Path, build: Build, outdir: Path, wall_runs: int,
	module_args: Sequence[str] = (), others: Sequence[Build] = ()) -> Tuple[Path, Path]:
	"""The whole benchmark; returns the JSON and the table it wrote. @others
	are the benchmark kernels of other architectures: one -icount run each."""
	initrd = initramfs.make(build)
	fp = footprint(build)
	text = real_text(build)
	on_silicon = silicon.run_all(build, outdir / 'silicon')
	icount = run_guest(qemu_prefix, build, initrd, outdir / 'icount', 'icount', module_args)
	wall = [wall_run(qemu_prefix, build, initrd, outdir / f'wall-{i}', module_args)
		for i in range(1, wall_runs + 1)]

	goals = targets(icount, wall, fp, on_silicon)
	other_rows = {b.config.arch.name: run_guest(qemu_prefix, b, initramfs.make(b),
						    outdir / f'icount-{b.config.arch.name}',
						    'icount', module_args)
		      for b in others}
	other_goals = {name: site_targets(rows, 1) for name, rows in other_rows.items()}

	def wall_row(name: str) -> dict:
		runs = [r[name][0] for r in wall if name in r]
		return {'unit': icount[name][1], 'median': statistics.median(runs),
			'min': min(runs), 'max': max(runs), 'runs': runs}

	doc = {
		'machine': machine(qemu_prefix, build),
		'method': {
			'icount': 'QEMU -icount shift=0,sleep=off, single-threaded TCG: the guest '
				  'clock counts guest instructions; ps rows are 1/1000 instruction',
			'wall': f'QEMU multi-threaded TCG, host clock, {wall_runs} runs',
			'footprint': 'lib/markers_bench/fp_*.o against fp_none.o',
			'silicon': 'the module object of the benchmark kernel, run in user space '
				   'on the host CPU: tools/wb/silicon.py',
			'note': 'TCG models no caches and no branch predictor',
		},
		'footprint': {name: {'value': v, 'unit': u} for name, (v, u) in fp.items()},
		'silicon': {'cpu': on_silicon.cpu, 'rounds': on_silicon.rounds,
			    'calls': on_silicon.calls, 'placements': list(silicon.PLACEMENTS),
			    'rows': {name: {'value': v, 'unit': u}
				     for name, (v, u) in silicon.json_rows(on_silicon).items()}},
		'real_text': {name: {'value': v, 'unit': u} for name, (v, u) in text.items()},
		'icount': {name: {'value': v, 'unit': u} for name, (v, u) in icount.items()},
		'wall': {name: wall_row(name) for name in icount if any(name in r for r in wall)},
		'targets': [{'target': t.text, 'measured': t.measured, 'met': t.met} for t in goals],
		'architectures': {
			b.config.arch.name: {
				'machine': machine(qemu_prefix, b),
				'icount': {name: {'value': v, 'unit': u}
					   for name, (v, u) in other_rows[b.config.arch.name].items()},
				'targets': [{'target': t.text, 'measured': t.measured, 'met': t.met}
					    for t in other_goals[b.config.arch.name]],
			} for b in others},
	}
	json_path = settings.OUT / 'bench.json'
	json_path.write_text(json.dumps(doc, indent=1) + '\n')
	table_path = outdir / 'table.txt'
	report = [table(icount, wall, fp, text), '\n'.join(silicon.table(on_silicon)),
		  '\n'.join(silicon.far_lines(on_silicon)),
		  '\n'.join(silicon.on_table(on_silicon)), targets_text(goals)]
	for name, rows in other_rows.items():
		report += [other_table(name, rows, icount),
			   targets_text(other_goals[name]).replace('targets:', f'targets, {name}:', 1)]
	table_path.write_text('\n\n'.join(report) + '\n')
	return json_path, table_path


# --- macro benchmark ----------------------------------------------------------

# The kernels of settings.BENCH_MACRO, by the variant their name ends with.
MACRO_REFERENCE = 'none'
MACRO_VARIANTS = ('markers', 'tracepoints')
# The sections of vmlinux.o (before the link pads them) that the
# instrumentation may change.
MACRO_SECTIONS = ('.text', '.rodata', '.data', '__markers', '__markers_strings',
		  '__marker_sites', '__imv', '__tracepoints', '__tracepoints_ptrs',
		  '__tracepoints_strings', '.static_call_sites', '__ksymtab_gpl',
		  '__ksymtab_strings')


# Guest instructions a far marker site runs off beyond a tracepoint's one
# NOP: its slot (a 2-byte NOP), guard and jb against the NOP of 5 bytes. A
# near site runs one long NOP, as the tracepoint.
MACRO_FAR_EXTRA = 2


def _variant(build: Build) -> str:
	return build.config.name.rsplit('-', 1)[1]


def macro_sizes(build: Build) -> Dict[str, int]:
	"""`size -A` of vmlinux.o: the bytes of each section of MACRO_SECTIONS."""
	sizes = {}
	for line in output(['size', '-A', str(build.dir / 'vmlinux.o')]).splitlines():
		words = line.split()
		if len(words) >= 2 and words[0] in MACRO_SECTIONS and words[1].isdigit():
			sizes[words[0]] = int(words[1])
	return sizes


def macro_guest(qemu_prefix: Path, build: Build, outdir: Path) -> Rows:
	"""Boots a kernel of the macro benchmark once under -icount."""
	rows, seconds = boot_rows(qemu_prefix, build, initramfs.make(build), outdir,
				  ['wb.mode=macro', 'quiet'], True,
				  f'macro benchmark on {build.config.name}')
	failed = [r for r in rows if r.endswith('.failed')]
	if failed or not rows:
		raise WorkbenchError(f'macro benchmark on {build.config.name}: '
				     f'{", ".join(failed) or "no rows"}; see {outdir / "console.log"}')
	log(f'macro benchmark, {build.config.name}: {len(rows)} rows in {seconds:.0f} s')
	return rows


def macro_table(rows: Dict[str, Rows], sizes: Dict[str, Dict[str, int]]) -> str:
	"""Workload x kernel, in guest instructions and against the reference."""
	ref = rows[MACRO_REFERENCE]
	workloads = [r.split('.')[1] for r in ref if r.endswith('.off')]

	def spread(rows_: Rows, w: str, phase: str) -> str:
		lo = rows_.get(f'macro.{w}.{phase}.min', (0, ''))[0]
		hi = rows_.get(f'macro.{w}.{phase}.max', (0, ''))[0]
		mid = rows_.get(f'macro.{w}.{phase}', (0, ''))[0]
		return f'{100 * (hi - lo) / mid:.2f}%' if mid else '-'

	columns = [(v, 'off') for v in MACRO_VARIANTS] + [(v, 'probed') for v in MACRO_VARIANTS]
	head = f'{"workload":<18} {"none":>12}' + ''.join(
		f' {f"{v} {phase}":>26}' for v, phase in columns)
	lines = ['macro benchmark: guest instructions per workload (median of 5 runs after a '
		 'warm-up, -icount); in parentheses, the difference with the kernel without the '
		 'sites; spread: (max - min) / median of the 5 runs of each kernel, off', '',
		 head + f' {"spread":>22}']
	for w in workloads:
		base = ref[f'macro.{w}.off'][0]
		cells = ''
		for v, phase in columns:
			value = rows[v].get(f'macro.{w}.{phase}', (None, ''))[0]
			cells += (f' {value:>14} ({100 * (value - base) / base:+6.2f}%)' if value
				  else f' {"-":>26}')
		lines.append(f'{w:<18} {base:>12}{cells} ' + '/'.join(
			spread(rows[k], w, 'off') for k in (MACRO_REFERENCE, *MACRO_VARIANTS)))
	for v in MACRO_VARIANTS:
		hits = rows[v].get('macro.probe_hits', (0, 'hits'))[0]
		lines.append(f'probe hits, {v}: {hits} over the probed runs')
	lines += macro_far_lines(rows['markers'], rows['tracepoints'], workloads)
	lines += ['', f'{"section of vmlinux.o":<24}' + ''.join(f' {k:>14}' for k in sizes)]
	for section in MACRO_SECTIONS:
		if any(section in s for s in sizes.values()):
			lines.append(f'{section:<24}' + ''.join(
				f' {sizes[k].get(section, 0):>14}' for k in sizes))
	return '\n'.join(lines) + '\n'


def macro_far_lines(markers: Rows, tracepoints: Rows, workloads: Sequence[str]) -> List[str]:
	"""What the far sites of the marker kernel explain of its cost off over
	the tracepoint kernel's, workload by workload: their hits a run in the
	probed runs (the counts of guest/macro.sh are cumulative over the
	workloads, over the macro.runs runs of each) times MACRO_FAR_EXTRA,
	against the measured difference."""
	hot = {r.rsplit('.', 1)[1] for r in markers if re.match(r'macro\.\w+\.hits\.', r)}
	near = {r.split('.')[2]: bool(v) for r, (v, _) in markers.items()
		if r.startswith('macro.site.') and r.endswith('.near') and r.split('.')[2] in hot}
	if not near:
		return []
	runs_each = markers['macro.runs'][0]
	far_sites = sorted(site for site, is_near in near.items() if not is_near)
	lines = ['', f'sites of the marker kernel off: {len(near) - len(far_sites)} near (one NOP), '
		 f'{len(far_sites)} far ({MACRO_FAR_EXTRA} instructions more than a NOP): '
		 + ', '.join(far_sites),
		 f'{"workload":<18} {"far hits/run":>12} {"near hits/run":>13} '
		 f'{"far x " + str(MACRO_FAR_EXTRA):>10} {"markers - tracepoints off":>26}']
	before: Dict[str, int] = {}
	for w in workloads:
		now = {r.rsplit('.', 1)[1]: v for r, (v, _) in markers.items()
		       if r.startswith(f'macro.{w}.hits.')}
		runs = {site: (hits - before.get(site, 0)) / runs_each for site, hits in now.items()}
		before = now
		far = sum(h for site, h in runs.items() if site in far_sites)
		near_hits = sum(h for site, h in runs.items() if near.get(site))
		off_m = markers.get(f'macro.{w}.off', (0, ''))[0]
		off_t = tracepoints.get(f'macro.{w}.off', (0, ''))[0]
		lines.append(f'{w:<18} {far:>12.0f} {near_hits:>13.0f} {MACRO_FAR_EXTRA * far:>10.0f} '
			     f'{off_m - off_t:>26}')
	return lines


def macro(qemu_prefix: Path, builds: Sequence[Build], outdir: Path) -> Tuple[Path, Path]:
	"""Runs the workloads on each kernel of settings.BENCH_MACRO; returns the
	JSON and the table it wrote."""
	rows, sizes = {}, {}
	for build in builds:
		variant = _variant(build)
		sizes[variant] = macro_sizes(build)
		rows[variant] = macro_guest(qemu_prefix, build, outdir / variant)
		if variant != MACRO_REFERENCE and 'macro.probe_hits' not in rows[variant]:
			raise WorkbenchError(f'macro benchmark on {build.config.name}: hot_probes '
					     f'did not load; see {outdir / variant / "console.log"}')
	json_path = settings.OUT / 'bench-macro.json'
	json_path.write_text(json.dumps({
		'machine': machine(qemu_prefix, builds[0]),
		'method': 'QEMU -icount shift=0,sleep=off, single-threaded TCG; each workload '
			  'timed by the guest clock (1 ns = 1 guest instruction), median of 5 runs '
			  'after a warm-up',
		'rows': {v: {name: {'value': val, 'unit': unit} for name, (val, unit) in r.items()}
			 for v, r in rows.items()},
		'sizes': sizes,
	}, indent=1) + '\n')
	table_path = outdir / 'table.txt'
	table_path.write_text(macro_table(rows, sizes))
	return json_path, table_path


# make bench-poke: the rows of poke_bench (guest/bench-modules) and the
# switching rows of markers_bench that it compares, by sites.
POKE_SITES = (1, 64, 1024)
POKE_STEPS = (('before', 'patch01', 'before the series', 'after patch 01',
	       tuple(f'{kind}.{n}.{op}' for n in POKE_SITES
		     for kind, op in (('key', 'on'), ('key', 'off'), ('call', 'update')))),
	      ('vector', 'chunks', 'one batch (patch 04)', 'chunks of 256',
	       tuple(f'switch.{n}.mark.{op}' for n in POKE_SITES for op in ('on', 'off'))))


def poke_table(rows: Dict[str, Rows]) -> str:
	"""make bench-poke's table: each row's guest instructions (-icount),
	sync rounds and text mappings, side by side for the two kernels."""
	out = ['Guest instructions (QEMU -icount), sync rounds and text mappings of the task that',
	       "switches: poke_bench's rows (key, call) the fewest instructions of 5 runs,",
	       "markers_bench's (switch) one run."]
	for left, right, left_title, right_title, names in POKE_STEPS:
		out += ['', f'{"":22} {left_title:>30} {right_title:>30}',
			(f'{"row":22} ' + f'{"instructions":>14} {"rounds":>7} {"maps":>7} ' * 2).rstrip()]
		for name in names:
			line = f'{name:22}'
			for step in (left, right):
				got = rows.get(step, {})
				ns, rounds, maps = (got.get(f'{name}.{what}', (None, ''))[0]
						    for what in ('ns', 'rounds', 'mappings'))
				line += (f' {"-" if ns is None else f"{ns:,}":>14}'
					 f' {"-" if rounds is None else rounds:>7}'
					 f' {"-" if maps is None else maps:>7}')
			out.append(line.rstrip())
	return '\n'.join(out) + '\n'
