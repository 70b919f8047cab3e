// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel markers: the registry of marker names and their probes, the probe
 * API, the iterators that sites call, and the sites of the kernel and of
 * modules as they come and go.
 *
 * Every MARK() has a static struct marker; its sites, the copies of it in
 * the code, are recorded in __marker_sites. The registry has one
 * marker_entry per name: its format, its probes, whether its sites are
 * armed, and how many sites it has. A probe array is never changed once
 * published (but for the stub of marker_probes_remove()): a copy replaces
 * it, and the old one is freed after an RCU grace period, which is what
 * marker_synchronize_unregister() waits for.
 *
 * Switching a marker's sites and their calls is kernel/marker_switch.c,
 * which says how; listing markers and their sites is kernel/marker_list.c;
 * parsing a format into typed fields is kernel/marker_format.c.
 *
 * Removing a probe cannot fail for want of memory: a smaller probe array
 * that cannot be allocated becomes a stub in place (marker_probes_remove()),
 * and the switch that follows needs no memory either (see
 * kernel/marker_switch.c).
 *
 * The sites are kept in site tables (<linux/site_table.h>): sites in init
 * text are forgotten before that text is freed.
 *
 * Lock order: cpus_read_lock() -> markers_mutex -> text_mutex.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <kunit/static_stub.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/immediate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <asm/sections.h>

#include "marker_internal.h"

/* The registry: marker_names, their entries, their sites in marker_tables. */
DEFINE_MUTEX(markers_mutex);
DEFINE_HASHTABLE(marker_names, MARKER_NAMES_BITS);
/* marker_init() failed: markers stay off, every registration fails. */
static bool markers_disabled;

static void marker_module_entries(struct module *mod, struct site_entry **start,
				  struct site_entry **stop);
static void marker_orphans_attach(const char *name);

#ifdef CONFIG_MARKER_SITES
/*
 * What a site reserves beyond its bytes, for kprobes: every range that
 * starts before the entry of its probe block and reaches it. An optprobe's
 * jump there would take the first bytes of the block, into which the
 * site's branch goes, whatever the decoder of kprobes sees of that branch
 * (a near site that is off hides it in one NOP). A probe at the entry
 * itself, or a range that ends before it, leaves every target whole. The
 * block is found from the site's branch, which no switch writes.
 */
static bool marker_entry_reserves(const struct site_entry *e, u8 *first, u8 *last)
{
	u8 *block;

	if (marker_entry_is_call(e))
		return false;
	block = arch_marker_site_block(e);
	return block && first < block && block <= last;
}
#else
#define marker_entry_reserves	NULL
#endif

struct site_tables marker_tables =
	SITE_TABLES_INIT(marker_tables, &markers_mutex, false, marker_module_entries,
			 marker_alloc, marker_entry_reserves);

/**
 * marker_alloc() - allocate zeroed memory for the markers core
 * @size: how much
 *
 * Every allocation of the markers core and of the architecture's marker code
 * goes through here, so that the KUnit suite can make any one of them fail
 * (kunit_activate_static_stub()). Free with kvfree().
 *
 * Context: process context, may sleep.
 * Return: the memory, or NULL.
 */
void *marker_alloc(size_t size)
{
	KUNIT_STATIC_STUB_REDIRECT(marker_alloc, size);
	return kvzalloc(size, GFP_KERNEL);
}

static char *marker_strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy = marker_alloc(len);

	if (copy)
		memcpy(copy, s, len);
	return copy;
}

/* --- the registry ------------------------------------------------------- */

static u32 marker_hash(const char *name)
{
	return jhash(name, strlen(name), 0);
}

struct marker_entry *marker_entry_find(const char *name)
{
	struct marker_entry *e;

