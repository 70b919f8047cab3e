# SPDX-License-Identifier: GPL-2.0
"""What the guests of a config must have reported, checked by name: every
KUnit suite of its suites= complete in each KUnit phase, the after-boot run
fresh, every end-to-end script of guest/tests declared, run to its end and
reporting cases, a kmemleak scan at the end of each boot of a kmemleak
kernel, and the skipped cases with their reasons."""

from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import results, settings
from .results import Case, Leaf, Script

Sections = Dict[str, List[Tuple[str, List[str]]]]
# (started, ended, plan, result lines): see results.kunit_results().
Run = Tuple[bool, bool, Optional[int], List[str]]

KUNIT_PHASES = ('boot-kunit', 'after-boot-kunit')
SCRIPT_SECTIONS = ('e2e', 'kmemleak', settings.FTRACETEST_PHASE)
# The end-to-end script that scans for leaks; a boot without it scans in
# guest/test.sh's kmemleak section.
KMEMLEAK_SCRIPT = '90-kmemleak'


def _reasons(skipped: List[Leaf]) -> str:
	shown = '; '.join(f'{leaf.name}: {leaf.skip or "no reason given"}' for leaf in skipped[:5])
	return shown + ('; ...' if len(skipped) > 5 else '')


def run_problems(run: Run) -> List[str]:
	"""What is wrong with a suite's run: never started, no plan, no case,
	fewer results than its plan (it crashed half-way), no final result
	line, or every case skipped."""
	started, ended, plan, lines = run
	cases = [line for line in lines if not line.startswith(' ')]
	problems = []
	if not started:
		problems.append('no "# Subtest:" header: it never started (suite_init failed? '
				'see the log)')
	if plan is None and started:
		problems.append('no plan line (1..N)')
	if not cases:
		problems.append('it reported zero cases')
	elif plan is not None and len(cases) != plan:
		problems.append(f'{len(cases)} case results for a plan of {plan}: it crashed '
				'half-way (see the console)')
	if not ended:
		problems.append('no final result line for the suite: it crashed half-way '
				'(see the console)')
	every = results.leaves(lines)
	skipped = [leaf for leaf in every if leaf.skip is not None]
	if every and len(skipped) == len(every):
		problems.append(f'every case skipped ({_reasons(skipped)}): a suite of skips '
				'proves nothing')
	return problems


def kunit_cases(what: str, config: settings.KernelConfig, phase: str,
		sections: Sections) -> List[Case]:
	"""Each suite of config.suites reported in @phase, complete; a suite
	that reported without being declared fails too."""
	reported = {name: raw for name, raw in sections.get(phase, [])}
	cases = []
	for suite in config.suites:
		if suite not in reported:
			problems = [f'absent from {phase}: no /sys/kernel/debug/kunit/{suite} '
				    f'(not built in? renamed?); suites there: {sorted(reported)}']
		elif not any(line.strip() for line in reported[suite]):
			problems = [f'its debugfs results file was empty in {phase}']
		else:
			problems = run_problems(results.kunit_results(suite, reported[suite]))
		cases.append(Case(f'{what}: KUnit suite {suite} complete in {phase}',
				  not problems, '\n'.join(problems)))
	for suite in sorted(set(reported) - set(config.suites)):
		cases.append(Case(f'{what}: KUnit suite {suite} of {phase} is declared', False,
				  f'{suite} reported in {phase}, but settings.MATRIX'
				  f"['{config.name}'].suites does not list it"))
	return cases


