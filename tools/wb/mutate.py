# SPDX-License-Identifier: GPL-2.0
"""make mutate: the mutation gate. Each tests/mutations/NN-slug.diff breaks
the series (files under linux/) or the workbench (tools/) in one small way
that the tests must notice; the gate applies them one at a time and runs the
part of `make test` that should kill each one.

A kernel mutation is applied in a worktree of the cached tree of its own
(<cache>/trees/<version>/mutate, never the one `make test` builds from) on
top of the series, committed there (so that the build stamp changes), built
in a build directory of its own (<cache>/build/<version>/mutate-<config>,
incrementally), and booted once for the KUnit phases of guest/test.sh, with
kunit.filter_glob= limiting them to the suite of its "run:" header. A
harness mutation is applied to a scratch copy of the repository, whose
workbench re-checks the recorded guest output of the unmutated kernel (the
baseline) as `make test` would: `workbench.py mutate --recheck DIR`.

The baseline of a config is the unmutated kernel booted for every phase
and every suite, before its mutations: a failure there would kill every
mutation for nothing, so its mutations are not run.

A mutation file starts with its header, which `git apply` skips:

  # reason: what the original gets right (one line)
  # expect: the failure that should kill it, as the table shows it
  #	    (a part of it is enough: SUITE.CASE, or a host check's name)
  # run: the KUnit suite to run (default: every suite of the config)
  # config: the kernel of the matrix to build (default: rt)
  # note: anything else, e.g. that only a counter catches it

tests/mutations/README is the index: every mutation must be in it.
Results: out/mutate/<mutation>/ (console, results channel, KTAP), the table
in out/mutate/summary.txt.

Every mutation killed or survived is recorded under <cache>/mutate-outcomes,
keyed by what its outcome depends on: the committed state of the series,
the tests and the workbench, the mutation itself and the kernel's version.
With --resume a mutation recorded under the key of the repository as it
is now is not run again: a gate longer than a sitting runs in parts, and
any commit that could change an outcome starts it afresh.
"""

import argparse
import contextlib
import dataclasses
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import checks, expect, initramfs, kbuild, qemu, results, series, settings, tree
from .results import Case
from .shell import WorkbenchError, log, output, run

MUTATIONS_DIR = settings.REPO / 'tests/mutations'
INDEX = MUTATIONS_DIR / 'README'
# The mutations of code that the base's delta changes (wb/series.py),
# written for that base: each replaces its namesake of MUTATIONS_DIR.
BASE_MUTATIONS_DIR = settings.DELTA_DIR / 'mutations'
OUTDIR = settings.OUT / 'mutate'
OUTCOMES = settings.CACHE / 'mutate-outcomes'
# What an outcome depends on besides its mutation: every path of the
# repository that the build, the boot or the judging reads (not the
# documents, nor the other mutations).
OUTCOME_INPUTS = ('Makefile', 'configs', 'guest', 'linux', 'series',
		  'tests/checkpatch-markers', 'tools')
DEFAULT_CONFIG = 'rt'
# A kernel mutation boots for the KUnit phases only: at boot (text still
# writable, init text present) and after boot (modules, read-only text).
PHASES = ('boot-kunit', 'after-boot-kunit')
WORKTREE = 'mutate'
HEADER = re.compile(r'^# (reason|expect|run|config|note|phases): (.+)$')
REQUIRED = ('reason', 'expect')
# Where a mutation may apply: the series, or the workbench.
KERNEL_DIR, HARNESS_DIR = 'linux/', 'tools/'

KILLED, SURVIVED, BROKEN, NOT_RUN = 'killed', 'SURVIVED', 'BROKEN', 'NOT RUN'


@dataclass(frozen=True)
class Steps:
	"""The steps of `make test` the gate reuses, from tools/workbench.py:
	prepare(install=), boot_guest(p, build, initrd, outdir, phases, index)
	and guest_cases(kunit_py, config, outdir, guests)."""
	prepare: Callable[..., Any]
	boot_guest: Callable[..., Any]
	guest_cases: Callable[..., Any]


@dataclass(frozen=True)
class Mutation:
	path: Path
	reason: str
	expect: str
	suite: Optional[str]		# the one suite to run; None: all of them
	config: str
	note: str
	files: Tuple[str, ...]		# what it changes, from the repository's root
	# The phases of guest/test.sh its guest runs: the KUnit ones (PHASES),
	# or the end-to-end scripts ("# phases: e2e"), for what only a tracer
	# tool in the guest sees.
	phases: Tuple[str, ...] = PHASES

	@property
	def stem(self) -> str:
		return self.path.stem

	@property
	def kernel(self) -> bool:
		return self.files[0].startswith(KERNEL_DIR)


