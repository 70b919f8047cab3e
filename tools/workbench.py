#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The markers workbench: applies the series to Debian's linux-source-7.3
(or, with its backport's delta, linux-source-6.12), builds the kernels of
the test matrix and runs them in QEMU.

  workbench.py test [--config NAME]...   everything `make test` does
  workbench.py run                       boot the test kernel, show markers
  workbench.py series                    write out/series and checkpatch it
  workbench.py series-check              build after every patch (bisect)
  workbench.py bench                     the benchmark, in a production kernel
  workbench.py bench-silicon             its real.c functions on the host's CPU
  workbench.py bench-poke                the int3 patcher's numbers (patches 01, 04)
  workbench.py build [--config NAME]...  only apply and build
  workbench.py mutate [--mutation NN]... the mutation gate (tests/mutations)

Every stage prints the commands it runs. Exit codes: 0 success, 1 a test or
check failed, 2 the workbench could not do its job (see the message).
"""

import argparse
import concurrent.futures
import enum
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wb import bench, checks, deps, expect, ftracetest, initramfs, kbuild, mutate, orc, qemu, rangediff, results, series, settings, silicon, tree  # noqa: E402
from wb.results import Case, Counts  # noqa: E402
from wb.shell import WorkbenchError, log, run, stderr  # noqa: E402


class Status(enum.IntEnum):
	SUCCESS = 0
	FAILURE = 1
	ERROR = 2


@dataclass(frozen=True)
class Prepared:
	qemu: Path		# where the workbench's QEMU is unpacked
	tree: tree.Tree
	commits: List[str]
	cover: series.Cover
	patches: List[series.Patch]


def prepare(install: bool = True) -> Prepared:
	"""Installs what is missing, then applies the series to the cached tree."""
	if install:
		deps.ensure_packages()
	qemu_prefix = deps.ensure_qemu()
	t = tree.prepare()
	cover, patches = series.load()
	log(f'applying {len(patches)} patches to {settings.SOURCE_PACKAGE} '
	    f'{t.package_version} (Linux {t.kernel_version()})')
	commits = series.apply(t, patches) if patches else [tree.git_out(t.src, 'rev-parse', 'pristine')]
	tree.checkout(t, commits[-1])
	return Prepared(qemu_prefix, t, commits, cover, patches)


def link_build(build: kbuild.Build) -> None:
	link = settings.OUT / 'build' / build.config.name
	link.parent.mkdir(parents=True, exist_ok=True)
	if link.is_symlink() or link.exists():
		link.unlink()
	link.symlink_to(build.dir)


# --- series ------------------------------------------------------------------

def series_cases(p: Prepared) -> List[Case]:
	"""Writes out/series and checks it: git am, checkpatch --strict."""
	outdir = settings.OUT / 'series'
	if not p.patches:
		return [Case('the series has patches', False, 'series/ has no NN-*.txt')]
	files = series.write_patches(p.tree, p.commits, p.cover, outdir)
	cases = []
	try:
		series.verify_am(p.tree, files, p.commits[-1])
		cases.append(Case(f'git am applies out/series to {p.tree.package_version}', True))
	except WorkbenchError as e:
		cases.append(Case(f'git am applies out/series to {p.tree.package_version}',
				  False, str(e)))
	report_dir = outdir / 'checkpatch'
	report_dir.mkdir()
	for r in series.checkpatch(p.tree, files):
		(report_dir / (r.patch.stem + '.txt')).write_text(r.report)
		cases.append(Case(f'checkpatch --strict {r.patch.name}: {r.errors} errors, '
				  f'{r.warnings} warnings, {r.checks} checks', r.clean,
				  '' if r.clean else r.report))
	cases.append(checks.series_markers_case(p.tree.src, files))
	cases.append(checks.kernel_doc_case(p.tree.src, [f for patch in p.patches
							  for f in patch.files]))
	cases.append(checks.docs_case(p.tree.src))
	cases.append(checks.maintainers_case(p.tree.src, [f for patch in p.patches
							   for f in patch.files]))
	return cases


def cmd_series(args) -> Status:
	p = prepare(install=not args.no_install)
	cases = series_cases(p)
	for c in cases:
		print(f'{"ok" if c.ok else "FAILED"}: {c.name}')
		if not c.ok:
			print(c.diagnostic)
	print(f'patches in {settings.OUT / "series"}')
	return Status.SUCCESS if all(c.ok for c in cases) else Status.FAILURE


# --- test --------------------------------------------------------------------

def write_host_ktap(path: Path, suites) -> Path:
	doc = results.ktap_document([(name, results.suite_ktap(name, cases))
				     for name, cases in suites])
	path.parent.mkdir(parents=True, exist_ok=True)
	path.write_text(doc)
	return path


def guest_documents(sections, outdir: Path) -> List[Path]:
	"""Writes the guest's sections as KTAP files: the KUnit runs, the
	end-to-end tests, and, if any, the end-of-boot kmemleak scans and
	upstream's ftrace selftests."""
	docs = []
	for section in expect.KUNIT_PHASES:
		suites = [(name, results.kunit_suite_lines(lines))
			  for name, lines in sections.get(section, [])]
		path = outdir / f'{section}.ktap'
		path.write_text(results.ktap_document(suites))
		docs.append(path)
	for section in expect.SCRIPT_SECTIONS:
		if section != 'e2e' and section not in sections:
			continue
		suites = [(name, results.e2e_suite_lines(lines))
			  for name, lines in sections.get(section, [])]
		path = outdir / f'{section}.ktap'
		path.write_text(results.ktap_document(suites))
		docs.append(path)
	return docs


def boot_checks(what: str, config: settings.KernelConfig, phases: Tuple[str, ...],
		text: str, kmemleak: bool) -> List[Case]:
	"""What one boot must have reported, by name (see wb/expect.py)."""
	sections = results.split_channel(text)
	names = [settings.phase_name(phase) for phase in phases]
	scripts = expect.guest_scripts(config, phases)
	cases = []
	for phase in expect.KUNIT_PHASES:
		if phase in names:
			cases += expect.kunit_cases(what, config, phase, sections)
	if 'after-boot-kunit' in names:
		cases += expect.fresh_cases(what, config, text, sections)
	if 'e2e' in names:
		cases += expect.script_cases(what, config, text, scripts)
	if settings.FTRACETEST_PHASE in names:
		cases += expect.ftracetest_cases(what, sections)
	if kmemleak:
		cases += expect.kmemleak_cases(what, scripts, sections)
	return cases


def no_kunit_at_boot(build: kbuild.Build) -> Tuple[str, ...]:
	"""What keeps the built-in KUnit suites of @build from running at boot:
	kunit.autorun=0, of 7.3's KUnit (their debugfs run files are there
	all the same); nothing on 6.12, whose KUnit runs them at every boot.
	A boot that does not report that run spends minutes in it: 500 s of
	the 1331 of the debug kernel's after-boot boot (2026-12-03)."""
	return (('kunit.autorun=0',) if kbuild.enabled(build, 'CONFIG_KUNIT_AUTORUN_ENABLED')
		else ())


def guest_cmdline(build: kbuild.Build, phases: Tuple[str, ...]) -> Tuple[str, ...]:
	"""What guest/test.sh reads on the command line of a boot of @build
	that runs @phases: wb.phases=, and wb.scripts= when its e2e phase runs
	some of the scripts only, with what settings.E2E_CMDLINE gives those
	that a settings.E2E_SOME entry names; a boot without the boot-time
	KUnit phase does not run the suites at boot (no_kunit_at_boot())."""
	config = build.config
	names = tuple(settings.phase_name(phase) for phase in phases)
	line = ('wb.mode=test', 'wb.phases=' + ','.join(names))
	scripts = expect.guest_scripts(config, phases)
	if 'e2e' in names and scripts != expect.every_script(config):
		line += ('wb.scripts=' + ','.join(scripts),)
	for script in _own_boot_scripts(phases):
		line += settings.E2E_CMDLINE.get(script, ())
	if guest_bootconfig(phases):
		line += ('bootconfig',)
	if 'boot-kunit' not in names:
		line += no_kunit_at_boot(build)
	return line


def _own_boot_scripts(phases: Tuple[str, ...]) -> Tuple[str, ...]:
	"""The scripts that a settings.E2E_SOME entry of @phases names: those
	that get their command line and bootconfig in this boot."""
	return tuple(script for phase in phases for script in expect.named_scripts(phase))


def guest_bootconfig(phases: Tuple[str, ...]) -> str:
	"""The bootconfig of a boot that runs @phases: what
	settings.E2E_BOOTCONFIG gives the scripts an E2E_SOME entry names;
	'' for none."""
	return ''.join(settings.E2E_BOOTCONFIG.get(script, '')
		       for script in _own_boot_scripts(phases))


@dataclass(frozen=True)
class GuestRun:
	"""One boot of a config's kernel: the sections it sent, its host checks;
	the console line for which the host stopped it, if it did (see
	qemu.STALLING_LINES): what it reported then says nothing of the kernel."""
	sections: dict
	cases: List[Case]
	seconds: float
	console: Path
	stalled_by: str = ''
	# What it said of the config's vulnerabilities= files, by name.
	vulnerabilities: Dict[str, str] = field(default_factory=dict)


def boot_guest(p: Prepared, build: kbuild.Build, initrd: Path, outdir: Path,
	       phases: Tuple[str, ...], index: int, extra: Tuple[str, ...] = (),
	       timeout: Optional[int] = None,
	       hung_after_splat: Optional[float] = None) -> GuestRun:
	"""Boots @build to run the guest @phases (see guest/test.sh), with
	@extra on its command line, for at most @timeout seconds (default:
	its config's boot_timeout), or until its console has been silent for
	@hung_after_splat seconds after a splat (qemu.boot())."""
	config = build.config
	suffix = f'-{index + 1}' if index else ''
	console = outdir / f'console{suffix}.log'
	channel = outdir / f'results{suffix}.txt'
	what = f'{config.name}: guest {index + 1} ({", ".join(phases)})'
	bootconfig = guest_bootconfig(phases)
	if bootconfig:
		initrd = initramfs.with_bootconfig(initrd, bootconfig, outdir / f'initrd{suffix}.img')
	log(f'{what}: booting (console: {console})')
	guest = qemu.boot(p.qemu, build.image, initrd,
			  (*guest_cmdline(build, phases), *config.cmdline, *extra),
			  config.smp, timeout or config.boot_timeout, console, channel,
			  arch=config.arch, extra=config.qemu_args,
			  hung_after_splat=hung_after_splat)
	log(f'{what}: {guest.status.value} after {guest.seconds:.0f} s')

	text = guest.channel()
	finished = results.channel_ended(text)
	stalled = f' after "{guest.stalled_by}"' if guest.stalled_by else ''
	cases = [Case(f'{what} ran every test and powered off',
		      finished and guest.status == qemu.GuestStatus.POWERED_OFF,
		      f'guest {guest.status.value}{stalled}; results channel '
		      f'{"complete" if finished else "incomplete"}')]
	window = (orc.return_to_handler_line(build.dir / 'vmlinux')
		  if config.arch.name == 'x86_64' else None)
	splats = []
	for line in results.splats(console):
		if window and window.search(line):
			log(f'{what}: not counted, upstream\'s ORC window in return_to_handler '
			    f'(tools/wb/orc.py): {line}')
		else:
			splats.append(line)
	cases.append(Case(f'{what}: console has no WARNING, BUG, Oops, lockdep or KASAN report',
			  not splats, '\n'.join(splats[:50])))
	# The kernel that booted is of the base the series was applied to.
	version = p.tree.kernel_version()
	banner = re.search(rf'^.*Linux version {re.escape(version)}(?!\d).*$',
			   console.read_text(errors='replace'), re.M)
	cases.append(Case(f'{what}: the console says "Linux version {version}"', bool(banner),
			  'no such line in ' + str(console)))
	reported = results.channel_vulnerabilities(text)
	vulnerabilities = {}
	for name, expected in config.vulnerabilities:
		got = vulnerabilities[name] = reported.get(name, '(not reported)')
		cases.append(Case(f'{what}: vulnerabilities/{name} says "{expected}"',
				  got.startswith(expected), f'it says "{got}"'))
	try:
		cases += boot_checks(what, config, phases, text,
				     kbuild.enabled(build, 'CONFIG_DEBUG_KMEMLEAK'))
	except Exception:	# a bug of the workbench must not lose the other results
		cases.append(Case(f'{what}: the host could check what the guest reported', False,
				  traceback.format_exc()))
	return GuestRun(results.split_channel(text), cases, guest.seconds, console,
			guest.stalled_by, vulnerabilities)


def guest_cases(kunit_py: Path, config: settings.KernelConfig, outdir: Path,
		guests: List[GuestRun]) -> Tuple[Counts, List[Case]]:
	"""Merges the sections of @guests into KTAP documents and counts them;
	lists the skipped cases, which cannot make the config green alone."""
	sections: dict = {}
	cases = expect.phase_cases(config)
	for guest in guests:
		for name, suites in guest.sections.items():
			sections.setdefault(name, []).extend(suites)
		cases += guest.cases
	counts = Counts()
	for doc in guest_documents(sections, outdir):
		counts.add(results.parse(kunit_py, doc))
	counts.skips = expect.skipped(config, sections)
	cases += expect.skip_cases(config, counts.passed, counts.skipped, len(counts.skips))
	return counts, cases


@dataclass
class ConfigRun:
	"""What `make test` learnt of one config: its host checks, its guests."""
	config: settings.KernelConfig
	outdir: Path
	cases: List[Case]
	counts: Counts
	guests: List[concurrent.futures.Future] = field(default_factory=list)
	build_seconds: float = 0.0	# building and host checks
	guest_seconds: float = 0.0	# guests, added up
	# What its guests said of its vulnerabilities= files, for the summary.
	vulnerabilities: List[str] = field(default_factory=list)


def build_and_check(p: Prepared, config: settings.KernelConfig,
		    pool: concurrent.futures.Executor) -> ConfigRun:
	"""Builds @config, submits its guests to @pool, and runs the host checks
	of its build meanwhile."""
	outdir = settings.OUT / 'test' / config.name
	shutil.rmtree(outdir, ignore_errors=True)
	outdir.mkdir(parents=True)
	start = time.monotonic()
	run = ConfigRun(config, outdir, [], Counts())
	try:
		build = kbuild.build(p.tree, config)
	except WorkbenchError as e:
		stderr(f'{config.name}: {e}')
		run.counts = Counts(failed=1, failures=[f'{config.name}: {str(e).splitlines()[0]}'])
		return run
	link_build(build)
	if config.guests:
		try:
			initrd = initramfs.make(build)
			run.guests = [pool.submit(boot_guest, p, build, initrd, outdir, phases, i)
				      for i, phases in enumerate(config.guests)]
		except WorkbenchError as e:
			run.cases.append(Case(f'{config.name}: initramfs', False, str(e)))
	warnings = kbuild.warnings(build)
	run.cases.append(Case(f'{config.name}: build has no compiler, linker or objtool warning',
			      not warnings, '\n'.join(warnings)))
	if config.lint:
		try:
			clean, report = kbuild.lint(p.tree, config,
						    kbuild.series_objects(config.arch, build))
		except WorkbenchError as e:
			clean, report = False, str(e)
		run.cases.append(Case(f'{config.name}: W=1 and sparse report nothing on the new '
				      'files of the series', clean, report))
	if kbuild.enabled(build, 'CONFIG_MARKER_SITES'):
		run.cases += checks.site_cases(build, outdir)
	if config.arch is settings.X86_64 and kbuild.enabled(build, 'CONFIG_MARKERS'):
		run.cases += checks.systemtap_cases(build, outdir)
	if not kbuild.enabled(build, 'CONFIG_MARKERS'):
		run.cases += checks.nomarkers_cases(build)
	run.build_seconds = time.monotonic() - start
	return run


def finish_config(kunit_py: Path, run: ConfigRun) -> Counts:
	"""Waits for the guests of @run, then counts everything they showed."""
	counts = run.counts
	if run.guests:
		try:
			guests = [future.result() for future in run.guests]
			run.guest_seconds = sum(guest.seconds for guest in guests)
			run.vulnerabilities = [f'guest {i + 1}: {name}: {said}'
					       for i, guest in enumerate(guests)
					       for name, said in guest.vulnerabilities.items()]
			guest_counts, cases = guest_cases(kunit_py, run.config, run.outdir, guests)
			counts.add(guest_counts)
			run.cases += cases
		except WorkbenchError as e:
			run.cases.append(Case(f'{run.config.name}: the guests could be booted', False,
					      str(e)))
	if run.cases:
		counts.add(results.parse(kunit_py, write_host_ktap(
			run.outdir / 'host.ktap', [(f'{run.config.name}_checks', run.cases)])))
	for case in run.cases:
		if not case.ok:
			why = case.diagnostic.splitlines()[:6] or ['(no diagnostic)']
			counts.details += [f'WHY: {case.name}'] + ['    ' + line for line in why]
	return counts


def selected_configs(names: Optional[Sequence[str]]) -> List[settings.KernelConfig]:
	if not names:
		return [settings.MATRIX[n] for n in settings.WHOLE_MATRIX]
	names = [_this_base(name) for name in names]
	unknown = [n for n in names if n not in settings.MATRIX]
	if unknown:
		raise WorkbenchError(f'unknown config {", ".join(unknown)}; the matrix has: '
				     + ', '.join(settings.MATRIX))
	return [settings.MATRIX[n] for n in names]


def _base_and_config(name: str) -> Tuple[str, str]:
	"""@name, "[<base>/]<config>", as (base, config); the base of this run
	if @name names none."""
	base, _, config = name.rpartition('/')
	return base or settings.BASE.name, config


def _this_base(name: str) -> str:
	"""@name, a config of the matrix, without "<base>/" if that is this run's."""
	base, config = _base_and_config(name)
	if base != settings.BASE.name:
		raise WorkbenchError(f'{name}: this run is on {settings.BASE.name} '
				     f'(BASE={base} runs on {base})')
	return config


def test_plan(args) -> Dict[str, List[str]]:
	"""The configs that `make test` runs, by base, in the order they run."""
	if args.all:
		bases = [settings.DEFAULT_BASE] + [b for b in settings.BASES
						   if b != settings.DEFAULT_BASE]
		names = [f'{base}/{name}' for base in bases for name in settings.WHOLE_MATRIX]
	elif args.config:
		names = args.config
	elif os.environ.get('MARKERS_BASE'):
		names = [f'{settings.BASE.name}/{name}' for name in settings.WHOLE_MATRIX]
	else:
		names = list(settings.TEST_PLAN)
	plan: Dict[str, List[str]] = {}
	for name in names:
		base, config = _base_and_config(name)
		if base not in settings.BASES or config not in settings.MATRIX:
			raise WorkbenchError(f'unknown config {name}; the bases are '
					     f'{", ".join(settings.BASES)}, the matrix has: '
					     + ', '.join(settings.MATRIX))
		plan.setdefault(base, []).append(config)
	return plan


def cmd_test(args) -> Status:
	plan = test_plan(args)
	if list(plan) != [settings.BASE.name]:
		return test_bases(args, plan)
	return test_base(args, plan[settings.BASE.name], whole=not args.config)


# The line a run of test_base() logs once it has built all its kernels.
KERNELS_BUILT = 'every kernel of this run is built'


def test_base(args, names: Sequence[str], whole: bool) -> Status:
	"""`make test` on the base of this run (settings.BASE): @names, configs
	of the matrix; @whole, the run replaces everything out/test held."""
	start = time.monotonic()
	total = Counts()
	summary = []
	p = prepare(install=not args.no_install)
	kunit_py = p.tree.src / 'tools/testing/kunit/kunit.py'
	if whole:
		shutil.rmtree(settings.OUT / 'test', ignore_errors=True)
	host_suites = [('series', series_cases(p)),
		       ('checkpatch_markers', checks.corpus_cases(p.tree.src)),
		       ('mutations', mutate.apply_cases(p.tree.src))]
	if not args.no_harness:
		host_suites.append(('harness', checks.harness_cases()))
	host = write_host_ktap(settings.OUT / 'test' / 'series.ktap', host_suites)
	total.add(results.parse(kunit_py, host))
	# Kernels build one after the other (each build uses every core); each
	# guest boots as soon as its kernel is built, while the next one builds.
	# Single-threaded TCG keeps a guest on one core.
	runs = []
	with concurrent.futures.ThreadPoolExecutor(settings.PARALLEL_GUESTS) as guests:
		for config in selected_configs(names):
			runs.append(build_and_check(p, config, guests))
		log(KERNELS_BUILT)
		for run in runs:
			counts = finish_config(kunit_py, run)
			line = (f'{run.config.name}: {counts.passed} passed, {counts.failed} failed, '
				f'{counts.skipped} skipped; build and checks {run.build_seconds:.0f} s, '
				f'guests {run.guest_seconds:.0f} s')
			if run.vulnerabilities:
				line += '; ' + ', '.join(run.vulnerabilities)
			log(line)
			summary.append(line)
			total.add(counts)
	summary += total.skips
	summary += [f'FAILED: {failure}' for failure in total.failures]
	summary += total.details
	summary.append(f'make test took {time.monotonic() - start:.0f} s; {total.skipped} '
		       f'skipped (not counted as passed); logs in {settings.OUT / "test"}')
	summary.append(f'{total.passed} passed, {total.failed} failed')
	(settings.OUT / 'test' / 'summary.log').write_text('\n'.join(summary) + '\n')
	for line in summary[len(runs):]:
		print(line, flush=True)
	return Status.SUCCESS if total.failed == 0 and total.passed > 0 else Status.FAILURE


@dataclass
class BaseRun:
	"""The run of test_base() of one base of a plan, in a process of its own."""
	base: str
	proc: subprocess.Popen
	built: threading.Event = field(default_factory=threading.Event)
	last: str = ''		# its last "N passed, N failed"


def _relay(run: BaseRun, lock: threading.Lock) -> None:
	"""Prints @run's output, each line marked with its base; sets run.built
	once its kernels are built (or it ended)."""
	for line in run.proc.stdout:
		with lock:
			print(f'[{run.base}] {line}', end='', flush=True)
		if KERNELS_BUILT in line:
			run.built.set()
		if re.fullmatch(r'\d+ passed, \d+ failed\n?', line):
			run.last = line.strip()
	run.proc.wait()
	run.built.set()


def test_bases(args, plan: Dict[str, List[str]]) -> Status:
	"""`make test` of a plan that spans bases: each base's part runs in a
	process of its own (MARKERS_BASE, MARKERS_OUT=out/<base>), the next one
	starting once the previous one has built its kernels, so that its
	builds overlap the previous one's guests."""
	start = time.monotonic()
	shutil.rmtree(settings.OUT / 'test', ignore_errors=True)
	(settings.OUT / 'test').mkdir(parents=True)
	lock = threading.Lock()
	runs: List[BaseRun] = []
	relays = []
	for i, (base, names) in enumerate(plan.items()):
		if runs:
			runs[-1].built.wait()
		outdir = settings.OUT / base
		shutil.rmtree(outdir / 'test', ignore_errors=True)
		cmd = [sys.executable, str(Path(__file__).resolve()), '--tcg', args.tcg,
		       *(('--no-install',) if args.no_install else ()), 'test',
		       *(arg for name in names for arg in ('--config', name)),
		       *(('--no-harness',) if i or args.no_harness else ())]
		env = dict(os.environ, MARKERS_BASE=base, MARKERS_OUT=str(outdir))
		log(f'{base}: {", ".join(names)} (logs in {outdir / "test"})')
		runs.append(BaseRun(base, subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
							   stderr=subprocess.STDOUT, text=True)))
		relays.append(threading.Thread(target=_relay, args=(runs[-1], lock)))
		relays[-1].start()
	for relay in relays:
		relay.join()
	passed = failed = 0
	summary = []
	for run in runs:
		counts = re.fullmatch(r'(\d+) passed, (\d+) failed', run.last)
		if counts and run.proc.returncode in (Status.SUCCESS, Status.FAILURE):
			passed += int(counts[1])
			failed += int(counts[2])
			summary.append(f'{run.base}: {run.last}')
		else:
			failed += 1
			summary.append(f'FAILED: {run.base}: its run ended with exit code '
				       f'{run.proc.returncode} and no count')
		log_path = settings.OUT / run.base / 'test' / 'summary.log'
		if log_path.is_file():
			(settings.OUT / 'test' / f'summary-{run.base}.log').write_text(
				log_path.read_text())
	summary.append(f'make test took {time.monotonic() - start:.0f} s; logs in '
		       + ', '.join(str(settings.OUT / run.base / 'test') for run in runs))
	summary.append(f'{passed} passed, {failed} failed')
	(settings.OUT / 'test' / 'summary.log').write_text('\n'.join(summary) + '\n')
	for line in summary:
		print(line, flush=True)
	ok = failed == 0 and passed > 0 and all(r.proc.returncode == 0 for r in runs)
	return Status.SUCCESS if ok else Status.FAILURE


