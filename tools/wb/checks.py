# SPDX-License-Identifier: GPL-2.0
"""Checks the host makes itself, each giving test cases: the corpus of
scripts/checkpatch-markers.sh, the documentation as reStructuredText, the
bytes of the sites in the built kernels, what SystemTap makes of a build
tree's Module.markers, what a CONFIG_MARKERS=n kernel must not carry, and
how the host stops a guest that cannot finish or tells one a signal ended."""

import concurrent.futures
import contextlib
import dataclasses
import os
import re
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from . import expect, kbuild, qemu, results, settings
from .kbuild import Build
from .results import Case
from .shell import WorkbenchError

CORPUS = settings.REPO / 'tests/checkpatch-markers'
@dataclass(frozen=True)
class SiteShape:
	"""A patched site as built, on one architecture (include/linux/marker.h)."""
	bytes: re.Pattern		# in checkpatch-markers.sh --binary -v
	objdump_words: Tuple[str, ...]	# the first instructions, as objdump -d prints them
	last_words: Tuple[str, ...]	# how the next one starts: the branch to the block
	text: str			# the instructions, for the case's name


SITE_SHAPES = {
	'x86_64': SiteShape(re.compile(r'66 90 83 fc 00 (72 ..|0f 82 .. .. .. ..)'),
			    ('66 90', '83 fc 00'), ('72', '0f 82'), '66 90 / 83 fc 00 / jb'),
	'arm64': SiteShape(re.compile(r': 1f 20 03 d5( |$)'), ('d503201f',), ('',), 'nop'),
}


def _checkpatch_markers(src: Path, args: Sequence[str], cwd: Path = None,
			stdin: str = None):
	return subprocess.run(['bash', str(src / 'scripts/checkpatch-markers.sh'), *args],
			      cwd=cwd, input=stdin, capture_output=True, text=True)


def _corpus_groups(kind: str) -> Dict[str, List[Path]]:
	"""The corpus files of good/ or bad/, those of a pair grouped."""
	groups: Dict[str, List[Path]] = {}
	for path in sorted((CORPUS / kind).rglob('*')):
		if path.suffix not in ('.c', '.h', '.patch'):
			continue
		rel = path.relative_to(CORPUS)
		key = re.sub(r'\.pair-\d+', '', str(rel))
		groups.setdefault(key, []).append(path)
	return groups


def _expectations(path: Path):
	return [(int(line), text.strip()) for line, text in
		re.findall(r'expect: (\d+): (.*?)(?:\*/)?$', path.read_text(), re.M)]


def _missing(reports: List[str], path: Path, name: str = '') -> List[str]:
	"""The expectations of a bad corpus file that no report matches; with a
	name, the reports must be made under that file name."""
	at = f'^{re.escape(name)}' if name else ''
	return [f'{path.name}:{line}: {text}' for line, text in _expectations(path)
		if not any(re.search(rf'{at}:{line}: .*{re.escape(text)}', r) for r in reports)]


def _unreadable(tmp: Path) -> Path:
	"""A FILE the script cannot read: a file of mode 000, or for root, who
	reads those, a directory."""
	path = tmp / 'unreadable.c'
	if os.geteuid() == 0:
		path.mkdir()
	else:
		path.write_text('')
		path.chmod(0)
	return path


def _argument_cases(src: Path) -> List[Case]:
	"""A FILE that cannot be read fails the run but the others are checked;
	"-" checks standard input, a patch or C source."""
	cases = []
	with tempfile.TemporaryDirectory() as tmp:
		unreadable = _unreadable(Path(tmp))
		bad = CORPUS / 'bad/names.c'
		proc = _checkpatch_markers(src, [str(unreadable), str(bad)])
		missing = _missing(proc.stdout.splitlines(), bad, str(bad))
		cases.append(Case('checkpatch-markers fails on an unreadable file and still '
				  'checks the others', proc.returncode == 1 and not missing and
				  f'checkpatch-markers: cannot read {unreadable}\n' in proc.stderr,
				  f'exit {proc.returncode}; missing: {missing}\n'
				  f'{proc.stdout}{proc.stderr}'))
		absent = Path(tmp) / 'missing.c'
		proc = _checkpatch_markers(src, [str(absent), str(CORPUS / 'good/sites.c')])
		cases.append(Case('checkpatch-markers fails on a missing file',
				  proc.returncode == 1 and not proc.stdout and
				  f'checkpatch-markers: cannot read {absent}\n' in proc.stderr,
				  f'exit {proc.returncode}\n{proc.stdout}{proc.stderr}'))
	for rel in ('bad/formats.c', 'bad/add-bad-site.patch'):
		path = CORPUS / rel
		text = path.read_text()
		m = re.search(r'^\+\+\+ b/(\S+)', text, re.M)
		name = m.group(1) if m else '<stdin>'
		proc = _checkpatch_markers(src, ['-'], stdin=text)
		missing = _missing(proc.stdout.splitlines(), path, name)
		cases.append(Case(f'checkpatch-markers reports every finding of {rel} '
				  'read from standard input', proc.returncode == 1 and not missing,
				  f'exit {proc.returncode}; missing: {missing}\n'
				  f'{proc.stdout}{proc.stderr}'))
	proc = _checkpatch_markers(src, ['-'], stdin=(CORPUS / 'good/add-site.patch').read_text())
	cases.append(Case('checkpatch-markers accepts good/add-site.patch read from standard input',
			  proc.returncode == 0 and not proc.stdout and not proc.stderr,
			  f'exit {proc.returncode}\n{proc.stdout}{proc.stderr}'))
	return cases


