# SPDX-License-Identifier: GPL-2.0
"""What x86's ORC unwinder of a built kernel says of one upstream window.

6.12's return_to_handler (arch/x86/kernel/ftrace_64.S) goes back to the
traced function's caller with `call .Ldo_rop`, then `mov %rdi,(%rsp)`
and `ret`: the call pushes the address of the int3 after it, and the mov
overwrites it with the real return address. objtool gives the call the
state after `addq $(FRAME_SIZE) + 8, %rsp`, where its UNWIND_HINT_FUNC
has been undone: the CFA is %rsp + 0. An unwind that starts while the CPU
sits on .Ldo_rop's mov (an interrupt taken there: KASAN or lockdep saving
a stack in its handler, a perf sample) reads the int3's address as a return
address, looks its ORC entry up, finds the previous stack pointer equal
to the current one and prints, once per boot:

    WARNING: stack going in the wrong direction? at return_to_handler+0x46/0x50

The window is one instruction wide; under TCG, which takes interrupts at
the start of a translation block, and .Ldo_rop starts one, it is hit in
the long runs of function_graph cases. None of it is the series': the
file, its hints and the unwinder are upstream's, and the same entry is in a
kernel built without markers. The line is told apart from any other only
when the build's own ORC table holds that entry, so a stable update that
fixes the hints (or moves the window) makes the line a failure again.
"""

import bisect
import re
import struct
import subprocess
from pathlib import Path
from typing import Optional

# arch/x86/include/asm/orc_types.h
ORC_REG_SP = 5
ORC_TYPE_CALL = 2
ORC_ENTRY = struct.Struct('<hhH')	# sp_offset, bp_offset, sp_reg:4 bp_reg:4 type:3 signal:1


def _section(vmlinux: Path, name: str):
	"""(address, bytes) of section @name of @vmlinux."""
	text = subprocess.run(['readelf', '-SW', str(vmlinux)], capture_output=True,
			      text=True, check=True).stdout
	m = re.search(r'\] ' + re.escape(name) + r'\s+\S+\s+([0-9a-f]+) ([0-9a-f]+) ([0-9a-f]+)',
		      text)
	if not m:
		return None
	addr, offset, size = (int(g, 16) for g in m.groups())
	with open(vmlinux, 'rb') as f:
		f.seek(offset)
		return addr, f.read(size)


def _entry(vmlinux: Path, ip: int):
	"""The ORC entry that covers @ip, as (sp_reg, sp_offset, type), or None."""
	ips = _section(vmlinux, '.orc_unwind_ip')
	entries = _section(vmlinux, '.orc_unwind')
	if not ips or not entries:
		return None
	base, raw = ips
	count = len(raw) // 4
	# Each slot holds its ip relative to itself; sorttable sorted them.
	table = [base + 4 * i + rel for i, (rel,) in enumerate(struct.iter_unpack('<i', raw))]
	i = bisect.bisect_right(table, ip) - 1
	if i < 0 or i >= count:
		return None
	sp_offset, _, bits = ORC_ENTRY.unpack_from(entries[1], ORC_ENTRY.size * i)
	return bits & 0xf, sp_offset, (bits >> 8) & 0x7


def return_to_handler_line(vmlinux: Path) -> Optional[re.Pattern]:
	"""The console line of the window above, for this build of x86_64, or
	None when its ORC table does not have it."""
	syms = subprocess.run(['nm', str(vmlinux)], capture_output=True, text=True).stdout
	m = re.search(r'^([0-9a-f]+) [Tt] return_to_handler$', syms, re.M)
	if not m:
		return None
	start = int(m.group(1), 16)
	dump = subprocess.run(['objdump', '-d', f'--start-address={start:#x}',
			       f'--stop-address={start + 0x100:#x}', str(vmlinux)],
			      capture_output=True, text=True).stdout
	# The call whose target is inside return_to_handler itself: .Ldo_rop.
	calls = re.findall(r'^\s*([0-9a-f]+):\t((?:[0-9a-f]{2} )+)\s*\tcall\s+([0-9a-f]+) '
			   r'<return_to_handler\+', dump, re.M)
	if len(calls) != 1:
		return None
	at, code, _ = calls[0]
	ret = int(at, 16) + len(code.split())
	if _entry(vmlinux, ret - 1) != (ORC_REG_SP, 0, ORC_TYPE_CALL):
		return None
	return re.compile(r'WARNING: stack going in the wrong direction\? at '
			  rf'return_to_handler\+{ret - start:#x}/0x[0-9a-f]+$')