class _DemoEcho:
	"""The terminal of `make run`: the console but QEMU's warnings that
	TCG lacks a feature of the CPU model (the debug config's
	Skylake-Client), two dozen lines before the kernel says anything.
	console.log keeps them."""
	TCG_FEATURE = re.compile(r"warning: TCG doesn't support requested feature")

	def write(self, line: str) -> None:
		if not self.TCG_FEATURE.search(line):
			sys.stdout.write(line)

	def flush(self) -> None:
		sys.stdout.flush()


def cmd_run(args) -> Status:
	"""Boots the test kernel and shows markers at work; a shell on a terminal."""
	p = prepare(install=not args.no_install)
	build = kbuild.build(p.tree, settings.MATRIX[settings.RUN_CONFIG])
	link_build(build)
	image = initramfs.make(build)
	config = build.config
	# The demo alone: no KUnit run at boot, to wait for and to read.
	cmdline = ('wb.mode=run', 'quiet', *no_kunit_at_boot(build), *config.cmdline)
	if sys.stdin.isatty():
		log('booting on this terminal: "exit" powers the guest off, Ctrl-A X quits QEMU')
		rc = qemu.boot_interactive(p.qemu, build.image, image, (*cmdline, 'wb.shell=1'),
					   config.smp, arch=config.arch, extra=config.qemu_args)
		return Status.SUCCESS if rc == 0 else Status.FAILURE
	outdir = settings.OUT / 'run'
	guest = qemu.boot(p.qemu, build.image, image, cmdline, config.smp,
			  config.boot_timeout, outdir / 'console.log',
			  outdir / 'results.txt', arch=config.arch, echo=_DemoEcho(),
			  extra=config.qemu_args)
	shown = results.channel_ended(guest.channel())
	log(f'guest {guest.status.value} after {guest.seconds:.0f} s; '
	    f'{"the demo ran to its end" if shown else "the demo did not finish"}')
	ok = shown and guest.status == qemu.GuestStatus.POWERED_OFF
	return Status.SUCCESS if ok else Status.FAILURE