def corpus_cases(src: Path) -> List[Case]:
	"""Every good case passes; every finding of every bad case is reported;
	unreadable files and standard input are handled."""
	cases = []
	for key, paths in _corpus_groups('good').items():
		files = [str(p.relative_to(CORPUS)) for p in paths]
		proc = _checkpatch_markers(src, files, cwd=CORPUS)
		cases.append(Case(f'checkpatch-markers accepts {key}',
				  proc.returncode == 0 and not proc.stdout,
				  f'exit {proc.returncode}\n{proc.stdout}{proc.stderr}'))
	for key, paths in _corpus_groups('bad').items():
		files = [str(p.relative_to(CORPUS)) for p in paths]
		proc = _checkpatch_markers(src, files, cwd=CORPUS)
		missing = [m for path in paths for m in _missing(proc.stdout.splitlines(), path)]
		ok = proc.returncode == 1 and not missing and bool(_expectations(paths[-1]))
		cases.append(Case(f'checkpatch-markers reports every finding of {key}', ok,
				  f'exit {proc.returncode}; missing: {missing}\n{proc.stdout}'))
	return cases + _argument_cases(src)


def series_markers_case(src: Path, patches: Sequence[Path]) -> Case:
	proc = _checkpatch_markers(src, [str(p) for p in patches])
	return Case('checkpatch-markers accepts the markers of the series',
		    proc.returncode == 0, proc.stdout + proc.stderr)


# Parses a file as reStructuredText; any docutils message, even an info, fails.
_RST_CHECK = '''
import sys, docutils.core, docutils.utils
try:
	docutils.core.publish_doctree(open(sys.argv[1]).read(), source_path=sys.argv[1],
				      settings_overrides={'report_level': 1, 'halt_level': 1})
except docutils.utils.SystemMessage as e:
	sys.exit(str(e))
'''


def kernel_doc_case(src: Path, files: List[str]) -> Case:
	"""The base's scripts/kernel-doc -Wall has nothing to say of the series'
	new C files and headers: every kernel-doc comment is whole."""
	sources = [f for f in files if f.endswith(('.c', '.h'))]
	proc = subprocess.run([str(src / 'scripts/kernel-doc'), '-Wall', '-none', *sources],
			      cwd=src, capture_output=True, text=True)
	report = (proc.stdout + proc.stderr).strip()
	return Case(f'kernel-doc -Wall on the {len(sources)} new C files and headers: '
		    f'{len(report.splitlines())} warnings', proc.returncode == 0 and not report,
		    report)


def docs_case(src: Path) -> Case:
	"""Documentation/markers.txt is plain text that is valid reStructuredText."""
	doc = src / 'Documentation/markers.txt'
	proc = subprocess.run(['/usr/bin/python3', '-c', _RST_CHECK, str(doc)],
			      capture_output=True, text=True)
	return Case('Documentation/markers.txt is valid reStructuredText',
		    proc.returncode == 0, proc.stdout + proc.stderr)


# The series' entry of MAINTAINERS.
MAINTAINERS_ENTRY = 'KERNEL MARKERS AND IMMEDIATE VALUES'