def fresh_cases(what: str, config: settings.KernelConfig, text: str,
		sections: Sections) -> List[Case]:
	"""The after-boot run is fresh: KUnit prints every result line to the
	kernel log as well as to debugfs, and the guest wrote a random token
	to /dev/kmsg right before the run, then sent the kernel log (dmesg).
	Each suite must have printed its whole run after the token line, and
	its debugfs results must be that run, line for line. A run that did
	nothing leaves the boot-time results in debugfs, and nothing after the
	token: the token is drawn by the guest per boot, so no line logged
	before it (the boot-time run, the command line) can match."""
	tokens = results.channel_tokens(text)
	logs = sections.get('after-boot-log', [])
	common = []
	after: List[str] = []
	if len(tokens) != 1 or not results.TOKEN.fullmatch(tokens[0]):
		common.append(f'the guest sent {len(tokens)} tokens ({tokens}), not one random '
			      'token: test.sh did not mark the start of the run')
	elif len(logs) != 1:
		common.append('the guest sent no kernel log after the run (section after-boot-log)')
	else:
		found = results.messages_after_token(results.log_messages(logs[0][1]), tokens[0])
		if found is None:
			common.append(f'the token line "{results.TOKEN_LINE}{tokens[0]}" is not in '
				      'the kernel log: /dev/kmsg not writable, or the run logged more '
				      'than the ring buffer holds (CONFIG_LOG_BUF_SHIFT)')
		after = found or []
	debugfs = {name: raw for name, raw in sections.get('after-boot-kunit', [])}
	cases = []
	for suite in config.suites:
		problems = list(common)
		if not problems:
			problems = _fresh_problems(suite, results.kmsg_results(suite, after),
						   debugfs.get(suite))
		cases.append(Case(f'{what}: KUnit suite {suite} ran afresh after boot (its results '
				  'follow the token line in the kernel log)', not problems,
				  '\n'.join(problems)))
	return cases


def _fresh_problems(suite: str, logged: Run, raw: Optional[List[str]]) -> List[str]:
	started, ended = logged[0], logged[1]
	if not started and not ended:
		return ['it printed nothing to the kernel log after the token line: the '
			'after-boot run did not run it (a no-op run? no debugfs "run" file?), '
			'so its debugfs results are stale, from the boot-time run']
	problems = [f'in the kernel log: {p}' for p in run_problems(logged)]
	if raw is None:
		return problems + ['its debugfs results were not sent']
	dumped = results.kunit_results(suite, raw)[3]
	if dumped != logged[3]:
		problems.append('its debugfs results are not the run the kernel logged after the '
				'token line (stale results file?):\n  debugfs: ' + ' | '.join(dumped)
				+ '\n  kernel log: ' + ' | '.join(logged[3]))
	return problems


def _shown(path: Path) -> Path:
	"""@path relative to the repository, where it is in it."""
	try:
		return path.relative_to(settings.REPO)
	except ValueError:
		return path


def e2e_names() -> List[str]:
	"""The end-to-end scripts, by file stem, as the guest runs them."""
	return sorted(path.stem for path in settings.E2E_DIR.glob('*.sh'))


def _suite_problems(config: settings.KernelConfig, name: str, suite: str,
		    lines: List[str]) -> List[str]:
	cases = results.leaves(results.e2e_suite_lines(lines))
	skipped = [c for c in cases if c.skip is not None]
	if not cases:
		return [f'suite {suite} reported zero cases']
	if name in config.e2e and len(skipped) == len(cases):
		return [f'suite {suite}: every case skipped ({_reasons(skipped)}); if '
			f'{config.name} cannot run it, declare it in e2e_skipped=']
	if name in config.e2e_skipped and len(skipped) < len(cases):
		return [f'suite {suite} ran {len(cases) - len(skipped)} cases, yet '
			f'{config.name} declares it in e2e_skipped=: move it to e2e=']
	return []


def script_problems(config: settings.KernelConfig, name: str, on_disk: Sequence[str],
		    ran: List[Script]) -> List[str]:
	"""What is wrong with end-to-end script @name in one boot."""
	where = f"settings.MATRIX['{config.name}']"
	path = _shown(settings.E2E_DIR / f'{name}.sh')
	declared = (name in config.e2e) + (name in config.e2e_skipped)
	problems = []
	if not declared:
		problems.append(f'{path} is not declared for {config.name}: add it to e2e= (it '
				f'must run) or e2e_skipped= (it must skip) of {where}')
	elif declared > 1:
		problems.append(f'{where} declares it in both e2e= and e2e_skipped=')
	if name not in on_disk:
		problems.append(f'{where} expects it, but {path} does not exist (deleted or '
				'renamed?)')
	if not ran:
		return problems + ['the guest never started it' +
				   (' (the guest stopped before it? see the console)'
				    if name in on_disk else '')]
	if len(ran) > 1:
		problems.append(f'it ran {len(ran)} times')
	script = ran[-1]
	if script.status is None:
		problems.append('it started but never returned: it crashed half-way, or the '
				'guest died (see the console)')
	elif script.status:
		problems.append(f'it returned {script.status}: a script ends with its last case '
				'(status 0); anything else is an exit or a signal half-way')
	if not script.suites:
		problems.append('it emitted no "suite NAME" line')
	if script.stray:
		problems.append(f'{script.stray} results before its first "suite NAME" line')
	for suite, lines in script.suites:
		problems += _suite_problems(config, name, suite, lines)
	return problems