@dataclass
class Verdict:
	"""What a run showed: every failure, KUnit cases first, then the host's
	checks; the first one's diagnostic."""
	failures: List[str] = field(default_factory=list)
	why: str = ''
	# The host stopped the guest (qemu.STALLING_LINES), or a signal ended
	# its QEMU (qemu.SIGNAL_LINE): a fault of the run, which neither kills
	# nor spares a mutation.
	stalled_by: str = ''


@dataclass
class Outcome:
	mutation: Mutation
	result: str
	first: str = ''
	why: str = ''
	expected_seen: bool = True
	seconds: float = 0.0		# its build and boot, or its recheck
	recorded: str = ''		# when --resume took it from an earlier run


@dataclass
class Context:
	"""A run of the gate: the series applied, the worktree of mutations."""
	steps: Steps
	p: Any				# workbench.Prepared
	tree: tree.Tree			# the worktree of mutations
	base: str			# the series' last commit
	in_place: bool = False		# tree is the series' own (--in-place)

	def build_dirname(self, config: str) -> str:
		"""The build directory of @config's mutated kernels: the matrix's
		own when the mutations are made in place, which then rebuilds
		only what a mutation changed."""
		return config if self.in_place else build_dirname(config)

	@property
	def kunit_py(self) -> Path:
		return self.tree.src / 'tools/testing/kunit/kunit.py'


# --- the mutations ----------------------------------------------------------

def _parse(path: Path, index: str) -> Mutation:
	"""Reads the header and the files of one mutation, and checks them."""
	headers: Dict[str, str] = {}
	files = []
	text = path.read_text()
	if re.search(r'^(new|deleted) file mode', text, re.M):
		raise WorkbenchError(f'{path}: a mutation changes files, it neither adds nor '
				     'deletes any')
	for line in text.splitlines():
		m = re.match(r'^diff --git a/(\S+) b/\S+$', line)
		if m:
			files.append(m.group(1))
			continue
		m = HEADER.match(line)
		if m and not files:
			if m.group(1) in headers:
				raise WorkbenchError(f'{path}: two "# {m.group(1)}:" lines')
			headers[m.group(1)] = m.group(2).strip()
	missing = [k for k in REQUIRED if k not in headers]
	if missing:
		raise WorkbenchError(f'{path}: no "# {missing[0]}: ..." line before the diff')
	if not files:
		raise WorkbenchError(f'{path}: no "diff --git" line: not a diff')
	kinds = {f.split('/')[0] + '/' for f in files}
	if kinds not in ({KERNEL_DIR}, {HARNESS_DIR}):
		raise WorkbenchError(f'{path}: changes {", ".join(files)}; a mutation changes '
				     f'files under {KERNEL_DIR} or under {HARNESS_DIR}, not both')
	config = headers.get('config', DEFAULT_CONFIG)
	if config not in settings.MATRIX or not settings.MATRIX[config].guests:
		raise WorkbenchError(f'{path}: config {config} is not a booted config of the '
				     'matrix: ' + ', '.join(n for n, c in settings.MATRIX.items()
							    if c.guests))
	suite = headers.get('run')
	if suite and suite not in settings.MATRIX[config].suites:
		raise WorkbenchError(f'{path}: run: {suite} is not a suite of {config}: '
				     + ', '.join(settings.MATRIX[config].suites))
	if path.stem not in index:
		raise WorkbenchError(f'{path.name} is not in the index {INDEX}: add it there')
	phases = tuple(p.strip() for p in headers.get('phases', ','.join(PHASES)).split(','))
	if not phases or any(p not in settings.GUEST_PHASES for p in phases):
		raise WorkbenchError(f'{path}: phases: {headers["phases"]}: each one of '
				     + ', '.join(settings.GUEST_PHASES))
	return Mutation(path, headers['reason'], headers['expect'], suite, config,
			headers.get('note', ''), tuple(files), phases)


def load() -> List[Mutation]:
	"""Every mutation of tests/mutations, in order."""
	if not INDEX.is_file():
		raise WorkbenchError(f'{INDEX} is missing: the index of the mutations')
	index = INDEX.read_text()
	paths = sorted(MUTATIONS_DIR.glob('[0-9][0-9]-*.diff'))
	if not paths:
		raise WorkbenchError(f'no mutation in {MUTATIONS_DIR} (NN-slug.diff)')
	strays = sorted(p.name for p in BASE_MUTATIONS_DIR.glob('*')
			if not (MUTATIONS_DIR / p.name).is_file())
	if strays:
		raise WorkbenchError(f'{BASE_MUTATIONS_DIR} has mutations that '
				     f'{MUTATIONS_DIR} does not: {", ".join(strays)}')
	return [_parse(_for_base(path), index) for path in paths]


