// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel markers: switching the sites of a marker and their calls.
 *
 * Switching a marker changes the jump slots of its near sites and the
 * guards' immediates of its far sites in one batch of the architecture
 * (arch_marker_switch()), then the @enabled of each of its struct markers,
 * which marker_enabled() reads:
 *
 *	0 -> N probes:	arm the sites, then publish the probes;
 *	N -> M probes:	publish the new probes;
 *	N -> 0 probes:	publish NULL, then disarm the sites.
 *
 * An armed site without probes calls marker_probe_iterate(), which finds
 * none.
 * So a failure to arm changes nothing, and a failure to disarm leaves the
 * sites armed, which is a state like any other: the next switch goes on
 * from there. Invariant, under markers_mutex: an entry with probes is
 * armed, and every live site of an entry is in the state @armed says.
 *
 * The probe block of a patched site makes a recorded call
 * (MARKER_ENTRY_CALL), which goes straight to the marker's probe while it
 * has one probe and that one is fast; to marker_probe_va_one() while its
 * one probe takes a va_list; to marker_probe_pair() or
 * marker_probe_triple() while it has two or three fast probes and the site
 * passes at most MARKER_REG_ARGS arguments; to marker_probe_iterate_regs()
 * while the site is armed for more probes that are all fast and passes at
 * most MARKER_REG_ARGS arguments; and to marker_probe_iterate(), which it
 * was built to call, otherwise. The last two are "the iterator" below: both
 * call every probe, and neither reads @data. The call passes @data of its
 * struct marker first: the probe's @probe_private, the copy of the probe
 * that marker_probe_va_one() calls (the registry entry's @va_one, which
 * changes under the same rule as @data, and keeps its address), or the
 * struct marker_probes that marker_probe_pair() or marker_probe_triple()
 * calls. So
 * @data and the call's target must agree for a site that reads one and then
 * makes the other: @data only changes while the calls go to the iterator,
 * and the calls only go straight a grace period after @data last changed (as
 * tracepoints do with their static calls). The calls go back to the iterator
 * in the batch that removes a probe they go straight to, so that a site
 * whose task was preempted between its jump slot and its call finds no probe
 * once marker_synchronize_unregister() has returned:
 *
 *	0 -> S:		@data, wait, arm the sites with the calls direct;
 *	S -> N:		calls to the iterator, then publish the probes;
 *	N -> S:		publish, @data, wait, calls direct;
 *	1 -> 0:		disarm with the calls to the iterator, then
 *			publish NULL.
 *
 * S is a set of probes that the calls go straight for: one probe, or two or
 * three fast ones. N is any other set, S with other data included: the
 * calls pass through the iterator from one direct target to the next.
 *
 * The target of a site's recorded call, and the steps between targets:
 *
 *	marker_probe_iterate()  <---------------->  marker_probe_iterate_regs()
 *	as built; off; a va_list    all fast:       armed for 4 or more probes,
 *	probe among others; more    publish, then   all fast, at most
 *	than MARKER_REG_ARGS args   calls; back     MARKER_REG_ARGS arguments
 *	                            before a va_list
 *	                            probe is published
 *	           |    ^                                   |    ^
 *	   @data,  |    |  in the batch that removes or     |    |
 *	   wait a  |    |  replaces what they go to, before |    |
 *	   grace   |    |  anything is published or freed   |    |
 *	   period  v    |                                   v    |
 *	+--------------------------------------------------------------------+
 *	| straight: the one fast probe (@data is its @probe_private), or     |
 *	| marker_probe_va_one() for one va_list probe (@data is its copy),   |
 *	| or marker_probe_pair() or marker_probe_triple() for two or three   |
 *	| fast probes (@data is their array)                                 |
 *	+--------------------------------------------------------------------+
 *
 * Which iterator only matters for speed: marker_probe_iterate_regs() gets
 * the calls after the probes that are all fast are published, and gives
 * them back before a va_list probe is.
 *
 * A removal needs no memory: when the batch that sends the calls back to
 * the iterator cannot be allocated, marker_entry_retreat_calls() sends them
 * a few at a time from the stack, before anything is published or freed.
 * Sites that cannot be disarmed stay armed without probes. The one error
 * left is a breakpoint of somebody else (a debugger's; kprobes refuse sites)
 * on a call that goes straight to the probe: then the removal fails with
 * -EBUSY, nothing is freed, and marker_probe_unregister() tries again until
 * the breakpoint has gone.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <linux/immediate.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "marker_internal.h"

/*
 * A switch of sites: those of one entry (@e) from @from to @on, their calls
 * from the target that @e's state gives to that of @regs and @direct; or,
 * with @e NULL, those of a table that comes, from MARKER_SITE_BUILT (calls
 * to marker_probe_iterate()) to the state of their entries.
 */
struct marker_switch {
	const struct marker_entry *e;
	enum marker_site_state from;
	bool on;
	bool regs;
	marker_fast_probe_func *direct;
};

/*
 * What the recorded calls of the sites of @m go to: @direct, the only probe
 * if it is a fast one, marker_probe_va_one() if it takes a va_list, or
 * marker_probe_pair() or marker_probe_triple() for two or three fast
 * probes if @m passes its arguments in registers;
 * otherwise, while they are @armed for probes that are all fast (@regs)
 * and pass their arguments in registers, marker_probe_iterate_regs();
 * otherwise the function they were built to call, which is cheaper for
 * va_list probes among others.
 */
static void *marker_call_target(const struct marker *m, bool armed, bool regs,
				marker_fast_probe_func *direct)
{
	/*
	 * The pair and the triple pass on the argument registers only; only
	 * an architecture with recorded calls has them.
	 */
	if (IS_ENABLED(CONFIG_MARKER_SITES) && m->nr_args > MARKER_REG_ARGS &&
	    (direct == marker_probe_pair || direct == marker_probe_triple))
		return marker_probe_iterate;
	if (direct)
		return direct;
	if (armed && regs && m->nr_args <= MARKER_REG_ARGS)
		return marker_probe_iterate_regs;
	return marker_probe_iterate;
}

/* Whether @sw switches the sites of @m, and whether it switches them on. */
static bool marker_switch_wants(const struct marker_switch *sw,
				const struct marker *m, bool *on)
{
	if (sw->e) {
		*on = sw->on;
		return m->entry == sw->e;
	}
	*on = m->entry && m->entry->armed;
	return true;
}

/* A live site that @data switches. */
static unsigned int marker_collect_switched(const struct site_table *t,
					    const struct site_entry *site,
					    void *out, void *data)
{
	const struct site_entry **switched = out;
	bool on;

	if (!marker_switch_wants(data, marker_site_marker(site), &on))
		return 0;
	if (switched)
		*switched = site;
	return 1;
}

static int marker_update_cmp(const void *a, const void *b)
{
	const struct imv_update *x = a, *y = b;

	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return 0;
}

/*
 * Orders @updates (of distinct markers) by variable, which the
 * immediate-values API checks in linear time. They come in the order of
 * the markers' first sites, mostly that of the markers themselves.
 */
static void marker_updates_sort(struct imv_update *updates, unsigned int n)
{
	unsigned int i;

	for (i = 1; i < n; i++)
		if (updates[i - 1].var > updates[i].var)
			break;
	if (i < n)
		sort(updates, n, sizeof(*updates), marker_update_cmp, NULL);
}

/* The arrays of one switch, each as long as the entries collected. */
struct marker_switch_plan {
	struct marker_site_change *changes;
	struct imv_update *updates;
	struct marker_call_change *calls;
	unsigned int nr_changes;
	unsigned int nr_updates;
	unsigned int nr_calls;
};

/* Adds the change of the call @site to @plan, if it changes. */
static void marker_plan_call(const struct marker_switch *sw, const struct site_entry *site,
			     struct marker_switch_plan *plan)
{
	const struct marker *m = marker_site_marker(site);
	struct marker_entry *e = marker_site_entry(site);
	void *from, *to;

	if (sw->e) {
		from = marker_call_target(m, sw->e->armed, sw->e->regs, sw->e->direct);
		to = marker_call_target(m, sw->on, sw->regs, sw->direct);
	} else {
		/* A site that is left off keeps the call it was built with. */
		from = marker_call_target(m, false, false, NULL);
		to = e ? marker_call_target(m, e->armed, e->regs, e->direct) : from;
	}
	if (from != to)
		plan->calls[plan->nr_calls++] = (struct marker_call_change) {
			.site = site,
			.from = from,
			.to = to,
		};
}

/*
 * The changes of the patched sites and calls among @sites, and the new
 * @enabled of their markers (once each), as @sw switches them.
 */
static void marker_switch_plan(const struct marker_switch *sw,
			       const struct site_entry **sites, unsigned int n,
			       struct marker_switch_plan *plan)
{
	struct marker_site_change *changes = plan->changes;
	struct imv_update *updates = plan->updates;
	unsigned int *nr_changes = &plan->nr_changes;
	unsigned int *nr_updates = &plan->nr_updates;
	unsigned int i;
	bool on;

	*nr_changes = 0;
	*nr_updates = 0;
	plan->nr_calls = 0;
	for (i = 0; i < n; i++) {
		struct marker *m = marker_site_marker(sites[i]);

		if (marker_entry_is_call(sites[i])) {
			marker_plan_call(sw, sites[i], plan);
			continue;
		}
		marker_switch_wants(sw, m, &on);
		if (site_entry_code(sites[i]))
			changes[(*nr_changes)++] = (struct marker_site_change) {
				.site = sites[i],
				.from = sw->from,
				.to = on ? MARKER_SITE_ON : MARKER_SITE_OFF,
			};
		/* A marker with several sites: its update once. */
		if (m->enabled != on && !m->planned) {
			m->planned = true;
			updates[(*nr_updates)++] = (struct imv_update) {
				.var = &m->enabled,
				.value = on,
				.size = sizeof(m->enabled),
			};
		}
	}
	for (i = 0; i < *nr_updates; i++)
		container_of((u8 *)updates[i].var, struct marker, enabled)->planned = false;
	marker_updates_sort(updates, *nr_updates);
}

/*
 * Switches the sites and markers that @sw names, in table @only or in all,
 * in one batch; nothing changes on error.
 */
static int marker_switch_apply(const struct marker_switch *sw,
			       const struct site_table *only)
{
	struct marker_switch_plan plan;
	const struct site_entry **sites;
	int ret = -ENOMEM;
	unsigned int n;

	lockdep_assert_held(&markers_mutex);
	sites = site_tables_collect(&marker_tables, only, marker_collect_switched,
				    (void *)sw, sizeof(*sites), &n);
	if (IS_ERR(sites))
		return PTR_ERR(sites);
	if (!n)
		return 0;
	plan.changes = marker_alloc(array_size(n, sizeof(*plan.changes)));
	plan.updates = marker_alloc(array_size(n, sizeof(*plan.updates)));
	plan.calls = marker_alloc(array_size(n, sizeof(*plan.calls)));
	if (plan.changes && plan.updates && plan.calls) {
		marker_switch_plan(sw, sites, n, &plan);
		ret = arch_marker_switch(plan.updates, plan.nr_updates, plan.changes,
					 plan.nr_changes, plan.calls, plan.nr_calls);
	}
	kvfree(plan.calls);
	kvfree(plan.updates);
	kvfree(plan.changes);
	kvfree(sites);
	return ret;
}

/*
 * Records what the calls of @e go straight to now, and when they last went
 * to marker_probe_va_one(): the probe that it reads in @e changes only a
 * grace period after.
 */
static void marker_entry_set_direct(struct marker_entry *e, marker_fast_probe_func *direct)
{
	if (e->direct == marker_probe_va_one && direct != marker_probe_va_one)
		get_state_synchronize_rcu_full(&e->va_one_gp);
	e->direct = direct;
}

/*
 * Arms (@on) or disarms every live site of @e and points their calls at
 * @direct or, without one, at the iterator that @regs chooses, in one
 * batch.
 */
static int marker_entry_switch(struct marker_entry *e, bool on, bool regs,
			       marker_fast_probe_func *direct)
{
	struct marker_switch sw = {
		.e = e,
		.from = e->armed ? MARKER_SITE_ON : MARKER_SITE_OFF,
		.on = on,
		.regs = regs,
		.direct = direct,
	};
	int ret;

	ret = marker_switch_apply(&sw, NULL);
	if (!ret) {
		e->armed = on;
		e->regs = regs;
		marker_entry_set_direct(e, direct);
	}
	return ret;
}

/* How many calls marker_entry_retreat_calls() sends back per batch. */
#define MARKER_RETREAT_CHUNK	8

/*
 * Sends the calls of @e back to the iterator without allocating, a few per
 * batch: for when the batch that should have done it could not be
 * allocated. A call that is back already is left alone (it does not hold
 * what arch_marker_switch() expects), so after an error a second try takes
 * up where the first stopped; meanwhile the calls that went back call every
 * published probe, as the others do.
 */
static int marker_entry_retreat_calls(struct marker_entry *e)
{
	struct marker_call_change calls[MARKER_RETREAT_CHUNK];
	unsigned int n = 0;
	struct site_entry *site;
	struct site_table *t;
	int ret;

	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t)) {
		for (site = t->start; site < t->stop; site++) {
			const struct marker *m = marker_site_marker(site);

			if (!marker_entry_is_call(site) || marker_site_entry(site) != e ||
			    !site_entry_live(t, site))
				continue;
			calls[n] = (struct marker_call_change) {
				.site = site,
				.from = marker_call_target(m, e->armed, e->regs, e->direct),
				.to = marker_call_target(m, e->armed, false, NULL),
			};
			if (calls[n].from != calls[n].to)
				n++;
			if (n < ARRAY_SIZE(calls))
				continue;
			ret = arch_marker_switch(NULL, 0, NULL, 0, calls, n);
			if (ret)
				return ret;
			n = 0;
		}
	}
	ret = n ? arch_marker_switch(NULL, 0, NULL, 0, calls, n) : 0;
	if (!ret) {
		e->regs = false;
		marker_entry_set_direct(e, NULL);
	}
	return ret;
}

