/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_X86_IMMEDIATE_H
#define _ASM_X86_IMMEDIATE_H

/*
 * x86-64 immediate values. Included by <linux/immediate.h>, never directly.
 *
 * imv_read() is one "mov $imm, %reg"; the compiler picks the register:
 *
 *	size 1:	[REX] b0+r ib		2 or 3 bytes
 *	size 2:	66 [REX] b8+r iw	4 or 5 bytes
 *	size 4:	[REX] b8+r id		5 or 6 bytes
 *	size 8:	REX.W b8+r io		10 bytes (movabs)
 *
 * The immediate is the last @size bytes and is naturally aligned: NOPs in
 * front of the mov (at most two NOP instructions) put its end on a multiple
 * of @size, so one aligned store changes it. The mov is assembled once in a
 * discarded section to measure it first. Every site is recorded in __imv.
 * The immediate is 0 as built; imv_init() and the module notifier write the
 * variable's value into every site before any of it can run.
 *
 * The asm is volatile: like READ_ONCE(), every imv_read() is one read that
 * the compiler neither merges with another nor hoists out of a loop.
 */

#include <linux/init.h>
#include <linux/objtool.h>
#include <linux/site_table.h>
#include <linux/stringify.h>
#include <linux/types.h>

/* Records one site: its instruction, variable, length and immediate size. */
#define IMV_SITE_ENTRY(insn, var, len, size)				\
	SITE_ENTRY_ASM("__imv, \"aw\"", insn, var, len, size)

/*
 * @n bytes of NOPs, @n known once the assembler has measured an instruction.
 * GNU as takes such a size for .nops (few, long NOPs); LLVM's integrated
 * assembler wants the size of .nops when it parses it, and pads with as
 * many one-byte NOPs instead (.skip takes a size that layout resolves).
 */
#ifdef CONFIG_AS_IS_LLVM
#define __IMV_PAD(n)	".skip " n ", 0x90\n\t"
#else
#define __IMV_PAD(n)	".nops " n "\n\t"
#endif

/*
 * One site reading @var into operand %0: measure @insn, pad so that its
 * immediate, which ends it, is aligned to its @size, annotate it (the
 * table points at it, but nothing branches there indirectly), record it.
 */
#define __IMV_SITE(insn, size, log2size)				\
	".pushsection .discard.imv, \"\"\n\t"				\
	"3:	" insn "\n\t"						\
	"4:\n\t"							\
	".popsection\n\t"						\
	".p2align " #log2size "\n\t"					\
	__IMV_PAD("((-(4b - 3b)) & (" #size " - 1))")			\
	ANNOTATE_NOENDBR "\n\t"						\
	"1:	" insn "\n\t"						\
	"2:\n\t"							\
	IMV_SITE_ENTRY("1b", "%c1", "2b - 1b", #size)

#define __imv_read(var)							\
({									\
	union {								\
		__typeof__(var) value;					\
		u8 b;							\
		u16 w;							\
		u32 l;							\
		u64 q;							\
	} __imv;							\
									\
	BUILD_BUG_ON(sizeof(var) != 1 && sizeof(var) != 2 &&		\
		     sizeof(var) != 4 && sizeof(var) != 8);		\
	switch (sizeof(var)) {						\
	case 1:								\
		asm volatile(__IMV_SITE("movb $0, %b0", 1, 0)		\
		    : "=q" (__imv.b) : "i" (&(var)));			\
		break;							\
	case 2:								\
		asm volatile(__IMV_SITE("movw $0, %w0", 2, 1)		\
		    : "=r" (__imv.w) : "i" (&(var)));			\
		break;							\
	case 4:								\
		asm volatile(__IMV_SITE("movl $0, %k0", 4, 2)		\
		    : "=r" (__imv.l) : "i" (&(var)));			\
		break;							\
	default:							\
		asm volatile(__IMV_SITE("movabsq $0, %q0", 8, 3)	\
		    : "=r" (__imv.q) : "i" (&(var)));			\
		break;							\
	}								\
	__imv.value;							\
})

/* The kernel's table, sorted by variable then address by imv_init(). */
extern struct site_entry __start___imv[], __stop___imv[];

int imv_update_batch(const struct imv_update *updates, unsigned int nr);
void __init imv_init(void);
void imv_free_init_mem(void);
int imv_text_reserved(void *start, void *end);
int imv_get_sites(const void *var, struct imv_site *sites, unsigned int max);
void *imv_alloc(size_t size);

#endif /* _ASM_X86_IMMEDIATE_H */
