/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_TEXT_POKE_BP_H
#define _ASM_X86_TEXT_POKE_BP_H

#include <linux/types.h>

/* The longest instruction a site may hold: movabs $imm64, %r64. */
#define POKE_SITE_MAX_LEN	10

/**
 * struct poke_site - one instruction of a batch rewritten by poke_sites_apply()
 * @addr: first byte of the instruction
 * @len: its length; @old and @new are both @len bytes long
 * @old: the bytes expected at @addr
 * @new: the bytes to write
 * @emulate: filled in by poke_sites_apply(): how the int3 handler runs @new
 * @reg: for "mov $imm, %reg", the index of %reg in struct pt_regs
 * @size: for "mov $imm, %reg", the immediate's size in bytes
 * @value: the immediate of "mov", or the target of a jump or call
 *
 * A site is "mov $imm, %reg" (opcodes b0-bf, optional 0x66 and REX
 * prefixes; @old and @new differ only in the immediate), a 2-byte jump
 * slot ("jmp rel8" or the 2-byte NOP "66 90", in any combination) or a
 * "call rel32".
 */
struct poke_site {
	void *addr;
	u8 len;
	u8 old[POKE_SITE_MAX_LEN];
	u8 new[POKE_SITE_MAX_LEN];
	u8 emulate;
	u8 reg;
	u8 size;
	unsigned long value;
};

/**
 * struct poke_sites_stats - what poke_sites_apply() has done since boot
 * @batches: batches applied
 * @sites: sites rewritten
 * @sync_rounds: rounds of core serialization (IPIs to every online CPU)
 * @mappings: text mappings made to write them (each holds the sites of a
 *	page or two, for one of the three steps of a batch)
 * @bypass_hits: times a CPU hit a site while it was rewritten and was sent
 *	on by the int3 handler
 */
struct poke_sites_stats {
	unsigned long batches;
	unsigned long sites;
	unsigned long sync_rounds;
	unsigned long mappings;
	unsigned long bypass_hits;
};

struct pt_regs;

int poke_sites_apply(struct poke_site *sites, unsigned int nr);
void poke_sites_get_stats(struct poke_sites_stats *stats);

#ifdef CONFIG_IMMEDIATE
int poke_sites_int3_handler(struct pt_regs *regs);
#else
static __always_inline int poke_sites_int3_handler(struct pt_regs *regs)
{
	return 0;
}
#endif

#endif /* _ASM_X86_TEXT_POKE_BP_H */
