# SPDX-License-Identifier: GPL-2.0
"""make bench's silicon rows: the functions of lib/markers_bench/real.c,
timed on the host's own CPU.

TCG counts guest instructions and models no front end, no branch predictor
and no cache: it cannot tell a taken jump from a NOP. These rows run the
benchmark kernel's own code on the host: the module object that kbuild
linked and objtool processed (lib/markers_bench/markers_bench.o), linked
into a user-space program with tools/silicon/harness.c and a stub for every
kernel symbol it names. The code model is the kernel's (-mcmodel=kernel
uses sign-extended 32-bit addresses, which the program's low addresses
satisfy), so every instruction is the one the kernel runs; the harness
only does what the kernel does to its text at boot (returns, calls of
__fentry__, marker sites: see harness.c). A stub that runs traps: no row
runs code the kernel would not.

Where code sits moves its cost: a loop that crosses a 64-byte line or a
32-byte fetch window costs more, whatever the site in front of it, and
the functions of two variants sit differently. So the module's text is
placed at PLACEMENTS bytes into a page, one program each (0 is where the
module loader puts it), and every row is given for each placement and as
the mean over them: each variant's cost over the positions of its code
in a 64-byte line.

A program times every variant of every function of real.c (none: no
instrumentation), for CALLS calls, ROUNDS times. Each round puts the
marker sites in each state of SITE_STATES in turn, then times all the
variants of one function after another, in a new order: what a variant
adds is its time minus that of "none" in the same round and state. A row
gives, in TSC ticks per call (the TSC is invariant on the CPUs this runs
on: constant_tsc, nonstop_tsc), the minimum and the median over the
rounds, the median of what it adds, and the median of its ratio to the
static branch and to the tracepoint of the same round.
"""

import re
import statistics
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from . import settings
from .kbuild import Build
from .shell import WorkbenchError, log, output, run

HARNESS = settings.REPO / 'tools/silicon/harness.c'
MODULE_OBJECT = 'lib/markers_bench/markers_bench.o'
# Sections the harness walks, renamed so that the linker gives them
# __start_/__stop_ symbols; the module's text, placed on its own.
RENAMED_SECTIONS = (('.return_sites', 'wb_return_sites'), ('.text', 'wb_module_text'))
STUB_PREFIX = 'wb_kernel_'

PLACEMENTS = (0, 8, 16, 24, 32, 40, 48, 56)
ROUNDS = 3000
CALLS = 1000

# The states of marker sites the rows are timed in, as the harness takes
# them (NAME:CLASS=BYTES, see harness.c): the bytes arch/x86/kernel/marker.c
# writes, which the KUnit case markers.marker_site_layout checks in the
# kernel. "off" is the series' off state: a near site (a short jne whose
# probe block a jmp rel8 from the slot reaches) is one 8-byte NOP, a far
# one runs its pattern, not taken. The others are the candidates it was
# chosen from: "pattern", every site as built (a 2-byte NOP, then the
# pattern, not taken), and "v3_off", the off state of v3: a jump over the
# pattern.
SITE_STATES = (('off', 'near=0f1f'), ('pattern', '8=6690,12=6690'),
	       ('v3_off', '8=eb06,12=eb0a'))

FUNCTIONS = ('csum', 'find', 'account')
VARIANTS = ('none', 'mark', 'static_branch', 'static_branch_probe', 'tracepoint', 'plain',
	    'dyndbg')

RUN = re.compile(r'^run (\d+) (\S+) (\S+) (\d+)$')
SITE = re.compile(r'^site (\S+) (\S+) (\d+)((?: [0-9a-f]{2})+)$')

# (function, variant@state) -> ticks per call, one per round.
Timings = Dict[Tuple[str, str], List[float]]


@dataclass
class Row:
	"""One function variant in one state, at one placement or over all."""
	min: float
	median: float
	added: float		# median over the rounds of (it - none)
	per_static: float	# median over the rounds of it / static branch
	per_tracepoint: float	# median over the rounds of it / tracepoint


def cpu() -> Dict[str, str]:
	"""The host CPU as /proc/cpuinfo names it, and whether its TSC is invariant."""
	info = {}
	for line in Path('/proc/cpuinfo').read_text().splitlines():
		key, _, value = line.partition(':')
		key, value = key.strip(), value.strip()
		if key in ('model name', 'cpu family', 'model', 'stepping', 'flags') and key not in info:
			info[key] = value
	flags = info.pop('flags', '').split()
	info['invariant tsc'] = 'yes' if {'constant_tsc', 'nonstop_tsc'} <= set(flags) else 'no'
	return info


def cpu_name() -> str:
	info = cpu()
	return (f'{info.get("model name", "?")} (family {info.get("cpu family")}, model '
		f'{info.get("model")}, stepping {info.get("stepping")}), invariant TSC: '
		f'{info["invariant tsc"]}')