def _for_base(path: Path) -> Path:
	"""@path, or the same mutation as the base's delta writes it, where the
	code it mutates differs on that base."""
	override = BASE_MUTATIONS_DIR / path.name
	return override if override.is_file() else path


def select(mutations: List[Mutation], names: Optional[Sequence[str]]) -> List[Mutation]:
	"""The mutations named by number (01) or file stem; all without names."""
	if not names:
		return mutations
	chosen, unknown = [], []
	for name in names:
		name = f'{int(name):02}' if name.isdigit() else name
		found = [m for m in mutations if m.stem == name or m.stem.startswith(name + '-')]
		if not found:
			unknown.append(name)
		chosen += [m for m in found if m not in chosen]
	if unknown:
		raise WorkbenchError(f'unknown mutation {", ".join(unknown)}; there are: '
				     + ', '.join(m.stem for m in mutations))
	return sorted(chosen, key=lambda m: m.stem)


# --- applying ---------------------------------------------------------------

def apply(m: Mutation, where: Path, strip: int, reverse: bool = False) -> None:
	"""git apply of @m in @where: -p1 in a copy of the repository, -p2 in
	the kernel tree (a/linux/kernel/marker.c is kernel/marker.c there)."""
	run(['git', 'apply', f'-p{strip}', '--verbose', *(['-R'] if reverse else []), m.path],
	    cwd=where, capture=True)


@contextlib.contextmanager
def scratch_copy():
	"""A copy of the repository as it is on disk (its tracked and untracked
	files, not the ignored ones such as out/), removed on exit."""
	names = output(['git', '-C', settings.REPO, 'ls-files', '-z', '-co',
			'--exclude-standard']).split('\0')
	copy = Path(tempfile.mkdtemp(prefix='markers-mutate-'))
	log(f'scratch copy of {settings.REPO}: {copy}')
	try:
		for name in filter(None, names):
			src = settings.REPO / name
			if src.is_file():
				(copy / name).parent.mkdir(parents=True, exist_ok=True)
				shutil.copy2(src, copy / name)
		yield copy
	finally:
		shutil.rmtree(copy, ignore_errors=True)


def mutation_tree(p) -> tree.Tree:
	"""The worktree of the cached tree where kernel mutations go."""
	return tree.worktree(p.tree, WORKTREE, p.commits[-1], quiet=False)


def reset(ctx: Context) -> None:
	"""Back to the series, whatever a mutation left there."""
	tree.git(ctx.tree.src, 'checkout', '-q', '-f', '--detach', ctx.base, quiet=False)


def commit(ctx: Context, m: Mutation) -> None:
	"""Commits @m (fixed dates: the same mutation gives the same commit, and
	its build is up to date if nothing else changed)."""
	run([*tree.GIT, '-C', ctx.tree.src, 'commit', '-q', '--no-verify', '-a',
	     '-m', f'mutation {m.stem}'], env=series._commit_env())


# --- one run ----------------------------------------------------------------

def guest_config(name: str, suite: Optional[str], phases: Sequence[str],
		 mutated: bool = False) -> settings.KernelConfig:
	"""Config @name of the matrix, booted once for @phases, running only
	@suite (kunit.filter_glob=), or all of its suites. The boot of a
	@mutated kernel ends at its first failed case (wb.stop_at_failure=1,
	guest/test.sh): that case kills the mutation, the phases after it
	would only cost time. A baseline runs everything. The one boot has no
	command line nor bootconfig of a script's own (settings.E2E_CMDLINE,
	E2E_BOOTCONFIG): those scripts skip there, as in a config that gives
	them no boot."""
	config = settings.MATRIX[name]
	cmdline = config.cmdline
	if suite:
		config = dataclasses.replace(config, suites=(suite,))
		cmdline += (f'kunit.filter_glob={suite}',)
	if mutated:
		cmdline += ('wb.stop_at_failure=1',)
	own = tuple(script for script in config.e2e
		    if script in settings.E2E_CMDLINE or script in settings.E2E_BOOTCONFIG)
	return dataclasses.replace(config, guests=(tuple(phases),), cmdline=cmdline,
				   e2e=tuple(s for s in config.e2e if s not in own),
				   e2e_skipped=config.e2e_skipped + own)


