// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 immediate values: the imv_read() sites of the kernel and of
 * modules (in site tables, see <linux/site_table.h>), and their updates
 * through poke_sites_apply().
 *
 * Under imv_mutex, the immediate of every live site equals its variable:
 * imv_init() makes it so for the kernel while it boots on one CPU, the
 * module notifier for each module before any of its code runs, and
 * imv_update_batch() keeps it so. Sites in init text are forgotten
 * before that text is freed (imv_free_init_mem(), MODULE_STATE_LIVE).
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
#include <linux/slab.h>

#include <asm/sections.h>
#include <asm/text_poke_bp.h>

static DEFINE_MUTEX(imv_mutex);

static void imv_module_entries(struct module *mod, struct site_entry **start,
			       struct site_entry **stop);

/* Every table sorted by variable, then by address. */
static struct site_tables imv_tables =
	SITE_TABLES_INIT(imv_tables, &imv_mutex, true, imv_module_entries, imv_alloc,
			 NULL);

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

static u64 imv_load(const void *var, unsigned int size)
{
	u64 value = 0;

	memcpy(&value, var, size);
	return value;
}

/* Describes the change of site @e from immediate @from to @to. */
static void imv_poke_init(struct poke_site *site, const struct site_entry *e,
			  u64 from, u64 to)
{
	u8 *insn = site_entry_code(e);
	unsigned int opcode_len = e->len - e->size;

	site->addr = insn;
	site->len = e->len;
	site->outcome = NULL;
	memcpy(site->old, insn, opcode_len);
	memcpy(site->old + opcode_len, &from, e->size);
	memcpy(site->new, insn, opcode_len);
	memcpy(site->new + opcode_len, &to, e->size);
}

/* A site of the variable of update @data, if it changes: the poke that does it. */
static unsigned int imv_collect_site(const struct site_table *t,
				     const struct site_entry *e, void *out,
				     void *data)
{
	const struct imv_update *u = data;
	u64 from = imv_load(u->var, u->size);

	if (from == u->value)
		return 0;
	if (out)
		imv_poke_init(out, e, from, u->value);
	return 1;
}

/* The pokes of @updates: counted if @sites is NULL. */
static unsigned int imv_collect(const struct imv_update *updates, unsigned int nr,
				struct poke_site *sites)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++)
		n += site_tables_walk_key(&imv_tables, NULL, updates[i].var,
					  imv_collect_site, (void *)&updates[i],
					  sites ? sites + n : NULL, sizeof(*sites));
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

	guard(cpus_read_lock)();
	guard(mutex)(&imv_mutex);
	n = imv_collect(updates, nr, NULL);
	if (n) {
		sites = imv_alloc(array_size(n, sizeof(*sites)));
		if (!sites)
			return -ENOMEM;
		imv_collect(updates, nr, sites);
		ret = poke_sites_apply(sites, n);
		kvfree(sites);
	}
	for (i = 0; !ret && i < nr; i++)
		imv_store(&updates[i]);
	return ret;
}
EXPORT_SYMBOL_GPL(imv_update_batch);

/* A site whose variable is not 0 gives the poke that writes its value. */
static unsigned int imv_collect_initial(const struct site_table *t,
					const struct site_entry *e, void *out,
					void *data)
{
	u64 value = imv_load(site_entry_key(e), e->size);

	if (!value)
		return 0;
	if (out)
		imv_poke_init(out, e, 0, value);
	return 1;
}

/* Writes the variables' values into a table's sites, which hold 0 as built. */
static int imv_table_init(struct site_table *t)
{
	struct poke_site *sites;
	unsigned int n;
	int ret;

	lockdep_assert_held(&imv_mutex);
	sites = site_tables_collect(&imv_tables, t, imv_collect_initial, NULL,
				    sizeof(*sites), &n);
	if (IS_ERR(sites))
		return PTR_ERR(sites);
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
	int ret;

	cpus_read_lock();
	mutex_lock(&imv_mutex);
	site_tables_init(&imv_tables, __start___imv, __stop___imv);
	ret = imv_table_init(&imv_tables.core);
	mutex_unlock(&imv_mutex);
	cpus_read_unlock();
	WARN(ret, "immediate values: cannot initialize the kernel's sites: %d\n", ret);
}

/**
 * imv_free_init_mem() - forget the sites in the kernel's init text
 *
 * Called before free_initmem(): no update writes them from now on.
 */
void imv_free_init_mem(void)
{
	guard(mutex)(&imv_mutex);
	site_tables_forget_init(&imv_tables, NULL);
}

/**
 * imv_text_reserved() - check whether an address range overlaps a site
 * @start: first byte of the range
 * @end: last byte of the range
 *
 * Code that writes kernel text (kprobes) must leave imv_read() sites alone.
 * The sites are found by address from the tables the kernel and modules
 * carry, never from the bytes at @start, which a switch may be rewriting.
 *
 * Context: any context where modules can be looked up; takes no lock.
 * Return: 1 if the range overlaps a site, 0 otherwise.
 */
int imv_text_reserved(void *start, void *end)
{
	return site_tables_reserved(&imv_tables, start, end);
}

/* A live site of the variable, listed in order. */
static unsigned int imv_collect_listed(const struct site_table *t,
				       const struct site_entry *e, void *out,
				       void *data)
{
	struct imv_site *site = out;

	if (site) {
		site->insn = site_entry_code(e);
		site->len = e->len;
		site->size = e->size;
	}
	return 1;
}

/**
 * imv_get_sites() - list the imv_read() sites of a variable
 * @var: the variable behind the immediate value (&name##__imv)
 * @sites: filled with at most @max sites, kernel first, then modules
 * @max: the size of @sites
 *
 * Context: process context; takes imv_mutex.
 * Return: the number of live sites, which may exceed @max; -ENOMEM.
 */
int imv_get_sites(const void *var, struct imv_site *sites, unsigned int max)
{
	struct imv_site *all;
	unsigned int n;

	guard(mutex)(&imv_mutex);
	n = site_tables_walk_key(&imv_tables, NULL, var, imv_collect_listed, NULL,
				 NULL, sizeof(*all));
	if (!sites || !n)
		return n;
	all = imv_alloc(array_size(n, sizeof(*all)));
	if (!all)
		return -ENOMEM;
	site_tables_walk_key(&imv_tables, NULL, var, imv_collect_listed, NULL, all,
			     sizeof(*all));
	memcpy(sites, all, array_size(min(n, max), sizeof(*all)));
	kvfree(all);
	return n;
}

static void imv_module_entries(struct module *mod, struct site_entry **start,
			       struct site_entry **stop)
{
	*start = mod->imv_entries;
	*stop = mod->imv_entries + mod->num_imv_entries;
}

#ifdef CONFIG_MODULES

static int imv_module_coming(struct module *mod)
{
	struct site_table *t;
	int ret;

	t = site_tables_add_module(&imv_tables, mod);
	if (IS_ERR_OR_NULL(t))
		return PTR_ERR_OR_ZERO(t);
	ret = imv_table_init(t);
	if (ret)
		site_tables_remove_module(&imv_tables, mod);
	return ret;
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
	case MODULE_STATE_LIVE:
		/* Its init function returned: its init text is about to go. */
		site_tables_forget_init(&imv_tables, mod);
		break;
	case MODULE_STATE_GOING:
		site_tables_remove_module(&imv_tables, mod);
		break;
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