def maintainers_case(src: Path, new_files: Sequence[str]) -> Case:
	"""The series' entry of MAINTAINERS in the patched tree @src: each of
	its F: lines names a file or directory (ending in '/') that exists,
	and every file the series adds (@new_files) is under one of them, so
	that get_maintainer.pl finds the entry for any of them."""
	name = f'MAINTAINERS: the F: lines of "{MAINTAINERS_ENTRY}" exist and cover every new file'
	text = (src / 'MAINTAINERS').read_text(errors='replace')
	start = text.find(f'\n{MAINTAINERS_ENTRY}\n')
	if start < 0:
		return Case(name, False, 'no such entry')
	entry = text[start + 1:].split('\n\n', 1)[0]
	patterns = re.findall(r'^F:\t(\S+)$', entry, re.M)
	problems = [f'F:\t{p} names nothing in the tree' for p in patterns
		    if not ((src / p).is_dir() if p.endswith('/') else (src / p).is_file())]
	problems += [f'{f} is under no F: line' for f in new_files
		     if not any(f == p or p.endswith('/') and f.startswith(p) for p in patterns)]
	return Case(name, bool(patterns) and not problems,
		    '\n'.join(problems) or f'{len(patterns)} F: lines')


def _modules(build: Build) -> List[Path]:
	return sorted(build.dir.rglob('*.ko'))


# The x86-64 instructions a site may hold in any state or step of a switch,
# each with the entry of Intel's SDM (vol. 2) that documents it for that
# use, and AMD's APM (vol. 3) alike: by their first bytes, a ModRM byte
# where the entry has one.
X86_DOCUMENTED = (
	('66 90', 'NOP, 2 bytes: "66 90H  NOP  2 bytes  66 NOP" (the SDM\'s multi-byte NOP table)'),
	('0f 1f /0', 'NOP r/m32: "NP 0F 1F /0  NOP r/m32" (the multi-byte NOP table\'s forms)'),
	('83 fc ib', 'CMP r/m32, imm8: "83 /7 ib  CMP r/m32, imm8", r/m32 = %esp (ModRM fc)'),
	('72 cb', 'JB rel8: "72 cb  JB rel8"'),
	('0f 82 cd', 'JB rel32: "0F 82 cd  JB rel32"'),
	('eb cb', 'JMP rel8: "EB cb  JMP rel8"'),
	('cc', 'INT3: "CC  INT3" (the int3 patcher\'s breakpoint, which its handler emulates)'),
)


def _modrm_len(modrm: int) -> int:
	"""The bytes a ModRM byte takes with its SIB byte and displacement (32-bit
	addressing); a SIB base of 101 with mod 00 is not handled (no site has it)."""
	mod, rm = modrm >> 6, modrm & 7
	if mod == 3:
		return 1
	sib = 1 if rm == 4 else 0
	disp = {0: 4 if rm == 5 else 0, 1: 1, 2: 4}[mod]
	return 1 + sib + disp


def _x86_insn(code: bytes, at: int) -> Tuple[int, str]:
	"""The length of the documented instruction at @at of @code and its form
	in X86_DOCUMENTED, or (0, why) for any other."""
	rest = code[at:]
	if rest[:2] == b'\x66\x90':
		return 2, '66 90'
	if rest[:2] == b'\x0f\x1f' and len(rest) > 2:
		if (rest[2] >> 3) & 7:
			return 0, f'0f 1f /{(rest[2] >> 3) & 7}: a NOP hint the manuals do not document'
		return 2 + _modrm_len(rest[2]), '0f 1f /0'
	if rest[:2] == b'\x83\xfc' and len(rest) > 2:
		return 3, '83 fc ib'
	if rest[:1] == b'\x72' and len(rest) > 1:
		return 2, '72 cb'
	if rest[:2] == b'\x0f\x82' and len(rest) > 5:
		return 6, '0f 82 cd'
	if rest[:1] == b'\xeb' and len(rest) > 1:
		return 2, 'eb cb'
	if rest[:1] == b'\xcc':
		return 1, 'cc'
	return 0, f'{rest[:3].hex(" ")}: not a documented instruction of a site'


def _x86_run(code: bytes, start: int) -> Tuple[List[int], List[str]]:
	"""Decodes @code from @start to its end: the instruction boundaries it
	passes and the problems. A CPU stops at an INT3 (its handler runs the
	new instruction) or at a jump that leaves the site."""
	at, bounds, problems = start, [], []
	while at < len(code):
		bounds.append(at)
		n, form = _x86_insn(code, at)
		if not n:
			problems.append(f'+{at}: {form}')
			break
		if form in ('cc', 'eb cb') or at + n > len(code):
			if at + n > len(code):
				problems.append(f'+{at}: {form} runs past the site\'s end')
			break
		at += n
	return bounds, problems