/* Whether marker_probe_va_one() would call @va (if any) with @e's data. */
static bool marker_entry_va_one_is(const struct marker_entry *e,
				   const struct marker_probe *va)
{
	return !va || marker_probe_match(&e->va_one, va);
}

/*
 * Gives the struct markers of @e the @data their calls pass, with @va the
 * probe that marker_probe_va_one() reads there if they are to go to it, and
 * waits until no site can still be on its way to a call with the @data of
 * before. @e keeps that probe from one registration to the next, so the
 * calls of a marker whose one va_list probe comes and goes go straight
 * without a grace period; a new probe there waits for one since the calls
 * last went to marker_probe_va_one().
 */
static void marker_entry_set_data(struct marker_entry *e, void *data,
				  const struct marker_probe *va)
{
	struct site_entry *site;
	struct site_table *t;

	lockdep_assert_held(&markers_mutex);
	if (!marker_entry_va_one_is(e, va)) {
		WARN_ON_ONCE(e->direct == marker_probe_va_one);
		cond_synchronize_rcu_full(&e->va_one_gp);
		WRITE_ONCE(e->va_one.func, va->func);
		WRITE_ONCE(e->va_one.probe_private, va->probe_private);
	}
	if (e->data != data) {
		/* Only the iterator, which ignores it, reads @data meanwhile. */
		WARN_ON_ONCE(e->direct);
		for (t = site_tables_first(&marker_tables); t;
		     t = site_tables_next(&marker_tables, t))
			for (site = t->start; site < t->stop; site++)
				if (marker_site_entry(site) == e)
					WRITE_ONCE(marker_site_marker(site)->data, data);
		e->data = data;
		get_state_synchronize_rcu_full(&e->data_gp);
	}
	cond_synchronize_rcu_full(&e->data_gp);
}

