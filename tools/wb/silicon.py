# SPDX-License-Identifier: GPL-2.0
"""make bench's silicon rows: the functions of lib/markers_bench/real.c,
timed on the host's own CPU, off and on.

TCG counts guest instructions and models no front end, no branch predictor
and no cache: it cannot tell a taken jump from a NOP. These rows run the
benchmark kernel's own code on the host: the module object that kbuild
linked and objtool processed (lib/markers_bench/markers_bench.o), the
markers core's iterators and the pair and triple (kernel/marker.o,
arch/x86/kernel/marker_pair.o, run through objtool as vmlinux's link
would), and tools/silicon/setup.c, compiled with kbuild's command for
real.c: the probes, and the state the markers and tracepoint cores give
them. They are linked into a user-space program with
tools/silicon/harness.c and a stub for every kernel symbol they name. The
code model is the kernel's (-mcmodel=kernel uses sign-extended 32-bit
addresses, which the program's low addresses satisfy), per-CPU variables
are offsets from %gs as in the kernel, so every instruction is the one the
kernel runs; the harness only does what the kernel does to its text at
boot (returns, retpolines, calls of __fentry__) and to switch sites: see
harness.c. A stub that runs traps: no row runs code the kernel would not.

Where code sits moves its cost: a loop that crosses a 64-byte line or a
32-byte fetch window costs more, whatever the site in front of it, and
the functions of two variants sit differently. So the module's text is
placed at PLACEMENTS bytes into a page, one program each (0 is where the
module loader puts it), and every row is given for each placement and as
the mean over them: each variant's cost over the positions of its code
in a 64-byte line.

A program times every variant of every function of real.c (none: no
instrumentation), for CALLS calls, ROUNDS times. Each round puts the
sites in each state of SITE_STATES and ON_STATES in turn, then times all
the variants of one function after another, in a new order: what a
variant adds is its time minus that of "none" in the same round and
state. A row gives, in TSC ticks per call (the TSC is invariant on the
CPUs this runs on: constant_tsc, nonstop_tsc), the minimum and the median
over the rounds, the median of what it adds, and the median of its ratio
to the static branch and to the tracepoint of the same round.
"""

import json
import re
import shutil
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from . import settings
from .kbuild import Build
from .shell import WorkbenchError, log, output, run

HARNESS = settings.REPO / 'tools/silicon/harness.c'
SETUP = settings.REPO / 'tools/silicon/setup.c'
MODULE_OBJECT = 'lib/markers_bench/markers_bench.o'
# The markers core's iterators and the pair and the triple, in vmlinux:
# objtool only processes those at vmlinux's link, so the harness runs it
# on a copy of each with the options of the module's objtool run that an
# object of its own takes (not --ibt, which wants a linked object, nor
# --orc, of no use here).
KERNEL_OBJECTS = ('kernel/marker.o', 'arch/x86/kernel/marker_pair.o')
OBJTOOL_DROPPED = ('--ibt', '--orc', '--link', '--module')
# Where setup.c borrows its compiler command from.
SETUP_LIKE = 'lib/markers_bench/real.o'
# Sections the harness walks, renamed so that the linker gives them
# __start_/__stop_ symbols; the module's text, placed on its own.
RENAMED_SECTIONS = (('.return_sites', 'wb_return_sites'),
		    ('.retpoline_sites', 'wb_retpoline_sites'),
		    ('.static_call_sites', 'wb_static_call_sites'))
MODULE_TEXT = ('.text', 'wb_module_text')
STUB_PREFIX = 'wb_kernel_'
THUNK = re.compile(r'^__x86_indirect_thunk_(\w+)$')
# Per-CPU variables are offsets into the CPU's area, which %gs points at
# (x86-64's per-CPU section is linked at 0): the harness gives them
# offsets in an area of its own, past the first page, whose byte 0x28 is
# the stack protector's canary (fixed_percpu_data). Aliases share one.
PERCPU_PAGE = 0x1000
PERCPU_ALIASES = {'const_pcpu_hot': 'pcpu_hot'}
REGISTERS = ('rax', 'rcx', 'rdx', 'rbx', 'rsp', 'rbp', 'rsi', 'rdi',
	     'r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15')

PLACEMENTS = (0, 8, 16, 24, 32, 40, 48, 56)
ROUNDS = 3000
CALLS = 1000

