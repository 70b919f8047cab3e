# SPDX-License-Identifier: GPL-2.0
"""The series on two bases, side by side: `git range-diff` of the mainline
series and its backport.

Each base's series is applied in its own tree (a worktree of a kernel
source of its own, wb/tree.py), so the two share no history. A small
repository takes, for each base, the files either series touches: their
pristine content, then one commit per patch with the content the patch
leaves and its message. `git range-diff` of the two branches then shows
what the backport changes in each patch: its replaced diffs, the edits of
the new files at the API edges, and the notes of its messages.
"""

import json
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

from .tree import git_out as _git

# What `workbench.py applied` prints on its last line, as JSON: the tree
# the series was applied in and its commits, pristine first.
APPLIED_KEYS = ('base', 'tree', 'commits')


def _touched(applied: List[dict]) -> List[str]:
	files = set()
	for a in applied:
		files.update(_git(Path(a['tree']), 'diff', '--name-only', a['commits'][0],
				  a['commits'][-1]).split())
	return sorted(files)


def _snapshot(src: Path, commit: str, files: List[str], dest: Path) -> None:
	"""Makes @dest hold @files as @commit has them (those it has)."""
	for f in files:
		(dest / f).unlink(missing_ok=True)
	present = _git(src, 'ls-tree', '-r', '--name-only', commit, '--', *files).split()
	if not present:
		return
	archive = subprocess.run(['git', '-C', str(src), 'archive', '--format=tar', commit,
				  '--', *present], capture_output=True, check=True).stdout
	subprocess.run(['tar', '-x', '-C', str(dest)], input=archive, check=True)


def build(applied: List[dict], repo: Path) -> Dict[str, str]:
	"""Makes @repo hold one branch per base, from its pristine files; returns
	each base's range, as range-diff takes it."""
	files = _touched(applied)
	shutil.rmtree(repo, ignore_errors=True)
	repo.mkdir(parents=True)
	_git(repo, 'init', '-q')
	env = ('-c', 'user.name=workbench', '-c', 'user.email=workbench@localhost')
	ranges = {}
	for a in applied:
		src, commits = Path(a['tree']), a['commits']
		_git(repo, 'checkout', '-q', '--orphan', f'series-{a["base"]}')
		for i, commit in enumerate(commits):
			_snapshot(src, commit, files, repo)
			_git(repo, 'add', '-A', '-f', '.')
			message = _git(src, 'log', '-1', '--format=%B', commit)
			_git(repo, *env, 'commit', '-q', '--allow-empty', '--no-verify',
			     '-m', message)
			if i == 0:
				first = _git(repo, 'rev-parse', 'HEAD')
		ranges[a['base']] = f'{first}..{_git(repo, "rev-parse", "HEAD")}'
	return ranges


def parse_applied(text: str) -> dict:
	doc = json.loads(text.strip().splitlines()[-1])
	if tuple(sorted(doc)) != tuple(sorted(APPLIED_KEYS)):
		raise ValueError(f'not what `workbench.py applied` prints: {text[-300:]}')
	return doc
