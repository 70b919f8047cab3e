/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_ARM64_MARKER_H
#define _ASM_ARM64_MARKER_H

/*
 * arm64 marker sites (see <linux/marker.h> for the instructions in each
 * state) and the calls of their probe blocks. Included by <linux/marker.h>
 * with CONFIG_MARKER_SITES, never directly.
 *
 * Only the jump slot and the recorded call are ever rewritten, and only
 * from one branch instruction (B, BL or NOP) to another: the architecture
 * allows those to change while other CPUs execute them, so no breakpoint
 * and no stop_machine() is needed (as for arm64 jump labels).
 */

#include <linux/site_table.h>
#include <linux/stringify.h>
#include <linux/types.h>

#include <asm/insn-def.h>

struct marker;

/* The length of a recorded call: one BL. */
#define MARKER_CALL_LEN		AARCH64_INSN_SIZE

/*
 * The site is one instruction, the jump slot, in an asm goto whose only
 * exits are its end and %l[l_on]: a NOP as built and while off, a B to
 * %l[l_on] while on, as arm64 jump labels are. Control only takes edges
 * the compiler knows about, and no register or flag is clobbered.
 *
 * One record, in __marker_sites: the slot, its length, which kprobes must
 * leave alone, and as its target the probe block, which the slot does not
 * name while off. The compiler keeps the block in the site's function
 * (arm64 kernels do not split functions), within the 128 KiB a target
 * reaches. The slot is no indirect branch target (no BTI landing pad is
 * needed).
 */
static __always_inline bool arch_marker_site(struct marker *marker)
{
	asm goto("1:	nop\n\t"
		 "2:\n\t"
		 SITE_ENTRY_TARGET_ASM("__marker_sites, \"a\"", "1b", "%c0", "2b - 1b",
				       __stringify(MARKER_ENTRY_SITE), "%l[l_on]")
		 : : "i" (marker) : : l_on);
	return false;
l_on:
	return true;
}

/*
 * Records the call that the probe block of a site of @marker has just
 * made, as MARKER_ENTRY_CALL in __marker_sites: the instruction before this
 * point, which must be "bl marker_probe_iterate". kernel/marker_switch.c
 * points it at the marker's only probe while that is a fast one, and at the
 * other targets its state machine gives. The call itself
 * is the compiler's, so that it knows the call may reach any function a
 * probe could be; this empty asm, unique to @marker, also keeps the
 * compiler from sharing the call with another site's block. A recorded
 * call that is not what it should be (something between it and this
 * point, or a module's call through a PLT) is never rewritten (see
 * arch_marker_switch()).
 */
static __always_inline void arch_marker_record_call(struct marker *marker)
{
	asm volatile("1:\n\t"
		     SITE_ENTRY_ASM("__marker_sites, \"a\"", "1b - " __stringify(MARKER_CALL_LEN),
				    "%c0", __stringify(MARKER_CALL_LEN),
				    __stringify(MARKER_ENTRY_CALL))
		     : : "i" (marker));
}

/**
 * struct marker_arch_stats - what arch_marker_switch() did since boot
 * @batches: switches that wrote instructions
 * @insns: instructions written
 * @syncs: rounds of IPIs that made every CPU see them
 * @unsynced: instructions written since the last round of IPIs began; 0
 *	whenever no switch is under way, as every write comes before the
 *	round of its batch
 */
struct marker_arch_stats {
	unsigned long batches;
	unsigned long insns;
	unsigned long syncs;
	unsigned long unsynced;
};

void marker_arch_get_stats(struct marker_arch_stats *stats);

#endif /* _ASM_ARM64_MARKER_H */