/* Makes every site of @e call through its current probes. */
static void marker_entry_publish(struct marker_entry *e)
{
	struct site_table *t;
	struct site_entry *site;

	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t))
		for (site = t->start; site < t->stop; site++)
			if (marker_site_entry(site) == e)
				rcu_assign_pointer(marker_site_marker(site)->probes, e->probes);
}

/*
 * Whether @probes are all fast, for the pair, the triple and
 * marker_probe_iterate_regs().
 */
static bool marker_probes_all_fast(const struct marker_probes *probes)
{
	unsigned int i;

	if (!probes)
		return false;
	for (i = 0; i < probes->nr; i++)
		if (!probes->probe[i].fast)
			return false;
	return true;
}

/*
 * What the calls of the sites of @e can go straight to for @probes, with the
 * @data it reads: the only probe, if it is a fast one, with its
 * @probe_private, or marker_probe_va_one() with @e->va_one, to hold that
 * probe (@va), if it takes a va_list; or marker_probe_pair() or
 * marker_probe_triple() with @probes, if they are two or three fast probes.
 */
static marker_fast_probe_func *marker_probes_direct(struct marker_entry *e,
						    const struct marker_probes *probes,
						    void **data,
						    const struct marker_probe **va)
{
	const struct marker_probe *p = NULL;
	unsigned int i, n = marker_probes_count(probes);

	/* Without recorded calls, nothing to go straight: no grace period. */
	if (!IS_ENABLED(CONFIG_MARKER_SITES))
		return NULL;
	/*
	 * The pair and the triple call the probes from assembly, without the
	 * type hash that kCFI (and FineIBT, which checks it in the callee)
	 * wants: with MARKER_KCFI the iterators call them. They call the
	 * first two or three entries of @probes, which must be all of them,
	 * with no stub of a probe removed in place among them.
	 */
	if (!MARKER_KCFI && (n == 2 || n == 3) && probes->nr == n &&
	    marker_probes_all_fast(probes)) {
		*data = (void *)probes;
		return n == 2 ? marker_probe_pair : marker_probe_triple;
	}
	if (n != 1)
		return NULL;
	for (i = 0; i < probes->nr; i++)
		if (!marker_probe_is_stub(&probes->probe[i]))
			p = &probes->probe[i];
	if (!p->fast) {
		*data = &e->va_one;
		*va = p;
		return marker_probe_va_one;
	}
	*data = p->probe_private;
	return p->fast;
}

