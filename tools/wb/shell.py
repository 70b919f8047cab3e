# SPDX-License-Identifier: GPL-2.0
"""Running commands: every command is printed before it runs, and a failure
becomes a WorkbenchError that carries the command and the tail of its output."""

import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Optional, Sequence, Union

Cmd = Sequence[Union[str, Path]]


class WorkbenchError(Exception):
	"""A stage of the workbench failed; the message says what to look at."""


def log(msg: str) -> None:
	print(f'[{time.strftime("%H:%M:%S")}] {msg}', flush=True)


def _show(cmd: Cmd, cwd: Optional[Path]) -> str:
	text = ' '.join(shlex.quote(str(c)) for c in cmd)
	return f'(cd {cwd} && {text})' if cwd else text


def run(cmd: Cmd, cwd: Optional[Path] = None, env: Optional[Dict[str, str]] = None,
	quiet: bool = False, capture: bool = False, logfile: Optional[Path] = None,
	check: bool = True) -> subprocess.CompletedProcess:
	"""Runs @cmd; prints it first unless @quiet.

	With @capture the output is returned; with @logfile it goes to that
	file and the last lines are shown if the command fails.
	"""
	if not quiet:
		log('$ ' + _show(cmd, cwd))
	full_env = dict(os.environ, **env) if env else None
	if logfile:
		logfile.parent.mkdir(parents=True, exist_ok=True)
		with open(logfile, 'w') as f:
			proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=full_env,
					      stdout=f, stderr=subprocess.STDOUT, text=True)
	else:
		proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=full_env,
				      text=True, capture_output=capture)
	if check and proc.returncode != 0:
		detail = ''
		if logfile:
			tail = logfile.read_text(errors='replace').splitlines()[-40:]
			detail = '\n'.join(tail) + f'\n(full log: {logfile})'
		elif capture:
			detail = (proc.stdout or '') + (proc.stderr or '')
		raise WorkbenchError(f'command failed with exit code {proc.returncode}: '
				     f'{_show(cmd, cwd)}\n{detail}'.rstrip())
	return proc


def output(cmd: Cmd, cwd: Optional[Path] = None) -> str:
	"""Runs @cmd quietly and returns its stripped standard output."""
	return run(cmd, cwd=cwd, quiet=True, capture=True).stdout.strip()


def is_root() -> bool:
	return os.geteuid() == 0


def stderr(msg: str) -> None:
	print(msg, file=sys.stderr, flush=True)
