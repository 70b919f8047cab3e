// SPDX-License-Identifier: GPL-2.0
/*
 * Site tables: the patched sites of the kernel and of modules, for the
 * owners of such sites (immediate values, markers). See <linux/site_table.h>.
 *
 * Tables are added, removed and walked under the owner's lock; the list of
 * module tables is also RCU, but the only lockless reader,
 * site_tables_reserved(), finds a module by address and reads the entries
 * the module carries, so that it does not depend on the owner having seen
 * the module yet.
 */

#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/site_table.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <asm/sections.h>

/**
 * site_tables_first() - the kernel's table
 * @st: the tables
 *
 * Walk the tables with site_tables_first() and site_tables_next().
 *
 * Context: @st->lock held.
 * Return: the table.
 */
struct site_table *site_tables_first(struct site_tables *st)
{
	lockdep_assert_held(st->lock);
	return &st->core;
}

/**
 * site_tables_next() - the table after @t
 * @st: the tables
 * @t: a table of @st
 *
 * Context: @st->lock held.
 * Return: the next module's table, or NULL after the last one.
 */
struct site_table *site_tables_next(struct site_tables *st, struct site_table *t)
{
	lockdep_assert_held(st->lock);
	if (t == &st->core)
		return list_first_entry_or_null(&st->modules, struct site_table, list);
	if (list_is_last(&t->list, &st->modules))
		return NULL;
	return list_next_entry(t, list);
}

static int site_entry_cmp(const void *a, const void *b)
{
	const struct site_entry *x = a, *y = b;
	void *xk = site_entry_key(x), *yk = site_entry_key(y);
	void *xc = site_entry_code(x), *yc = site_entry_code(y);

	if (xk != yk)
		return xk < yk ? -1 : 1;
	if (xc != yc)
		return xc < yc ? -1 : 1;
	return 0;
}

/* Moving an entry moves the base of its offsets: re-bias them. */
static void site_entry_swap(void *a, void *b, int size)
{
	long delta = (unsigned long)a - (unsigned long)b;
	struct site_entry *x = a, *y = b, tmp = *x;

	x->code = y->code ? y->code - delta : 0;
	x->key = y->key - delta;
	x->len = y->len;
	x->size = y->size;

	y->code = tmp.code ? tmp.code + delta : 0;
	y->key = tmp.key + delta;
	y->len = tmp.len;
	y->size = tmp.size;
}

/*
 * Sorts the entries of @t in place, for owners that look sites up by key.
 * site_tables_reserved() reads a module's entries without the lock, and a
 * swap half done shows one site twice and another not at all: it reads
 * them again if a sort ran meanwhile. Preemption is off so that such a
 * reader, which has it off too, never spins on a writer that cannot run.
 */
static void site_table_setup(struct site_tables *st, struct site_table *t)
{
	if (!st->sort)
		return;
	preempt_disable();
	write_seqcount_begin(&st->sorting);
	sort(t->start, t->stop - t->start, sizeof(*t->start), site_entry_cmp,
	     site_entry_swap);
	write_seqcount_end(&st->sorting);
	preempt_enable();
}

/* The first entry of @key in sorted table @t, or where it would be. */
static struct site_entry *site_table_find(const struct site_table *t, const void *key)
{
	struct site_entry *lo = t->start, *hi = t->stop;