def cmd_ftracetest(args) -> Status:
	"""Upstream's ftrace selftests, every case but those of
	settings.FTRACETEST_EXCLUDED (or those of --case, or with --markers
	those where marker events take part, settings.FTRACETEST_CASES), in
	the debug kernel of make test (settings.FTRACETEST_CONFIG): one boot per
	share of the cases (ftracetest.shares()), settings.PARALLEL_GUESTS of
	them at a time, their TSC clocking the kernel (qemu.host_tsc_khz())."""
	start = time.monotonic()
	p = prepare(install=not args.no_install)
	suite = p.tree.src / settings.FTRACETEST_SOURCE / 'test.d'
	unknown = [c for c in args.case or [] if not (suite / c).is_file()]
	if unknown:
		raise WorkbenchError(f'no such ftracetest case under test.d: {", ".join(unknown)}')
	if args.case:
		cases = args.case
	elif args.markers:
		cases = list(settings.FTRACETEST_CASES)
	else:
		cases = ftracetest.every_case(suite)
	kunit_py = p.tree.src / 'tools/testing/kunit/kunit.py'
	config = settings.MATRIX[settings.FTRACETEST_CONFIG]
	build = kbuild.build(p.tree, config)
	link_build(build)
	outdir = settings.OUT / 'ftracetest'
	shutil.rmtree(outdir, ignore_errors=True)
	outdir.mkdir(parents=True)
	initrd = initramfs.make(build)
	shares = ftracetest.shares(cases)
	# The latency tracers' cases need a clock finer than a jiffy: the TSC,
	# at the host's rate, and never marked unstable (tsc=reliable). The
	# clocksource watchdog's only reference here is jiffies, which lag
	# whenever the host is loaded (timer interrupts come late under TCG):
	# in three of the first five boots of a make ftracetest beside
	# nothing else it marked the TSC unstable ("skewed 66 ms over
	# watchdog 'refined-jiffies' interval of 508 ms"), and in one of them
	# the preemptoff tracer measured 498654 us of a 500000 us section
	# (preemptirq/irqsoff_tracer.tc failed). The soft-lockup detector is
	# off, and RCU's stall detector gets its longest timeout (300 s):
	# under function graph tracing of every function, KASAN's stack
	# traces make one softirq of RCU callbacks run minutes in a TCG vCPU
	# (fgraph-multi.tc; on hardware, about a second), which was a soft
	# lockup report after 22 s by default and, at the detector's longest
	# threshold (watchdog_thresh=60), after 156 s on 2026-11-27; and it
	# kept a CPU 26 s in rcu_core() (trace_graph_return()), an RCU stall
	# report after 21 s. A case that hangs still ends its boot at the
	# boot's timeout, which says so. These boots run no KUnit suite:
	# make test's run them.
	khz = qemu.host_tsc_khz()
	clock = (f'tsc_early_khz={khz}', 'tsc=reliable') if khz else ()
	clock += ('nosoftlockup', 'rcupdate.rcu_cpu_stall_timeout=300', 'kunit.enable=0')
	log(f'ftracetest: {len(cases)} cases in {len(shares)} boots, '
	    f'{settings.PARALLEL_GUESTS} at a time, the longest first')
	with concurrent.futures.ThreadPoolExecutor(settings.PARALLEL_GUESTS) as pool:
		runs = [pool.submit(boot_guest, p, build, initrd, outdir,
				    (settings.FTRACETEST_PHASE,), i,
				    ('wb.ftracetest=' + ','.join(share), *clock),
				    ftracetest.timeout(share))
			for i, share in enumerate(shares)]
		guests = [run.result() for run in runs]
	took: Dict[str, float] = {}
	for share, guest in zip(shares, guests):
		took.update(ftracetest.case_seconds(guest.console, suite, share))
	slowest = sorted(took.items(), key=lambda item: -item[1])
	(outdir / 'case-seconds.txt').write_text(
		''.join(f'{seconds:7.1f} {case}\n' for case, seconds in slowest))
	counts, checks = guest_cases(kunit_py, config, outdir, guests)
	counts.add(results.parse(kunit_py, write_host_ktap(
		outdir / 'host.ktap', [(f'{config.name}_ftracetest_checks', checks)])))
	for line in counts.skips + [f'FAILED: {f}' for f in counts.failures]:
		print(line, flush=True)
	for case in checks:
		if not case.ok:
			print(f'WHY: {case.name}\n    ' + '\n    '.join(case.diagnostic.splitlines()[:6]))
	print('slowest cases (guest uptime, s): '
	      + ', '.join(f'{case} {seconds:.0f}' for case, seconds in slowest[:8]), flush=True)
	print(f'make ftracetest took {time.monotonic() - start:.0f} s ({len(shares)} boots, '
	      f'{settings.PARALLEL_GUESTS} at a time, of {", ".join(f"{g.seconds:.0f}" for g in guests)}'
	      f' s); {counts.skipped} skipped; logs in {outdir}\n'
	      f'{counts.passed} passed, {counts.failed} failed', flush=True)
	return Status.SUCCESS if counts.failed == 0 and counts.passed > 0 else Status.FAILURE


