# SPDX-License-Identifier: GPL-2.0
"""Upstream's ftrace selftests in `make ftracetest`: which cases each boot
runs, and how long each case took.

A boot runs a share of the cases (wb.ftracetest=A,B,... on its command
line, guest/ftracetest.sh). The shares are cut so that each is about
settings.FTRACETEST_SHARE_SECONDS long by the cases' known times, and the
host boots them longest first, settings.PARALLEL_GUESTS at a time, each
guest taking the next share as one ends: a slow case then keeps one guest
busy while the other works through the rest, rather than one guest
finishing its half long before the other."""

import re
from pathlib import Path
from typing import Dict, List, Sequence

from . import settings

# How guest/ftracetest.sh stamps the start (run 0) and each result (run N,
# ftracetest's own number) on the console.
_STAMP = re.compile(r'^\[uptime ([0-9.]+)\] (?:ftracetest starts|(?:not )?ok ([0-9]+) )')


def every_case(suite: Path) -> List[str]:
	"""Every case under @suite (a test.d directory) but those of
	settings.FTRACETEST_EXCLUDED, by path under it, sorted, those of
	settings.FTRACETEST_LAST last (in a boot of every case, by hand, the
	reruns in an instance still come after them)."""
	return sorted((case for case in (str(p.relative_to(suite)) for p in suite.rglob('*.tc'))
		       if case not in settings.FTRACETEST_EXCLUDED),
		      key=lambda case: (case in settings.FTRACETEST_LAST, case))


def estimate(case: str) -> int:
	"""Seconds @case (a path under test.d) is expected to take."""
	return settings.FTRACETEST_SECONDS.get(case, settings.FTRACETEST_DEFAULT_SECONDS)


def shares(cases: Sequence[str]) -> List[List[str]]:
	"""@cases cut into the shares of one boot each, longest first.

	Cases go longest first into the first share they fit in, by time
	(settings.FTRACETEST_SHARE_SECONDS) and by the length of their list on
	the command line (settings.FTRACETEST_SHARE_CHARS); a case longer than
	a share is a share of its own, and so is each case of
	settings.FTRACETEST_LAST. Within a share they keep the order of
	@cases."""
	bins: List[List[str]] = []
	seconds: List[int] = []
	chars: List[int] = []
	for case in sorted(cases, key=lambda c: (-estimate(c), c)):
		cost, size = estimate(case), len(case) + 1
		for i, _ in enumerate(bins):
			if case in settings.FTRACETEST_LAST or bins[i][0] in settings.FTRACETEST_LAST:
				continue
			if (seconds[i] + cost <= settings.FTRACETEST_SHARE_SECONDS and
			    chars[i] + size <= settings.FTRACETEST_SHARE_CHARS):
				break
		else:
			i = len(bins)
			bins.append([])
			seconds.append(0)
			chars.append(0)
		bins[i].append(case)
		seconds[i] += cost
		chars[i] += size
	order = {case: n for n, case in enumerate(cases)}
	ranked = sorted(range(len(bins)), key=lambda i: (-seconds[i], i))
	return [sorted(bins[i], key=order.__getitem__) for i in ranked]


def timeout(share: Sequence[str]) -> int:
	"""Seconds a boot that runs @share gets: its boot, and three times
	what its cases are expected to take (two guests side by side on a
	loaded host)."""
	return settings.FTRACETEST_BOOT_SECONDS + 3 * sum(map(estimate, share))


def runs(suite: Path, cases: Sequence[str]) -> List[str]:
	"""The runs ftracetest makes of @cases, in the order it makes them:
	each case, then again in an instance each one whose header has
	"# flags: instance" (ftracetest's test_on_instance())."""
	again = [c for c in cases
		 if re.search(r'^# flags:.*\binstance\b', (suite / c).read_text(errors='replace'),
			      re.MULTILINE)]
	return list(cases) + again


def case_seconds(console: Path, suite: Path, cases: Sequence[str]) -> Dict[str, float]:
	"""Seconds of guest uptime each of @cases took in the boot that logged
	@console, both of its runs added up; the cases it did not reach are
	missing."""
	stamps: Dict[int, float] = {}
	for line in console.read_text(errors='replace').splitlines():
		match = _STAMP.match(line)
		if match:
			stamps[int(match.group(2) or 0)] = float(match.group(1))
	took: Dict[str, float] = {}
	for n, case in enumerate(runs(suite, cases), 1):
		if n in stamps and n - 1 in stamps:
			took[case] = took.get(case, 0.0) + stamps[n] - stamps[n - 1]
	return took