def build_dirname(config: str) -> str:
	return f'{WORKTREE}-{config}'


def _failure_name(failure: str) -> Tuple[str, str]:
	"""(section, suite.case) of a failure that results.parse() counted."""
	m = re.match(r'^([\w-]+)\.ktap: (.*) \((\w+)\)$', failure)
	return (m.group(1), m.group(2)) if m else ('', failure)


def _kunit_why(sections: dict, section: str, name: str) -> str:
	"""KUnit's message for failed case @name (suite.case[.param]): its
	"EXPECTATION FAILED at FILE:LINE" line and the line after it."""
	suite, _, case = name.partition('.')
	for reported, raw in sections.get(section, []):
		if reported != suite:
			continue
		lines = [line.strip().lstrip('#').strip() for line in raw]
		for i, line in enumerate(lines):
			if ('FAILED at' in line and
			    any(line.startswith(part + ': ') for part in case.split('.'))):
				return ' '.join([line] + [l for l in lines[i + 1:i + 2] if l])
	return ''


def judge(steps: Steps, kunit_py: Path, config: settings.KernelConfig, outdir: Path,
	  guest) -> Verdict:
	"""What `make test` would have reported of @guest, as for a config of
	the matrix: the KUnit cases and the host's checks that failed."""
	counts, cases = steps.guest_cases(kunit_py, config, outdir, [guest])
	# A mutation boots only some phases, on purpose.
	partial = set(config.guests[0]) != set(settings.GUEST_PHASES)
	ignored = {c.name for c in expect.phase_cases(config)} if partial else set()
	verdict = Verdict()
	for failure in counts.failures:
		section, name = _failure_name(failure)
		verdict.failures.append(f'{section}: {name}' if section else name)
		if not verdict.why:
			verdict.why = _kunit_why(guest.sections, section, name)
	for case in cases:
		if not case.ok and case.name not in ignored:
			verdict.failures.append(case.name)
			if not verdict.why:
				verdict.why = (case.diagnostic.splitlines() or [''])[0]
	if verdict.failures and not counts.failures:
		# No phase's results came through: the cases that failed before
		# the guest crashed are on its console, and kill the mutation
		# first, in their order.
		failed = results.console_failed_cases(outdir / 'console.log')
		crash = next(iter(results.splats(outdir / 'console.log')), '')
		crash = crash.split('] ', 1)[-1]
		if failed:
			verdict.failures[:0] = [f'console: {name}' for name, _ in failed]
			why = failed[0][1]
			verdict.why = f'{why}; then {crash}' if crash else why
		elif crash:
			verdict.why = f'{verdict.why}; first on the console: {crash}'
	return verdict


def _write_record(outdir: Path, build: kbuild.Build, suite: Optional[str], version: str,
		  kunit_py: Path, guest, verdict: Verdict) -> None:
	"""What --recheck needs to check this run again: the kernel's .config and
	@version, how it was booted, and whether it passed (only then can it be
	replayed)."""
	shutil.copy2(build.dir / '.config', outdir / '.config')
	(outdir / 'guest.json').write_text(json.dumps({
		'config': build.config.name, 'suite': suite, 'version': version,
		'phases': list(build.config.guests[0]), 'seconds': guest.seconds,
		'kunit_py': str(kunit_py), 'passed': not verdict.failures}, indent=1) + '\n')


def boot_and_judge(ctx: Context, build: kbuild.Build, suite: Optional[str],
		   outdir: Path) -> Verdict:
	"""Boots @build for its config's one guest and judges what it reported;
	a guest silent for settings.MUTATION_HUNG_AFTER_SPLAT seconds after a
	splat is stopped (it failed the console's check already)."""
	shutil.rmtree(outdir, ignore_errors=True)
	outdir.mkdir(parents=True)
	initrd = initramfs.make(build)
	guest = ctx.steps.boot_guest(ctx.p, build, initrd, outdir, build.config.guests[0], 0,
				     hung_after_splat=settings.MUTATION_HUNG_AFTER_SPLAT)
	verdict = judge(ctx.steps, ctx.kunit_py, build.config, outdir, guest)
	verdict.stalled_by = guest.stalled_by
	_write_record(outdir, build, suite, ctx.tree.kernel_version(), ctx.kunit_py, guest,
		      verdict)
	return verdict


def run_baseline(ctx: Context, config: str) -> Verdict:
	"""The unmutated kernel of @config, every phase, every suite."""
	log(f'baseline {config}: the series unmutated, every phase and suite')
	reset(ctx)
	build = kbuild.build(ctx.tree, guest_config(config, None, settings.GUEST_PHASES),
			     ctx.build_dirname(config))
	verdict = boot_and_judge(ctx, build, None, OUTDIR / f'baseline-{config}')
	log(f'baseline {config}: ' + (f'FAILS: {verdict.failures[0]}' if verdict.failures
				       else 'passes'))
	return verdict