def x86_site_states(code: bytes) -> Tuple[str, List[Tuple[str, bytes]], List[Tuple[bytes, bytes]]]:
	"""A site as built (7 or 11 bytes): whether it is near or far, its states
	(name, bytes) and its switches (from, to), as arch/x86/kernel/marker.c
	writes them: a near site its slot (66 90 -> 0f 1f <-> eb rel8), a far one
	its guard's immediate (00 <-> ff)."""
	if code[5] == 0x72:
		site = code[:7]
		rel = int.from_bytes(site[6:7], 'little', signed=True) + 5
		if -128 <= rel <= 127:
			off = b'\x0f\x1f' + site[2:]
			on = b'\xeb' + rel.to_bytes(1, 'little', signed=True) + site[2:]
			return 'near', [('built', site), ('off', off), ('on', on)], \
				[(site, off), (off, on), (on, off)]
	else:
		site = code[:11]
	on = site[:4] + b'\xff' + site[5:]
	return 'far', [('built, off', site), ('on', on)], [(site, on), (on, site)]


def x86_switch_steps(old: bytes, new: bytes) -> List[bytes]:
	"""The bytes a site holds at each step of the int3 patcher rewriting the
	one instruction in which @old and @new differ: INT3 on its first byte,
	then the rest of it, then its first byte."""
	first = next(i for i in range(len(old)) if old[i] != new[i])
	start = 0 if first < 2 else 2		# the slot, or the guard
	end = 2 if start == 0 else 5
	step1 = old[:start] + b'\xcc' + old[start + 1:]
	step2 = step1[:start + 1] + new[start + 1:end] + step1[end:]
	return [step1, step2, new]


def x86_state_problems(code: bytes) -> List[str]:
	"""Every state of the site @code (as built) and every step of each of its
	switches, decoded from every boundary a CPU may be at: those of the
	state before and after, and those of the site as built (a task
	preempted there before the first switch resumes there, whatever the
	site holds by then). Empty when each is a documented instruction
	(X86_DOCUMENTED) that ends at a boundary, at an INT3 or at a jump."""
	kind, states, switches = x86_site_states(code)
	built = set(_x86_run(states[0][1], 0)[0])
	problems = []
	for name, state in states:
		for start in sorted(built | set(_x86_run(state, 0)[0])):
			problems += [f'{kind} {name} ({state.hex(" ")}) from +{start}: {q}'
				     for q in _x86_run(state, start)[1]]
	for old, new in switches:
		starts = sorted(built | set(_x86_run(old, 0)[0]) | set(_x86_run(new, 0)[0]))
		for step in x86_switch_steps(old, new):
			for start in starts:
				problems += [f'{kind} {old.hex(" ")} -> {new.hex(" ")}, step '
					     f'{step.hex(" ")} from +{start}: {q}'
					     for q in _x86_run(step, start)[1]]
	return problems


def site_cases(build: Build, outdir: Path) -> List[Case]:
	"""Every site of vmlinux and of the modules holds the documented bytes."""
	files = [build.dir / 'vmlinux', *_modules(build)]
	proc = _checkpatch_markers(build.tree.src, ['--binary', '-v', *map(str, files)])
	listing = outdir / 'marker-sites.txt'
	listing.write_text(proc.stderr)
	shape = SITE_SHAPES[build.config.arch.name]
	sites = [l for l in proc.stderr.splitlines() if shape.bytes.search(l)]
	cases = [Case(f'{build.config.name}: all {len(sites)} marker sites, kernel and modules, '
		      'hold the documented bytes as built', proc.returncode == 0 and len(sites) > 0,
		      proc.stdout + proc.stderr[-2000:])]
	if build.config.arch.name == 'x86_64':
		kinds, problems = Counter(), []
		for line in sites:
			code = bytes.fromhex(line.rsplit(': ', 1)[1].replace(' ', ''))
			kinds[x86_site_states(code)[0]] += 1
			problems += [f'{line.split(": ")[1]}: {p}' for p in x86_state_problems(code)]
		cases.append(Case(f'{build.config.name}: every state and switch step of the '
				  f'{kinds["near"]} near and {kinds["far"]} far sites decodes as '
				  'documented instructions from every boundary a CPU may be at',
				  bool(sites) and not problems, '\n'.join(problems[:20]) or
				  '\n'.join(f'{form}: {doc}' for form, doc in X86_DOCUMENTED)))

	# objdump of one disabled site of the kernel, as the documentation shows it.
	m = re.search(r'vmlinux: \.text\+0x([0-9a-f]+):', proc.stderr)
	if m:
		text = subprocess.run(['readelf', '-SW', str(files[0])], capture_output=True,
				      text=True).stdout
		base = int(re.search(r'\] \.text\s+PROGBITS\s+([0-9a-f]+)', text).group(1), 16)
		start = base + int(m.group(1), 16)
		objdump = build.config.arch.cross_compile + 'objdump'
		dump = subprocess.run([objdump, '-d', f'--start-address={start:#x}',
				       f'--stop-address={start + 12:#x}', str(files[0])],
				      capture_output=True, text=True).stdout
		(outdir / 'marker-site-objdump.txt').write_text(dump)
		insns = re.findall(r'^\s*[0-9a-f]+:\t([0-9a-f ]+?)\s*\t', dump, re.M)
		first = len(shape.objdump_words)
		cases.append(Case(f'{build.config.name}: objdump -d of a disabled site shows '
				  f'{shape.text}', tuple(insns[:first]) == shape.objdump_words and
				  insns[first:first + 1] != [] and
				  insns[first].startswith(shape.last_words), dump))
	return cases


