// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 immediate values: the tables of imv_read() sites of the kernel and
 * of modules, and their updates through poke_sites_apply().
 *
 * Under imv_mutex, the immediate of every live site equals its variable:
 * imv_init() makes it so for the kernel while it boots on one CPU, the
 * module notifier for each module before any of its code runs, and
 * imv_update_batch() keeps it so.
 *
 * Lock order: cpus_read_lock() -> imv_mutex -> text_mutex.
 */

#define pr_fmt(fmt) "immediate: " fmt

#include <kunit/static_stub.h>
#include <linux/cpu.h>
#include <linux/immediate.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <asm/sections.h>
#include <asm/text_poke_bp.h>

/* A module with sites, on imv_modules. */
struct imv_module {
	struct list_head list;
	struct module *mod;
	struct rcu_head rcu;
};

/*
 * One table of sites: the kernel's (@mod is NULL) or a module's. Walk them
 * all with imv_first_table() and imv_next_table().
 */
struct imv_table {
	struct imv_entry *start;
	struct imv_entry *stop;
	struct module *mod;
	struct imv_module *im;
};

static DEFINE_MUTEX(imv_mutex);
static LIST_HEAD(imv_modules);	/* imv_mutex for writers, RCU for readers */

/**
 * imv_alloc() - allocate zeroed memory for immediate values
 * @size: how much
 *
 * Every allocation of this file goes through here, so that the KUnit suite
 * can make any one of them fail (kunit_activate_static_stub()). Free with
 * kvfree().
 *
 * Context: process context, may sleep.
 * Return: the memory, or NULL.
 */
void *imv_alloc(size_t size)
{
	KUNIT_STATIC_STUB_REDIRECT(imv_alloc, size);
	return kvzalloc(size, GFP_KERNEL);
}

static inline u8 *imv_entry_insn(const struct imv_entry *e)
{
	return (u8 *)&e->insn + e->insn;
}

static inline void *imv_entry_var(const struct imv_entry *e)
{
	return (void *)&e->var + e->var;
}

static void imv_core_table(struct imv_table *t)
{
	t->start = __start___imv;
	t->stop = __stop___imv;
	t->mod = NULL;
	t->im = NULL;
}

static void imv_module_table(struct imv_table *t, struct module *mod)
{
	t->start = mod->imv_entries;
	t->stop = mod->imv_entries + mod->num_imv_entries;
	t->mod = mod;
}

/* The kernel's table comes first. */
static void imv_first_table(struct imv_table *t)
{
	lockdep_assert_held(&imv_mutex);
	imv_core_table(t);
}

/* Moves @t to the next module's table; false after the last one. */
static bool imv_next_table(struct imv_table *t)
{
	struct imv_module *im;

	lockdep_assert_held(&imv_mutex);
	im = list_next_entry(list_prepare_entry(t->im, &imv_modules, list), list);
	if (list_entry_is_head(im, &imv_modules, list))
		return false;
	t->im = im;
	imv_module_table(t, im->mod);
	return true;
}

/* Whether the site's text is still there: __init text goes away after init. */
static bool imv_entry_live(const struct imv_table *t, const struct imv_entry *e)
{
	u8 *insn = imv_entry_insn(e);

	if (t->mod)
		return t->mod->state == MODULE_STATE_COMING ||
		       !within_module_init((unsigned long)insn, t->mod);
	return system_state < SYSTEM_FREEING_INITMEM ||
	       !init_section_contains(insn, e->len);
}

static int imv_entry_cmp(const void *a, const void *b)
{
	const struct imv_entry *x = a, *y = b;
	void *xv = imv_entry_var(x), *yv = imv_entry_var(y);

	if (xv != yv)
		return xv < yv ? -1 : 1;
	if (imv_entry_insn(x) != imv_entry_insn(y))
		return imv_entry_insn(x) < imv_entry_insn(y) ? -1 : 1;
	return 0;
}

/* Moving an entry moves the base of its relative offsets: re-bias them. */
static void imv_entry_swap(void *a, void *b, int size)
{
	long delta = (unsigned long)a - (unsigned long)b;
	struct imv_entry *x = a, *y = b, tmp = *x;

	x->insn = y->insn - delta;
	x->var = y->var - delta;
	x->size = y->size;
	x->len = y->len;

	y->insn = tmp.insn + delta;
	y->var = tmp.var + delta;
	y->size = tmp.size;
	y->len = tmp.len;
}

static void imv_table_sort(struct imv_table *t)
{
	sort(t->start, t->stop - t->start, sizeof(*t->start), imv_entry_cmp,
	     imv_entry_swap);
}