def _outcome(m: Mutation, verdict: Verdict) -> Outcome:
	if verdict.stalled_by:
		first = ('a signal ended its guest' if qemu.SIGNAL_LINE.search(verdict.stalled_by)
			 else 'the host stopped its guest')
		return Outcome(m, BROKEN, first, verdict.stalled_by)
	if not verdict.failures:
		return Outcome(m, SURVIVED)
	seen = any(m.expect in failure for failure in verdict.failures)
	return Outcome(m, KILLED, verdict.failures[0], verdict.why, seen)


def run_kernel_mutation(ctx: Context, m: Mutation) -> Outcome:
	"""Applies @m on the series, builds, boots, judges."""
	try:
		reset(ctx)
		apply(m, ctx.tree.src, 2)
		commit(ctx, m)
		build = kbuild.build(ctx.tree, guest_config(m.config, m.suite, m.phases, True),
				     ctx.build_dirname(m.config))
	except WorkbenchError as e:
		log(f'mutation {m.stem}: {e}')
		return Outcome(m, BROKEN, 'it does not apply or build', str(e).splitlines()[0])
	return _outcome(m, boot_and_judge(ctx, build, m.suite, OUTDIR / m.stem))


def _recheck_in_copy(m: Optional[Mutation], config: str,
		     outdir: Path) -> Tuple[Optional[Verdict], str]:
	"""Has the workbench of a scratch copy, with @m applied if not None,
	check the guest output of @config's baseline again in @outdir. Its
	verdict, or None and why there is none."""
	shutil.rmtree(outdir, ignore_errors=True)
	shutil.copytree(OUTDIR / f'baseline-{config}', outdir,
			ignore=shutil.ignore_patterns('*.ktap', '*.json', '*.parsed.txt'))
	shutil.copy2(OUTDIR / f'baseline-{config}' / 'guest.json', outdir)
	with scratch_copy() as copy:
		if m:
			apply(m, copy, 1)
		proc = run([sys.executable, copy / 'tools/workbench.py', '--no-install', 'mutate',
			    '--recheck', outdir], check=False)
	verdict_file = outdir / 'verdict.json'
	if not verdict_file.is_file():
		return None, f'the {"mutated " if m else ""}workbench failed (exit {proc.returncode})'
	return Verdict(**json.loads(verdict_file.read_text())), ''


def harness_control(config: str) -> str:
	"""Why the unmutated workbench's recheck of @config's baseline does not
	pass, or '' if it does: a harness mutation is killed only by what its
	change makes the recheck find, never by the recheck itself failing."""
	log(f'harness control {config}: the unmutated workbench checks the baseline again')
	verdict, why = _recheck_in_copy(None, config, OUTDIR / f'control-{config}')
	if verdict and verdict.failures:
		why = verdict.failures[0]
	log(f'harness control {config}: ' + (f'FAILS: {why}' if why else 'passes'))
	return why


def run_harness_mutation(ctx: Context, m: Mutation, config: str) -> Outcome:
	"""Has the mutated workbench, in a scratch copy, check the baseline's
	guest output again."""
	try:
		verdict, why = _recheck_in_copy(m, config, OUTDIR / m.stem)
	except WorkbenchError as e:
		log(f'mutation {m.stem}: {e}')
		return Outcome(m, BROKEN, 'it does not apply', str(e).splitlines()[0])
	if not verdict:
		# make test would have stopped with an error: that is a kill too,
		# since harness_control() passed.
		return Outcome(m, KILLED, why, '', False)
	return _outcome(m, verdict)


# --- --recheck, in the scratch copy -----------------------------------------

@contextlib.contextmanager
def replay(seconds: float):
	"""Makes qemu.boot() give back the recorded boot instead of booting: the
	console and results files are already where the caller expects them.
	Only a baseline that passed is recorded, so the guest powered off."""
	real = qemu.boot

	def recorded(qemu_prefix, image, initrd, cmdline, smp, timeout, console, results,
		     **kwargs):
		log(f'replaying the recorded guest: {console}, {results}')
		return qemu.GuestRun(qemu.GuestStatus.POWERED_OFF, seconds, console, results)

	qemu.boot = recorded
	try:
		yield
	finally:
		qemu.boot = real