# The states of marker sites the rows are timed in, as the harness takes
# them (NAME:CLASS=BYTES, see harness.c): the bytes arch/x86/kernel/marker.c
# writes, which the KUnit case markers.marker_site_layout checks in the
# kernel. "off" is the series' off state: a near site (a short jb whose
# probe block a jmp rel8 from the slot reaches) is one 7-byte NOP, a far
# one runs its pattern, not taken. The others are the candidates it was
# chosen from: "pattern", every site as built (a 2-byte NOP, then the
# pattern, not taken), and "v3_off", the off state of v3: a jump over the
# pattern.
SITE_STATES = (('off', 'near=0f1f'), ('pattern', '7=6690,11=6690'),
	       ('v3_off', '7=eb05,11=eb09'))
# The states of the enabled rows (harness.c, setup.c): the markers of
# real.c with empty probes, their recorded calls at each target the
# registry uses, and the tracepoint of real.c with as many empty probes
# (its static call straight to a lone probe, else to its iterator). The
# marker rows of each are against "none" and the tracepoint of the same
# state.
ON_STATES = (('on_direct', 'on=direct,tp=1'), ('on_iter1', 'on=iter1,tp=1'),
	     ('on_regs1', 'on=regs1,tp=1'),
	     ('on_pair', 'on=pair,tp=2'), ('on_iter2', 'on=iter2,tp=2'),
	     ('on_regs2', 'on=regs2,tp=2'),
	     ('on_triple', 'on=triple,tp=3'), ('on_iter3', 'on=iter3,tp=3'),
	     ('on_regs3', 'on=regs3,tp=3'),
	     ('on_va_one', 'on=va_one,tp=1'), ('on_va_iter', 'on=va_iter,tp=1'))

FUNCTIONS = ('csum', 'find', 'account')
VARIANTS = ('none', 'mark', 'mark_far', 'static_branch', 'static_branch_probe', 'tracepoint',
	    'plain', 'dyndbg')

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


def _undefined(objs: Sequence[Path]) -> Dict[str, bool]:
	"""The symbols that @objs name and none of them defines, each with
	whether a call (a PLT32 relocation) names it, which makes it a
	function."""
	symbols, defined = {}, set()
	for obj in objs:
		for line in output(['nm', str(obj)]).splitlines():
			fields = line.split()
			if fields[-2] in ('U', 'w', 'v'):
				symbols.setdefault(fields[-1], False)
			elif fields[-2] in 'TDBRtdbrVWvw' and fields[-2].isupper():
				defined.add(fields[-1])
		for line in output(['readelf', '-r', '-W', str(obj)]).splitlines():
			fields = line.split()
			if len(fields) >= 5 and fields[2] == 'R_X86_64_PLT32':
				name = fields[4].split('+')[0].split('-')[0]
				if name in symbols:
					symbols[name] = True
	return {name: f for name, f in symbols.items() if name not in defined}


def _percpu(objs: Sequence[Path]) -> set:
	"""The symbols that @objs address through %gs: per-CPU variables."""
	found = set()
	for obj in objs:
		lines = output(['objdump', '-dr', str(obj)]).splitlines()
		for i, line in enumerate(lines):
			if '%gs:' not in line:
				continue
			for follow in lines[i + 1:i + 3]:
				m = re.search(r'R_X86_64_\w+\s+([A-Za-z_][\w.]*)', follow)
				if m:
					found.add(m.group(1))
					break
	return found