/* The first entry of @var in a sorted table, or @t->stop. */
static struct imv_entry *imv_table_find(const struct imv_table *t, const void *var)
{
	struct imv_entry *lo = t->start, *hi = t->stop;

	while (lo < hi) {
		struct imv_entry *mid = lo + (hi - lo) / 2;

		if (imv_entry_var(mid) < var)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether @e, found by imv_table_find(@t, @var) or after it, is of @var. */
static bool imv_entry_of(const struct imv_table *t, const struct imv_entry *e,
			 const void *var)
{
	return e < t->stop && imv_entry_var(e) == var;
}

static u64 imv_load(const void *var, unsigned int size)
{
	u64 value = 0;

	memcpy(&value, var, size);
	return value;
}

/* Describes the change of site @e from immediate @from to @to. */
static void imv_poke_init(struct poke_site *site, const struct imv_entry *e,
			  u64 from, u64 to)
{
	u8 *insn = imv_entry_insn(e);
	unsigned int opcode_len = e->len - e->size;

	site->addr = insn;
	site->len = e->len;
	memcpy(site->old, insn, opcode_len);
	memcpy(site->old + opcode_len, &from, e->size);
	memcpy(site->new, insn, opcode_len);
	memcpy(site->new + opcode_len, &to, e->size);
}

/*
 * The live sites that @updates change: counted when @sites is NULL, else
 * described in @sites.
 */
static unsigned int imv_collect(const struct imv_update *updates, unsigned int nr,
				struct poke_site *sites)
{
	struct imv_table t;
	struct imv_entry *e;
	unsigned int i, n = 0;

	imv_first_table(&t);
	do {
		for (i = 0; i < nr; i++) {
			const struct imv_update *u = &updates[i];
			u64 from = imv_load(u->var, u->size);

			if (from == u->value)
				continue;
			for (e = imv_table_find(&t, u->var); imv_entry_of(&t, e, u->var); e++) {
				if (!imv_entry_live(&t, e))
					continue;
				if (sites)
					imv_poke_init(&sites[n], e, from, u->value);
				n++;
			}
		}
	} while (imv_next_table(&t));
	return n;
}

/**
 * imv_update_batch() - change several immediate values at once
 * @updates: the changes, built with IMV_UPDATE()
 * @nr: how many
 *
 * Every imv_read() site of every variable in @updates, in the kernel and in
 * modules, is rewritten in one batch of poke_sites_apply(): three rounds of
 * core serialization whatever the number of sites. The variables are
 * updated once their sites are.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 on success; -EINVAL for a malformed batch (a variable twice, a
 * bad size) or a site that does not hold what it should; -ERANGE for a
 * value that does not fit its variable; -ENOMEM; -EBUSY if a site carries
 * another tool's breakpoint. On error no site and no variable has changed.
 */
int imv_update_batch(const struct imv_update *updates, unsigned int nr)
{
	struct poke_site *sites;
	unsigned int i, n;
	int ret;

	ret = imv_update_check(updates, nr);
	if (ret)
		return ret;

	cpus_read_lock();
	mutex_lock(&imv_mutex);
	n = imv_collect(updates, nr, NULL);
	if (n) {
		sites = imv_alloc(array_size(n, sizeof(*sites)));
		if (!sites) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		imv_collect(updates, nr, sites);
		ret = poke_sites_apply(sites, n);
		kvfree(sites);
	}
	for (i = 0; !ret && i < nr; i++)
		imv_store(&updates[i]);
out_unlock:
	mutex_unlock(&imv_mutex);
	cpus_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(imv_update_batch);

/* Writes the variables' values into a table's sites, which hold 0 as built. */
static int imv_table_init(struct imv_table *t)
{
	struct poke_site *sites;
	unsigned int n = 0;
	struct imv_entry *e;
	int ret;

	lockdep_assert_held(&imv_mutex);

	imv_table_sort(t);
	for (e = t->start; e < t->stop; e++)
		if (imv_load(imv_entry_var(e), e->size) && imv_entry_live(t, e))
			n++;
	if (!n)
		return 0;

	sites = imv_alloc(array_size(n, sizeof(*sites)));
	if (!sites)
		return -ENOMEM;
	n = 0;
	for (e = t->start; e < t->stop; e++) {
		u64 value = imv_load(imv_entry_var(e), e->size);

		if (value && imv_entry_live(t, e))
			imv_poke_init(&sites[n++], e, 0, value);
	}
	ret = poke_sites_apply(sites, n);
	kvfree(sites);
	return ret;
}

/**
 * imv_init() - write the initial values into the kernel's imv_read() sites
 *
 * Called by start_kernel() once memory can be allocated, while one CPU runs
 * and kernel text is writable, so the sites are written directly. Until
 * then imv_read() returns 0: early parameters must use _imv_read().
 */
void __init imv_init(void)
{
	struct imv_table t;
	int ret;

	imv_core_table(&t);
	cpus_read_lock();
	mutex_lock(&imv_mutex);
	ret = imv_table_init(&t);
	mutex_unlock(&imv_mutex);
	cpus_read_unlock();
	WARN(ret, "immediate values: cannot initialize the kernel's sites: %d\n", ret);
}

static bool imv_table_reserved(const struct imv_table *t, void *start, void *end)
{
	struct imv_entry *e;

	for (e = t->start; e < t->stop; e++) {
		u8 *insn = imv_entry_insn(e);

		if (insn <= (u8 *)end && insn + e->len > (u8 *)start &&
		    imv_entry_live(t, e))
			return true;
	}
	return false;
}

/**
 * imv_text_reserved() - check whether an address range overlaps a site
 * @start: first byte of the range
 * @end: last byte of the range
 *
 * Code that writes kernel text (kprobes) must leave imv_read() sites alone.
 *
 * Context: any context that may use RCU; takes no lock.
 * Return: 1 if the range overlaps a site, 0 otherwise.
 */
int imv_text_reserved(void *start, void *end)
{
	struct imv_module *im;
	struct imv_table t;
	int ret;

	imv_core_table(&t);
	ret = imv_table_reserved(&t, start, end);

	rcu_read_lock();
	list_for_each_entry_rcu(im, &imv_modules, list) {
		if (ret)
			break;
		imv_module_table(&t, im->mod);
		ret = imv_table_reserved(&t, start, end);
	}
	rcu_read_unlock();
	return ret;
}

/**
 * imv_get_sites() - list the imv_read() sites of a variable
 * @var: the variable behind the immediate value (&name##__imv)
 * @sites: filled with at most @max sites, kernel first, then modules
 * @max: the size of @sites
 *
 * Context: process context; takes imv_mutex.
 * Return: the number of live sites, which may exceed @max.
 */
int imv_get_sites(const void *var, struct imv_site *sites, unsigned int max)
{
	struct imv_table t;
	struct imv_entry *e;
	unsigned int n = 0;

	guard(mutex)(&imv_mutex);
	imv_first_table(&t);
	do {
		for (e = imv_table_find(&t, var); imv_entry_of(&t, e, var); e++) {
			if (!imv_entry_live(&t, e))
				continue;
			if (n < max) {
				sites[n].insn = imv_entry_insn(e);
				sites[n].len = e->len;
				sites[n].size = e->size;
			}
			n++;
		}
	} while (imv_next_table(&t));
	return n;
}
EXPORT_SYMBOL_GPL(imv_get_sites);

#ifdef CONFIG_MODULES

static int imv_module_coming(struct module *mod)
{
	struct imv_module *im;
	struct imv_table t;
	int ret;

	if (!mod->num_imv_entries)
		return 0;
	im = imv_alloc(sizeof(*im));
	if (!im)
		return -ENOMEM;
	imv_module_table(&t, mod);
	ret = imv_table_init(&t);
	if (ret) {
		kvfree(im);
		return ret;
	}
	im->mod = mod;
	list_add_rcu(&im->list, &imv_modules);
	return 0;
}

static void imv_module_going(struct module *mod)
{
	struct imv_module *im;

	list_for_each_entry(im, &imv_modules, list) {
		if (im->mod == mod) {
			list_del_rcu(&im->list);
			kfree_rcu(im, rcu);
			return;
		}
	}
}

static int imv_module_notify(struct notifier_block *self, unsigned long val,
			     void *data)
{
	struct module *mod = data;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&imv_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		ret = imv_module_coming(mod);
		if (ret)
			pr_warn("%s: cannot initialize immediate values: %d\n",
				mod->name, ret);
		break;
	case MODULE_STATE_GOING:
		imv_module_going(mod);
		break;
	case MODULE_STATE_LIVE:
	case MODULE_STATE_UNFORMED:
		break;
	}
	mutex_unlock(&imv_mutex);
	cpus_read_unlock();
	return notifier_from_errno(ret);
}

static struct notifier_block imv_module_nb = {
	.notifier_call = imv_module_notify,
	.priority = 1,	/* before tracepoints and markers, like jump labels */
};

static int __init imv_module_init(void)
{
	return register_module_notifier(&imv_module_nb);
}
early_initcall(imv_module_init);

#endif /* CONFIG_MODULES */