def recheck(outdir: Path, steps: Steps) -> int:
	"""Checks the recorded guest output in @outdir as `make test` would,
	with this copy's workbench; writes @outdir/verdict.json."""
	record = json.loads((outdir / 'guest.json').read_text())
	if not record['passed']:
		raise WorkbenchError(f'{outdir}: the recorded run did not pass: it cannot be '
				     'replayed')
	config = guest_config(record['config'], record['suite'], record['phases'])
	# The kernel's .config, for kbuild.enabled(); nothing is built or booted.
	build = kbuild.Build(config, None, outdir)
	# What boot_guest() reads of the run's prepare(): the booted kernel's
	# version, for the console's banner.
	tree_record = SimpleNamespace(kernel_version=lambda: record['version'])
	with replay(record['seconds']):
		guest = steps.boot_guest(SimpleNamespace(qemu=None, tree=tree_record), build,
					 outdir / 'replayed', outdir, config.guests[0], 0)
	verdict = judge(steps, Path(record['kunit_py']), config, outdir, guest)
	# How the host judges guests that did not finish, as make test checks it.
	for case in checks.harness_cases():
		if not case.ok:
			verdict.failures.append(f'harness: {case.name}')
			verdict.why = verdict.why or case.diagnostic
	(outdir / 'verdict.json').write_text(json.dumps(dataclasses.asdict(verdict)) + '\n')
	log(f'{len(verdict.failures)} failures: ' + '; '.join(verdict.failures[:3]))
	return 0


# --- outcomes kept from one run to the next ----------------------------------

def outcome_keys(mutations: List[Mutation], version: str) -> Dict[str, Optional[str]]:
	"""The key of each of @mutations' outcomes, by stem: the committed
	OUTCOME_INPUTS, the mutation's file and the kernel's @version. None
	while any of them has uncommitted changes: such a run is not recorded.
	Read once, when the run starts, from what its trees are made of: a
	commit made while it runs must not key the later groups' outcomes."""
	files = {m.stem: str(m.path.relative_to(settings.REPO)) for m in mutations}
	status = output(['git', 'status', '--porcelain', '--', *OUTCOME_INPUTS,
			 *files.values()], cwd=settings.REPO)
	# output() strips the first line's status column too: split on blanks.
	dirty = {line.split(maxsplit=1)[1].split(' -> ')[-1] for line in status.splitlines()}
	clean = [stem for stem, path in files.items() if path not in dirty]
	if dirty - set(files.values()) or not clean:
		return dict.fromkeys(files)
	ids = output(['git', 'rev-parse', *(f'HEAD:{path}' for path in OUTCOME_INPUTS),
		      *(f'HEAD:{files[stem]}' for stem in clean)],
		     cwd=settings.REPO).splitlines()
	inputs = '\n'.join(ids[:len(OUTCOME_INPUTS)])
	keys: Dict[str, Optional[str]] = dict.fromkeys(files)
	for stem, own in zip(clean, ids[len(OUTCOME_INPUTS):]):
		text = f'{version}\n{inputs}\n{own}\n'
		keys[stem] = hashlib.sha256(text.encode()).hexdigest()[:24]
	return keys


def record_outcome(key: Optional[str], o: Outcome) -> None:
	"""Keeps @o under @key if it is a result (killed or survived), not a
	fault of the run."""
	if not key or o.result not in (KILLED, SURVIVED):
		return
	OUTCOMES.mkdir(parents=True, exist_ok=True)
	(OUTCOMES / f'{key}.json').write_text(json.dumps({
		'mutation': o.mutation.stem, 'result': o.result, 'first': o.first,
		'why': o.why, 'expected_seen': o.expected_seen, 'seconds': o.seconds,
		'finished': time.strftime('%Y-%m-%d %H:%M')}, indent=1) + '\n')


def recorded_outcome(key: Optional[str], m: Mutation) -> Optional[Outcome]:
	"""The outcome kept under @key by an earlier run, if any."""
	path = OUTCOMES / f'{key}.json'
	if not key or not path.is_file():
		return None
	r = json.loads(path.read_text())
	return Outcome(m, r['result'], r['first'], r['why'], r['expected_seen'],
		       r['seconds'], r['finished'])


# --- the gate ---------------------------------------------------------------

def _configs(mutations: List[Mutation]) -> List[str]:
	return list(dict.fromkeys(m.config for m in mutations))


