# SPDX-License-Identifier: GPL-2.0
"""The patch series: read its description, apply it, write it as patches.

series/cover-letter.txt   Subject: header, blank line, the cover letter text
series/NN-slug.txt        one patch: Subject: and Files: headers, blank line,
                          the commit message body
series/NN-slug.diff       (optional) its changes to existing upstream files

Files: lists the new files the patch adds, whole, from linux/<path>.  Every
file under linux/ belongs to exactly one patch.

A base other than the one the series is written for carries a delta on
it, backport/<base>/ (settings.DELTA_DIR), the way a stable backport is
the upstream patch plus its adjustments:

backport/<base>/NN-slug.diff       replaces series/NN-slug.diff: the same
                                   changes to upstream files, on that base
backport/<base>/NN-slug.edit.diff  applied after the patch's new files are
                                   copied: the edits of those files at the
                                   API edges of that base
backport/<base>/mutations/         the mutations of tests/mutations whose
                                   code differs on that base (wb/mutate.py)

The text before the first "diff --git" of either is the backport's note,
added to the commit message as "[ backport: ... ]".
"""

import concurrent.futures
import hashlib
import os
import re
import shutil
from dataclasses import dataclass
from email.parser import HeaderParser
from pathlib import Path
from typing import List, Optional, Tuple

from . import settings
from .shell import WorkbenchError, log, run
from .tree import Tree, git, git_out


@dataclass(frozen=True)
class Patch:
	stem: str
	subject: str
	body: str
	files: Tuple[str, ...]
	diff: Optional[Path]
	edit: Optional[Path] = None	# the delta's edit of the new files
	note: str = ''			# the delta's note


@dataclass(frozen=True)
class Cover:
	subject: str
	body: str


def _read_message(path: Path):
	text = path.read_text()
	headers = HeaderParser().parsestr(text, headersonly=True)
	_, _, body = text.partition('\n\n')
	if not headers.get('Subject'):
		raise WorkbenchError(f'{path}: no Subject: header')
	return headers, body.strip('\n')


def _linux_files() -> List[str]:
	return sorted(str(p.relative_to(settings.LINUX_FILES))
		      for p in settings.LINUX_FILES.rglob('*') if p.is_file())


def load() -> Tuple[Cover, List[Patch]]:
	"""Reads series/ and checks that it accounts for every file under linux/."""
	headers, body = _read_message(settings.SERIES_DIR / 'cover-letter.txt')
	cover = Cover(' '.join(headers['Subject'].split()), body)
	patches = []
	for path in sorted(settings.SERIES_DIR.glob('[0-9][0-9]-*.txt')):
		headers, body = _read_message(path)
		files = tuple(headers.get('Files', '').split())
		diff = path.with_suffix('.diff')
		patches.append(_with_delta(Patch(path.stem, ' '.join(headers['Subject'].split()),
						 body, files, diff if diff.is_file() else None)))
	if settings.DELTA_DIR.is_dir():
		stems = {p.stem for p in patches}
		strays = sorted(f.name for f in settings.DELTA_DIR.iterdir()
				if f.is_file() and f.name.split('.')[0] not in stems)
		if strays:
			raise WorkbenchError(f'{settings.DELTA_DIR} has files of no patch: '
					     + ', '.join(strays))

	claimed = {}
	for patch in patches:
		for f in patch.files:
			if f in claimed:
				raise WorkbenchError(f'linux/{f} is listed by both {claimed[f]} '
						     f'and {patch.stem}')
			if not (settings.LINUX_FILES / f).is_file():
				raise WorkbenchError(f'{patch.stem} lists linux/{f}, which does not exist')
			claimed[f] = patch.stem
	unclaimed = [f for f in _linux_files() if f not in claimed]
	if unclaimed:
		raise WorkbenchError('files under linux/ that no patch lists in Files: ' +
				     ', '.join(unclaimed))
	return cover, patches


def _note(diff: Path) -> str:
	text = diff.read_text()
	return text[:text.index('diff --git')].strip() if 'diff --git' in text else ''


def _with_delta(patch: Patch) -> Patch:
	"""@patch as the base's delta (settings.DELTA_DIR) has it."""
	diff = settings.DELTA_DIR / f'{patch.stem}.diff'
	edit = settings.DELTA_DIR / f'{patch.stem}.edit.diff'
	if not diff.is_file() and not edit.is_file():
		return patch
	if diff.is_file() and not patch.diff:
		raise WorkbenchError(f'{diff} replaces series/{diff.name}, which does not exist')
	notes = [_note(d) for d in (diff, edit) if d.is_file()]
	return Patch(patch.stem, patch.subject, patch.body, patch.files,
		     diff if diff.is_file() else patch.diff,
		     edit if edit.is_file() else None, '\n'.join(n for n in notes if n))


def _git_apply(tree: Tree, diff: Path, what: str) -> None:
	proc = run(['git', '-C', tree.scratch, 'apply', '--index', '--verbose', diff],
		   quiet=True, capture=True, check=False)
	if proc.returncode != 0:
		raise WorkbenchError(
			f'{what} does not apply to {settings.SOURCE_PACKAGE} '
			f'{tree.package_version} (Linux {tree.kernel_version()}):\n'
			f'{proc.stderr.strip()}\n'
			'The file changed under the series: refresh the diff against this version.')


def _commit_env() -> dict:
	name, email = re.match(r'(.*) <(.*)>', settings.AUTHOR).groups()
	return {'GIT_AUTHOR_NAME': name, 'GIT_AUTHOR_EMAIL': email,
		'GIT_COMMITTER_NAME': name, 'GIT_COMMITTER_EMAIL': email,
		'GIT_AUTHOR_DATE': settings.COMMIT_DATE,
		'GIT_COMMITTER_DATE': settings.COMMIT_DATE}