def _stubs(symbols: Dict[str, bool], percpu: set) -> str:
	"""Assembly defining each of @symbols, renamed with STUB_PREFIX: a
	per-CPU variable as its offset in the harness's per-CPU area (and
	wb_percpu_size, the size of that area), a function that traps (ud2),
	or 4 KiB of zeroed data; and the table of the retpoline thunks among
	them, with their registers (wb_thunks)."""
	offsets = {}
	for name in sorted(n for n in percpu if n in symbols and n not in PERCPU_ALIASES):
		offsets[name] = PERCPU_PAGE * (len(offsets) + 1)
	for alias, name in PERCPU_ALIASES.items():
		if alias in symbols and name in offsets:
			offsets[alias] = offsets[name]
	lines = [f'\t.globl wb_percpu_size', f'\t.set wb_percpu_size, {PERCPU_PAGE * (len(offsets) + 1)}']
	for name, offset in sorted(offsets.items()):
		lines += [f'\t.globl {STUB_PREFIX}{name}', f'\t.set {STUB_PREFIX}{name}, {offset}']
	symbols = {n: f for n, f in symbols.items() if n not in offsets}
	lines.append('\t.text')
	for name, is_function in sorted(symbols.items()):
		if is_function:
			stub = STUB_PREFIX + name
			lines += [f'\t.globl {stub}', f'\t.type {stub}, @function',
				  '\t.p2align 4', f'{stub}:', '\tud2']
	lines.append('\t.bss')
	for name, is_function in sorted(symbols.items()):
		if not is_function:
			stub = STUB_PREFIX + name
			lines += [f'\t.globl {stub}', f'\t.type {stub}, @object', '\t.p2align 6',
				  f'{stub}:', '\t.zero 4096']
	lines.append('\t.section wb_thunks, "a"')
	for name in sorted(symbols):
		m = THUNK.match(name)
		if m and m.group(1) in REGISTERS:
			lines += [f'\t.quad {STUB_PREFIX}{name}', f'\t.quad {REGISTERS.index(m.group(1))}']
	lines.append('\t.section .note.GNU-stack, "", @progbits')
	return '\n'.join(lines) + '\n'


def _objtool_options(build: Build) -> List[str]:
	"""The options of objtool's run on the module, but OBJTOOL_DROPPED."""
	cmd = (build.dir / 'lib/markers_bench/.markers_bench.o.cmd').read_text()
	m = re.search(r'objtool/objtool((?: --[a-z_=-]+)+)', cmd)
	if not m:
		raise WorkbenchError('no objtool command in lib/markers_bench/.markers_bench.o.cmd')
	return [o for o in m.group(1).split() if o not in OBJTOOL_DROPPED]


def _compile_setup(build: Build, out: Path) -> None:
	"""setup.c, with the command kbuild gave SETUP_LIKE."""
	cmd_file = build.dir / Path(SETUP_LIKE).parent / f'.{Path(SETUP_LIKE).name}.cmd'
	first = cmd_file.read_text().splitlines()[0]
	cmd = first.split(':=', 1)[1].strip()
	src = next(w for w in cmd.split() if w.endswith('/' + Path(SETUP_LIKE).stem + '.c'))
	cmd = re.sub(r'-Wp,-MMD,\S+', '', cmd)
	cmd = cmd.replace(f'-o {SETUP_LIKE} ', f'-o {out} ').replace(src, str(SETUP))
	run(['sh', '-c', cmd], cwd=build.dir)


def _placement(offset: int) -> str:
	"""Assembly that starts the module's text @offset bytes into a page."""
	skip = f'\t.skip {offset}, 0xcc\n' if offset else ''
	return ('\t.section wb_module_text, "ax", @progbits\n\t.p2align 12\n' + skip +
		'\t.section .note.GNU-stack, "", @progbits\n')


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
	# The kernel's objects, copied and run through objtool; setup.c.
	objtool = [str(build.dir / 'tools/objtool/objtool'), *_objtool_options(build)]
	kernel = []
	for name in KERNEL_OBJECTS:
		copy = outdir / Path(name).name
		shutil.copyfile(build.dir / name, copy)
		kernel.append(copy)
	setup = outdir / 'setup.o'
	_compile_setup(build, setup)
	kernel.append(setup)
	for copy in kernel:
		run([*objtool, copy])
	objs = [obj, *kernel]
	undefined = _undefined(objs)
	renames = outdir / 'renames.txt'
	renames.write_text(''.join(f'{name} {STUB_PREFIX}{name}\n' for name in sorted(undefined)))
	sections = [arg for old, new in RENAMED_SECTIONS
		    for arg in ('--rename-section', f'{old}={new}')]
	module = outdir / 'markers_bench.o'
	run(['objcopy', *sections, '--rename-section', '='.join(MODULE_TEXT),
	     f'--redefine-syms={renames}', obj, module])
	for copy in kernel:
		run(['objcopy', *sections, f'--redefine-syms={renames}', copy])
	stubs = outdir / 'stubs.S'
	stubs.write_text(_stubs(undefined, {n.removeprefix(STUB_PREFIX)
					    for n in _percpu([module, *kernel])}))
	binaries = {}
	for offset in PLACEMENTS:
		pad = outdir / f'placement{offset}.S'
		pad.write_text(_placement(offset))
		binary = outdir / f'harness{offset}'
		run(['gcc', '-O2', '-Wall', '-static', '-no-pie', '-o', binary, HARNESS, stubs, pad,
		     module, *kernel, '-Wl,-z,noexecstack'], cwd=outdir)
		binaries[offset] = binary
	return binaries