def table(outcomes: List[Outcome]) -> List[str]:
	width = max(len('mutation'), *(len(o.mutation.stem) for o in outcomes))
	lines = [f'{"mutation":{width}}  config  {"result":8}  first failing case']
	for o in outcomes:
		lines.append(f'{o.mutation.stem:{width}}  {o.mutation.config:6}  {o.result:8}  '
			     f'{o.first or "-"}')
		if o.recorded:
			lines.append(' ' * (width + 20) + f'(from the run of {o.recorded}: the same '
				     'series, tests and workbench)')
		if o.why:
			lines.append(' ' * (width + 20) + o.why[:160])
		if not o.expected_seen:
			lines.append(' ' * (width + 20) + f'(expected: {o.mutation.expect})')
	killed = [o for o in outcomes if o.result == KILLED]
	lines.append(f'{len(killed)} of {len(outcomes)} mutations killed')
	earlier = [o for o in outcomes if o.recorded]
	lines.append(f'the mutations took {sum(o.seconds for o in outcomes) / 60:.1f} min '
		     'of builds, boots and rechecks'
		     + (f', {sum(o.seconds for o in earlier) / 60:.1f} of them in the earlier '
			f'runs of {len(earlier)}' if earlier else '')
		     + '; baselines not counted')
	for result in (SURVIVED, BROKEN, NOT_RUN):
		stems = [o.mutation.stem for o in outcomes if o.result == result]
		if stems:
			lines.append(f'{result}: {", ".join(stems)}')
	return lines


def run_config(ctx: Context, config: str, group: List[Mutation],
	       baseline: bool, resume: bool, keys: Dict[str, Optional[str]]) -> List[Outcome]:
	"""The mutations of one config, after its baseline; with @resume, those
	recorded under their @keys (outcome_keys()) are taken from the record."""
	recorded = {m.stem: recorded_outcome(keys[m.stem], m) for m in group} if resume else {}
	to_run = [m for m in group if not recorded.get(m.stem)]
	if to_run and (baseline or any(not m.kernel for m in to_run)):
		failures = run_baseline(ctx, config).failures
		if failures:
			return [recorded.get(m.stem) or
				Outcome(m, NOT_RUN, f'baseline {config} fails: {failures[0]}')
				for m in group]
	control = ''
	if any(not m.kernel for m in to_run):
		control = harness_control(config)
	outcomes = []
	for m in group:
		outcome = recorded.get(m.stem)
		if outcome:
			log(f'mutation {m.stem}: {outcome.result} {outcome.first} (recorded '
			    f'{outcome.recorded})')
			outcomes.append(outcome)
			continue
		if control and not m.kernel:
			outcome = Outcome(m, BROKEN, 'the unmutated workbench\'s recheck fails',
					  control)
			log(f'mutation {m.stem}: {outcome.result} {outcome.first}: {control}')
			outcomes.append(outcome)
			continue
		log(f'mutation {m.stem}: {m.reason}')
		start = time.monotonic()
		outcome = (run_kernel_mutation(ctx, m) if m.kernel
			   else run_harness_mutation(ctx, m, config))
		outcome.seconds = time.monotonic() - start
		log(f'mutation {m.stem}: {outcome.result} {outcome.first} '
		    f'({outcome.seconds:.0f} s)')
		record_outcome(keys[m.stem], outcome)
		outcomes.append(outcome)
	return outcomes


def run_gate(mutations: List[Mutation], args, steps: Steps) -> int:
	p = steps.prepare(install=not args.no_install)
	if args.in_place:
		# The series' own tree and the matrix's build directories: each
		# mutation rebuilds what it changed, where a new worktree would
		# build every kernel whole. Nothing else may build from the tree
		# meanwhile; the next build of a config redoes what the last
		# mutation changed.
		ctx = Context(steps, p, p.tree, p.commits[-1], in_place=True)
	else:
		ctx = Context(steps, p, mutation_tree(p), p.commits[-1])
	keys = outcome_keys(mutations, ctx.tree.package_version)
	OUTDIR.mkdir(parents=True, exist_ok=True)
	outcomes = []
	try:
		for config in _configs(mutations):
			group = [m for m in mutations if m.config == config]
			outcomes += run_config(ctx, config, group, not args.no_baseline,
					       args.resume, keys)
	finally:
		reset(ctx)
	lines = table(outcomes)
	(OUTDIR / 'summary.txt').write_text('\n'.join(lines) + '\n')
	print('\n'.join(lines) + f'\nlogs in {OUTDIR}', flush=True)
	seen = {o.result for o in outcomes}
	if seen & {BROKEN, NOT_RUN}:
		return 2
	return 1 if SURVIVED in seen else 0