def _undefined(obj: Path) -> Dict[str, bool]:
	"""The symbols @obj names without defining them, each with whether a
	call (a PLT32 relocation) names it, which makes it a function."""
	symbols = {}
	for line in output(['nm', '-u', str(obj)]).splitlines():
		symbols[line.split()[-1]] = False
	for line in output(['readelf', '-r', '-W', str(obj)]).splitlines():
		fields = line.split()
		if len(fields) >= 5 and fields[2] == 'R_X86_64_PLT32':
			name = fields[4].split('+')[0].split('-')[0]
			if name in symbols:
				symbols[name] = True
	return symbols


def _stubs(symbols: Dict[str, bool]) -> str:
	"""Assembly defining each of @symbols: a function that traps (ud2), or
	4 KiB of zeroed data."""
	lines = ['\t.text']
	for name, is_function in sorted(symbols.items()):
		if is_function:
			lines += [f'\t.globl {name}', f'\t.type {name}, @function',
				  '\t.p2align 4', f'{name}:', '\tud2']
	lines.append('\t.bss')
	for name, is_function in sorted(symbols.items()):
		if not is_function:
			lines += [f'\t.globl {name}', f'\t.type {name}, @object', '\t.p2align 6',
				  f'{name}:', '\t.zero 4096']
	lines.append('\t.section .note.GNU-stack, "", @progbits')
	return '\n'.join(lines) + '\n'


def _placement(offset: int) -> str:
	"""Assembly that starts the module's text @offset bytes into a page."""
	return ('\t.section wb_module_text, "ax", @progbits\n\t.p2align 12\n'
		f'\t.skip {offset}, 0xcc\n\t.section .note.GNU-stack, "", @progbits\n')


def link(build: Build, outdir: Path) -> Dict[int, Path]:
	"""The harness linked with the benchmark module's object of @build,
	once per placement. Every symbol the object names without defining is
	renamed with STUB_PREFIX, so that no stub takes the place of the C
	library's function of the same name (memcpy), nor the other way."""
	obj = build.dir / MODULE_OBJECT
	if not obj.is_file():
		raise WorkbenchError(f'{obj}: missing; the benchmark kernel builds it '
				     '(CONFIG_MARKERS_BENCH=m)')
	outdir.mkdir(parents=True, exist_ok=True)
	undefined = _undefined(obj)
	renames = outdir / 'renames.txt'
	renames.write_text(''.join(f'{name} {STUB_PREFIX}{name}\n' for name in sorted(undefined)))
	module = outdir / 'markers_bench.o'
	sections = [arg for old, new in RENAMED_SECTIONS
		    for arg in ('--rename-section', f'{old}={new}')]
	run(['objcopy', *sections, f'--redefine-syms={renames}', obj, module])
	stubs = outdir / 'stubs.S'
	stubs.write_text(_stubs({STUB_PREFIX + name: f for name, f in undefined.items()}))
	binaries = {}
	for offset in PLACEMENTS:
		pad = outdir / f'placement{offset}.S'
		pad.write_text(_placement(offset))
		binary = outdir / f'harness{offset}'
		run(['gcc', '-O2', '-Wall', '-static', '-no-pie', '-o', binary, HARNESS, stubs, pad,
		     module, '-Wl,-z,noexecstack'], cwd=outdir)
		binaries[offset] = binary
	return binaries


def measure(binary: Path, rounds: int = ROUNDS, calls: int = CALLS) -> Tuple[Timings, List[str]]:
	"""Runs @binary on one CPU in SITE_STATES; returns the ticks per call of
	each (function, variant@state) per round, and the sites it wrote, as
	"STATE CLASS LEN BYTES"."""
	states = [f'{name}:{rules}' for name, rules in SITE_STATES]
	proc = run(['taskset', '-c', '1', binary, str(rounds), str(calls), *states],
		   capture=True)
	timings: Timings = defaultdict(list)
	sites = []
	for line in proc.stdout.splitlines():
		m = RUN.match(line)
		if m:
			timings[(m.group(2), m.group(3))].append(int(m.group(4)) / calls)
		elif SITE.match(line):
			sites.append(line[len('site '):])
	if not timings:
		raise WorkbenchError(f'{binary}: no timings\n{proc.stdout[-2000:]}')
	return timings, sites


def _peer(variant: str, peer: str) -> str:
	"""@peer timed in the same state as @variant ("mark@off": "none@off")."""
	_, at, state = variant.partition('@')
	return peer + at + state


def rows(timings: Timings) -> Dict[Tuple[str, str], Row]:
	"""The row of each (function, variant@state) of one program's run."""
	result = {}
	for (fn, variant), ticks in timings.items():
		def per_round(peer: str, op) -> float:
			other = timings[(fn, _peer(variant, peer))]
			return statistics.median(op(a, b) for a, b in zip(ticks, other))

		result[(fn, variant)] = Row(min(ticks), statistics.median(ticks),
					    per_round('none', lambda a, b: a - b),
					    per_round('static_branch', lambda a, b: a / b),
					    per_round('tracepoint', lambda a, b: a / b))
	return result


def combine(runs: Sequence[Dict[Tuple[str, str], Row]]) -> Dict[Tuple[str, str], Row]:
	"""Over the placements: the least minimum, the means of the rest."""
	result = {}
	for key in runs[0]:
		rs = [r[key] for r in runs]
		result[key] = Row(min(r.min for r in rs), statistics.mean(r.median for r in rs),
				  statistics.mean(r.added for r in rs),
				  statistics.mean(r.per_static for r in rs),
				  statistics.mean(r.per_tracepoint for r in rs))
	return result


