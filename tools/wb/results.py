# SPDX-License-Identifier: GPL-2.0
"""Turning what the guests and host checks report into KTAP, parsing it with
upstream's kunit.py, and counting passed and failed cases."""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .shell import run

# Console lines that fail a run whatever the tests said.
SPLAT = re.compile(
	r'WARNING:|BUG:|Oops|Kernel panic|general protection fault|'
	r'Call Trace:|UBSAN:|KASAN:|kmemleak: .*suspected memory leak|'
	r'possible recursive locking|possible circular locking|inconsistent lock state|'
	r'suspicious RCU usage|INFO: task .* blocked|rcu: INFO:|self-detected stall|'
	r'soft lockup|hard LOCKUP|invalid opcode')


@dataclass
class Counts:
	passed: int = 0
	failed: int = 0
	skipped: int = 0
	failures: List[str] = field(default_factory=list)

	def add(self, other: 'Counts') -> None:
		self.passed += other.passed
		self.failed += other.failed
		self.skipped += other.skipped
		self.failures += other.failures


@dataclass(frozen=True)
class Case:
	"""A check the host makes itself (checkpatch, console scan, ...)."""
	name: str
	ok: bool
	diagnostic: str = ''


def _indent(lines: List[str], prefix: str = '    ') -> List[str]:
	return [prefix + line if line else line for line in lines]


def suite_ktap(name: str, cases: List[Case]) -> List[str]:
	"""One KTAP subtest (a suite) made of host-side cases."""
	out = ['KTAP version 1', f'# Subtest: {name}', f'1..{len(cases)}']
	for i, case in enumerate(cases, 1):
		if case.diagnostic:
			out += ['# ' + line for line in case.diagnostic.splitlines()]
		out.append(f'{"ok" if case.ok else "not ok"} {i} {case.name}')
	return out


def ktap_document(suites: List[Tuple[str, List[str]]]) -> str:
	"""Wraps subtests into one KTAP document; each item is (name, lines)
	where lines are a complete subtest without its result line."""
	out = ['KTAP version 1', f'1..{len(suites)}']
	for i, (name, lines) in enumerate(suites, 1):
		failed = any(re.match(r'\s*not ok \d+ ', l) for l in lines) or not lines
		out += _indent(lines)
		out.append(f'{"not ok" if failed else "ok"} {i} {name}')
	return '\n'.join(out) + '\n'


def channel_ended(text: str) -> bool:
	"""Whether the guest got to the end of its script (guest/lib.sh)."""
	return '@@ section end' in text


def split_channel(text: str) -> Dict[str, List[Tuple[str, List[str]]]]:
	"""Splits the ttyS1 stream into sections of (suite, lines)."""
	sections: Dict[str, List[Tuple[str, List[str]]]] = {}
	current: Optional[List[Tuple[str, List[str]]]] = None
	for line in text.replace('\r', '').splitlines():
		if line.startswith('@@ section '):
			current = sections.setdefault(line.split(None, 2)[2].strip(), [])
		elif line.startswith('@@ suite ') and current is not None:
			current.append((line.split(None, 2)[2].strip(), []))
		elif current:
			current[-1][1].append(line)
	return sections


def kunit_suite_lines(raw: List[str]) -> List[str]:
	"""A suite's debugfs 'results' file, minus its own document header and
	trailing result line: what remains is the suite's subtest body."""
	lines = [l for l in raw if l.strip()]
	if lines[:2] == ['KTAP version 1', '1..1']:
		lines = lines[2:]
	if lines and re.match(r'(not )?ok 1 ', lines[-1]):
		lines = lines[:-1]
	# The body is indented by four spaces in the debugfs file.
	return [l[4:] if l.startswith('    ') else l for l in lines]


def e2e_suite_lines(raw: List[str]) -> List[str]:
	"""Numbers the 'ok NAME' lines the guest scripts emit."""
	out, n = [], 0
	for line in raw:
		m = re.match(r'(not ok|ok) (.*)$', line)
		if m:
			n += 1
			out.append(f'{m.group(1)} {n} {m.group(2)}')
		elif line.startswith('#'):
			out.append(line)
	return ['KTAP version 1', f'1..{n}'] + out


def parse(kunit_py: Path, ktap: Path) -> Counts:
	"""Parses @ktap with `kunit.py parse` and counts its leaf test cases."""
	json_path = ktap.with_suffix('.json')
	proc = run(['python3', kunit_py, 'parse', f'--json={json_path}', ktap],
		   quiet=True, capture=True, check=False)
	ktap.with_suffix('.parsed.txt').write_text(proc.stdout + proc.stderr)
	counts = Counts()
	if not json_path.is_file():
		counts.failed += 1
		counts.failures.append(f'{ktap}: kunit.py parse wrote no JSON')
		return counts

	def walk(group: dict, path: str) -> None:
		for case in group.get('test_cases', []):
			name = f'{path}.{case["name"]}' if path else case['name']
			if case['status'] == 'PASS':
				counts.passed += 1
			elif case['status'] == 'SKIP':
				counts.skipped += 1
			else:
				counts.failed += 1
				counts.failures.append(f'{ktap.name}: {name} ({case["status"]})')
		for sub in group.get('sub_groups', []):
			walk(sub, f'{path}.{sub["name"]}' if path else sub['name'])

	walk(json.loads(json_path.read_text()), '')
	return counts


def splats(console: Path) -> List[str]:
	"""Console lines that report a kernel warning, bug, crash or lockdep splat."""
	if not console.is_file():
		return []
	return [line.rstrip() for line in console.read_text(errors='replace').splitlines()
		if SPLAT.search(line)]