def applies(m: Mutation, src: Path) -> Optional[str]:
	"""Whether @m applies where a run applies it: a kernel mutation to the
	patched kernel tree @src (it may change any file there, one a series
	diff changes too), a harness one to the repository. None if it does,
	else what git apply says."""
	where, strip = (src, 2) if m.kernel else (settings.REPO, 1)
	proc = subprocess.run(['git', 'apply', '--check', f'-p{strip}', str(m.path)],
			      cwd=where, capture_output=True, text=True)
	return None if proc.returncode == 0 else proc.stderr.strip()


def apply_cases(src: Path) -> List[Case]:
	"""A host case of `make test` per mutation: it still applies, so that
	the gate does not rot silently as the series changes."""
	cases = []
	for m in load():
		err = applies(m, src)
		cases.append(Case(f'mutation {m.stem} applies to the series', err is None, err or ''))
	return cases


def apply_and_revert(m: Mutation, copy: Path) -> None:
	"""Applies @m to @copy, a copy of the repository, reverts it, and checks
	that nothing is left (harness mutations)."""
	apply(m, copy, 1)
	apply(m, copy, 1, reverse=True)
	changed = [f for f in m.files
		   if (copy / f).read_bytes() != (settings.REPO / f).read_bytes()]
	if changed:
		raise WorkbenchError(f'{m.path.name}: reverting it leaves {", ".join(changed)} '
				     'changed')


def plan(m: Mutation, version: str) -> List[str]:
	"""What a run does with @m."""
	lines = [f'{m.stem}: applies to {", ".join(m.files)}',
		 f'    reason:   {m.reason}']
	if m.kernel:
		config = guest_config(m.config, m.suite, m.phases, True)
		worktree = settings.CACHE / 'trees' / version / WORKTREE
		build_dir = settings.CACHE / 'build' / version / build_dirname(m.config)
		lines += [f'    apply:    git -C {worktree} apply -p2 {m.path.name}; commit',
			  f'    build:    {m.config} in {build_dir}',
			  f'    boot:     wb.mode=test wb.phases={",".join(m.phases)} '
			  f'{" ".join(config.cmdline)} (suites: {", ".join(config.suites)})']
	else:
		lines += [f'    recheck:  <scratch copy>/tools/workbench.py --no-install mutate '
			  f'--recheck {OUTDIR / m.stem}',
			  f'              (a copy of {OUTDIR / ("baseline-" + m.config)})']
	lines.append(f'    expect:   {m.expect}')
	if m.note:
		lines.append(f'    note:     {m.note}')
	return lines


def dry_run(mutations: List[Mutation], src: Path, version: str) -> int:
	"""Checks that each mutation applies (a kernel one to the patched tree
	@src, a harness one to a scratch copy, applied and reverted); says what
	a run would build and boot."""
	print(f'first the baselines (unless --no-baseline): {", ".join(_configs(mutations))}, '
	      'every phase and suite', flush=True)
	with scratch_copy() as copy:
		for m in mutations:
			if m.kernel:
				err = applies(m, src)
				if err:
					raise WorkbenchError(f'{m.path.name} does not apply to {src}:\n{err}')
			else:
				apply_and_revert(m, copy)
			print('\n'.join(plan(m, version)), flush=True)
	print(f'{len(mutations)} mutations apply; nothing was built or booted')
	return 0


def add_arguments(parser: argparse.ArgumentParser) -> None:
	parser.add_argument('--mutation', action='append', metavar='NN',
			    help='run only this mutation, by number or file stem (repeatable)')
	parser.add_argument('--dry-run', action='store_true',
			    help='only apply and revert each mutation in a scratch copy, and '
				 'say what would be built and booted')
	parser.add_argument('--no-baseline', action='store_true',
			    help='do not boot the unmutated kernel first (a harness mutation '
				 'still needs it)')
	parser.add_argument('--resume', action='store_true',
			    help='take the outcome of a mutation from an earlier run of the '
				 'same commit, where one was recorded')
	parser.add_argument('--in-place', action='store_true',
			    help="mutate the series' own tree and build in the configs' own "
				 'build directories (incremental; nothing else may build meanwhile)')
	parser.add_argument('--recheck', metavar='DIR', help=argparse.SUPPRESS)


def main(args, steps: Steps) -> int:
	"""Exit status: 0 every mutation killed, 1 some survived, 2 some could
	not be run (does not apply or build, or its baseline fails)."""
	if args.recheck:
		return recheck(Path(args.recheck), steps)
	mutations = select(load(), args.mutation)
	if args.dry_run:
		p = steps.prepare(install=not args.no_install)
		return dry_run(mutations, p.tree.src, p.tree.package_version)
	return run_gate(mutations, args, steps)