def _module_markers(build: Build) -> List[Tuple[str, str, str]]:
	"""The lines of the build tree's Module.markers: (name, module, format)."""
	path = build.dir / 'Module.markers'
	if not path.is_file():
		return []
	return [tuple(line.split('\t', 2)) for line in path.read_text().splitlines()]


# A probe of one marker of each kind with every type SystemTap gives $argN:
# stap -p3 must register it with the marker's format and fetch each
# argument with va_arg() of its conversion's type.
STAP_PROBES = (
	('marker_test_args', 'i %d l %ld u %llu s %s p %p c %c',
	 ('int', 'long', 'long long', 'char *', 'long', 'int')),
	('sample_loaded', 'module %s', ('char *',)),
)


def systemtap_cases(build: Build, outdir: Path) -> List[Case]:
	"""Module.markers and SystemTap's kernel.mark() probes against the build
	tree: a build of the image alone leaves the file as the whole build
	wrote it, stap -L lists every marker of Module.markers with its format,
	those of vmlinux and of a module among them, and stap -p3 translates
	probes that use their arguments (pass 4 would build SystemTap's
	runtime, which does not build against 6.12)."""
	name = build.config.name
	path = build.dir / 'Module.markers'
	whole = path.read_bytes() if path.is_file() else b''
	try:
		kbuild.image_alone(build)
		error = ''
	except WorkbenchError as e:
		error = str(e)
	after = path.read_bytes() if path.is_file() else b''
	# vmlinux.symvers, removed by image_alone(), comes back only if modpost ran.
	cases = [Case(f'{name}: make {build.image.name} alone runs modpost on vmlinux and '
		      'leaves Module.markers as the whole build wrote it',
		      not error and (build.dir / 'vmlinux.symvers').is_file() and
		      whole != b'' and after == whole,
		      error or f'{len(whole)} bytes before, {len(after)} after:\n' +
		      after.decode(errors='replace')[:2000])]

	lines = _module_markers(build)
	modules = {module for _, module, _ in lines}
	cases.append(Case(f'{name}: Module.markers lists the markers of vmlinux and of '
			  'samples/markers/marker-example, once each',
			  {'vmlinux', 'samples/markers/marker-example'} <= modules and
			  len(set(lines)) == len(lines), '\n'.join(map('\t'.join, lines[:40]))))

	proc = subprocess.run([settings.STAP, '-L', 'kernel.mark("*")', '-r', str(build.dir)],
			      capture_output=True, text=True, cwd=outdir)
	(outdir / 'stap-L.txt').write_text(proc.stdout + proc.stderr)
	listed = set(re.findall(r'^kernel\.mark\("(\w+)"\)\.format\("(.*)"\) \$name:string',
				proc.stdout, re.M))
	want = {(marker, fmt) for marker, _, fmt in lines}
	cases.append(Case(f'{name}: stap -L \'kernel.mark("*")\' -r <build> lists the '
			  f'{len(want)} markers of Module.markers with their formats',
			  proc.returncode == 0 and want and listed == want,
			  f'rc {proc.returncode}; missing {sorted(want - listed)[:10]}; '
			  f'extra {sorted(listed - want)[:10]}\n{proc.stderr[-1000:]}'))

	script = ' '.join('probe kernel.mark("%s") { printf("%s\\n", %s) }' %
			  (marker, ' '.join(['%d' if t != 'char *' else '%s' for t in types]),
			   ', '.join(f'$arg{i + 1}' for i in range(len(types))))
			  for marker, _, types in STAP_PROBES)
	proc = subprocess.run([settings.STAP, '-p3', '-r', str(build.dir), '-e', script],
			      capture_output=True, text=True, cwd=outdir)
	(outdir / 'stap-p3.c').write_text(proc.stdout)
	fetched = re.findall(r'va_arg\(\*c->ips\.kmark\.mark_va_list, ([\w *]+?)\)',
			     proc.stdout)
	registered = set(re.findall(r'\{ \.name="(\w+)", \.format="(.*?)",', proc.stdout))
	want_fetched = [t for _, _, types in STAP_PROBES for t in types]
	want_registered = {(marker, fmt) for marker, fmt, _ in STAP_PROBES}
	cases.append(Case(f'{name}: stap -p3 translates kernel.mark() probes of vmlinux and a '
			  'module: marker_probe_register() with their formats, $argN fetched '
			  'as int, long, long long, char *',
			  proc.returncode == 0 and 'marker_probe_register(' in proc.stdout and
			  registered == want_registered and fetched == want_fetched,
			  f'rc {proc.returncode}; registered {sorted(registered)}; fetched '
			  f'{fetched}\n{script}\n{proc.stderr[-1500:]}'))
	return cases


