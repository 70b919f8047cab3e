/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_MARKER_H
#define _ASM_X86_MARKER_H

/*
 * x86-64 marker sites (see <linux/marker.h> for the bytes in each state)
 * and the calls of their probe blocks. Included by <linux/marker.h> with
 * CONFIG_MARKER_SITES, never directly.
 */

#include <linux/immediate.h>
#include <linux/objtool.h>
#include <linux/site_table.h>
#include <linux/stringify.h>
#include <linux/types.h>

struct marker;

/* The length of a recorded call: e8 <rel32>. */
#define MARKER_CALL_LEN		5

/*
 * The whole pattern is one asm goto: its only exits are its end and
 * %l[l_on], so whatever the jump slot is patched to, control only takes
 * edges the compiler knows about. "eax" and "cc" are clobbered on both. The
 * slot is built as a 2-byte NOP (objtool sees no unreachable code) and
 * rewritten to "off" before the site runs.
 *
 * Two records: the site in __marker_sites (the slot, and the length of the
 * whole pattern, which kprobes must leave alone), and the mov in __imv, as
 * a site of the immediate value @marker->enabled. Neither makes the code an
 * indirect branch target.
 */
static __always_inline bool arch_marker_site(struct marker *marker)
{
	asm goto(ANNOTATE_NOENDBR
		 "1:	.byte 0x66, 0x90\n\t"
		 ANNOTATE_NOENDBR
		 "2:	movb $0, %%al\n\t"
		 "	testb %%al, %%al\n\t"
		 "	jne %l[l_on]\n\t"
		 "3:\n\t"
		 SITE_ENTRY_ASM("__marker_sites, \"a\"", "1b", "%c0", "3b - 1b",
				__stringify(MARKER_ENTRY_SITE))
		 IMV_SITE_ENTRY("2b", "%c1", "2", "1")
		 : : "i" (marker), "i" (&marker->enabled) : "eax", "cc" : l_on);
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
 */
static __always_inline void arch_marker_record_call(struct marker *marker)
{
	asm volatile("1:\n\t"
		     ".pushsection .discard.noendbr\n\t"
		     ".long 1b - " __stringify(MARKER_CALL_LEN) "\n\t"
		     ".popsection\n\t"
		     SITE_ENTRY_ASM("__marker_sites, \"a\"", "1b - " __stringify(MARKER_CALL_LEN),
				    "%c0", __stringify(MARKER_CALL_LEN),
				    __stringify(MARKER_ENTRY_CALL))
		     : : "i" (marker));
}

#endif /* _ASM_X86_MARKER_H */