def guest_scripts(config: settings.KernelConfig, phases: Sequence[str]) -> Tuple[str, ...]:
	"""The end-to-end scripts of a boot of @config that runs @phases: those
	its settings.E2E_SOME entry names; for a plain 'e2e', every script of
	guest/tests and of the config's e2e=/e2e_skipped= but those that an
	E2E_SOME entry of another boot names; none without the e2e phase."""
	for entry in phases:
		if entry.startswith(settings.E2E_SOME):
			return named_scripts(entry)
		if entry == 'e2e':
			elsewhere = {name for boot in config.guests for other in boot
				     for name in named_scripts(other)}
			return tuple(name for name in every_script(config) if name not in elsewhere)
	return ()


def named_scripts(entry: str) -> Tuple[str, ...]:
	"""The scripts that a settings.E2E_SOME entry of a boot names; none for
	any other entry."""
	if not entry.startswith(settings.E2E_SOME):
		return ()
	return tuple(entry[len(settings.E2E_SOME):].split(','))


def every_script(config: settings.KernelConfig) -> Tuple[str, ...]:
	"""The end-to-end scripts that the boots of @config run between them:
	those of guest/tests and of its e2e=/e2e_skipped=, in the guest's order."""
	return tuple(sorted(set(e2e_names()) | set(config.e2e) | set(config.e2e_skipped)))


def script_cases(what: str, config: settings.KernelConfig, text: str,
		 scripts: Sequence[str]) -> List[Case]:
	"""Every script of @scripts, this boot's (guest_scripts()): declared,
	present, run to its end, and reporting cases (at least one not skipped
	for e2e=, only skips for e2e_skipped=); none other ran in this boot."""
	on_disk = e2e_names()
	ran = results.channel_scripts(text)
	names = sorted(set(scripts) | {s.name for s in ran})
	cases = []
	for name in names:
		problems = script_problems(config, name, on_disk, [s for s in ran if s.name == name])
		if name not in scripts:
			problems.insert(0, f'this boot ran it, yet it runs only {", ".join(scripts)}')
		cases.append(Case(f'{what}: e2e script {name} ran to its end and reported',
				  not problems, '\n'.join(problems)))
	return cases


def kmemleak_cases(what: str, scripts: Sequence[str], sections: Sections) -> List[Case]:
	"""A boot of a kmemleak kernel scans at its end: 90-kmemleak.sh ends
	the e2e phase (only lockdown follows, which closes debugfs); a boot
	whose @scripts do not have it scans in test.sh's kmemleak section,
	after its phases."""
	section = 'e2e' if KMEMLEAK_SCRIPT in scripts else 'kmemleak'
	scans = [lines for name, lines in sections.get(section, []) if name == 'kmemleak']
	ran = [c for lines in scans for c in results.leaves(results.e2e_suite_lines(lines))
	       if c.skip is None]
	order = [name for name in sections if name != 'end']
	problems = []
	if not ran:
		problems.append(f'no kmemleak scan ran in section {section} (suite kmemleak): '
				+ ('guest/tests/90-kmemleak.sh' if section == 'e2e' else 'guest/test.sh'))
	if order and order[-1] != section:
		problems.append(f'the last section of the boot is {order[-1]}, not {section}: '
				'the scan did not come after every phase')
	return [Case(f'{what}: kmemleak scanned at the end of the boot', not problems,
		     '\n'.join(problems))]