def nomarkers_cases(build: Build) -> List[Case]:
	"""With CONFIG_MARKERS=n: no marker data or code, in the kernel or the samples."""
	vmlinux = build.dir / 'vmlinux'
	syms = subprocess.run(['nm', str(vmlinux)], capture_output=True, text=True).stdout
	bounds = dict((name, addr) for addr, _, name in
		      (l.split() for l in syms.splitlines() if len(l.split()) == 3)
		      if name in ('__start___marker_sites', '__stop___marker_sites'))
	leftovers = [l for l in syms.splitlines()
		     if re.search(r'\b(__mstrtab_|__marker_|marker_probe_iterate|imv_init)', l)]
	cases = [Case('nomarkers: vmlinux has an empty site table and no marker symbol',
		      bounds.get('__start___marker_sites') == bounds.get('__stop___marker_sites')
		      and not leftovers, f'{bounds}\n' + '\n'.join(leftovers[:20]))]
	samples = sorted((build.dir / 'samples/markers').glob('*.ko'))
	cases.append(Case('nomarkers: the samples build', len(samples) == 2,
			  ' '.join(map(str, samples))))
	for ko in samples:
		sections = subprocess.run(['readelf', '-SW', str(ko)], capture_output=True,
					  text=True).stdout
		undefined = subprocess.run(['nm', '-u', str(ko)], capture_output=True,
					   text=True).stdout
		found = re.findall(r'__markers\w*|__marker_sites|__imv\b', sections)
		found += re.findall(r'marker_probe_iterate', undefined)
		cases.append(Case(f'nomarkers: {ko.name} has no marker section and calls nothing',
				  not found, ' '.join(found)))
	return cases


def _stand_in_boot(script: str, hung_after_splat: Optional[float] = None) -> qemu.GuestRun:
	"""Boots a stand-in for x86-64's QEMU, the shell @script, as a guest
	of at most 20 s: what qemu.boot() makes of what it prints and how it
	ends. Its wait for a guest slot goes unsaid: guest_slot_case() makes
	it wait on purpose."""
	with tempfile.TemporaryDirectory() as tmp:
		prefix = Path(tmp)
		fake = qemu.binary(prefix, settings.X86_64)
		fake.parent.mkdir(parents=True)
		fake.write_text('#!/bin/sh\n' + script)
		fake.chmod(0o755)
		return qemu.boot(prefix, prefix / 'bzImage', prefix / 'initrd', (), 1, 20,
				 prefix / 'console.log', prefix / 'results.txt',
				 arch=settings.X86_64, hung_after_splat=hung_after_splat,
				 quiet_wait=True)


def stalled_guest_case() -> Case:
	"""Whether the host stops a guest as soon as its console says that an
	interrupt line was disabled (qemu.STALLING_LINES), with that line as
	the reason, instead of waiting for its timeout: a stand-in for QEMU
	prints what a guest printed when its results channel went silent,
	then sleeps past the timeout."""
	name = 'the host stops a guest whose interrupt line was disabled, and says why'
	guest = _stand_in_boot('echo "[  301.2] irq 3: nobody cared (try booting with the '
			       '\\"irqpoll\\" option)"\n'
			       'echo "[  301.3] Disabling IRQ #3"\n'
			       'exec sleep 30\n')
	ok = (guest.status == qemu.GuestStatus.STALLED and guest.seconds < 10 and
	      guest.stalled_by.endswith('Disabling IRQ #3'))
	return Case(name, ok, f'status {guest.status.value} after {guest.seconds:.1f} s, '
		    f'stalled by {guest.stalled_by!r}')