/*
 * Sends the calls of @e to the iterator, for probes that their straight
 * target or marker_probe_iterate_regs() would not all call, before those
 * probes are published. For a removal (@removing), a batch that cannot be
 * allocated is no failure: marker_entry_retreat_calls() does it then.
 */
static int marker_entry_calls_to_iterator(struct marker_entry *e, bool regs, bool removing)
{
	int ret = marker_entry_switch(e, true, regs, NULL);

	if (ret && removing)
		ret = marker_entry_retreat_calls(e);
	return ret;
}

/*
 * Makes @new the probes of @e; frees the old ones after a grace period.
 * Fails, changing nothing, when arming the sites fails, or sending their
 * calls to an iterator for all of @new before it is published; for a
 * removal (@removing), only when somebody else's breakpoint is on a call.
 * A failure to send the calls straight to the only probe left, or to
 * marker_probe_pair() or the iterator of fast probes, leaves them with an
 * iterator that calls them too.
 */
int marker_entry_set_probes(struct marker_entry *e, struct marker_probes *new,
			    bool removing)
{
	struct marker_probes *old = e->probes;
	const struct marker_probe *va = NULL;
	marker_fast_probe_func *direct;
	void *data = NULL;
	bool regs;
	int ret;

	lockdep_assert_held(&markers_mutex);
	direct = marker_probes_direct(e, new, &data, &va);
	regs = !direct && marker_probes_all_fast(new);
	/* Straight calls to come: @data early, while only iterators run */
	if (direct && !e->direct)
		marker_entry_set_data(e, data, va);

	if (!e->armed) {
		/* 0 -> N: arm, then publish */
		ret = marker_entry_switch(e, true, regs, direct);
		if (ret)
			return ret;
	} else if ((e->direct && (direct != e->direct || data != e->data ||
				  !marker_entry_va_one_is(e, va))) ||
		   (e->regs && !marker_probes_all_fast(new))) {
		/*
		 * Leaving straight calls (which read @data), or fast -> with a
		 * va_list probe: the iterator for the new probes, then publish
		 */
		ret = marker_entry_calls_to_iterator(e, regs, removing);
		if (ret)
			return ret;
	}
	e->probes = new;
	marker_entry_publish(e);
	if (old)
		kfree_rcu(old, rcu);
	/* -> straight or all fast: published, @data, then the calls */
	if (direct != e->direct || regs != e->regs) {
		if (direct)
			marker_entry_set_data(e, data, va);
		marker_entry_switch(e, true, regs, direct);
	}
	return 0;
}