@dataclass
class Result:
	cpu: str
	rounds: int
	calls: int
	placements: Dict[int, Dict[Tuple[str, str], Row]]
	combined: Dict[Tuple[str, str], Row]
	sites: List[str]


def run_all(build: Build, outdir: Path, rounds: int = ROUNDS, calls: int = CALLS) -> Result:
	"""Links and runs the harness at every placement."""
	binaries = link(build, outdir)
	per_placement = {}
	sites: List[str] = []
	for offset, binary in binaries.items():
		log(f'silicon: placement {offset}: {rounds} rounds of {calls} calls')
		timings, sites = measure(binary, rounds, calls)
		per_placement[offset] = rows(timings)
	return Result(cpu_name(), rounds, calls, per_placement,
		      combine(list(per_placement.values())), sites)


def _variants(result: Result, fn: str) -> List[str]:
	"""The variants of @fn in the result, each in each state, in table order."""
	found = {v for f, v in result.combined if f == fn}
	ordered = []
	for state, _ in SITE_STATES:
		for variant in VARIANTS:
			if f'{variant}@{state}' in found:
				ordered.append(f'{variant}@{state}')
	return ordered


def table(result: Result) -> List[str]:
	"""The silicon rows as text: per function, each variant in the series'
	off state, then the marker in v3's; every placement's median added."""
	lines = [f'silicon: {result.cpu}; module text at {", ".join(map(str, PLACEMENTS))} '
		 f'bytes into a page, {result.rounds} rounds of {result.calls} calls each; TSC '
		 'ticks per call: the least, then means over the placements of the median, of '
		 'what the site adds, of its ratio to the static branch and to the tracepoint',
		 f'  {"function":<8} {"variant":<21} {"min":>6} {"median":>7} {"added":>7} '
		 f'{"/static":>7} {"/tp":>6}   added at each placement']
	for fn in FUNCTIONS:
		for variant in _variants(result, fn):
			name, _, state = variant.partition('@')
			if state != SITE_STATES[0][0] and name != 'mark':
				continue
			label = name if state == SITE_STATES[0][0] else f'{name} ({state})'
			r = result.combined[(fn, variant)]
			each = ' '.join(f'{result.placements[p][(fn, variant)].added:+.1f}'
					for p in PLACEMENTS)
			lines.append(f'  {fn:<8} {label:<21} {r.min:>6.2f} {r.median:>7.2f} '
				     f'{r.added:>+7.2f} {r.per_static:>7.3f} {r.per_tracepoint:>6.3f}   '
				     f'{each}')
	return lines


def json_rows(result: Result) -> Dict[str, Tuple[float, str]]:
	"""The rows for out/bench.json: silicon.<fn>.<variant>[.<state>].*"""
	out = {}
	for (fn, variant), r in result.combined.items():
		name, _, state = variant.partition('@')
		if state != SITE_STATES[0][0] and name != 'mark':
			continue
		key = f'silicon.{fn}.{name}' + ('' if state == SITE_STATES[0][0] else f'.{state}')
		out[key + '.min'] = (round(r.min, 3), 'ticks')
		out[key + '.median'] = (round(r.median, 3), 'ticks')
		out[key + '.added'] = (round(r.added, 3), 'ticks')
	return out


def paired(result: Result, fn: str, a: str, b: str) -> Tuple[float, float]:
	"""The mean over the placements of what variant @a adds minus what @b
	adds, for @fn, and the standard error of that mean: placements move
	each variant's cost their own way (its code sits differently), so a
	difference within two standard errors is none that this run can tell."""
	diffs = [result.placements[p][(fn, a)].added - result.placements[p][(fn, b)].added
		 for p in PLACEMENTS]
	return statistics.mean(diffs), statistics.stdev(diffs) / len(diffs) ** 0.5


def off_targets(result: Result) -> List[Tuple[str, str, bool]]:
	"""Per function of real.c: whether a marker off costs no more than a
	static branch and a bare tracepoint off at the same place (its excess
	within two standard errors, or none), and whether it costs less than
	v3's off state, a jump over the pattern (by more than two)."""
	out = []
	state = SITE_STATES[0][0]
	for fn in FUNCTIONS:
		mark = f'mark@{state}'
		if (fn, mark) not in result.combined:
			continue
		for peer, label in (('static_branch', 'a static branch'),
				    ('tracepoint', 'a bare tracepoint')):
			d, se = paired(result, fn, mark, f'{peer}@{state}')
			out.append((f'silicon, {fn}: a marker off at most {label} off',
				    f'{d:+.2f} ticks (standard error {se:.2f})', d <= 2 * se))
		if (fn, 'mark@v3_off') in result.combined:
			d, se = paired(result, fn, 'mark@v3_off', mark)
			out.append((f"silicon, {fn}: a marker off below v3's jump over the pattern",
				    f'{d:+.2f} ticks less (standard error {se:.2f})', d > 2 * se))
	return out
