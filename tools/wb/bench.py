# SPDX-License-Identifier: GPL-2.0
"""make bench: runs markers_bench.ko in the benchmark kernel, reads the
footprint rows from its objects, and writes one table.

The guest prints "markers_bench: ROW VALUE UNIT" lines (lib/markers_bench/
bench.c); guest/bench.sh forwards them on the results channel, in a
"bench" section.
"""

import json
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

from . import initramfs, qemu, results, settings
from .kbuild import Build
from .shell import WorkbenchError, log, output

ROW = re.compile(r'^([a-z0-9_.]+) (\d+) (\S+)$')

# The footprint objects, each one instrumented call; fp_none is the reference.
FOOTPRINT = (('mark', 'MARK()'), ('static', 'static branch'),
	     ('trace', 'TRACE_EVENT'))


@dataclass
class Row:
	unit: str
	icount: int = None
	wall: List[int] = field(default_factory=list)


def parse_rows(text: str) -> Dict[str, Tuple[int, str]]:
	"""The rows of the "bench" section of a results channel."""
	rows = {}
	for _, lines in results.split_channel(text).get('bench', []):
		for line in lines:
			m = ROW.match(line.strip())
			if m:
				rows[m.group(1)] = (int(m.group(2)), m.group(3))
	return rows


def run_guest(qemu_binary: Path, build: Build, initrd: Path, outdir: Path, icount: bool,
	      module_args: Sequence[str]) -> Dict[str, Tuple[int, str]]:
	"""Boots the benchmark kernel once and returns its rows."""
	cmdline = ['wb.mode=bench', 'quiet']
	if module_args:
		cmdline.append('wb.bench_args=' + ','.join(module_args))
	guest = qemu.boot(qemu_binary, build.image, initrd, cmdline, build.config.smp,
			  settings.BENCH_TIMEOUT, outdir / 'console.log', outdir / 'results.txt',
			  extra=settings.BENCH_ICOUNT_ARGS if icount else ())
	text = (outdir / 'results.txt').read_text(errors='replace') \
		if (outdir / 'results.txt').is_file() else ''
	splats = results.splats(outdir / 'console.log')
	if guest.status != qemu.GuestStatus.POWERED_OFF or '@@ section end' not in text:
		raise WorkbenchError(f'benchmark guest {guest.status.value}, see '
				     f'{outdir / "console.log"}')
	if splats:
		raise WorkbenchError('the benchmark kernel complained:\n' + '\n'.join(splats[:20]))
	rows = parse_rows(text)
	bad = [r for r in rows if re.search(r'failed|missing|not_optimized|needs_', r)]
	if 'done' not in rows or bad:
		raise WorkbenchError(f'benchmark incomplete (rows: {", ".join(bad) or "no done"}); '
				     f'see {outdir / "console.log"}')
	log(f'benchmark run: {len(rows)} rows in {guest.seconds:.0f} s')
	return rows


def _section_sizes(obj: Path) -> Dict[str, Tuple[int, str]]:
	"""Allocated sections of @obj: name -> (size, flags)."""
	sizes = {}
	for line in output(['readelf', '-S', '-W', str(obj)]).splitlines():
		m = re.match(r'\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+'
			     r'([0-9a-f]+)\s+[0-9a-f]+\s+([A-Z]*)', line)
		if m and 'A' in m.group(3):
			sizes[m.group(1)] = (int(m.group(2), 16), m.group(3))
	return sizes


def footprint(build: Build) -> Dict[str, Tuple[int, str]]:
	"""Bytes each mechanism adds to one call, from lib/markers_bench/fp_*.o:
	code (executable sections) and data (every other allocated section:
	metadata tables, strings, keys, event descriptions)."""
	objdir = build.dir / 'lib/markers_bench'

	def totals(name: str) -> Tuple[int, int]:
		sizes = _section_sizes(objdir / f'fp_{name}.o')
		text = sum(size for size, flags in sizes.values() if 'X' in flags)
		data = sum(size for size, flags in sizes.values() if 'X' not in flags)
		return text, data

	base_text, base_data = totals('none')
	rows = {}
	for name, _ in FOOTPRINT:
		text, data = totals(name)
		rows[f'footprint.{name}.text'] = (text - base_text, 'bytes')
		rows[f'footprint.{name}.data'] = (data - base_data, 'bytes')
		for section, (size, flags) in sorted(_section_sizes(objdir / f'fp_{name}.o').items()):
			if section.startswith(('__', '_ftrace')) or section == '.text.unlikely':
				rows[f'footprint.{name}.section.{section}'] = (size, 'bytes')
	return rows


def _fmt(value: int, unit: str) -> str:
	if value is None:
		return '-'
	if unit == 'ps':
		return f'{value / 1000:.2f} ns'
	if unit == 'ns' and value >= 10000:
		return f'{value / 1000:.1f} us'
	return f'{value} {unit}' if unit not in ('-',) else str(value)


def table(rows: Dict[str, Row]) -> str:
	"""The rows as text: icount figure (instructions), host-clock median and range."""
	lines = [f'{"row":<40} {"icount":>14} {"wall median":>14} {"wall min..max":>24}']
	for name, row in rows.items():
		wall = sorted(row.wall)
		icount = _fmt(row.icount, row.unit)
		if row.unit == 'ps' and row.icount is not None:
			icount = f'{row.icount / 1000:.2f} insn'
		median = _fmt(int(statistics.median(wall)), row.unit) if wall else '-'
		spread = f'{_fmt(wall[0], row.unit)}..{_fmt(wall[-1], row.unit)}' if wall else '-'
		lines.append(f'{name:<40} {icount:>14} {median:>14} {spread:>24}')
	return '\n'.join(lines)


def run(qemu_binary: Path, build: Build, outdir: Path, wall_runs: int,
	module_args: Sequence[str] = ()) -> Dict[str, Row]:
	"""The whole benchmark; writes @outdir/bench.json and @outdir/table.txt."""
	initrd = initramfs.make(build)
	rows: Dict[str, Row] = {}
	for name, (value, unit) in footprint(build).items():
		rows[name] = Row(unit, icount=value)
	for name, (value, unit) in run_guest(qemu_binary, build, initrd, outdir / 'icount',
					     True, module_args).items():
		rows.setdefault(name, Row(unit)).icount = value
	for i in range(wall_runs):
		for name, (value, unit) in run_guest(qemu_binary, build, initrd,
						     outdir / f'wall-{i + 1}', False,
						     module_args).items():
			rows.setdefault(name, Row(unit)).wall.append(value)
	(outdir / 'bench.json').write_text(json.dumps(
		{name: {'unit': r.unit, 'icount': r.icount, 'wall': r.wall}
		 for name, r in rows.items()}, indent=1) + '\n')
	(outdir / 'table.txt').write_text(table(rows) + '\n')
	return rows