/*
 * Removes the last probe of @e. Calls that go straight to it read no probe
 * array: they go back to the iterator, with the sites disarmed, before the
 * probes are unpublished; other sites are disarmed after. Sites that cannot
 * be disarmed stay armed without probes, which is harmless: the next switch
 * goes on from there. Fails with -EBUSY only when somebody else's
 * breakpoint is on a call that goes straight to the probe: the probe stays,
 * and only calls sent back to the iterator, which calls it too, changed.
 */
int marker_entry_clear_probes(struct marker_entry *e)
{
	struct marker_probes *old = e->probes;
	int ret = 0, err;

	lockdep_assert_held(&markers_mutex);
	if (e->direct) {
		ret = marker_entry_switch(e, false, false, NULL);
		err = ret ? marker_entry_retreat_calls(e) : 0;
		if (err)
			return err;
	}
	e->probes = NULL;
	marker_entry_publish(e);
	kfree_rcu(old, rcu);
	if (!ret && e->armed)
		ret = marker_entry_switch(e, false, false, NULL);
	if (ret)
		pr_warn("%s: cannot switch the sites off (%d): they stay on, without probes\n",
			e->name, ret);
	return 0;
}

/*
 * Takes a table's sites from MARKER_SITE_BUILT to the state of their names,
 * and publishes their probes: for the kernel at boot, for a module before
 * any of its code runs.
 */
int marker_table_prepare(struct site_table *t)
{
	struct marker_switch sw = { .from = MARKER_SITE_BUILT };
	struct site_entry *site;

	for (site = t->start; site < t->stop; site++) {
		struct marker_entry *e = marker_site_entry(site);

		if (e)
			rcu_assign_pointer(marker_site_marker(site)->probes, e->probes);
	}
	return marker_switch_apply(&sw, t);
}