def measure(binary: Path, rounds: int = ROUNDS, calls: int = CALLS) -> Tuple[Timings, List[str]]:
	"""Runs @binary on one CPU in SITE_STATES; returns the ticks per call of
	each (function, variant@state) per round, and the sites it wrote, as
	"STATE CLASS LEN BYTES"."""
	states = [f'{name}:{rules}' for name, rules in SITE_STATES + ON_STATES]
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


# The call targets of the markers core, each against what would take its
# calls without it: marker_probe_iterate_regs() for the fast targets, the
# C iterator for that one and for marker_probe_va_one().
# (target's state, the other's state, what it stands for)
TARGET_PAIRS = (('on_direct', 'on_regs1', 'one fast probe called straight'),
		('on_pair', 'on_regs2', 'marker_probe_pair(), two fast probes'),
		('on_triple', 'on_regs3', 'marker_probe_triple(), three fast probes'),
		('on_regs1', 'on_iter1', 'marker_probe_iterate_regs(), one fast probe'),
		('on_regs2', 'on_iter2', 'marker_probe_iterate_regs(), two fast probes'),
		('on_regs3', 'on_iter3', 'marker_probe_iterate_regs(), three fast probes'),
		('on_va_one', 'on_va_iter', 'marker_probe_va_one(), one va_list probe'))


def on_table(result: Result) -> List[str]:
	"""The enabled rows: per function and state, what the marker on adds
	and what the tracepoint with as many probes adds, in the same state;
	then what each call target saves (TARGET_PAIRS)."""
	lines = ['silicon, enabled: what a marker on adds (its probes empty, its recorded call '
		 'at the target named), near and far, and the tracepoint with as many empty '
		 'probes, in the same rounds; TSC ticks per call, means over the placements',
		 f'  {"function":<8} {"state":<11} {"marker":>8} {"far":>8} {"tracepoint":>10} '
		 f'{"ratio":>6}']
	for fn in FUNCTIONS:
		for state, _ in ON_STATES:
			m = result.combined.get((fn, f'mark@{state}'))
			f = result.combined.get((fn, f'mark_far@{state}'))
			t = result.combined.get((fn, f'tracepoint@{state}'))
			if not m or not t:
				continue
			far = f'{f.added:>+8.2f}' if f else f'{"-":>8}'
			lines.append(f'  {fn:<8} {state:<11} {m.added:>+8.2f} {far} {t.added:>+10.2f} '
				     f'{m.per_tracepoint:>6.3f}')
	lines.append('  what each target saves against what would take its calls without it '
		     '(paired over the placements: mean, standard error), per function:')
	for target, iterator, text in TARGET_PAIRS:
		cells = []
		for fn in FUNCTIONS:
			if (fn, f'mark@{target}') not in result.combined:
				continue
			d, se = paired(result, fn, f'mark@{iterator}', f'mark@{target}')
			cells.append(f'{fn} {d:+.2f} ({se:.2f})')
		lines.append(f'    {text:<46} (against {iterator}) ' + ', '.join(cells))
	return lines


def target_savings(result: Result) -> Dict[str, List[Tuple[str, float, float]]]:
	"""Per target state: (function, saving, standard error) against the
	state TARGET_PAIRS gives it, as on_table() prints them."""
	out = {}
	for target, iterator, _ in TARGET_PAIRS:
		out[target] = [(fn, *paired(result, fn, f'mark@{iterator}', f'mark@{target}'))
			       for fn in FUNCTIONS if (fn, f'mark@{target}') in result.combined]
	return out


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


# Variants whose off path is one and the same NOP of a static key: how far
# apart they time in a function is what this machine cannot tell apart.
NOP_PEERS = ('static_branch', 'static_branch_probe', 'tracepoint', 'dyndbg')