	while (lo < hi) {
		struct site_entry *mid = lo + (hi - lo) / 2;

		if (site_entry_key(mid) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * site_tables_init() - set up the kernel's table
 * @st: the tables
 * @start: the kernel's first entry
 * @stop: past its last entry
 *
 * Called once, while the kernel boots on one CPU.
 */
void __init site_tables_init(struct site_tables *st, struct site_entry *start,
			     struct site_entry *stop)
{
	st->core.start = start;
	st->core.stop = stop;
	st->core.init_start = (unsigned long)__init_begin;
	st->core.init_end = (unsigned long)__init_end;
	site_table_setup(st, &st->core);
}

#ifdef CONFIG_MODULES
/**
 * site_tables_add_module() - add the table of a module that comes
 * @st: the tables
 * @mod: the module, in MODULE_STATE_COMING
 *
 * Records where the module's init text is, so that its sites there are
 * skipped once site_tables_forget_init() has been called for @mod.
 *
 * Context: @st->lock held.
 * Return: the table; NULL if @mod has no entries for @st; ERR_PTR(-ENOMEM).
 */
struct site_table *site_tables_add_module(struct site_tables *st, struct module *mod)
{
	struct module_memory *init = &mod->mem[MOD_INIT_TEXT];
	struct site_table *t;
	struct site_entry *start, *stop;

	lockdep_assert_held(st->lock);
	st->module_entries(mod, &start, &stop);
	if (start == stop)
		return NULL;
	t = st->alloc(sizeof(*t));
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->start = start;
	t->stop = stop;
	t->mod = mod;
	t->init_start = (unsigned long)init->base;
	t->init_end = t->init_start + init->size;
	site_table_setup(st, t);
	list_add_tail_rcu(&t->list, &st->modules);
	return t;
}
#endif /* CONFIG_MODULES */

/**
 * site_tables_find_module() - the table of a module
 * @st: the tables
 * @mod: the module
 *
 * Context: @st->lock held.
 * Return: the table, or NULL.
 */
struct site_table *site_tables_find_module(struct site_tables *st, struct module *mod)
{
	struct site_table *t;

	lockdep_assert_held(st->lock);
	list_for_each_entry(t, &st->modules, list)
		if (t->mod == mod)
			return t;
	return NULL;
}

/**
 * site_tables_remove_module() - remove the table of a module that goes
 * @st: the tables
 * @mod: the module
 *
 * Context: @st->lock held.
 */
void site_tables_remove_module(struct site_tables *st, struct module *mod)
{
	struct site_table *t = site_tables_find_module(st, mod);

	if (!t)
		return;
	list_del_rcu(&t->list);
	kvfree_rcu(t, rcu);
}

/**
 * site_tables_forget_init() - the init text of the kernel or a module is gone
 * @st: the tables
 * @mod: the module whose init function returned, or NULL for the kernel
 *	before free_initmem()
 *
 * From now on no walk of @st sees the sites in that init text. Called under
 * the owner's lock, so a walk that started before is over when it returns.
 *
 * Context: @st->lock held.
 */
void site_tables_forget_init(struct site_tables *st, struct module *mod)
{
	struct site_table *t = mod ? site_tables_find_module(st, mod) : &st->core;

	if (t)
		t->init_gone = true;
}

static unsigned int site_table_collect(const struct site_table *t,
				       site_collect_fn *fn, void *data,
				       void *out, size_t elem_size)
{
	const struct site_entry *e;
	unsigned int n = 0;

	for (e = t->start; e < t->stop; e++) {
		if (!site_entry_live(t, e))
			continue;
		n += fn(t, e, out ? out + n * elem_size : NULL, data);
	}
	return n;
}

/**
 * site_tables_collect() - describe live sites in a new array
 * @st: the tables
 * @only: one table of @st to look at, or NULL for all of them
 * @fn: tells whether a live entry gives an element, and fills it in
 * @data: passed to @fn
 * @elem_size: the size of an element
 * @nr: set to the number of elements
 *
 * Counts the elements, allocates the array with @st->alloc, then fills it.
 * Free it with kvfree().
 *
 * Context: @st->lock held; may sleep.
 * Return: the array; NULL when there is no element; ERR_PTR(-ENOMEM).
 */
void *site_tables_collect(struct site_tables *st, const struct site_table *only,
			  site_collect_fn *fn, void *data, size_t elem_size,
			  unsigned int *nr)
{
	struct site_table *t;
	unsigned int n = 0;
	void *out;

	lockdep_assert_held(st->lock);
	*nr = 0;
	for (t = site_tables_first(st); t; t = site_tables_next(st, t))
		if (!only || t == only)
			n += site_table_collect(t, fn, data, NULL, 0);
	if (!n)
		return NULL;
	out = st->alloc(array_size(n, elem_size));
	if (!out)
		return ERR_PTR(-ENOMEM);
	for (t = site_tables_first(st); t; t = site_tables_next(st, t))
		if (!only || t == only)
			*nr += site_table_collect(t, fn, data, out + *nr * elem_size,
						  elem_size);
	WARN_ON_ONCE(*nr != n);
	return out;
}

/**
 * site_tables_walk_key() - describe the live sites of one key
 * @st: the tables, kept sorted (@st->sort)
 * @only: one table of @st to look at, or NULL for all of them
 * @key: the key
 * @fn: tells whether a live entry of @key gives an element, and fills it in
 * @data: passed to @fn
 * @out: where to put the elements, or NULL to count them
 * @elem_size: the size of an element
 *
 * Finds the entries of @key by binary search in each table: for owners
 * that look their sites up by key, and count, allocate and fill
 * themselves, key after key.
 *
 * Context: @st->lock held.
 * Return: the number of elements given.
 */
unsigned int site_tables_walk_key(struct site_tables *st, const struct site_table *only,
				  const void *key, site_collect_fn *fn, void *data,
				  void *out, size_t elem_size)
{
	struct site_table *t;
	struct site_entry *e;
	unsigned int n = 0;

	if (WARN_ON_ONCE(!st->sort))
		return 0;
	for (t = site_tables_first(st); t; t = site_tables_next(st, t)) {
		if (only && t != only)
			continue;
		for (e = site_table_find(t, key); e < t->stop && site_entry_key(e) == key; e++)
			if (site_entry_live(t, e))
				n += fn(t, e, out ? out + n * elem_size : NULL, data);
	}
	return n;
}

/*
 * Whether an entry of @mod (NULL: of the kernel) between @start and @stop
 * reserves a byte of [@first, @last]: its own bytes, or what @st->reserves
 * says of it while its text is there (core kernel text, or @mod's text,
 * which the caller keeps from being freed).
 */
static bool site_entries_overlap(const struct site_tables *st, const struct module *mod,
				 const struct site_entry *start,
				 const struct site_entry *stop,
				 u8 *first, u8 *last)
{
	const struct site_entry *e;

	for (e = start; e < stop; e++) {
		u8 *code = site_entry_code(e);

		if (!code)
			continue;
		if (code <= last && code + e->len > first)
			return true;
		if (!st->reserves)
			continue;
		if (mod ? __module_text_address((unsigned long)code) != mod :
			  !core_kernel_text((unsigned long)code))
			continue;
		if (st->reserves(e, first, last))
			return true;
	}
	return false;
}

/**
 * site_tables_reserved() - whether an address range overlaps a site
 * @st: the tables
 * @start: the first byte of the range, kernel or module text
 * @end: the last byte of the range
 *
 * For code that writes text (kprobes): finds the object that owns @start
 * by address and looks at the entries it carries, whether or not the owner
 * of @st has taken the object in yet (a module that comes) and whatever
 * the bytes of a site are at this moment (a site being switched). Init
 * text that is gone is no object's text: it is not reserved. Beyond its
 * bytes, an entry reserves what @st->reserves says.
 *
 * Context: process context, or any context where modules can be looked up
 * (preemption off or RCU) but an interrupt: it may wait for a module's
 * table being sorted on another CPU; takes no lock.
 * Return: true if the range overlaps a site or what one reserves.
 */
bool site_tables_reserved(struct site_tables *st, void *start, void *end)
{
	struct site_entry *first, *stop;
	struct module *mod;
	bool ret = false;
	unsigned int seq;

	if (core_kernel_text((unsigned long)start))
		return site_entries_overlap(st, NULL, st->core.start, st->core.stop,
					    start, end);

	preempt_disable();
	mod = __module_text_address((unsigned long)start);
	if (mod) {
		st->module_entries(mod, &first, &stop);
		do {
			seq = read_seqcount_begin(&st->sorting);
			ret = site_entries_overlap(st, mod, first, stop, start, end);
		} while (read_seqcount_retry(&st->sorting, seq));
	}
	preempt_enable();
	return ret;
}
