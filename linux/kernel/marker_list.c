// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel markers: listing them, and their patched sites and calls, for
 * tracers (tracefs' markers/list and markers/sites) and for tests.
 */

#include <linux/export.h>
#include <linux/slab.h>

#include "marker_internal.h"

/* Reports the markers of one table, one row per name, with their live sites. */
static int marker_report_table(struct site_table *t,
			       int (*fn)(const struct marker_info *info, void *data),
			       void *data)
{
	struct site_entry *site;
	struct marker_entry *e;
	int ret = 0;

	for (site = t->start; site < t->stop; site++) {
		e = marker_site_entry(site);
		if (e && site_entry_live(t, site) && !marker_entry_is_call(site))
			e->count++;
	}
	for (site = t->start; site < t->stop; site++) {
		struct marker_info info;

		e = marker_site_entry(site);
		if (!e || !e->count)
			continue;
		info = (struct marker_info) {
			.name = e->name,
			.format = e->format,
			.enabled = e->probes,
			.nr_probes = marker_probes_count(e->probes),
			.nr_sites = e->count,
			.module = t->mod,
			.has_sites = true,
		};
		/* Clear every count, even once @fn has asked to stop. */
		e->count = 0;
		e->listed = true;
		if (!ret)
			ret = fn(&info, data);
	}
	return ret;
}

/**
 * marker_walk() - report every marker
 * @fn: called with each marker; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * Reports the markers with live sites in the kernel, then those of each
 * module, then the others that have probes or no sites at all: a marker
 * whose only sites were in freed init text is still reported while it has
 * probes, with no sites, so that a tracer sees what it connected. @fn runs
 * under markers_mutex: it must not register or unregister probes.
 *
 * Context: process context; takes markers_mutex.
 * Return: 0, or what @fn returned to stop the walk.
 */
int marker_walk(int (*fn)(const struct marker_info *info, void *data), void *data)
{
	struct marker_entry *e;
	struct site_table *t;
	int bkt, ret = 0;

	guard(mutex)(&markers_mutex);
	for (t = site_tables_first(&marker_tables); t && !ret;
	     t = site_tables_next(&marker_tables, t))
		ret = marker_report_table(t, fn, data);
	/* Clear every flag, even once @fn has asked to stop. */
	hash_for_each(marker_names, bkt, e, hlist) {
		struct marker_info info = {
			.name = e->name,
			.format = e->format,
			.enabled = e->probes,
			.nr_probes = marker_probes_count(e->probes),
		};
		bool listed = e->listed;

		e->listed = false;
		if (!ret && !listed && (e->probes || !e->nr_sites))
			ret = fn(&info, data);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(marker_walk);

/* A live patched site, or recorded call, with the module it is in. */
struct marker_site_ref {
	const struct site_entry *site;
	struct module *mod;
};

/* What marker_collect_site() collects: the sites or the calls of an entry. */
struct marker_site_query {
	const struct marker_entry *e;
	bool calls;
};

/* A live patched site or call of the entry of @data, or of any entry. */
static unsigned int marker_collect_site(const struct site_table *t,
					const struct site_entry *site, void *out,
					void *data)
{
	const struct marker_site_query *q = data;
	struct marker_entry *e = marker_site_entry(site);
	struct marker_site_ref *ref = out;

	if (!e || !site_entry_code(site) || (q->e && e != q->e) ||
	    marker_entry_is_call(site) != q->calls)
		return 0;
	if (ref) {
		ref->site = site;
		ref->mod = t->mod;
	}
	return 1;
}

/* The live patched sites (or calls) of @e or of every entry, in a new array. */
static struct marker_site_ref *marker_sites_of(struct marker_entry *e, bool calls,
					       unsigned int *nr)
{
	struct marker_site_query q = { .e = e, .calls = calls };

	return site_tables_collect(&marker_tables, NULL, marker_collect_site, &q,
				   sizeof(struct marker_site_ref), nr);
}

/**
 * marker_walk_sites() - report every patched site
 * @fn: called with each live site; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * @fn runs under markers_mutex: it must not register or unregister probes.
 *
 * Context: process context; takes markers_mutex.
 * Return: 0, what @fn returned to stop the walk, or -ENOMEM.
 */
int marker_walk_sites(marker_site_fn *fn, void *data)
{
	struct marker_site_ref *refs;
	unsigned int i, n;
	int ret = 0;

	guard(mutex)(&markers_mutex);
	refs = marker_sites_of(NULL, false, &n);
	if (IS_ERR(refs))
		return PTR_ERR(refs);
	for (i = 0; i < n && !ret; i++)
		ret = fn(marker_site_entry(refs[i].site)->name,
			 site_entry_code(refs[i].site), refs[i].site->len,
			 refs[i].mod, data);
	kvfree(refs);
	return ret;
}
EXPORT_SYMBOL_GPL(marker_walk_sites);

/* The code of at most @max live sites or calls of @name, in @code. */
static int marker_get_code(const char *name, bool calls, void **code, unsigned int max)
{
	struct marker_site_ref *refs;
	struct marker_entry *e;
	unsigned int i, n;

	guard(mutex)(&markers_mutex);
	e = marker_entry_find(name);
	if (!e)
		return 0;
	refs = marker_sites_of(e, calls, &n);
	if (IS_ERR(refs))
		return PTR_ERR(refs);
	for (i = 0; i < n && i < max; i++)
		code[i] = site_entry_code(refs[i].site);
	kvfree(refs);
	return n;
}

/**
 * marker_get_sites() - list the patched sites of a marker
 * @name: the marker's name
 * @code: filled with the address of at most @max sites' jump slots
 * @max: the size of @code
 *
 * Context: process context; takes markers_mutex.
 * Return: the number of live patched sites, which may exceed @max; -ENOMEM.
 */
int marker_get_sites(const char *name, void **code, unsigned int max)
{
	return marker_get_code(name, false, code, max);
}
EXPORT_SYMBOL_GPL(marker_get_sites);

/**
 * marker_get_calls() - list the recorded calls of a marker's probe blocks
 * @name: the marker's name
 * @code: filled with the address of at most @max calls
 * @max: the size of @code
 *
 * A patched site has one: a call that goes straight to the marker's probe
 * while it has exactly one and that one is fast, to marker_probe_va_one()
 * while that one takes a va_list, to marker_probe_pair() or
 * marker_probe_triple() for two or three fast probes, and to an iterator
 * otherwise (see <linux/marker.h>).
 *
 * Context: process context; takes markers_mutex.
 * Return: the number of live recorded calls, which may exceed @max; -ENOMEM.
 */
int marker_get_calls(const char *name, void **code, unsigned int max)
{
	return marker_get_code(name, true, code, max);
}
EXPORT_SYMBOL_GPL(marker_get_calls);