def nop_spread(result: Result, fn: str) -> float:
	"""The largest paired difference between two NOP_PEERS of @fn, off."""
	state = SITE_STATES[0][0]
	peers = [p for p in NOP_PEERS if (fn, f'{p}@{state}') in result.combined]
	return max((abs(paired(result, fn, f'{a}@{state}', f'{b}@{state}')[0])
		    for i, a in enumerate(peers) for b in peers[i + 1:]), default=0.0)


def off_targets(result: Result) -> List[Tuple[str, str, bool]]:
	"""Per function of real.c: whether a marker off costs no more than a
	static branch and a bare tracepoint off at the same place (its excess
	within the spread of the variants that run the same NOP off, plus two
	standard errors), and whether it costs less than v3's off state, a
	jump over the pattern (by more than two standard errors).

	The last holds only where v3's jump costs something: more than a static
	branch, by the same measure. Where it does not (in csum on a Zen 3 the
	taken jump hides in the function's own latency, and v3's state, the
	NOP's and a static branch's time the same at most placements), nothing
	is there to save, and the target is that a marker off costs at most
	v3's jump, as for the static branch."""
	out = []
	state = SITE_STATES[0][0]
	for fn in FUNCTIONS:
		mark = f'mark@{state}'
		if (fn, mark) not in result.combined:
			continue
		spread = nop_spread(result, fn)
		for peer, label in (('static_branch', 'a static branch'),
				    ('tracepoint', 'a bare tracepoint')):
			d, se = paired(result, fn, mark, f'{peer}@{state}')
			out.append((f'silicon, {fn}: a marker off at most {label} off',
				    f'{d:+.2f} ticks (standard error {se:.2f}; the static-key '
				    f'sites, one NOP each, {spread:.2f} apart)', d <= spread + 2 * se))
		if (fn, 'mark@v3_off') not in result.combined:
			continue
		v3, v3_se = paired(result, fn, 'mark@v3_off', f'static_branch@{state}')
		d, se = paired(result, fn, 'mark@v3_off', mark)
		detail = (f'{d:+.2f} ticks less (standard error {se:.2f}); v3 over the static '
			  f'branch {v3:+.2f} ({v3_se:.2f})')
		if v3 > spread + 2 * v3_se:
			out.append((f"silicon, {fn}: a marker off below v3's jump over the pattern",
				    detail, d > 2 * se))
		else:
			out.append((f"silicon, {fn}: a marker off at most v3's jump over the pattern, "
				    'which costs no more than a static branch here',
				    detail, -d <= spread + 2 * se))
	return out


def far_lines(result: Result) -> List[str]:
	"""Per function of real.c: what its far marker site off costs beside
	the near one, a static branch and a bare tracepoint off, paired over
	the placements. Measured, not a target: a far site runs its pattern,
	not taken, where a near one and the others run one NOP."""
	state = SITE_STATES[0][0]
	lines = ['silicon, far sites off (measured, no target), paired over the placements: '
		 'mean ticks per call (standard error)']
	for fn in FUNCTIONS:
		far = f'mark_far@{state}'
		if (fn, far) not in result.combined:
			continue
		cells = []
		for peer, label in (('mark', 'a near marker'), ('static_branch', 'a static branch'),
				    ('tracepoint', 'a bare tracepoint')):
			d, se = paired(result, fn, far, f'{peer}@{state}')
			cells.append(f'over {label} {d:+.2f} ({se:.2f})')
		lines.append(f'  {fn}: ' + ', '.join(cells))
	return lines


def to_json(result: Result) -> str:
	"""Every row of @result, per placement and combined, as JSON."""
	def rows_of(rows: Dict[Tuple[str, str], Row]) -> dict:
		return {f'{fn}.{variant}': vars(r) for (fn, variant), r in sorted(rows.items())}

	return json.dumps({'cpu': result.cpu, 'rounds': result.rounds, 'calls': result.calls,
			   'states': dict(SITE_STATES),
			   'placements': {str(p): rows_of(r) for p, r in result.placements.items()},
			   'combined': rows_of(result.combined),
			   # "STATE CLASS LEN BYTES" of every site the harness wrote, counted
			   'sites': dict(Counter(result.sites))},
			  indent=1) + '\n'