def signalled_guest_case() -> Case:
	"""Whether a guest whose QEMU a signal ended (a ^C, a kill of the run's
	process group) is told apart from one that powered off: QEMU then
	prints which signal and exits 0. A stand-in does the same on a SIGTERM
	it sends itself, after the start of a results channel."""
	name = 'a guest ended by a signal to QEMU is not one that powered off, and says why'
	guest = _stand_in_boot('trap \'echo "qemu-system-x86_64: terminating on signal 15 '
			       'from pid $$ (sh)" >&2; exit 0\' TERM\n'
			       'echo "[   24.0] KTAP version 1"\n'
			       'kill -TERM $$\n'
			       'exec sleep 30\n')
	ok = (guest.status == qemu.GuestStatus.SIGNALLED and guest.seconds < 10 and
	      'terminating on signal 15' in guest.stalled_by)
	return Case(name, ok, f'status {guest.status.value} after {guest.seconds:.1f} s, '
		    f'ended by {guest.stalled_by!r}')


def hung_guest_case() -> Case:
	"""Whether the host stops a guest that went silent after a splat when
	asked to (`make mutate`), as hung, and only then: a stand-in for QEMU
	that prints a line every second outlives the same limit, and one that
	warns and then says nothing is stopped within a few seconds."""
	name = 'a guest silent after a splat is stopped as hung, a talking one is not'
	talking = _stand_in_boot('for i in 1 2 3 4; do echo "[  $i.0] WARNING: at x"; '
				 'sleep 1; done\n', hung_after_splat=2)
	hung = _stand_in_boot('echo "[    4.5] WARNING: CPU: 0 PID: 1 at text_poke"\n'
			      'exec sleep 30\n', hung_after_splat=2)
	ok = (talking.status == qemu.GuestStatus.POWERED_OFF and
	      hung.status == qemu.GuestStatus.HUNG and hung.seconds < 10 and not hung.stalled_by)
	return Case(name, ok, f'talking: {talking.status.value}; silent: {hung.status.value} '
		    f'after {hung.seconds:.1f} s')


def guest_slot_case() -> Case:
	"""Whether a guest waits while every guest slot of the host is taken
	(qemu.guest_slot(): by another run of the workbench, here by this
	thread for 3 s), and counts its seconds from when it has one: a
	stand-in for QEMU that powers off at once."""
	name = "a guest waits while the host's guest slots are taken, its time counted from its slot"
	with contextlib.ExitStack() as held:
		held.enter_context(qemu.every_guest_slot(name))
		start = time.monotonic()
		with concurrent.futures.ThreadPoolExecutor(1) as pool:
			future = pool.submit(_stand_in_boot, 'exit 0\n')
			time.sleep(3)
			early = future.done()
			held.close()
			guest = future.result()
	waited = time.monotonic() - start
	ok = (not early and guest.status == qemu.GuestStatus.POWERED_OFF and waited >= 3 and
	      guest.seconds < 2)
	return Case(name, ok, f'{"ended" if early else "waiting"} while the slots were held; '
		    f'{guest.status.value} after {guest.seconds:.1f} s of its own, '
		    f'{waited:.1f} s in all')


# A console where a case fails, a guest crashes, then a case fails after
# the crash; its first splat, if @crash_first, comes before any case.
_CRASHED_CONSOLE = (
	'[   20.1] KTAP version 1',
	'[   20.1]     # Subtest: markers',
	'[   20.2]     ok 1 marker_a',
	'[   20.3]         # Subtest: marker_b',
	'[   20.3]         ok 1 one',
	'[   20.4]     # marker_b: EXPECTATION FAILED at kernel/tests/marker_kunit.c:7',
	'[   20.4]         not ok 2 two',
	'[   20.5]     not ok 2 marker_b',
	'[   20.6]     # marker_d: EXPECTATION FAILED at kernel/tests/marker_kunit.c:8',
	'[   20.6]     not ok 3 marker_d',
	'[   21.0] BUG: unable to handle page fault for address: 0000000000000010',
	'[   21.1]     # marker_c: EXPECTATION FAILED at kernel/tests/marker_kunit.c:9',
	'[   21.1]     not ok 4 marker_c',
)


