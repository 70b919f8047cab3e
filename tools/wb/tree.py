# SPDX-License-Identifier: GPL-2.0
"""The kernel source trees in the cache.

Debian's linux-source tarball of the base (settings.BASE) is extracted
once per package version into a git repository whose first commit is
tagged 'pristine':

  <cache>/trees/<package version>/linux    the source the kernels build from
                                           (out of tree, O=); its HEAD is
                                           the applied series
  <cache>/trees/<package version>/scratch  a worktree where the series is
                                           applied, patch by patch

Applying happens in 'scratch'; 'linux' then checks the result out, and git
only rewrites the files that differ, so an unchanged series rebuilds nothing.
"""

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from . import deps, settings
from .shell import WorkbenchError, log, output, run

GIT = ('git', '-c', 'gc.auto=0', '-c', 'core.autocrlf=false',
       '-c', 'advice.detachedHead=false')


def git(repo: Path, *args: str, quiet: bool = True):
	return run([*GIT, '-C', str(repo), *args], quiet=quiet, capture=quiet)


def git_out(repo: Path, *args: str) -> str:
	return output([*GIT, '-C', str(repo), *args])


@dataclass(frozen=True)
class Tree:
	package_version: str
	root: Path
	worktree: str = 'linux'		# the worktree kernels build from

	@property
	def src(self) -> Path:
		return self.root / self.worktree

	@property
	def scratch(self) -> Path:
		return self.root / 'scratch'

	def kernel_version(self) -> str:
		makefile = (self.src / 'Makefile').read_text()
		fields = dict(re.findall(r'^(VERSION|PATCHLEVEL|SUBLEVEL) = (\d+)$',
					 makefile, re.M))
		return '{VERSION}.{PATCHLEVEL}.{SUBLEVEL}'.format(**fields)


def package_version() -> str:
	if settings.BASE.apt_source:
		version_file = deps.source_version_file()
		version = version_file.read_text().strip() if version_file.is_file() else ''
	else:
		version = output(['dpkg-query', '-W', '-f=${Version}', settings.SOURCE_PACKAGE])
	if not version:
		raise WorkbenchError(f'{settings.SOURCE_PACKAGE} is not installed')
	return version


def _extract(tarball: Path, dest: Path) -> None:
	tmp = dest.with_name(dest.name + '.tmp')
	shutil.rmtree(tmp, ignore_errors=True)
	tmp.mkdir(parents=True)
	log(f'extracting {tarball} (once per package version)')
	run(['tar', '-xf', tarball, '-C', tmp])
	top = tmp / settings.SOURCE_TOPDIR
	if not (top / 'Makefile').is_file():
		raise WorkbenchError(f'{tarball} has no {settings.SOURCE_TOPDIR}/Makefile')
	log('recording the pristine tree in git')
	git(top, 'init', '-q')
	git(top, 'add', '-A', '-f')
	git(top, '-c', f'user.name=workbench', '-c', 'user.email=workbench@localhost',
	    'commit', '-q', '--no-verify', '-m', f'{settings.SOURCE_PACKAGE} {dest.parent.name}')
	git(top, 'tag', 'pristine')
	top.rename(dest)
	shutil.rmtree(tmp)


def prepare() -> Tree:
	"""Returns the tree for the base's source package (installed, or fetched
	into the cache), extracting it if needed."""
	deps.ensure_source()
	if not settings.SOURCE_TARBALL.is_file():
		raise WorkbenchError(f'{settings.SOURCE_TARBALL} is missing; '
				     f'install {settings.SOURCE_PACKAGE}')
	version = package_version()
	tree = Tree(version, settings.CACHE / 'trees' / version)
	if not (tree.src / '.git').is_dir():
		tree.root.mkdir(parents=True, exist_ok=True)
		_extract(settings.SOURCE_TARBALL, tree.src)
	if not (tree.scratch / '.git').exists():
		git(tree.src, 'worktree', 'prune')
		git(tree.src, 'worktree', 'add', '-q', '--detach', str(tree.scratch), 'pristine')
	return tree


def worktree(tree: Tree, name: str, commit: str, quiet: bool = True) -> Tree:
	"""The worktree @name of @tree's repository (trees/<version>/@name),
	added at @commit if it is not there yet, as a Tree to build from."""
	path = tree.root / name
	if not (path / '.git').exists():
		git(tree.src, 'worktree', 'prune')
		git(tree.src, 'worktree', 'add', '-q', '--detach', str(path), commit, quiet=quiet)
	return Tree(tree.package_version, tree.root, name)


def checkout(tree: Tree, commit: str) -> None:
	"""Moves the build source to @commit, rewriting only what differs."""
	if git_out(tree.src, 'rev-parse', 'HEAD') == commit:
		return
	dirty = git_out(tree.src, 'status', '--porcelain', '--untracked-files=no')
	if dirty:
		raise WorkbenchError(f'{tree.src} has local changes; the build source must '
				     f'stay clean (builds are out of tree):\n{dirty}')
	git(tree.src, 'checkout', '-q', '--detach', commit)
