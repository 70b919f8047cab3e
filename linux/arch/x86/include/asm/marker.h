/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_MARKER_H
#define _ASM_X86_MARKER_H

/*
 * x86-64 marker sites (see <linux/marker.h> for the bytes in each state).
 * Included by <linux/marker.h> with CONFIG_IMMEDIATE, never directly.
 */

#include <linux/objtool.h>
#include <linux/types.h>

struct marker;

/*
 * The whole pattern is one asm goto: its only exits are its end and
 * %l[l_on], so whatever the jump slot is patched to, control only takes
 * edges the compiler knows about. "eax" and "cc" are clobbered on both. The
 * slot is built as a 2-byte NOP (objtool sees no unreachable code) and
 * rewritten to "off" before the site runs; the table entry points at it,
 * which is no indirect branch target.
 */
static __always_inline bool arch_marker_site(struct marker *marker)
{
	asm goto(ANNOTATE_NOENDBR
		 "1:	.byte 0x66, 0x90\n\t"
		 "	movb $0, %%al\n\t"
		 "	testb %%al, %%al\n\t"
		 "	jne %l[l_on]\n\t"
		 ".pushsection __marker_sites, \"a\"\n\t"
		 ".balign 4\n\t"
		 ".long 1b - ., %c0 - .\n\t"
		 ".popsection"
		 : : "i" (marker) : "eax", "cc" : l_on);
	return false;
l_on:
	return true;
}

#endif /* _ASM_X86_MARKER_H */
