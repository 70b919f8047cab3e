/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_MARKER_H
#define _ASM_X86_MARKER_H

/*
 * x86-64 marker sites (see <linux/marker.h> for the bytes in each state)
 * and the calls of their probe blocks. Included by <linux/marker.h> with
 * CONFIG_MARKER_SITES, never directly.
 */

#include <linux/objtool.h>
#include <linux/site_table.h>
#include <linux/stringify.h>
#include <linux/types.h>

struct marker;

/* The length of a recorded call: e8 <rel32>. */
#define MARKER_CALL_LEN		5

/*
 * Tells objtool that the instruction at @label, an expression of local
 * labels, is no indirect branch target, though a table points at it.
 */
#define MARKER_ASM_NOENDBR(label)					\
	ASM_ANNOTATE_LABEL(label, ANNOTYPE_NOENDBR) "\n\t"

/*
 * The whole pattern is one asm goto: its only exits are its end and
 * %l[l_on], so whatever the jump slot is patched to, control only takes
 * edges the compiler knows about. Only "cc" is clobbered. The slot is
 * built as a 2-byte NOP (objtool sees no unreachable code) and rewritten
 * before the site runs (see <linux/marker.h> for the states).
 *
 * The guard is "cmpl $imm8, %esp" (83 fc ib), whose carry only the
 * immediate decides: with 0, %esp is never below it; with 0xff, which the
 * CPU sign-extends to 0xffffffff, it always is, since the kernel's %rsp is
 * at least 8-byte aligned. So "jb" is taken exactly when the immediate is
 * 0xff, and no register is loaded. 0x83 read as a ModRM byte (mod 10, reg
 * 000, r/m 011) takes a 32-bit displacement: with 0f 1f in the slot, the 7
 * bytes of a site whose jb is short are one "nopl disp32(%rbx)", the
 * 0F 1F /0 that the SDM and the APM document as the multi-byte NOP,
 * whatever its immediate and the jb's displacement: a site that is off
 * runs one NOP, as a static branch that is off does.
 *
 * One record, in __marker_sites: the slot, and the length of the whole
 * pattern, which kprobes must leave alone. The immediate is not an
 * immediate value of <linux/immediate.h>: the markers core writes it
 * itself, only in sites that can never be that NOP (see
 * arch/x86/kernel/marker.c). Nothing makes the code an indirect branch
 * target.
 */
static __always_inline bool arch_marker_site(struct marker *marker)
{
	asm goto(ANNOTATE_NOENDBR "\n\t"
		 "1:	.byte 0x66, 0x90\n\t"
		 "	cmpl $0, %%esp\n\t"
		 "	jb %l[l_on]\n\t"
		 "2:\n\t"
		 SITE_ENTRY_ASM("__marker_sites, \"a\"", "1b", "%c0", "2b - 1b",
				__stringify(MARKER_ENTRY_SITE))
		 : : "i" (marker) : "cc" : l_on);
	return false;
l_on:
	return true;
}

/*
 * Records the call that the probe block of a site of @marker has just
 * made, as MARKER_ENTRY_CALL in __marker_sites: the 5 bytes before this
 * point, which must be "call marker_probe_iterate". kernel/marker_switch.c
 * points it at the marker's only probe while that is a fast one, and at the
 * other targets its state machine gives. The call itself
 * is the compiler's, so that it knows the call may reach any function a
 * probe could be; this empty asm, unique to @marker, also keeps the
 * compiler from sharing the call with another site's block. A recorded
 * call that is not what it should be is never rewritten (see
 * arch_marker_switch()). The call is no indirect branch target.
 *
 * The asm clobbers what the call clobbers, so that the compiler sets
 * nothing between the two: a caller-saved register the code after the
 * call needs again (the argument of a loop's next call, say) is set after
 * the asm, which the call then still ends at. Clang 19 set one there
 * without them, and objtool rejects a record inside an instruction.
 */
static __always_inline void arch_marker_record_call(struct marker *marker)
{
	asm volatile("1:\n\t"
		     MARKER_ASM_NOENDBR(1b - MARKER_CALL_LEN)
		     SITE_ENTRY_ASM("__marker_sites, \"a\"", "1b - " __stringify(MARKER_CALL_LEN),
				    "%c0", __stringify(MARKER_CALL_LEN),
				    __stringify(MARKER_ENTRY_CALL))
		     : : "i" (marker)
		     : "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11");
}

#endif /* _ASM_X86_MARKER_H */