def _apply_one(tree: Tree, patch: Patch) -> None:
	for f in patch.files:
		dst = tree.scratch / f
		dst.parent.mkdir(parents=True, exist_ok=True)
		shutil.copyfile(settings.LINUX_FILES / f, dst)
	if patch.diff:
		_git_apply(tree, patch.diff, str(patch.diff.relative_to(settings.REPO)))
	if patch.files:
		git(tree.scratch, 'add', '-f', '--', *patch.files)
	if patch.edit:
		_git_apply(tree, patch.edit, str(patch.edit.relative_to(settings.REPO)))
	note = f'\n\n[ backport: {patch.note} ]' if patch.note else ''
	message = (f'{patch.subject}\n\n{patch.body}\n\nSigned-off-by: {settings.AUTHOR}'
		   f'{note}\n')
	run(['git', '-C', tree.scratch, 'commit', '-q', '--no-verify', '-m', message],
	    quiet=True, capture=True, env=_commit_env())


def apply(tree: Tree, patches: List[Patch]) -> List[str]:
	"""Applies @patches on the pristine tree in scratch; returns their commits."""
	git(tree.scratch, 'checkout', '-q', '-f', '--detach', 'pristine')
	git(tree.scratch, 'clean', '-fdxq')
	commits = []
	for patch in patches:
		_apply_one(tree, patch)
		commits.append(git_out(tree.scratch, 'rev-parse', 'HEAD'))
	return commits


def write_patches(tree: Tree, commits: List[str], cover: Cover, outdir: Path) -> List[Path]:
	"""Writes the cover letter and one format-patch file per commit."""
	shutil.rmtree(outdir, ignore_errors=True)
	outdir.mkdir(parents=True)
	git(tree.scratch, 'format-patch', '-q', '--cover-letter', '--no-signature',
	    '-o', str(outdir), f'pristine..{commits[-1]}')
	letter = next(outdir.glob('0000-cover-letter.patch'))
	text = letter.read_text()
	text = text.replace('*** SUBJECT HERE ***', cover.subject)
	text = text.replace('*** BLURB HERE ***',
			    cover.body + f'\n\nBase: Debian {settings.SOURCE_PACKAGE} '
			    f'{tree.package_version} (Linux {tree.kernel_version()}).')
	letter.write_text(text)
	return sorted(p for p in outdir.glob('[0-9][0-9][0-9][0-9]-*.patch') if p != letter)


def verify_am(tree: Tree, patches: List[Path], expected: str) -> None:
	"""Checks that the written patches `git am` onto pristine to @expected's tree."""
	git(tree.scratch, 'checkout', '-q', '-f', '--detach', 'pristine')
	proc = run(['git', '-C', tree.scratch, 'am', '-q', '--keep-cr', *patches],
		   quiet=True, capture=True, check=False, env=_commit_env())
	if proc.returncode != 0:
		git(tree.scratch, 'am', '--abort')
		raise WorkbenchError(f'git am of out/series failed:\n{proc.stdout}{proc.stderr}')
	got = git_out(tree.scratch, 'rev-parse', 'HEAD^{tree}')
	want = git_out(tree.scratch, 'rev-parse', f'{expected}^{{tree}}')
	if got != want:
		raise WorkbenchError('git am of out/series does not reproduce the series tree')


@dataclass(frozen=True)
class CheckpatchResult:
	patch: Path
	errors: int
	warnings: int
	checks: int
	report: str

	@property
	def clean(self) -> bool:
		# A traceback means a helper (spdxcheck.py) did not run.
		return self.errors == 0 and self.warnings == 0 and 'Traceback' not in self.report


def _checkpatch_one(tree: Tree, patch: Path) -> str:
	"""The report of checkpatch --strict on @patch, memoized in the cache.

	The report depends only on the patch and on the tree's scripts, so an
	unchanged series is not checked again.
	"""
	script = tree.src / 'scripts/checkpatch.pl'
	key = hashlib.sha256(patch.read_bytes() + script.read_bytes()
			     + tree.package_version.encode()).hexdigest()
	memo = settings.CACHE / 'checkpatch' / f'{key}.txt'
	if memo.is_file():
		return memo.read_text()
	env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin:' + os.environ.get('PATH', '')}
	proc = run(['perl', 'scripts/checkpatch.pl', '--strict', '--color=never',
		    '--showfile', str(patch)], cwd=tree.src, env=env, quiet=True,
		   capture=True, check=False)
	report = proc.stdout + proc.stderr
	if 'total: ' in report and 'Traceback' not in report:
		memo.parent.mkdir(parents=True, exist_ok=True)
		memo.write_text(report)
	return report


def checkpatch(tree: Tree, patches: List[Path]) -> List[CheckpatchResult]:
	"""Runs scripts/checkpatch.pl --strict on each patch, from the applied tree,
	one patch per core.

	With Debian's python3 first in PATH: checkpatch runs scripts/spdxcheck.py,
	which needs python3-ply and python3-git.
	"""
	with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
		reports = list(pool.map(lambda patch: _checkpatch_one(tree, patch), patches))
	results = []
	for patch, report in zip(patches, reports):
		m = re.search(r'total: (\d+) errors, (\d+) warnings, (?:(\d+) checks, )?', report)
		if not m:
			raise WorkbenchError(f'checkpatch.pl gave no summary for {patch}:\n{report}')
		errors, warnings, checks = (int(g or 0) for g in m.groups())
		results.append(CheckpatchResult(patch, errors, warnings, checks, report))
	return results