def ftracetest_cases(what: str, sections: Sections) -> List[Case]:
	"""Upstream's ftrace selftests ran to their end (as many results as
	their plan, exit status sent), and skipped exactly the cases of
	settings.FTRACETEST_SKIPS: a case that skips for another reason
	hides what it would test, one of the list that runs has its reason
	gone (take it off the list). Their failures count as failed cases."""
	suites = dict(sections.get(settings.FTRACETEST_PHASE, []))
	lines = suites.get('ftracetest')
	if lines is None:
		return [Case(f'{what}: ftracetest ran', False,
			     'no suite ftracetest in section ftracetest: see the console')]
	plan = [line.split('..')[1] for line in lines if line.startswith('# ftracetest: 1..')]
	status = [line.split()[-1] for line in lines
		  if line.startswith('# ftracetest: ftracetest exit status ')]
	cases = results.leaves(results.e2e_suite_lines(lines))
	problems = []
	if len(plan) != 1 or not plan[0].isdigit():
		problems.append(f'{len(plan)} plan lines, not one: ftracetest did not start')
	elif int(plan[0]) != len(cases):
		problems.append(f'{len(cases)} results for a plan of {plan[0]}: it stopped '
				'half-way (see the console)')
	if len(status) != 1:
		problems.append('no exit status: it never returned (see the console)')
	ran = [Case(f'{what}: ftracetest ran to its end', not problems, '\n'.join(problems))]
	skipped = {c.name for c in cases if c.skip is not None}
	declared = set(settings.FTRACETEST_SKIPS)
	unexpected = sorted(skipped - declared)
	# make test runs some of the cases (settings.FTRACETEST_CASES)
	stale = sorted((declared & {c.name for c in cases}) - skipped)
	why = []
	if unexpected:
		why.append('skipped, without a reason in settings.FTRACETEST_SKIPS: '
			   + '; '.join(unexpected))
	if stale:
		why.append('in settings.FTRACETEST_SKIPS, yet not skipped (take them off): '
			   + '; '.join(stale))
	return ran + [Case(f'{what}: ftracetest skipped the cases README names, and only '
			   'those', not why, '\n'.join(why))]


def phase_cases(config: settings.KernelConfig) -> List[Case]:
	"""Every phase of guest/test.sh runs in some boot of the config."""
	ran = {settings.phase_name(phase) for phases in config.guests for phase in phases}
	missing = [phase for phase in settings.GUEST_PHASES if phase not in ran]
	where = f"settings.MATRIX['{config.name}'].guests"
	problems = [f"{where} runs no {', '.join(missing)}"] if missing else []
	# Each script in one boot: an E2E_SOME boot's, or the plain e2e one's.
	booted = [name for phases in config.guests for name in guest_scripts(config, phases)]
	twice = sorted({name for name in booted if booted.count(name) > 1})
	nowhere = [name for name in every_script(config) if name not in booted]
	if twice:
		problems.append(f"{where} runs {', '.join(twice)} in more than one boot")
	if nowhere and 'e2e' not in missing:
		problems.append(f"{where} runs {', '.join(nowhere)} in no boot (no boot of a "
				"plain 'e2e' takes what the others leave)")
	return [Case(f'{config.name}: every guest phase runs in some boot', not problems,
		     '\n'.join(problems))]


def skipped(config: settings.KernelConfig, sections: Sections) -> List[str]:
	"""One line per skipped case: config, phase, suite, case, reason."""
	out = []
	for phase, suites in sections.items():
		if phase in KUNIT_PHASES:
			bodies = [(name, results.kunit_suite_lines(raw)) for name, raw in suites]
		elif phase in SCRIPT_SECTIONS:
			bodies = [(name, results.e2e_suite_lines(raw)) for name, raw in suites]
		else:
			continue
		for suite, body in bodies:
			for leaf in results.leaves(body):
				if leaf.skip is not None:
					listed = (settings.FTRACETEST_SKIPS.get(leaf.name)
						  if phase == settings.FTRACETEST_PHASE else None)
					reason = leaf.skip or listed or 'no reason given'
					out.append(f'SKIPPED: {config.name} / {phase} / {suite} / '
						   f'{leaf.name}: {reason}')
	return out


def skip_cases(config: settings.KernelConfig, passed: int, skipped_count: int,
		     listed: int) -> List[Case]:
	"""Skips cannot make a config green alone, and each is listed."""
	return [Case(f'{config.name}: some guest case passed (skips alone are no result)',
		     passed > 0, f'{passed} passed, {skipped_count} skipped'),
		Case(f'{config.name}: every skipped case is listed with its reason',
		     listed == skipped_count,
		     f'kunit.py counted {skipped_count} skipped cases, the list has {listed}')]
