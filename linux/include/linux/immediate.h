/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_IMMEDIATE_H
#define _LINUX_IMMEDIATE_H

/*
 * Immediate values: variables that hot paths read as the immediate operand
 * of an instruction instead of loading them from memory. Reading one costs
 * no data access; changing one rewrites every instruction that reads it,
 * on the live system (see Documentation/markers.txt).
 *
 * Usage:
 *
 *	DEFINE_IMV(char, my_switch) = 1;	(or DECLARE_IMV in a header)
 *
 *	if (imv_read(my_switch))		hot path: no memory load
 *		...
 *	err = imv_set(my_switch, 0);		slow path: may sleep
 */

#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/types.h>

/**
 * struct imv_update - one immediate value to change, see imv_update_batch()
 * @var: the variable behind the immediate value (&name##__imv)
 * @value: the new value, as the bytes of the variable (little endian)
 * @size: sizeof the variable: 1, 2, 4 or 8
 * @too_wide: the value given does not fit the variable's type
 *
 * Build it with IMV_UPDATE().
 */
struct imv_update {
	void *var;
	u64 value;
	u8 size;
	bool too_wide;
};

/**
 * struct imv_site - an imv_read() site, as listed by imv_get_sites()
 * @insn: the instruction that holds the value
 * @len: its length in bytes
 * @size: the size of the immediate, which is the instruction's last @size bytes
 */
struct imv_site {
	void *insn;
	u8 len;
	u8 size;
};

/* The bytes of @v stored in a variable of @var's type, as a u64. */
#define __imv_bits(var, v)						\
({									\
	__typeof__(var) __imv_t = (v);					\
	u64 __imv_b = 0;						\
									\
	__builtin_memcpy(&__imv_b, &__imv_t, sizeof(__imv_t));		\
	__imv_b;							\
})

/**
 * IMV_UPDATE() - describe the change of an immediate value
 * @name: the immediate value, as given to DEFINE_IMV()
 * @v: its new value, evaluated once
 *
 * A constant @v that does not fit the type of @name does not build
 * (-Woverflow); a run-time one makes the update fail with -ERANGE.
 */
#define IMV_UPDATE(name, v)						\
({									\
	__typeof__(v) __imv_v = (v);					\
									\
	(struct imv_update) {						\
		.var = &name##__imv,					\
		.value = __imv_bits(name##__imv, __imv_v),		\
		.size = sizeof(name##__imv),				\
		.too_wide = (__typeof__(v))(__typeof__(name##__imv))__imv_v != __imv_v, \
	};								\
})

/*
 * Checks a batch before anything changes; shared by every implementation.
 * A batch sorted by variable (markers give theirs so) is checked for a
 * variable given twice in linear time, any other in quadratic time.
 */
static inline int imv_update_check(const struct imv_update *updates, unsigned int nr)
{
	bool sorted = true;
	unsigned int i, j;

	for (i = 0; i < nr; i++) {
		if (!updates[i].var || !is_power_of_2(updates[i].size) ||
		    updates[i].size > sizeof(u64))
			return -EINVAL;
		if (updates[i].too_wide)
			return -ERANGE;
		if (i && updates[i - 1].var >= updates[i].var)
			sorted = false;
	}
	for (i = 0; !sorted && i < nr; i++)
		for (j = 0; j < i; j++)
			if (updates[j].var == updates[i].var)
				return -EINVAL;
	return 0;
}

/* Stores the value of @update into its variable. */
static inline void imv_store(const struct imv_update *update)
{
	switch (update->size) {
	case 1:
		WRITE_ONCE(*(u8 *)update->var, update->value);
		break;
	case 2:
		WRITE_ONCE(*(u16 *)update->var, update->value);
		break;
	case 4:
		WRITE_ONCE(*(u32 *)update->var, update->value);
		break;
	case 8:
		WRITE_ONCE(*(u64 *)update->var, update->value);
		break;
	}
}

#ifdef CONFIG_IMMEDIATE
#include <asm/immediate.h>
#else
#include <asm-generic/immediate.h>
#endif

/**
 * DECLARE_IMV() - declare an immediate value defined elsewhere
 * @type_t: its type: an integer type of 1, 2, 4 or 8 bytes
 * @name: its name; the variable behind it is name##__imv
 */
#define DECLARE_IMV(type_t, name)	extern type_t name##__imv

/**
 * DEFINE_IMV() - define an immediate value
 * @type_t: its type: an integer type of 1, 2, 4 or 8 bytes
 * @name: its name; the variable behind it is name##__imv
 *
 * May be preceded by "static" and followed by "= initial value".
 */
#define DEFINE_IMV(type_t, name)	type_t name##__imv

/**
 * EXPORT_IMV_SYMBOL() - let modules read and set an immediate value
 * @name: the immediate value
 */
#define EXPORT_IMV_SYMBOL(name)		EXPORT_SYMBOL(name##__imv)

/**
 * EXPORT_IMV_SYMBOL_GPL() - let GPL modules read and set an immediate value
 * @name: the immediate value
 */
#define EXPORT_IMV_SYMBOL_GPL(name)	EXPORT_SYMBOL_GPL(name##__imv)

/**
 * imv_read() - read an immediate value on a hot path
 * @name: the immediate value
 *
 * Compiles to an instruction that holds the value as its immediate operand;
 * no memory is read. Must not be used in __init or __exit code, whose text
 * may be gone when the value changes: use _imv_read() there.
 */
#define imv_read(name)		__imv_read(name##__imv)

/**
 * _imv_read() - read an immediate value with a plain load
 * @name: the immediate value
 *
 * For __init and __exit code and other code that must never be patched.
 */
#define _imv_read(name)		READ_ONCE(name##__imv)

/**
 * imv_set() - change an immediate value
 * @name: the immediate value
 * @v: its new value
 *
 * Rewrites every imv_read() site of @name, in the kernel and in modules,
 * in one batch. Other CPUs may run the sites meanwhile; each of them reads
 * either the old or the new value, never a mix.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 on success; -ERANGE if @v does not fit the type of @name (a
 * constant that does not fit does not build);
 * -ENOMEM, -EBUSY (a site carries another tool's breakpoint) or -EINVAL
 * (a site does not hold what it should). On error nothing has changed.
 */
#define imv_set(name, v)						\
({									\
	struct imv_update __imv_u = IMV_UPDATE(name, v);		\
									\
	imv_update_batch(&__imv_u, 1);					\
})

#endif /* _LINUX_IMMEDIATE_H */
