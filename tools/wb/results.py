# SPDX-License-Identifier: GPL-2.0
"""Turning what the guests and host checks report into KTAP, parsing it with
upstream's kunit.py, and counting passed and failed cases."""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from .shell import run

# Console lines that fail a run whatever the tests said (arm64 prints its
# oopses as "Internal error: Oops", its stacks as "Call trace:"; kCFI its
# type mismatches as "CFI failure at", before the oops).
SPLAT = re.compile(
	r'WARNING:|BUG:|Oops|Kernel panic|general protection fault|'
	r'Call Trace:|Call trace:|UBSAN:|KASAN:|kmemleak: .*suspected memory leak|'
	r'possible recursive locking|possible circular locking|inconsistent lock state|'
	r'suspicious RCU usage|INFO: task .* blocked|rcu: INFO:|self-detected stall|'
	r'soft lockup|hard LOCKUP|invalid opcode|CFI failure')


# A KTAP result line, at any depth; a "# SKIP" directive makes it a skip,
# whether "ok" or "not ok", as kunit.py reads it.
RESULT = re.compile(r'^( *)(not ok|ok) (\d+) (?:- )?(.*?)(?: # SKIP(.*))?$')


@dataclass
class Counts:
	passed: int = 0
	failed: int = 0
	skipped: int = 0
	failures: List[str] = field(default_factory=list)
	skips: List[str] = field(default_factory=list)		# one line per skipped case
	details: List[str] = field(default_factory=list)	# why host checks failed

	def add(self, other: 'Counts') -> None:
		self.passed += other.passed
		self.failed += other.failed
		self.skipped += other.skipped
		self.failures += other.failures
		self.skips += other.skips
		self.details += other.details


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


def channel_lines(text: str) -> List[str]:
	return text.replace('\r', '').splitlines()


def _argument(line: str) -> str:
	"""What follows "@@ WORD " on a channel line ('' if nothing)."""
	words = line.split(None, 2)
	return words[2].strip() if len(words) == 3 else ''


def channel_ended(text: str) -> bool:
	"""Whether the guest got to the end of its script (guest/lib.sh)."""
	return '@@ section end' in channel_lines(text)


def split_channel(text: str) -> Dict[str, List[Tuple[str, List[str]]]]:
	"""Splits the results channel into sections of (suite, lines), in the order
	the guest sent them; other "@@" lines (script, token) are left out."""
	sections: Dict[str, List[Tuple[str, List[str]]]] = {}
	current: Optional[List[Tuple[str, List[str]]]] = None
	for line in channel_lines(text):
		if line.startswith('@@ section '):
			current = sections.setdefault(_argument(line), [])
		elif line.startswith('@@ suite ') and current is not None:
			current.append((_argument(line), []))
		elif line.startswith('@@ '):
			continue
		elif current:
			current[-1][1].append(line)
	return sections


def channel_vulnerabilities(text: str) -> Dict[str, str]:
	"""What the guest found in /sys/devices/system/cpu/vulnerabilities/,
	sent as "@@ vulnerability FILE: TEXT" lines (guest/test.sh)."""
	found = {}
	for line in channel_lines(text):
		m = re.match(r'^@@ vulnerability ([\w.-]+): (.*)$', line)
		if m:
			found[m.group(1)] = m.group(2).strip()
	return found


@dataclass
class Script:
	"""One end-to-end script as the guest ran it (guest/test.sh)."""
	name: str				# file stem under guest/tests
	suites: List[Tuple[str, List[str]]] = field(default_factory=list)
	status: Optional[int] = None		# exit status; None: it never returned
	stray: int = 0				# result lines before its first suite


def channel_scripts(text: str) -> List[Script]:
	"""The scripts between "@@ script NAME" and "@@ script-end NAME STATUS"."""
	scripts: List[Script] = []
	current: Optional[Script] = None
	for line in channel_lines(text):
		words = line.split()
		if line.startswith('@@ script '):
			current = Script(_argument(line))
			scripts.append(current)
		elif line.startswith('@@ script-end ') and len(words) == 4 and current:
			if words[2] == current.name and words[3].isdigit():
				current.status = int(words[3])
			current = None
		elif line.startswith('@@ suite ') and current:
			current.suites.append((_argument(line), []))
		elif line.startswith('@@ section '):
			current = None
		elif current and current.suites:
			current.suites[-1][1].append(line)
		elif current and re.match(r'(not )?ok ', line):
			current.stray += 1
	return scripts


def channel_tokens(text: str) -> List[str]:
	"""The "@@ token" lines: what the guest wrote to /dev/kmsg before the
	after-boot KUnit run."""
	return [_argument(line) for line in channel_lines(text) if line.startswith('@@ token ')]


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