def cmd_series_check(args) -> Status:
	"""Builds the kernel after each patch of the series, in order."""
	p = prepare(install=not args.no_install)
	config = settings.MATRIX[settings.SERIES_CHECK_CONFIG]
	bisect = tree.worktree(p.tree, 'bisect', 'pristine')
	worktree = bisect.src
	failed = 0
	for i, (patch, commit) in enumerate(zip(p.patches, p.commits), 1):
		start = time.monotonic()
		tree.git(worktree, 'checkout', '-q', '--detach', commit)
		try:
			kbuild.build(bisect, config, f'bisect-{config.name}', validate=False)
			status = 'builds'
		except WorkbenchError as e:
			status = f'FAILS: {str(e).splitlines()[0]}'
			failed += 1
		print(f'{i:2}/{len(p.patches)} {patch.subject}: {status} '
		      f'({time.monotonic() - start:.0f} s)', flush=True)
	print(f'{len(p.patches) - failed} of {len(p.patches)} patches build', flush=True)
	return Status.SUCCESS if not failed else Status.FAILURE


def cmd_applied(args) -> Status:
	"""Applies the series to the base's tree (its scratch worktree, not the
	build source) and prints, last, where and its commits (for range-diff)."""
	if not args.no_install:
		deps.ensure_packages()
	t = tree.prepare()
	_, patches = series.load()
	commits = series.apply(t, patches)
	print(json.dumps({'base': settings.BASE.name, 'tree': str(t.scratch),
			  'commits': [tree.git_out(t.src, 'rev-parse', 'pristine'), *commits]}))
	return Status.SUCCESS


