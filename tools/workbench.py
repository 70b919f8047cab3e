#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The markers workbench: applies the series to Debian's linux-source-6.12,
builds the kernels of the test matrix and runs them in QEMU.

  workbench.py test [--config NAME]...   everything `make test` does
  workbench.py run                       boot the test kernel, show markers
  workbench.py series                    write out/series and checkpatch it
  workbench.py series-check              build after every patch (bisect)
  workbench.py build [--config NAME]...  only apply and build

Every stage prints the commands it runs. Exit codes: 0 success, 1 a test or
check failed, 2 the workbench could not do its job (see the message).
"""

import argparse
import enum
import os
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

from wb import deps, initramfs, kbuild, qemu, results, series, settings, tree  # noqa: E402
from wb.results import Case, Counts  # noqa: E402
from wb.shell import WorkbenchError, log, stderr  # noqa: E402


class Status(enum.IntEnum):
	SUCCESS = 0
	FAILURE = 1
	ERROR = 2


@dataclass(frozen=True)
class Prepared:
	qemu: Path
	tree: tree.Tree
	commits: List[str]
	cover: series.Cover
	patches: List[series.Patch]


def prepare(install: bool = True) -> Prepared:
	"""Installs what is missing, then applies the series to the cached tree."""
	if install:
		deps.ensure_packages()
	qemu_binary = deps.ensure_qemu()
	t = tree.prepare()
	cover, patches = series.load()
	log(f'applying {len(patches)} patches to {settings.SOURCE_PACKAGE} '
	    f'{t.package_version} (Linux {t.kernel_version()})')
	commits = series.apply(t, patches) if patches else [tree.git_out(t.src, 'rev-parse', 'pristine')]
	tree.checkout(t, commits[-1])
	return Prepared(qemu_binary, t, commits, cover, patches)


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


def guest_documents(channel: Path, outdir: Path) -> List[Path]:
	"""Splits the guest's results channel into KTAP files."""
	sections = results.split_channel(channel.read_text(errors='replace')
					 if channel.is_file() else '')
	docs = []
	for section in ('boot-kunit', 'after-boot-kunit'):
		suites = [(name, results.kunit_suite_lines(lines))
			  for name, lines in sections.get(section, [])]
		path = outdir / f'{section}.ktap'
		path.write_text(results.ktap_document(suites))
		docs.append(path)
	e2e = [(name, results.e2e_suite_lines(lines)) for name, lines in sections.get('e2e', [])]
	path = outdir / 'e2e.ktap'
	path.write_text(results.ktap_document(e2e))
	docs.append(path)
	return docs


def test_config(p: Prepared, config: settings.KernelConfig) -> Counts:
	outdir = settings.OUT / 'test' / config.name
	shutil.rmtree(outdir, ignore_errors=True)
	outdir.mkdir(parents=True)
	kunit_py = p.tree.src / 'tools/testing/kunit/kunit.py'
	checks: List[Case] = []
	counts = Counts()

	build = kbuild.build(p.tree, config)
	link_build(build)
	warnings = kbuild.warnings(build)
	checks.append(Case(f'{config.name}: build has no compiler, linker or objtool warning',
			   not warnings, '\n'.join(warnings)))

	image = initramfs.make(build)
	console = outdir / 'console.log'
	channel = outdir / 'results.txt'
	log(f'{config.name}: booting (console: {console})')
	guest = qemu.boot(p.qemu, build.image, image, ('wb.mode=test', *config.cmdline), config.smp,
			  config.boot_timeout, console, channel)
	log(f'{config.name}: guest {guest.status.value} after {guest.seconds:.0f} s')

	for doc in guest_documents(channel, outdir):
		counts.add(results.parse(kunit_py, doc))
	finished = channel.is_file() and '@@ section end' in channel.read_text(errors='replace')
	checks.append(Case(f'{config.name}: guest ran every test and powered off',
			   finished and guest.status == qemu.GuestStatus.POWERED_OFF,
			   f'guest {guest.status.value}; results channel '
			   f'{"complete" if finished else "incomplete"}'))
	splats = results.splats(console)
	checks.append(Case(f'{config.name}: console has no WARNING, BUG, Oops, lockdep or '
			   'KASAN report', not splats, '\n'.join(splats[:50])))
	counts.add(results.parse(kunit_py, write_host_ktap(outdir / 'host.ktap',
							   [(f'{config.name}_checks', checks)])))
	return counts


def selected_configs(names: Optional[Sequence[str]]) -> List[settings.KernelConfig]:
	if not names:
		return list(settings.MATRIX.values())
	unknown = [n for n in names if n not in settings.MATRIX]
	if unknown:
		raise WorkbenchError(f'unknown config {", ".join(unknown)}; the matrix has: '
				     + ', '.join(settings.MATRIX))
	return [settings.MATRIX[n] for n in names]


def cmd_test(args) -> Status:
	start = time.monotonic()
	total = Counts()
	p = prepare(install=not args.no_install)
	kunit_py = p.tree.src / 'tools/testing/kunit/kunit.py'
	host = write_host_ktap(settings.OUT / 'test' / 'series.ktap',
			       [('series', series_cases(p))])
	total.add(results.parse(kunit_py, host))
	for config in selected_configs(args.config):
		try:
			counts = test_config(p, config)
		except WorkbenchError as e:
			stderr(f'{config.name}: {e}')
			counts = Counts(failed=1, failures=[f'{config.name}: {str(e).splitlines()[0]}'])
		log(f'{config.name}: {counts.passed} passed, {counts.failed} failed, '
		    f'{counts.skipped} skipped')
		total.add(counts)
	for failure in total.failures:
		print(f'FAILED: {failure}')
	log(f'make test took {time.monotonic() - start:.0f} s; '
	    f'{total.skipped} skipped (not counted as passed); logs in {settings.OUT / "test"}')
	print(f'{total.passed} passed, {total.failed} failed', flush=True)
	return Status.SUCCESS if total.failed == 0 and total.passed > 0 else Status.FAILURE


def cmd_build(args) -> Status:
	p = prepare(install=not args.no_install)
	for config in selected_configs(args.config):
		link_build(kbuild.build(p.tree, config))
	return Status.SUCCESS


def main(argv: Sequence[str]) -> int:
	parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
	parser.add_argument('--no-install', action='store_true',
			    help='do not install missing Debian packages')
	sub = parser.add_subparsers(dest='command')
	for name, helptext in (('test', 'build every config, boot it, run every test'),
			       ('build', 'apply the series and build')):
		p = sub.add_parser(name, help=helptext)
		p.add_argument('--config', action='append',
			       help='limit to this config (repeatable): ' + ', '.join(settings.MATRIX))
	sub.add_parser('series', help='write out/series and checkpatch it')
	args = parser.parse_args(argv)
	handlers = {'test': cmd_test, 'build': cmd_build, 'series': cmd_series}
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
