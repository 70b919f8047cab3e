// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the silicon harness's enabled rows: the probes a
 * tracer connects (empty and notrace, as the benchmark's are) and the state
 * the markers core and the tracepoint core give a marker and a tracepoint
 * for them. tools/wb/silicon.py compiles this file with the command kbuild
 * gave lib/markers_bench/real.c, so that the probes are compiled as the
 * kernel's and the structures are laid out as the kernel reads them;
 * tools/silicon/harness.c then writes the sites and calls.
 */

#include <linux/cpumask.h>
#include <linux/marker.h>
#include <linux/preempt.h>
#include <linux/tracepoint.h>
#include <linux/version.h>

#include "bench.h"

/* What the recorded calls of a marker, or a tracepoint's static calls, go to. */
struct wb_on {
	void *target;
	void *data;
};

/* What harness.c calls. */
void wb_setup_cpu(void);
const char *wb_state_name(unsigned int i);
int wb_marker_on(struct marker *m, unsigned int state, struct wb_on *on);
void wb_marker_off(struct marker *m);
void wb_tracepoint_on(unsigned int nr, struct wb_on *on, void **key);

static notrace void wb_fast_probe(void *probe_private, void *call_private,
				  const struct marker *marker, ...)
{
}

static notrace void wb_va_probe(void *probe_private, void *call_private, const char *fmt,
				va_list *args)
{
}

static notrace void wb_tp_probe(void *data, int v)
{
}

static struct {
	struct marker_probes probes;
	struct marker_probe probe[3];
} wb_probes;

/* The registry's copy of a lone va_list probe (marker_probe_va_one()). */
static struct marker_probe wb_va_one = { .func = wb_va_probe };

static struct tracepoint_func wb_tp_funcs[4];

/*
 * The states of a marker's probes: how many, of which type, and what the
 * registry points the recorded calls at for them (kernel/marker_switch.c),
 * with the data they pass. A NULL @target is the lone fast probe itself.
 */
static const struct wb_state {
	const char *name;
	unsigned int nr;
	bool va_list;
	void *target;
	bool data_is_probes;
} wb_states[] = {
	{ "direct", 1, false, NULL, false },
	{ "pair", 2, false, marker_probe_pair, true },
	{ "triple", 3, false, marker_probe_triple, true },
	{ "regs1", 1, false, marker_probe_iterate_regs, false },
	{ "regs2", 2, false, marker_probe_iterate_regs, false },
	{ "regs3", 3, false, marker_probe_iterate_regs, false },
	{ "iter1", 1, false, marker_probe_iterate, false },
	{ "iter2", 2, false, marker_probe_iterate, false },
	{ "iter3", 3, false, marker_probe_iterate, false },
	{ "va_one", 1, true, marker_probe_va_one, false },
	{ "va_iter", 1, true, marker_probe_iterate, false },
};

/* This CPU online, preemption enabled: what a tracepoint and a probe block test. */
void wb_setup_cpu(void)
{
	/*
	 * As init_task's: no preemption disabled, no reschedule pending (the
	 * bit is inverted on x86, so not preempt_count_set(), which keeps
	 * it). The count left struct pcpu_hot for a per-CPU variable of its
	 * own in 6.15.
	 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 15, 0)
	raw_cpu_write(__preempt_count, PREEMPT_ENABLED);
#else
	raw_cpu_write(pcpu_hot.preempt_count, PREEMPT_ENABLED);
#endif
	cpumask_set_cpu(raw_smp_processor_id(), &__cpu_online_mask);
}

/* The name of state @i, or NULL past the last (the harness looks them up). */
const char *wb_state_name(unsigned int i)
{
	return i < ARRAY_SIZE(wb_states) ? wb_states[i].name : NULL;
}

/*
 * Gives @m the probes of state @state (an index into wb_states) and sets
 * @on to what its recorded calls go to, with the @data they pass; the
 * probes of the markers of real.c are all the same, so they share one
 * array. Returns 0, or -1 for no such state.
 */
int wb_marker_on(struct marker *m, unsigned int state, struct wb_on *on)
{
	const struct wb_state *st;
	unsigned int i;

	if (state >= ARRAY_SIZE(wb_states))
		return -1;
	st = &wb_states[state];
	/* Field by field: the kernel's memset() is not in the harness. */
	wb_probes.probes.nr = st->nr;
	for (i = 0; i < st->nr; i++) {
		wb_probes.probes.probe[i].func = st->va_list ? wb_va_probe : NULL;
		wb_probes.probes.probe[i].fast = st->va_list ? NULL : wb_fast_probe;
		wb_probes.probes.probe[i].probe_private = NULL;
	}
	rcu_assign_pointer(m->probes, &wb_probes.probes);
	on->target = st->target ?: (void *)wb_fast_probe;
	if (st->data_is_probes)
		on->data = &wb_probes.probes;
	else if (st->target == marker_probe_va_one)
		on->data = &wb_va_one;
	else
		on->data = NULL;
	m->data = on->data;
	WRITE_ONCE(m->enabled, 1);
	return 0;
}

/* Takes @m off: no probes, the data of the iterator. */
void wb_marker_off(struct marker *m)
{
	rcu_assign_pointer(m->probes, NULL);
	m->data = NULL;
	WRITE_ONCE(m->enabled, 0);
}

/*
 * Gives the tracepoint of real.c @nr probes (0 for none) and sets @on to
 * what its static calls go to: the probe while it is alone, the iterator
 * otherwise, as tracepoint_update_call() does; @on->data is the static
 * call's key, *@key the tracepoint's static key, to find their sites.
 */
void wb_tracepoint_on(unsigned int nr, struct wb_on *on, void **key)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		wb_tp_funcs[i].func = wb_tp_probe;
		wb_tp_funcs[i].data = NULL;
		wb_tp_funcs[i].prio = 10;
	}
	wb_tp_funcs[nr].func = NULL;
	rcu_assign_pointer(__tracepoint_markers_bench_tp.funcs, nr ? wb_tp_funcs : NULL);
	on->target = nr == 1 ? (void *)wb_tp_probe : (void *)__traceiter_markers_bench_tp;
	on->data = &STATIC_CALL_KEY(tp_func_markers_bench_tp);
	*key = &__tracepoint_markers_bench_tp.key;
}