def kunit_results(name: str, raw: List[str]) -> Tuple[bool, bool, Optional[int], List[str]]:
	"""A suite's debugfs 'results' file as (started, ended, plan, results):
	its "# Subtest:" header, its own final result line, its plan, and every
	result line of its body (cases at depth 0, parameters at depth 1)."""
	lines = [l.rstrip() for l in raw if l.strip()]
	ended = bool(lines) and bool(re.match(rf'(not ok|ok) 1 {re.escape(name)}( |$)', lines[-1]))
	body = [l.rstrip() for l in kunit_suite_lines(raw)] if lines else []
	plans = [int(m.group(1)) for m in (re.fullmatch(r'1\.\.(\d+)', l) for l in body) if m]
	return (f'# Subtest: {name}' in body, ended, plans[0] if plans else None,
		[l for l in body if RESULT.match(l)])


# The line guest/test.sh writes to /dev/kmsg right before the after-boot
# KUnit run, with a token that the guest draws at random for this run.
TOKEN_LINE = 'wb: after-boot KUnit run, token '
TOKEN = re.compile(r'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}')
# dmesg's prefix: "<N>" (dmesg -r), "[ seconds]" (PRINTK_TIME), "[ T123]"
# (PRINTK_CALLER).
_PRINTK_PREFIX = re.compile(r'^(?:<\d+>)?\[\s*\d+\.\d+\](?:\[\s*[TC]\d+\])? ')


def log_messages(lines: List[str]) -> List[str]:
	"""dmesg lines without their time stamps; the messages keep their
	indentation (KUnit indents its subtests by four spaces)."""
	return [_PRINTK_PREFIX.sub('', l.rstrip(), count=1) for l in lines]


def messages_after_token(messages: List[str], token: str) -> Optional[List[str]]:
	"""What the kernel logged after the token line; None if it is absent."""
	line = TOKEN_LINE + token
	for i, message in enumerate(messages):
		if message == line:
			return messages[i + 1:]
	return None


def kmsg_results(name: str, messages: List[str]) -> Tuple[bool, bool, Optional[int], List[str]]:
	"""The first run of suite @name that KUnit printed to the kernel log in
	@messages, as kunit_results() gives it: a run starts with its header
	"    # Subtest: NAME" and ends with its own "ok N NAME" line."""
	header = f'    # Subtest: {name}'
	end = re.compile(rf'(not ok|ok) \d+ {re.escape(name)}( # SKIP.*)?$')
	started, plan, results = False, None, []
	for message in messages:
		if end.match(message):
			return started, True, plan, results
		if not started:
			started = message == header
		elif message.startswith('    # Subtest: '):
			break		# the next suite: this one never ended
		elif plan is None and re.fullmatch(r'    1\.\.\d+', message):
			plan = int(message.split('..')[1])
		elif message.startswith('    ') and RESULT.match(message[4:]):
			results.append(message[4:])
	return started, False, plan, results


@dataclass(frozen=True)
class Leaf:
	"""A test case as kunit.py counts it: a case, or a parameter of one."""
	name: str
	ok: bool
	skip: Optional[str]	# the reason, when skipped


def leaves(body: List[str]) -> List[Leaf]:
	"""The leaf results of a suite's body (cases at depth 0, the parameters
	of a parameterised case at depth 1, before the case's own line)."""
	out: List[Leaf] = []
	params: List[Leaf] = []
	for line in body:
		m = RESULT.match(line.rstrip())
		if not m or len(m.group(1)) not in (0, 4):
			continue
		leaf = Leaf(m.group(4), m.group(2) == 'ok',
			    None if m.group(5) is None else m.group(5).strip())
		if m.group(1):
			params.append(leaf)
			continue
		out += [Leaf(f'{leaf.name}.{p.name}', p.ok, p.skip) for p in params] or [leaf]
		params = []
	return out


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


# printk's time before a console line; a KTAP subtest's header.
PRINTK_TIME = re.compile(r'^\[ *\d+\.\d+\] ')
SUBTEST = re.compile(r'^( *)# Subtest: (.+)$')


def console_failed_cases(console: Path) -> List[Tuple[str, str]]:
	"""The KUnit cases that the console shows failed before the kernel's
	first splat, in order, as suite.case[.param], each with its first
	FAILED line. A crash after a failed case can end the guest before the
	results of its phase reach the host; the cases saw the break first all
	the same."""
	if not console.is_file():
		return []
	groups: Dict[int, str] = {}	# the subtest whose results have this indent
	failed = []
	why = ''
	for line in console.read_text(errors='replace').splitlines():
		if SPLAT.search(line):
			break
		line = PRINTK_TIME.sub('', line.rstrip())
		if 'FAILED at' in line and not why:
			why = line.strip().lstrip('#').strip()
		header = SUBTEST.match(line)
		if header:
			groups[len(header.group(1))] = header.group(2).strip()
			continue
		result = RESULT.match(line)
		indent = len(result.group(1)) if result else 0
		if not indent or result.group(5) is not None:
			continue
		if result.group(2) == 'not ok':
			path = [groups[i] for i in sorted(groups) if 0 < i <= indent]
			failed.append(('.'.join(path + [result.group(4).strip()]), why))
		why = ''
	return failed


def splats(console: Path) -> List[str]:
	"""Console lines that report a kernel warning, bug, crash or lockdep splat."""
	if not console.is_file():
		return []
	return [line.rstrip() for line in console.read_text(errors='replace').splitlines()
		if SPLAT.search(line)]