	hash_for_each_possible(marker_names, e, hlist, marker_hash(name))
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static struct marker_entry *marker_entry_get(const char *name)
{
	struct marker_entry *e = marker_entry_find(name);
	size_t len;

	if (e)
		return e;
	len = strlen(name) + 1;
	e = marker_alloc(struct_size(e, name, len));
	if (!e)
		return NULL;
	memcpy(e->name, name, len);
	/*
	 * The sites' @data starts as what marker_probe_va_one() reads, so
	 * that a marker's first va_list probe waits for no grace period:
	 * until the entry has a probe, its sites call the iterator, which
	 * ignores @data.
	 */
	e->data = &e->va_one;
	get_completed_synchronize_rcu_full(&e->data_gp);
	get_completed_synchronize_rcu_full(&e->va_one_gp);
	hash_add(marker_names, &e->hlist, marker_hash(name));
	return e;
}

/*
 * Frees @e once it has neither sites nor probes. The sites of its name
 * that were left off for another format than its own attach then: the
 * name is free again.
 */
static void marker_entry_put(struct marker_entry *e)
{
	if (e->nr_sites || e->probes)
		return;
	/* A CPU may still be in marker_probe_va_one(), reading @e->va_one. */
	cond_synchronize_rcu_full(&e->va_one_gp);
	hash_del(&e->hlist);
	if (e->nr_orphans)
		marker_orphans_attach(e->name);
	kvfree(e->format);
	kvfree(e);
}

/**
 * marker_name_valid() - check a marker name
 * @name: the name
 *
 * Return: true if @name is a C identifier of at most MARKER_NAME_MAX
 * characters, as every marker name is.
 */
bool marker_name_valid(const char *name)
{
	size_t i, len = strnlen(name, MARKER_NAME_MAX + 1);

	if (!len || len > MARKER_NAME_MAX || isdigit(name[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!marker_ident_char(name[i]))
			return false;
	return true;
}

/*
 * Attaches the sites [@start, @stop) to the entries of their names. A site
 * whose format differs from its name's is left off, counted in the entry's
 * @nr_orphans until the entry goes (marker_orphans_attach()). On error
 * *@stopped is the first site not attached.
 */
static int marker_sites_attach(struct site_entry *start, struct site_entry *stop,
			       struct site_entry **stopped)
{
	struct site_entry *site;

	for (site = start; site < stop; site++) {
		struct marker *m = marker_site_marker(site);
		struct marker_entry *e = m->entry;

		/* A call belongs to the site whose probe block it is in. */
		if (marker_entry_is_call(site))
			continue;
		if (!e) {
			e = marker_entry_get(m->name);
			if (!e)
				goto out_nomem;
			if (m->format && !e->format) {
				e->format = marker_strdup(m->format);
				if (!e->format) {
					marker_entry_put(e);
					goto out_nomem;
				}
			} else if (m->format && strcmp(m->format, e->format)) {
				pr_warn("%s: site %pS has format \"%s\", not \"%s\": left off\n",
					m->name, site_entry_code(site), m->format, e->format);
				e->nr_orphans++;
				continue;
			}
			m->entry = e;
			m->data = e->data;
		}
		e->nr_sites++;
	}
	return 0;

out_nomem:
	*stopped = site;
	return -ENOMEM;
}

/*
 * Undoes marker_sites_attach() of [@start, @stop), sites that are going:
 * marker_entries_trim() frees the entries they leave unused once their
 * table is out of the walks, where they would pass for sites left off.
 */
static void marker_sites_release(struct site_entry *start, struct site_entry *stop)
{
	struct marker_entry *e;
	struct site_entry *site;

	for (site = start; site < stop; site++) {
		if (marker_entry_is_call(site))
			continue;
		e = marker_site_entry(site);
		if (e) {
			e->nr_sites--;
			continue;
		}
		/* Left off: the entry of its name counts it. */
		e = marker_entry_find(marker_site_marker(site)->name);
		if (e && e->nr_orphans)
			e->nr_orphans--;
	}
	for (site = start; site < stop; site++)
		marker_site_marker(site)->entry = NULL;
}

/* Frees the entries that have neither sites nor probes. */
static void marker_entries_trim(void)
{
	struct marker_entry *e;
	struct hlist_node *tmp;
	int bkt;

	/* An entry that marker_orphans_attach() makes meanwhile has sites. */
	hash_for_each_safe(marker_names, bkt, tmp, e, hlist)
		marker_entry_put(e);
}

/*
 * Attaches the sites named @name that were left off for another format
 * than that of the name's entry, which has just gone (marker_entry_put()):
 * a module loaded again with a new format while a probe held the old one.
 * The first of them makes the name's entry anew, with its format; a site
 * of a third format is left off again, for that entry. They are off, as
 * marker_table_prepare() left them, and so is an entry without probes:
 * nothing is patched. Every site of @name is left off or attached by this
 * walk: the entry has gone, and with it the last site attached to it.
 */
static void marker_orphans_attach(const char *name)
{
	struct site_entry *site, *stopped;
	struct site_table *t;

	if (markers_disabled)
		return;
	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t)) {
		for (site = t->start; site < t->stop; site++) {
			if (marker_entry_is_call(site) ||
			    strcmp(marker_site_marker(site)->name, name))
				continue;
			if (marker_sites_attach(site, site + 1, &stopped)) {
				pr_warn("%s: no memory to attach the sites left off for another format: they stay off\n",
					name);
				return;
			}
		}
	}
}

/* --- probe arrays -------------------------------------------------------- */

/*
 * Left in place of a probe removed when no smaller array could be
 * allocated: a probe of each type keeps its type.
 */
static void marker_probe_stub(void *probe_private, void *call_private,
			      const char *fmt, va_list *args)
{
}

static void marker_fast_probe_stub(void *probe_private, void *call_private,
				   const struct marker *marker, ...)
{
}

bool marker_probe_is_stub(const struct marker_probe *p)
{
	return p->func == marker_probe_stub || p->fast == marker_fast_probe_stub;
}

unsigned int marker_probes_count(const struct marker_probes *probes)
{
	unsigned int i, n = 0;

	for (i = 0; probes && i < probes->nr; i++)
		n += !marker_probe_is_stub(&probes->probe[i]);
	return n;
}

bool marker_probe_match(const struct marker_probe *p, const struct marker_probe *probe)
{
	return p->func == probe->func && p->fast == probe->fast &&
	       p->probe_private == probe->probe_private;
}

/* The probe, whatever its type, for messages. */
static void *marker_probe_fn(const struct marker_probe *probe)
{
	return probe->func ? (void *)probe->func : (void *)probe->fast;
}

/* A copy of @old, without stubs and without @skip, with room for @extra more. */
static struct marker_probes *marker_probes_copy(const struct marker_probes *old,
						const struct marker_probe *skip,
						unsigned int extra)
{
	unsigned int i, n = marker_probes_count(old) - (skip ? 1 : 0);
	struct marker_probes *new;

	new = marker_alloc(struct_size(new, probe, n + extra));
	if (!new)
		return NULL;
	new->nr = 0;
	for (i = 0; old && i < old->nr; i++)
		if (&old->probe[i] != skip && !marker_probe_is_stub(&old->probe[i]))
			new->probe[new->nr++] = old->probe[i];
	return new;
}

/* A copy of @old with @probe added: ERR_PTR(-EBUSY) if it is there. */
static struct marker_probes *marker_probes_add(const struct marker_probes *old,
					       const struct marker_probe *probe)
{
	struct marker_probes *new;
	unsigned int i;

	for (i = 0; old && i < old->nr; i++)
		if (marker_probe_match(&old->probe[i], probe))
			return ERR_PTR(-EBUSY);
	new = marker_probes_copy(old, NULL, 1);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->probe[new->nr++] = *probe;
	return new;
}

/*
 * A copy of @old without the probe: NULL when it was the last one,
 * ERR_PTR(-ENOENT) when it is not there. Removal cannot fail for want of
 * memory: the probe is then stubbed out in place, and @old is returned.
 */
static struct marker_probes *marker_probes_remove(struct marker_probes *old,
						  const struct marker_probe *probe)
{
	struct marker_probes *new;
	unsigned int i;

	for (i = 0; old && i < old->nr; i++)
		if (marker_probe_match(&old->probe[i], probe))
			break;
	if (!old || i == old->nr)
		return ERR_PTR(-ENOENT);
	if (marker_probes_count(old) == 1)
		return NULL;
	new = marker_probes_copy(old, &old->probe[i], 0);
	if (new)
		return new;
	/* A concurrent marker_probe_iterate() sees the old or the stub function. */
	if (probe->fast)
		WRITE_ONCE(old->probe[i].fast, marker_fast_probe_stub);
	else
		WRITE_ONCE(old->probe[i].func, marker_probe_stub);
	return old;
}

static int marker_entry_remove_probe(struct marker_entry *e,
				     const struct marker_probe *probe)
{
	struct marker_probes *new;
	int ret = 0;

	new = marker_probes_remove(e->probes, probe);
	if (IS_ERR(new))
		return PTR_ERR(new);
	/*
	 * NULL: @probe was the last one. The array of @e itself: no memory for
	 * a copy, a stub took the place of @probe there, published already.
	 */
	if (!new)
		ret = marker_entry_clear_probes(e);
	else if (new != e->probes)
		ret = marker_entry_set_probes(e, new, true);
	if (ret) {
		/* Still connected: somebody else's breakpoint on a call */
		kvfree(new);
		return ret;
	}
	marker_entry_put(e);
	return 0;
}

/* The longest sleep of marker_breakpoint_wait(), in milliseconds. */
#define MARKER_BREAKPOINT_WAIT_MS	100

/*
 * Sleeps before try @tries + 1 of the removal of @probe, which somebody
 * else's breakpoint (a debugger's) on a call that goes straight to the
 * probe holds off: the call must leave the probe before anything the probe
 * uses may go, and only the breakpoint's owner can take it out, putting
 * back the instruction it replaced. Nothing is held meanwhile.
 */
static void marker_breakpoint_wait(const struct marker_probe *probe, unsigned int tries)
{
	if (!tries)
		pr_warn("a breakpoint holds a call to probe %ps: its removal waits for it to go\n",
			marker_probe_fn(probe));
	msleep(min(1U << min(tries, 7U), MARKER_BREAKPOINT_WAIT_MS));
}

/* --- the API ------------------------------------------------------------- */

/* Connects @probe to @name; see marker_probe_register(). */
static int marker_probe_connect(const char *name, const char *format,
				const struct marker_probe *probe)
{
	struct marker_probes *new;
	struct marker_entry *e;
	char *fmt = NULL;
	int ret;

	if (!name || !marker_probe_fn(probe) || !marker_name_valid(name))
		return -EINVAL;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	if (markers_disabled) {
		ret = -ENODEV;
		goto out_unlock;
	}
	e = marker_entry_get(name);
	if (!e) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	if (format && e->format && strcmp(format, e->format)) {
		pr_err("probe %ps: format \"%s\" differs from marker %s's \"%s\"\n",
		       marker_probe_fn(probe), format, name, e->format);
		ret = -EPERM;
		goto out_put;
	}
	if (format && !e->format) {
		fmt = marker_strdup(format);
		if (!fmt) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	new = marker_probes_add(e->probes, probe);
	if (IS_ERR(new)) {
		ret = PTR_ERR(new);
		goto out_free_fmt;
	}
	ret = marker_entry_set_probes(e, new, false);
	if (ret) {
		kvfree(new);
		goto out_free_fmt;
	}
	if (fmt)
		e->format = fmt;
	goto out_unlock;

out_free_fmt:
	kvfree(fmt);
out_put:
	marker_entry_put(e);
out_unlock:
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
	return ret;
}

/*
 * Disconnects @probe from @name; see marker_probe_unregister(). A try that
 * a breakpoint holds off changes nothing: the next one starts afresh.
 */
static int marker_probe_disconnect(const char *name, const struct marker_probe *probe)
{
	unsigned int tries = 0;
	struct marker_entry *e;
	int ret;

	if (!name || !marker_probe_fn(probe))
		return -EINVAL;

	for (;;) {
		cpus_read_lock();
		mutex_lock(&markers_mutex);
		e = marker_entry_find(name);
		ret = e ? marker_entry_remove_probe(e, probe) : -ENOENT;
		mutex_unlock(&markers_mutex);
		cpus_read_unlock();
		if (ret != -EBUSY)
			return ret;
		marker_breakpoint_wait(probe, tries++);
	}
}

/**
 * marker_probe_register() - connect a probe that takes a va_list to a marker
 * @name: the marker's name
 * @format: the format the probe expects, or NULL to take the marker's
 * @probe: the probe
 * @probe_private: data passed to @probe
 *
 * The marker's sites call @probe from now on, including those of modules
 * loaded later: a marker may be registered before any of its sites exists.
 * Several probes may be connected to one marker, of either type (see
 * marker_probe_register_fast()): its sites call them in the order they
 * were registered. The marker's format is held while it has probes or
 * sites: sites that come with another (a module rebuilt) are left off,
 * with a warning, and attach once the last probe and site of the old
 * format have gone.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 on success; -EINVAL for a NULL or malformed @name or a NULL
 * @probe; -EPERM if @format differs from the marker's; -EBUSY if @probe is
 * already connected with @probe_private; -ENOMEM; -ENODEV if markers could
 * not be set up at boot; or an error switching the sites. On error nothing
 * has changed.
 */
int marker_probe_register(const char *name, const char *format,
			  marker_probe_func *probe, void *probe_private)
{
	struct marker_probe p = { .func = probe, .probe_private = probe_private };

	return marker_probe_connect(name, format, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_register);

/**
 * marker_probe_unregister() - disconnect a probe that takes a va_list
 * @name: the marker's name
 * @probe: the probe
 * @probe_private: the data it was registered with
 *
 * The probe may still be running on other CPUs when this returns: call
 * marker_synchronize_unregister() before freeing what it uses. Removing a
 * connected probe does not fail. It needs no memory: when none can be
 * had, the sites stay on without probes until the next switch (a message
 * says so). While somebody else's breakpoint (a debugger's) sits on a call
 * that goes straight to the probe, it waits, holding no lock, for that
 * breakpoint to go (a message says so too).
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 once the probe is disconnected; -EINVAL for a NULL argument;
 * -ENOENT if the probe is not connected to @name. On error nothing has
 * changed.
 */
int marker_probe_unregister(const char *name, marker_probe_func *probe,
			    void *probe_private)
{
	struct marker_probe p = { .func = probe, .probe_private = probe_private };

	return marker_probe_disconnect(name, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_unregister);

/**
 * marker_probe_register_fast() - connect a probe that takes variadic arguments
 * @name: the marker's name
 * @format: the format the probe expects, or NULL to take the marker's
 * @probe: the probe
 * @probe_private: data passed to @probe
 *
 * As marker_probe_register(), for a probe of type marker_fast_probe_func,
 * which is called with the site's arguments themselves. The same function
 * registered with both calls is two probes.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: as marker_probe_register(). On error nothing has changed.
 */
int marker_probe_register_fast(const char *name, const char *format,
			       marker_fast_probe_func *probe, void *probe_private)
{
	struct marker_probe p = { .fast = probe, .probe_private = probe_private };

	return marker_probe_connect(name, format, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_register_fast);

/**
 * marker_probe_unregister_fast() - disconnect a probe that takes variadic arguments
 * @name: the marker's name
 * @probe: the probe
 * @probe_private: the data it was registered with
 *
 * As marker_probe_unregister(), for a probe registered with
 * marker_probe_register_fast().
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: as marker_probe_unregister().
 */
int marker_probe_unregister_fast(const char *name, marker_fast_probe_func *probe,
				 void *probe_private)
{
	struct marker_probe p = { .fast = probe, .probe_private = probe_private };

	return marker_probe_disconnect(name, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_unregister_fast);

/**
 * marker_probe_unregister_private_data() - disconnect a probe by its data
 * @probe: the probe, which takes a va_list
 * @probe_private: the data it was registered with
 *
 * Disconnects the first connection of @probe with @probe_private found,
 * whatever the marker.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 once the probe is disconnected, which waits as
 * marker_probe_unregister() does; -EINVAL for a NULL @probe; -ENOENT if
 * there is no such connection.
 */
int marker_probe_unregister_private_data(marker_probe_func *probe,
					 void *probe_private)
{
	struct marker_probe p = { .func = probe, .probe_private = probe_private };
	struct marker_entry *e;
	unsigned int i, tries = 0;
	int bkt, ret;

	if (!probe)
		return -EINVAL;

	for (;;) {
		ret = -ENOENT;
		cpus_read_lock();
		mutex_lock(&markers_mutex);
		hash_for_each(marker_names, bkt, e, hlist) {
			for (i = 0; e->probes && i < e->probes->nr; i++)
				if (marker_probe_match(&e->probes->probe[i], &p))
					break;
			if (e->probes && i < e->probes->nr) {
				ret = marker_entry_remove_probe(e, &p);
				break;
			}
		}
		mutex_unlock(&markers_mutex);
		cpus_read_unlock();
		if (ret != -EBUSY)
			return ret;
		marker_breakpoint_wait(&p, tries++);
	}
}
EXPORT_SYMBOL_GPL(marker_probe_unregister_private_data);

/**
 * marker_get_private_data() - the data a probe was registered with
 * @name: the marker's name
 * @probe: the probe, which takes a va_list
 * @num: which of @probe's connections to @name, from 0, in the order
 *	they were registered
 *
 * Context: process context; takes markers_mutex.
 * Return: the @probe_private of that connection, or ERR_PTR(-ENOENT).
 */
void *marker_get_private_data(const char *name, marker_probe_func *probe, int num)
{
	struct marker_entry *e;
	unsigned int i;

	if (!name || !probe || num < 0)
		return ERR_PTR(-ENOENT);

	guard(mutex)(&markers_mutex);
	e = marker_entry_find(name);
	for (i = 0; e && e->probes && i < e->probes->nr; i++)
		if (e->probes->probe[i].func == probe && !num--)
			return e->probes->probe[i].probe_private;
	return ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_GPL(marker_get_private_data);

/*
 * The arguments of a site, for fast probes: on a 64-bit architecture every
 * argument a format can take (an int, a long, a long long, a pointer) is
 * passed in one word, and a word passed on gives the probe's va_arg() of
 * the argument's own type what the site passed. Fetches the @nr_args of
 * @marker, zeroes the rest of the @n words a call passes on.
 */
static void marker_fetch_args(const struct marker *marker, va_list *args,
			      unsigned long *a, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		a[i] = i < marker->nr_args ? va_arg(*args, unsigned long) : 0;
}

/*
 * The probes of a marker that has several, or a fast one the site does not
 * call straight: a fast probe with the arguments passed on (in registers
 * only when the site passes at most three), a va_list probe with its own
 * copy. Out of line, so that the path of one va_list probe saves no
 * registers for this loop.
 */
static noinline void marker_call_probes(const struct marker *marker,
					const struct marker_probes *probes,
					void *call_private, va_list *args)
{
	unsigned int i, n = marker->nr_args <= 3 ? 3 : MARKER_MAX_ARGS;
	unsigned long a[MARKER_MAX_ARGS];
	bool fetched = false;
	va_list copy;

	for (i = 0; i < probes->nr; i++) {
		const struct marker_probe *p = &probes->probe[i];
		/* The probe or, once removed in place, the stub of its type. */
		marker_fast_probe_func *fast = READ_ONCE(p->fast);
		marker_probe_func *func = READ_ONCE(p->func);

		if (!fast) {
			va_copy(copy, *args);
			func(p->probe_private, call_private, marker->format, &copy);
			va_end(copy);
			continue;
		}
		if (!fetched) {
			va_copy(copy, *args);
			marker_fetch_args(marker, &copy, a, n);
			va_end(copy);
			fetched = true;
		}
		if (n == 3)
			fast(p->probe_private, call_private, marker, a[0], a[1], a[2]);
		else
			fast(p->probe_private, call_private, marker, a[0], a[1], a[2], a[3],
			     a[4], a[5], a[6], a[7]);
	}
}

/**
 * marker_probe_iterate() - call the probes of a marker; called by enabled sites
 * @data: unused here: the site's data for a probe it calls directly
 * @call_private: the site's data for the probes
 * @marker: the site's marker
 * @...: the site's arguments, as its format gives them
 *
 * Calls every probe, in the order they were registered: a fast probe with
 * the arguments, a va_list probe with a copy of them each. One va_list
 * probe is called without walking the array.
 *
 * Its va_list is its only local whose address is taken, and va_start()
 * writes all of it before a probe reads it: neither the stack protector's
 * canary nor the zeroing of CONFIG_INIT_STACK_ALL_ZERO guards anything
 * here, and they cost nine of the instructions of a hit.
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
notrace void __no_stack_protector marker_probe_iterate(void *data, void *call_private,
						       const struct marker *marker, ...)
{
	va_list args __uninitialized;
	const struct marker_probes *probes;
	marker_probe_func *func;

	probes = rcu_dereference_sched(marker->probes);
	if (unlikely(!probes))
		return;
	va_start(args, marker);
	func = READ_ONCE(probes->probe[0].func);
	if (likely(probes->nr == 1 && func))
		func(probes->probe[0].probe_private, call_private, marker->format, &args);
	else
		marker_call_probes(marker, probes, call_private, &args);
	va_end(args);
}
EXPORT_SYMBOL(marker_probe_iterate);

/**
 * marker_probe_va_one() - call the only probe of a marker, a va_list one
 * @data: the &struct marker_probe that the marker's registry entry keeps
 *	for it
 * @call_private: the site's data for the probe
 * @marker: the site's marker
 * @...: the site's arguments, as its format gives them
 *
 * No site calls this function by name: the registry points the recorded
 * calls of a marker's sites here while its one probe takes a va_list, and
 * gives them @data, as it does for marker_probe_pair(). It does what
 * marker_probe_iterate() does for one va_list probe, without reading the
 * marker's array, its count and the probe's type on each hit. Variadic and
 * written in C, it takes any number of arguments, on the stack too, and its
 * indirect call carries kCFI's check. Its va_list is left uninitialized
 * for the reason marker_probe_iterate() gives.
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
notrace void __no_stack_protector marker_probe_va_one(void *data, void *call_private,
						      const struct marker *marker, ...)
{
	va_list args __uninitialized;
	const struct marker_probe *p = data;
	marker_probe_func *func = READ_ONCE(p->func);

	va_start(args, marker);
	func(READ_ONCE(p->probe_private), call_private, marker->format, &args);
	va_end(args);
}

/* A va_list probe, given arguments passed on as words. */
static void notrace marker_call_va(marker_probe_func *func, void *probe_private,
				   void *call_private, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	func(probe_private, call_private, format, &args);
	va_end(args);
}

/**
 * marker_probe_iterate_regs() - call the probes of a marker whose sites pass
 *	their arguments in registers
 * @data: unused here: the site's data for a probe it calls directly
 * @call_private: the site's data for the probes
 * @marker: the site's marker
 * @a0: its first argument, if it passes one
 * @a1: its second argument, if it passes two
 * @a2: its third argument, if it passes three
 *
 * No site calls this function by name: the registry points the recorded
 * call of an armed site here, rather than at marker_probe_iterate(), when
 * its probes are all fast, none is called straight and the site passes at
 * most MARKER_REG_ARGS arguments. On the architectures that record calls, a variadic call
 * passes those in the registers that this prototype names, so they reach
 * the probes without a va_list: a fast probe gets them as they came, a
 * va_list probe a va_list of them. An argument narrower than a word comes
 * with undefined upper bits, which the probes' va_arg() of its type does
 * not read; nor do they read the words beyond the site's arguments.
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
void notrace marker_probe_iterate_regs(void *data, void *call_private,
				       const struct marker *marker,
				       unsigned long a0, unsigned long a1, unsigned long a2)
{
	const struct marker_probes *probes;
	const struct marker_probe *p, *end;

	probes = rcu_dereference_sched(marker->probes);
	if (unlikely(!probes))
		return;
	for (p = probes->probe, end = p + probes->nr; p < end; p++) {
		/* The probe or, once removed in place, the stub of its type. */
		marker_fast_probe_func *fast = READ_ONCE(p->fast);

		/*
		 * A va_list probe is only met by a site that was on its way
		 * here when its calls went back to marker_probe_iterate(),
		 * and the probe was published right after.
		 */
		if (likely(fast))
			fast(p->probe_private, call_private, marker, a0, a1, a2);
		else
			marker_call_va(READ_ONCE(p->func), p->probe_private, call_private,
				       marker->format, a0, a1, a2);
	}
}

/**
 * marker_text_reserved() - check whether an address range overlaps a site
 * @start: first byte of the range
 * @end: last byte of the range
 *
 * Code that writes kernel text (kprobes) must leave marker sites alone,
 * from the jump slot to the end of the conditional branch, and the
 * recorded calls of their probe blocks; nor may a range reach from before
 * the entry of a site's probe block into it, as an optprobe's jump would.
 * The sites are found by address from the tables the kernel and modules
 * carry, never from the bytes at @start, which a switch may be rewriting;
 * a module's sites are reserved from the moment its text is, before it
 * comes.
 *
 * Context: any context where modules can be looked up; takes no lock.
 * Return: 1 if the range overlaps a patched site, a recorded call, or the
 * entry of a probe block that it does not start at; 0 otherwise.
 */
int marker_text_reserved(void *start, void *end)
{
	return site_tables_reserved(&marker_tables, start, end);
}

/**
 * marker_init() - register the kernel's markers and switch their sites off
 *
 * Called by start_kernel() after imv_init(), while one CPU runs and kernel
 * text is writable, so the sites are written directly. Until then they run
 * the pattern with the immediate 0: correct, just not yet in their off
 * state. If that fails, markers are off for good: the sites stay as built
 * and never call a probe, and every registration fails with -ENODEV.
 */
void __init marker_init(void)
{
	struct site_entry *stopped;
	struct site_table *t;
	int ret;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	site_tables_init(&marker_tables, __start___marker_sites, __stop___marker_sites);
	t = &marker_tables.core;
	ret = marker_sites_attach(t->start, t->stop, &stopped);
	if (!ret) {
		ret = marker_table_prepare(t);
		stopped = t->stop;
	}
	if (ret) {
		/* Before the entries go: no site is attached again. */
		markers_disabled = true;
		marker_sites_release(t->start, stopped);
		marker_entries_trim();
		pr_err("disabled: cannot prepare the kernel's sites: %d\n", ret);
	}
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
}

/**
 * marker_free_init_mem() - forget the sites in the kernel's init text
 *
 * Called before free_initmem(): no switch writes them from now on, and
 * neither the list nor the sites report them.
 */
void marker_free_init_mem(void)
{
	guard(mutex)(&markers_mutex);
	site_tables_forget_init(&marker_tables, NULL);
}

static void marker_module_entries(struct module *mod, struct site_entry **start,
				  struct site_entry **stop)
{
	*start = mod->marker_sites;
	*stop = mod->marker_sites + mod->num_marker_sites;
}

#ifdef CONFIG_MODULES

static int marker_module_coming(struct module *mod)
{
	struct site_entry *stopped;
	struct site_table *t;
	int ret;

	if (markers_disabled)
		return 0;
	t = site_tables_add_module(&marker_tables, mod);
	if (IS_ERR_OR_NULL(t))
		return PTR_ERR_OR_ZERO(t);
	ret = marker_sites_attach(t->start, t->stop, &stopped);
	if (!ret) {
		ret = marker_table_prepare(t);
		stopped = t->stop;
	}
	if (ret) {
		marker_sites_release(t->start, stopped);
		site_tables_remove_module(&marker_tables, mod);
		marker_entries_trim();
	}
	return ret;
}

static void marker_module_going(struct module *mod)
{
	struct site_table *t = site_tables_find_module(&marker_tables, mod);

	if (!t)
		return;
	marker_sites_release(t->start, t->stop);
	site_tables_remove_module(&marker_tables, mod);
	marker_entries_trim();
}

static int marker_module_notify(struct notifier_block *self, unsigned long val,
				void *data)
{
	struct module *mod = data;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		ret = marker_module_coming(mod);
		if (ret)
			pr_warn("%s: cannot prepare the module's markers: %d\n",
				mod->name, ret);
		break;
	case MODULE_STATE_LIVE:
		/* Its init function returned: its init text is about to go. */
		site_tables_forget_init(&marker_tables, mod);
		break;
	case MODULE_STATE_GOING:
		marker_module_going(mod);
		break;
	case MODULE_STATE_UNFORMED:
		break;
	}
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
	return notifier_from_errno(ret);
}

static struct notifier_block marker_module_nb = {
	.notifier_call = marker_module_notify,
};

static int __init marker_module_init(void)
{
	return register_module_notifier(&marker_module_nb);
}
early_initcall(marker_module_init);

#endif /* CONFIG_MODULES */