def crashed_console_case() -> Case:
	"""Whether the cases a mutated guest failed before it crashed are named
	from its console (the crash kept the phase's results from the host),
	in order, each with KUnit's message, and only those that failed before
	the crash."""
	name = 'the cases that failed before their guest crashed are named from the console'
	want = [('markers.marker_b.two',
		 'marker_b: EXPECTATION FAILED at kernel/tests/marker_kunit.c:7'),
		('markers.marker_b', ''),
		('markers.marker_d',
		 'marker_d: EXPECTATION FAILED at kernel/tests/marker_kunit.c:8')]
	lines = list(_CRASHED_CONSOLE)
	crash = next(i for i, line in enumerate(lines) if 'BUG:' in line)
	crash_first = [lines[crash]] + lines[:crash] + lines[crash + 1:]
	with tempfile.TemporaryDirectory() as tmp:
		console = Path(tmp) / 'console.log'
		console.write_text('\n'.join(lines) + '\n')
		got = results.console_failed_cases(console)
		console.write_text('\n'.join(crash_first) + '\n')
		got_first = results.console_failed_cases(console)
	return Case(name, got == want and got_first == [],
		    f'named {got!r}, expected {want!r}; with the crash first, {got_first!r}')


def split_scripts_case() -> Case:
	"""Whether a config whose boots split the end-to-end scripts
	(settings.E2E_SOME) has each script checked in the boot that runs it,
	and only there: a script that ran in the other boot fails, and
	so does a split that runs a script twice or leaves one to no boot."""
	name = 'a config that splits its scripts over two boots has each checked where it runs'
	every = expect.e2e_names()
	late = every[0]
	config = dataclasses.replace(settings.MATRIX['debug'], e2e=tuple(every), e2e_skipped=(),
				     guests=(('boot-kunit', 'e2e'),
					     ('after-boot-kunit', settings.E2E_SOME + late)))
	first, second = (expect.guest_scripts(config, boot) for boot in config.guests)
	ran_late = f'@@ script {late}\n@@ suite s\nok a case\n@@ script-end {late} 0\n'
	wrong = [c for c in expect.script_cases('g1', config, ran_late, first) if not c.ok]
	right = [c for c in expect.script_cases('g2', config, ran_late, second) if not c.ok]
	twice = dataclasses.replace(config, guests=(('boot-kunit', 'e2e:' + late),
						    ('after-boot-kunit', 'e2e:' + late)))
	split_ok = expect.phase_cases(config)[0].ok
	twice_ok = expect.phase_cases(twice)[0].ok
	ok = (second == (late,) and set(first) == set(every) - {late} and
	      f'g1: e2e script {late} ran to its end and reported' in [c.name for c in wrong] and
	      not right and split_ok and not twice_ok)
	return Case(name, ok, f'boots run {len(first)} and {second}; the script run in the '
		    f'first boot: {len(wrong)} failures there, {len(right)} in its own; the split '
		    f'{"passes" if split_ok else "fails"}, one that runs it twice '
		    f'{"passes" if twice_ok else "fails"}')


def site_states_case() -> Case:
	"""x86_state_problems() passes the documented sites and flags the two
	undocumented forms issue 61 names: v4's first near site off (0f 1f b4:
	a 0F 1F /6) and a near site off whose guard would be written (0f 1f in
	front of an INT3 on the guard: 0F 1F /1)."""
	near = bytes.fromhex('6690 83fc00 7210')
	far = bytes.fromhex('6690 83fc00 0f8200010000')
	off = bytes.fromhex('0f1f 83fc00 7210')
	problems = []
	for code in (near, far):
		problems += [f'{code.hex(" ")}: {p}' for p in x86_state_problems(code)]
	flagged = {
		'0f 1f b4 00 84 e4 75 10 from +0': _x86_run(bytes.fromhex('0f1fb400 84e4 7510'), 0)[1],
		'0f 1f 83 fc 00 ... -> ff, first step from +0':
			_x86_run(x86_switch_steps(off, off[:4] + b'\xff' + off[5:])[0], 0)[1],
	}
	problems += [f'{name}: not flagged' for name, found in flagged.items() if not found]
	return Case('the states check passes a near and a far site and flags 0F 1F /6 and /1',
		    not problems, '\n'.join(problems) or
		    '\n'.join(f'{name}: {found}' for name, found in flagged.items()))


def harness_cases() -> List[Case]:
	"""How the host judges guests that did not finish on their own, and
	where it checks what they report."""
	return [stalled_guest_case(), signalled_guest_case(), hung_guest_case(),
		guest_slot_case(), crashed_console_case(), split_scripts_case(),
		site_states_case()]