def cmd_range_diff(args) -> Status:
	"""git range-diff of the series applied on the mainline base and on
	each other base: what each backport changes of each patch."""
	applied = []
	for name in settings.BASES:
		env = dict(os.environ, MARKERS_BASE=name)
		cmd = [sys.executable, str(Path(__file__).resolve()),
		       *(['--no-install'] if args.no_install else []), 'applied']
		proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
		if proc.returncode != 0:
			raise WorkbenchError(f'applying the series on {name} failed:\n'
					     f'{proc.stdout[-2000:]}{proc.stderr[-2000:]}')
		applied.append(rangediff.parse_applied(proc.stdout))
	# The mainline series first, the backports after it.
	applied.sort(key=lambda a: a['base'] != settings.MAINLINE_BASE)
	outdir = fresh_outdir('range-diff')
	ranges = rangediff.build(applied, outdir / 'repo')
	mainline = ranges[settings.MAINLINE_BASE]
	text = ''
	for name, backport in ranges.items():
		if name == settings.MAINLINE_BASE:
			continue
		text += f'# git range-diff {settings.MAINLINE_BASE} (the series) {name} (its backport)\n'
		# Every patch of a backport is that of the series, however much
		# its adjustments change it (01 to 04 change the int3 patcher of
		# another kernel): pair them whatever it costs.
		text += tree.git_out(outdir / 'repo', '-c', 'color.ui=never', 'range-diff',
				     '--no-color', '--creation-factor=100', mainline,
				     backport) + '\n'
	(outdir / 'range-diff.txt').write_text(text)
	print(text, end='')
	print(f'written to {outdir / "range-diff.txt"}')
	return Status.SUCCESS


