/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_TEXT_POKE_BP_H
#define _ASM_X86_TEXT_POKE_BP_H

#include <linux/types.h>

/* The longest instruction a site may hold: movabs $imm64, %r64. */
#define POKE_SITE_MAX_LEN	10

/* A marker's guard, "cmpl $imm8, %esp": 83 /7 ib, ModRM mod 11, reg 7, r/m 4. */
#define POKE_GUARD_OPCODE	0x83
#define POKE_GUARD_MODRM	0xfc
#define POKE_GUARD_LEN		3

/**
 * struct poke_site - one instruction of a batch rewritten by poke_sites_apply()
 * @addr: first byte of the instruction
 * @len: its length; @old and @new are both @len bytes long
 * @old: the bytes expected at @addr
 * @new: the bytes to write
 * @outcome: for a guard, where its branch sends a CPU under @new: a CPU
 *	that meets the guard while it is rewritten jumps there
 *
 * A site is "mov $imm, %reg" (opcodes b0-bf, optional 0x66 and REX
 * prefixes; @old and @new differ only in the immediate), a 2-byte jump
 * slot ("jmp rel8", the 2-byte NOP "66 90", or "0f 1f", the head of a
 * long NOP whose other bytes are the instructions that follow, in any
 * combination), a "call rel32", or a guard: "cmpl $imm8, %esp" (83 fc ib,
 * @old and @new differing in the immediate), whose flags only the
 * conditional branch right after it reads. While a slot becomes "0f 1f",
 * a CPU that hits it goes on as from the 2-byte NOP: the instructions
 * after it must do what the long NOP does.
 */
struct poke_site {
	void *addr;
	u8 len;
	u8 old[POKE_SITE_MAX_LEN];
	u8 new[POKE_SITE_MAX_LEN];
	void *outcome;
};

/**
 * struct poke_sites_stats - what poke_sites_apply() has done since boot
 * @batches: batches of the int3 patcher written (or, while the kernel boots
 *	on one CPU, sets of sites written directly)
 * @sites: sites rewritten
 */
struct poke_sites_stats {
	unsigned long batches;
	unsigned long sites;
};

int poke_sites_apply(struct poke_site *sites, unsigned int nr);
void poke_sites_get_stats(struct poke_sites_stats *stats);

#endif /* _ASM_X86_TEXT_POKE_BP_H */
