/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_SITE_TABLE_H
#define _LINUX_SITE_TABLE_H

/*
 * Site tables: where the instructions that immediate values and markers
 * patch are, in the kernel and in modules. One table per object (the
 * kernel, each module), one entry per site, written by the assembler into
 * a section of the object; the owner of the entries (immediate values,
 * markers) patches the sites, this layer tells which of them are there.
 *
 * A site in init text is there while that text can run: for the kernel
 * until free_initmem(), for a module until its init function has returned.
 * site_tables_forget_init() is called at that point, under the owner's
 * lock, so that no walk of the owner ever sees a site whose text is gone.
 * The reservation check used by kprobes goes by address instead, and only
 * reads the entries of the object that owns the address.
 */

#include <linux/compiler.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/seqlock.h>
#include <linux/types.h>

struct module;

/**
 * struct site_entry - one patched site, as the assembler recorded it
 * @code: offset from this field to the site's first byte; 0 for a site
 *	that has no code to patch (a marker that tests a plain variable)
 * @key: offset from this field to what the site belongs to: the variable
 *	of an immediate value, the &struct marker of a marker site
 * @len: the site's length in bytes
 * @size: for the owner: the size of an immediate
 * @target: for the owner: a second place in the site's text, as an offset
 *	from its first byte in units of 4 bytes (the probe block of an arm64
 *	marker site, which its text does not name while it is off); 0 if none
 */
struct site_entry {
	s32 code;
	s32 key;
	u8 len;
	u8 size;
	s16 target;
};

/*
 * The symbol of "i" operand @n in an asm template, for @key below. x86
 * prints "$" before an immediate unless told "%c"; the other architectures
 * print a symbol bare, and riscv's GCC knows no "%c".
 */
#ifdef CONFIG_X86
#define SITE_ENTRY_SYMBOL(n)	"%c" #n
#else
#define SITE_ENTRY_SYMBOL(n)	"%" #n
#endif

#define __SITE_ENTRY_ASM(section, code, key, len, size, target)	\
	".pushsection " section "\n\t"					\
	".balign 4\n\t"							\
	".long " code " - ., " key " - .\n\t"				\
	".byte " len ", " size "\n\t"					\
	".short " target "\n\t"						\
	".popsection\n\t"

/*
 * Emits a struct site_entry; @section is the name and flags of the section,
 * @code and @key are symbols, @len and @size constant expressions.
 */
#define SITE_ENTRY_ASM(section, code, key, len, size)			\
	__SITE_ENTRY_ASM(section, code, key, len, size, "0")

/*
 * Emits a struct site_entry with a @target, a symbol in the section of
 * @code, 4-byte aligned and within 128 KiB of it: the assembler fails the
 * build for one that is not.
 */
#define SITE_ENTRY_TARGET_ASM(section, code, key, len, size, target)	\
	__SITE_ENTRY_ASM(section, code, key, len, size,			\
			 "((" target ") - (" code ")) / 4")

static inline void *site_entry_code(const struct site_entry *e)
{
	return e->code ? (void *)&e->code + e->code : NULL;
}

static inline void *site_entry_key(const struct site_entry *e)
{
	return (void *)&e->key + e->key;
}

/* The @target of @e, NULL if it has none. */
static inline void *site_entry_target(const struct site_entry *e)
{
	return e->target ? site_entry_code(e) + 4 * e->target : NULL;
}

/**
 * struct site_table - the entries of one object
 * @start: the first entry
 * @stop: past the last entry
 * @mod: the module, NULL for the kernel
 * @init_start: the object's init text, recorded when the table is added
 * @init_end: the end of it
 * @init_gone: the init text can no longer run: its sites are not there
 * @list: on &site_tables.modules
 * @rcu: frees a module's table
 */
struct site_table {
	struct site_entry *start;
	struct site_entry *stop;
	struct module *mod;
	unsigned long init_start;
	unsigned long init_end;
	bool init_gone;
	struct list_head list;
	struct rcu_head rcu;
};

/**
 * struct site_tables - the tables of one owner of entries
 * @lock: the owner's lock, held to add, remove or walk tables
 * @sort: keep each table sorted by key, then by address
 * @sorting: a table is being sorted in place (readers retry)
 * @module_entries: the entries a module carries for this owner
 * @alloc: allocates zeroed memory (the owner's, so tests can fail it)
 * @reserves: whether an entry whose text is there reserves a range of text
 *	that its bytes do not overlap (see site_tables_reserved()); NULL if
 *	entries reserve their bytes only
 * @core: the kernel's table
 * @modules: the tables of modules; @lock for writers, RCU for readers
 */
struct site_tables {
	struct mutex *lock;	/* the owner's, see above */
	bool sort;
	seqcount_t sorting;
	void (*module_entries)(struct module *mod, struct site_entry **start,
			       struct site_entry **stop);
	void *(*alloc)(size_t size);
	bool (*reserves)(const struct site_entry *e, u8 *first, u8 *last);
	struct site_table core;
	struct list_head modules;
};

#define SITE_TABLES_INIT(name, _lock, _sort, _module_entries, _alloc, _reserves) \
	{								\
		.lock = _lock,						\
		.sort = _sort,						\
		.sorting = SEQCNT_ZERO(name.sorting),			\
		.module_entries = _module_entries,			\
		.alloc = _alloc,					\
		.reserves = _reserves,					\
		.modules = LIST_HEAD_INIT(name.modules),		\
	}

/**
 * site_entry_live() - whether a site's text is there
 * @t: its table
 * @e: the entry
 *
 * Return: false for a site in init text that can no longer run; true for
 * every other site, including those without code.
 */
static inline bool site_entry_live(const struct site_table *t,
				   const struct site_entry *e)
{
	unsigned long code = (unsigned long)site_entry_code(e);

	return !code || !t->init_gone || code < t->init_start || code >= t->init_end;
}

/**
 * typedef site_collect_fn - what site_tables_collect() calls for an entry
 * @t: the entry's table
 * @e: the entry
 * @out: where to describe the entry, or NULL when only counting
 * @data: the data given to site_tables_collect()
 *
 * Return: the number of elements the entry gives (0 or 1).
 */
typedef unsigned int site_collect_fn(const struct site_table *t,
				     const struct site_entry *e, void *out,
				     void *data);

struct site_table *site_tables_first(struct site_tables *st);
struct site_table *site_tables_next(struct site_tables *st, struct site_table *t);
void site_tables_init(struct site_tables *st, struct site_entry *start,
		      struct site_entry *stop);
struct site_table *site_tables_add_module(struct site_tables *st, struct module *mod);
void site_tables_remove_module(struct site_tables *st, struct module *mod);
struct site_table *site_tables_find_module(struct site_tables *st, struct module *mod);
void site_tables_forget_init(struct site_tables *st, struct module *mod);
void *site_tables_collect(struct site_tables *st, const struct site_table *only,
			  site_collect_fn *fn, void *data, size_t elem_size,
			  unsigned int *nr);
unsigned int site_tables_walk_key(struct site_tables *st, const struct site_table *only,
				  const void *key, site_collect_fn *fn, void *data,
				  void *out, size_t elem_size);
bool site_tables_reserved(struct site_tables *st, void *start, void *end);

#endif /* _LINUX_SITE_TABLE_H */