def fresh_outdir(name: str) -> Path:
	"""out/@name, emptied."""
	outdir = settings.OUT / name
	shutil.rmtree(outdir, ignore_errors=True)
	outdir.mkdir(parents=True)
	return outdir


def bench_report(json_path: Path, table_path: Path, outdir: Path) -> Status:
	"""Prints a benchmark's table and where its rows and logs are."""
	print(table_path.read_text(), end='')
	print(f'rows in {json_path}, logs in {outdir}; the method is in BENCHMARKS.md')
	return Status.SUCCESS


def cmd_bench(args) -> Status:
	"""Builds the benchmark kernel and runs markers_bench.ko in it."""
	p = prepare(install=not args.no_install)
	build = kbuild.build(p.tree, settings.BENCH)
	link_build(build)
	others = [kbuild.build(p.tree, config) for config in settings.BENCH_OTHERS]
	for other in others:
		link_build(other)
	outdir = fresh_outdir('bench')
	json_path, table_path = bench.run(p.qemu, build, outdir, args.runs, args.param or (),
					  others)
	return bench_report(json_path, table_path, outdir)


def cmd_bench_poke(args) -> Status:
	"""The numbers of the int3 patcher's patches, in the benchmark kernel
	(see bench.poke_table()): static keys and static calls before the series
	and after its patch 01 (guest/bench-modules/poke_bench, out of tree);
	a marker's switch in one batch (patch 04) and in chunks of 256
	(tests/bench/chunks-of-256.diff), by markers_bench's switching rows. All
	under -icount, in a worktree of their own (trees/<version>/poke)."""
	p = prepare(install=not args.no_install)
	poke = tree.worktree(p.tree, 'poke', 'pristine')
	worktree = poke.src
	outdir = fresh_outdir('bench-poke')
	module = [settings.GUEST_DIR / 'bench-modules' / 'poke_bench']
	rows: Dict[str, bench.Rows] = {}
	for step, commit in (('before', 'pristine'), ('patch01', p.commits[0])):
		tree.git(worktree, 'checkout', '-q', '-f', '--detach', commit)
		# The options of the series' later patches are not there yet.
		build = kbuild.build(poke, settings.BENCH, 'bench-poke', validate=False)
		rows[step], _ = bench.boot_rows(p.qemu, build, initramfs.make(build, module),
						outdir / step, ('wb.mode=poke', 'quiet'), True,
						f'poke_bench ({step})')
		if 'done' not in rows[step]:
			raise WorkbenchError(f'poke_bench ({step}) did not finish; see '
					     f'{outdir / step / "console.log"}')
	for step, variant in (('vector', None), ('chunks', settings.BENCH_POKE_CHUNKS)):
		tree.git(worktree, 'checkout', '-q', '-f', '--detach', p.commits[-1])
		if variant:
			# A commit of its own: the build's stamp is the worktree's HEAD.
			tree.git(worktree, 'apply', str(variant))
			run([*tree.GIT, '-C', worktree, 'commit', '-q', '--no-verify', '-a', '-m',
			     f'bench-poke: {variant.name}'], env=series._commit_env())
		# Configured again: the kernel before had none of the series' options.
		build = kbuild.build(poke, settings.BENCH, 'bench-poke', reconfigure=True)
		rows[step] = bench.run_guest(p.qemu, build, initramfs.make(build), outdir / step,
					     'icount', ['smoke=1'])
	table_path = outdir / 'table.txt'
	table_path.write_text(bench.poke_table(rows))
	(outdir / 'rows.json').write_text(json.dumps(rows, indent=1, sort_keys=True) + '\n')
	print(table_path.read_text(), end='')
	log(f'table in {table_path}, rows and logs in {outdir}')
	return Status.SUCCESS


def cmd_bench_silicon(args) -> Status:
	"""Builds the benchmark kernel and times the functions of its
	lib/markers_bench/real.c on the host's CPU (no guest)."""
	p = prepare(install=not args.no_install)
	build = kbuild.build(p.tree, settings.BENCH)
	link_build(build)
	outdir = fresh_outdir('bench-silicon')
	result = silicon.run_all(build, outdir, args.rounds or silicon.ROUNDS)
	goals = [bench.Target(*t) for t in silicon.off_targets(result)]
	table_path = outdir / 'table.txt'
	table_path.write_text('\n'.join(silicon.table(result)) + '\n\n' +
			      '\n'.join(silicon.far_lines(result)) + '\n\n' +
			      '\n'.join(silicon.on_table(result)) + '\n\n' +
			      bench.targets_text(goals) + '\n')
	(outdir / 'silicon.json').write_text(silicon.to_json(result))
	print(table_path.read_text(), end='')
	log(f'table in {table_path}, rows in {outdir / "silicon.json"}')
	return Status.SUCCESS


def cmd_bench_macro(args) -> Status:
	"""Builds the kernels of the macro benchmark and runs the workloads in
	each."""
	p = prepare(install=not args.no_install)
	builds = [kbuild.build(p.tree, config) for config in settings.BENCH_MACRO]
	for build in builds:
		link_build(build)
	outdir = fresh_outdir('bench-macro')
	# What only these kernels compile gets W=1 and sparse here.
	for config, build in zip(settings.BENCH_MACRO, builds):
		objects = sorted(o for o, option in settings.OBJECTS_BUILT_WITH.items()
				 if kbuild.enabled(build, option))
		if objects:
			clean, report = kbuild.lint(p.tree, config, objects)
			if not clean:
				raise WorkbenchError(f'W=1 and sparse on {", ".join(objects)} '
						     f'({config.name}):\n{report}')
			log(f'{config.name}: W=1 and sparse report nothing on {", ".join(objects)}')
	json_path, table_path = bench.macro(p.qemu, builds, outdir)
	return bench_report(json_path, table_path, outdir)


def cmd_build(args) -> Status:
	p = prepare(install=not args.no_install)
	for config in selected_configs(args.config):
		link_build(kbuild.build(p.tree, config))
	return Status.SUCCESS


def cmd_mutate(args) -> Status:
	"""Applies each mutation of tests/mutations, runs what must kill it
	(see wb/mutate.py), with the steps of `make test`."""
	steps = mutate.Steps(prepare=prepare, boot_guest=boot_guest, guest_cases=guest_cases)
	return Status(mutate.main(args, steps))


def main(argv: Sequence[str]) -> int:
	parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
	parser.add_argument('--no-install', action='store_true',
			    help='do not install missing Debian packages')
	parser.add_argument('--tcg', choices=('single', 'multi'), default=settings.TCG_THREADS,
			    help='TCG threading of the guests (default: %(default)s; '
				 'multi loses code modifications, see README.md)')
	sub = parser.add_subparsers(dest='command')
	for name, helptext in (('test', 'build every config, boot it, run every test'),
			       ('build', 'apply the series and build')):
		p = sub.add_parser(name, help=helptext)
		p.add_argument('--config', action='append',
			       help='limit to this config (repeatable): ' + ', '.join(settings.MATRIX)
			       + ('; "<base>/<config>" for one of another base' if name == 'test'
				  else ''))
		if name == 'test':
			p.add_argument('--all', action='store_true',
				       help="every base's configs of the matrix that make test runs")
			p.add_argument('--no-harness', action='store_true',
				       help="leave out the harness's own cases (a plan of bases "
					    'runs them once)')
	sub.add_parser('series', help='write out/series and checkpatch it')
	sub.add_parser('applied', help="apply the series to the base's tree, print its commits")
	sub.add_parser('range-diff', help='git range-diff of the series on each base')
	sub.add_parser('run', help='boot the patched kernel and show markers at work')
	sub.add_parser('series-check', help='build the kernel after every patch')
	p = sub.add_parser('ftracetest', help="run every case of upstream's ftrace selftests")
	p.add_argument('--case', action='append',
		       help='only this case, a path under test.d (repeatable)')
	p.add_argument('--markers', action='store_true',
		       help='only the cases where marker events take part '
			    '(settings.FTRACETEST_CASES)')
	mutate.add_arguments(sub.add_parser(
		'mutate', help='apply each mutation of tests/mutations, check that the tests kill it'))
	p = sub.add_parser('bench', help='run the benchmark in a production kernel')
	p.add_argument('--runs', type=int, default=settings.BENCH_WALL_RUNS,
		       help='runs on the host clock, after the -icount run (default: %(default)s)')
	p.add_argument('--param', action='append',
		       help='markers_bench parameter, e.g. iterations=100000 (repeatable)')
	sub.add_parser('bench-macro', help='whole workloads on kernels with and without '
		       'instrumented hot paths')
	sub.add_parser('bench-poke', help='static keys and static calls before and after '
		       "patch 01; a marker's switch as one batch and in chunks of 256")
	p = sub.add_parser('bench-silicon', help="time the benchmark kernel's real.c functions "
			   "on the host's CPU")
	p.add_argument('--rounds', type=int, help=f'rounds per placement (default: {silicon.ROUNDS})')
	args = parser.parse_args(argv)
	settings.TCG_THREADS = args.tcg
	handlers = {'test': cmd_test, 'build': cmd_build, 'series': cmd_series, 'run': cmd_run,
		    'series-check': cmd_series_check, 'bench': cmd_bench, 'mutate': cmd_mutate,
		    'ftracetest': cmd_ftracetest, 'bench-macro': cmd_bench_macro,
		    'bench-silicon': cmd_bench_silicon, 'bench-poke': cmd_bench_poke,
		    'applied': cmd_applied,
		    'range-diff': cmd_range_diff}
	if not args.command:
		parser.print_help()
		return Status.ERROR
	try:
		return handlers[args.command](args)
	except WorkbenchError as e:
		stderr(f'workbench: {e}')
		if args.command == 'test':
			print('0 passed, 1 failed', flush=True)
		return Status.ERROR


if __name__ == '__main__':
	sys.exit(main(sys.argv[1:]))
