// SPDX-License-Identifier: GPL-2.0
/*
 * Markers benchmark: what a marker costs against static keys, tracepoints,
 * kprobes and optprobes, side by side in one kernel and one run. Loading
 * the module runs it and prints one line per result:
 *
 *	markers_bench: ROW VALUE UNIT
 *
 * Per-hit rows are the cost of one call of a noinline target beyond that
 * of the same call without the mechanism, over loops run with interrupts
 * off in chunks; in picoseconds, which under QEMU's -icount shift=0 are
 * thousandths of a guest instruction. Switching rows count the IPIs of the
 * switch, its time, and the longest stall a kthread spinning on the clock
 * of another CPU saw meanwhile. Footprints are measured on the objects by
 * the workbench. See Documentation/markers.txt.
 *
 * On x86-64 and arm64. arm64 has no optprobes, and its IPIs are not
 * counted: those rows are left out there.
 *
 * smoke=1 runs every row with few iterations: it shows that the benchmark
 * works, and its figures mean nothing.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/immediate.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/sched/clock.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#ifdef CONFIG_X86
#include <linux/text-patching.h>
#include <asm/hardirq.h>
#endif

#include "bench.h"

static bool smoke;
module_param(smoke, bool, 0444);
MODULE_PARM_DESC(smoke, "run every row briefly, to check that the benchmark works");

static unsigned int iterations = 1000000;
module_param(iterations, uint, 0444);
MODULE_PARM_DESC(iterations, "calls per per-hit row; the trap rows make 1/100 of them");

#define BENCH_CHUNK		1000	/* calls per interrupts-off chunk */
#define BENCH_OPT_WAIT_MS	5000	/* how long the optimizer may take */

DEFINE_TRACE(markers_bench_tp, TP_PROTO(int v), TP_ARGS(v));

static DEFINE_STATIC_KEY_FALSE(bench_key);
int bench_sink;

static void bench_result(const char *row, u64 value, const char *unit)
{
	pr_info("%s %llu %s\n", row, value, unit);
}

/* --- per-hit rows ------------------------------------------------------- */

static noinline void bench_none(int v)
{
	barrier();
}

static noinline void bench_mark_off(int v)
{
	MARK(bench_mark_off, "%d", v);
}

/*
 * The pattern a site runs once its slot lets it through, alone: an
 * immediate value's mov, test and branch (x86-64; a load elsewhere).
 */
static DEFINE_IMV(char, bench_imv);

static noinline void bench_imv_branch(int v)
{
	if (unlikely(imv_read(bench_imv)))
		WRITE_ONCE(bench_sink, v);
}

static noinline void bench_mark_plain(int v)
{
	_MARK(bench_mark_plain, "%d", v);
}

static noinline void bench_static_branch(int v)
{
	if (static_branch_unlikely(&bench_key))
		WRITE_ONCE(bench_sink, v);
}

static noinline void bench_tracepoint(int v)
{
	trace_markers_bench_tp(v);
}

static noinline void bench_mark_on(int v)
{
	MARK(bench_mark_on, "%d", v);
}

/*
 * The same sites in a function that keeps its argument live across them:
 * what they add to the path where they are off, register saves included.
 * Each calls out when on, so the compiler must keep @v somewhere a call
 * leaves alone; bench_hook() is in another object, so that it knows no
 * more of the call than of a probe.
 */
static noinline void bench_live_none(int v)
{
	WRITE_ONCE(bench_sink, v);
}

static noinline void bench_live_mark(int v)
{
	MARK(bench_live_mark, "%d", v);
	WRITE_ONCE(bench_sink, v);
}

static noinline void bench_live_static_branch(int v)
{
	if (static_branch_unlikely(&bench_key))
		bench_hook(v);
	WRITE_ONCE(bench_sink, v);
}

static bool bench_flag;

static noinline void bench_live_plain(int v)
{
	if (unlikely(READ_ONCE(bench_flag)))
		bench_hook(v);
	WRITE_ONCE(bench_sink, v);
}

static noinline void bench_live_tracepoint(int v)
{
	trace_markers_bench_tp(v);
	WRITE_ONCE(bench_sink, v);
}

/*
 * The static branch and the plain load again, their hook taking what a
 * marker's probe block passes: @v in the fourth argument register, not in
 * the first where it came in. A value live across the site then needs a
 * register a call leaves alone whatever guards the call.
 */
static noinline void bench_live_static_branch_probe(int v)
{
	if (static_branch_unlikely(&bench_key))
		bench_probe_hook(NULL, NULL, NULL, v);
	WRITE_ONCE(bench_sink, v);
}

static noinline void bench_live_plain_probe(int v)
{
	if (unlikely(READ_ONCE(bench_flag)))
		bench_probe_hook(NULL, NULL, NULL, v);
	WRITE_ONCE(bench_sink, v);
}

/* The kprobes go on the 8 bytes of NOPs in the middle of this function. */
static noinline void bench_kprobed(int v)
{
	WRITE_ONCE(bench_sink, v);
#ifdef CONFIG_X86
	asm volatile(".nops 8" ::: "memory");
#else
	asm volatile("nop\n\tnop" ::: "memory");
#endif
	WRITE_ONCE(bench_sink, v + 1);
}

/*
 * The empty probes of each kind are notrace, as upstream's TRACE_EVENT
 * probes are (trace_event_raw_event_*()): what a tracer connects. A fast
 * probe that -pg instruments also gets a frame from GCC 12 (a variadic
 * function under the kernel's 8-byte stack alignment), 4 instructions more.
 */
static notrace void bench_empty_probe(void *probe_private, void *call_private,
				      const char *fmt, va_list *args)
{
}

static notrace void bench_empty_fast_probe(void *probe_private, void *call_private,
					   const struct marker *marker, ...)
{
}

/* Where bench_check_probe() was called from. */
struct bench_check {
	void *after_call;	/* the return address of a site's own call */
	unsigned long direct;	/* calls from there */
	unsigned long other;	/* calls from anywhere else: the iterator */
};

/* A fast probe that counts whether the site called it straight. */
static noinline void bench_check_probe(void *probe_private, void *call_private,
				       const struct marker *marker, ...)
{
	struct bench_check *c = probe_private;

	if (__builtin_return_address(0) == c->after_call)
		c->direct++;
	else
		c->other++;
}

/*
 * One fast probe: bench_mark_on's site must call it straight, never
 * through marker_probe_iterate(). Two: the site calls marker_probe_pair(),
 * which calls the first and jumps to the second, so that the second
 * returns straight to the site; three: marker_probe_triple(), which jumps
 * to the third. Prints the calls of either kind.
 */
static void bench_check_direct(unsigned int n)
{
	struct bench_check c = {}, c2 = {}, c3 = {};
	void *call;
	unsigned int i;

	if (marker_get_calls("bench_mark_on", &call, 1) != 1) {
		bench_result("enabled.mark_1fast.call_missing", 1, "-");
		return;
	}
	c.after_call = call + MARKER_CALL_LEN;
	c2.after_call = c.after_call;
	c3.after_call = c.after_call;
	if (marker_probe_register_fast("bench_mark_on", "%d", bench_check_probe, &c)) {
		bench_result("enabled.mark_1fast.check_failed", 1, "-");
		return;
	}
	for (i = 0; i < n; i++)
		bench_mark_on(i);
	bench_result("enabled.mark_1fast.direct", c.direct, "calls");
	bench_result("enabled.mark_1fast.via_iterator", c.other, "calls");
	if (!marker_probe_register_fast("bench_mark_on", "%d", bench_check_probe, &c2)) {
		for (i = 0; i < n; i++)
			bench_mark_on(i);
		bench_result("enabled.mark_2fast.second_to_site", c2.direct, "calls");
		bench_result("enabled.mark_2fast.second_elsewhere", c2.other, "calls");
		if (!marker_probe_register_fast("bench_mark_on", "%d", bench_check_probe, &c3)) {
			for (i = 0; i < n; i++)
				bench_mark_on(i);
			marker_probe_unregister_fast("bench_mark_on", bench_check_probe, &c3);
			bench_result("enabled.mark_3fast.third_to_site", c3.direct, "calls");
			bench_result("enabled.mark_3fast.third_elsewhere", c3.other, "calls");
		} else {
			bench_result("enabled.mark_3fast.check_failed", 1, "-");
		}
		marker_probe_unregister_fast("bench_mark_on", bench_check_probe, &c2);
	} else {
		bench_result("enabled.mark_2fast.check_failed", 1, "-");
	}
	marker_probe_unregister_fast("bench_mark_on", bench_check_probe, &c);
	marker_synchronize_unregister();
}

static notrace void bench_empty_tp_probe(void *data, int v)
{
}

static int bench_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* A post handler keeps a kprobe from being optimized. */
static void bench_kprobe_post(struct kprobe *p, struct pt_regs *regs,
			      unsigned long flags)
{
}

/* Nanoseconds of @n calls of @fn, counted with interrupts off only. */
static u64 bench_loop(void (*fn)(int), unsigned int n)
{
	unsigned long flags;
	unsigned int i, j;
	u64 ns = 0, t0;

	for (i = 0; i < n; i += BENCH_CHUNK) {
		local_irq_save(flags);
		t0 = local_clock();
		for (j = i; j < min(n, i + BENCH_CHUNK); j++)
			fn(j);
		ns += local_clock() - t0;
		local_irq_restore(flags);
		cond_resched();
	}
	return ns;
}

/* Picoseconds per call of @fn beyond @base_ns for @n calls. */
static void bench_hit(const char *row, void (*fn)(int), unsigned int n, u64 base_ns)
{
	u64 ns = bench_loop(fn, n);

	bench_result(row, ns > base_ns ? div_u64((ns - base_ns) * 1000, n) : 0, "ps");
}

#ifdef CONFIG_X86
/* The NOPs of bench_kprobed(): one 8-byte NOP. */
static const u8 bench_nops[] = { 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 };
#else
/* The NOPs of bench_kprobed(): two NOPs. */
static const u8 bench_nops[] = { 0x1f, 0x20, 0x03, 0xd5, 0x1f, 0x20, 0x03, 0xd5 };
#endif

/*
 * The address of the NOPs in bench_kprobed(): past its first instruction
 * that is no NOP, so past those that ftrace patches at its entry (arm64).
 */
static void *bench_kprobe_addr(void)
{
	u8 *p = (u8 *)bench_kprobed;
	unsigned int i = 0;

	if (!IS_ENABLED(CONFIG_X86))
		while (i < 64 && !memcmp(p + i, bench_nops, 4))
			i += 4;
	for (; i < 64; i++)
		if (!memcmp(p + i, bench_nops, sizeof(bench_nops)))
			return p + i;
	return NULL;
}

#ifdef CONFIG_OPTPROBES
/* An optprobe at @addr, once the optimizer has made it a jump. */
static void bench_optprobe(void *addr, unsigned int n, u64 base)
{
	struct kprobe op = { .pre_handler = bench_kprobe_pre, .addr = addr };
	unsigned int waited;

	if (register_kprobe(&op)) {
		bench_result("enabled.optprobe_failed", 1, "-");
		return;
	}
	/* The optimizer replaces the breakpoint with a jump, in its own time. */
	for (waited = 0; waited < BENCH_OPT_WAIT_MS && *(u8 *)op.addr != JMP32_INSN_OPCODE;
	     waited += 20)
		msleep(20);
	if (*(u8 *)op.addr == JMP32_INSN_OPCODE)
		bench_hit("enabled.optprobe", bench_kprobed, n, base);
	else
		bench_result("enabled.optprobe_not_optimized", 1, "-");
	unregister_kprobe(&op);
}
#else
static void bench_optprobe(void *addr, unsigned int n, u64 base)
{
}
#endif

static void bench_kprobes(unsigned int n)
{
	struct kprobe kp = { .pre_handler = bench_kprobe_pre,
			     .post_handler = bench_kprobe_post };
	u64 base = bench_loop(bench_kprobed, n);

	kp.addr = bench_kprobe_addr();
	if (!kp.addr || register_kprobe(&kp)) {
		bench_result("enabled.kprobe_failed", 1, "-");
		return;
	}
	bench_hit("enabled.kprobe", bench_kprobed, n, base);
	unregister_kprobe(&kp);
	bench_optprobe(kp.addr, n, base);
}

/*
 * The functions of real.c, each without instrumentation (the row gives the
 * instructions of one call), then with each kind, off (the rows give what
 * it adds to that).
 */
static void bench_real_hits(unsigned int n)
{
	const struct bench_real *fns;
	unsigned int i, nr;
	char row[48];
	u64 base = 0;

	fns = bench_real_fns(&nr);
	for (i = 0; i < nr; i++) {
		snprintf(row, sizeof(row), "real.%s.%s", fns[i].fn, fns[i].variant);
		if (!strcmp(fns[i].variant, "none")) {
			base = bench_loop(fns[i].call, n);
			bench_result(row, div_u64(base * 1000, n), "ps");
			continue;
		}
		bench_hit(row, fns[i].call, n, base);
	}
}

static void bench_hits(unsigned int n)
{
	u64 base = bench_loop(bench_none, n);

	bench_result("loop.empty_call", div_u64(base * 1000, n), "ps");
	bench_hit("disabled.none", bench_none, n, base);
	bench_hit("disabled.mark", bench_mark_off, n, base);
	bench_hit("disabled.imv_branch", bench_imv_branch, n, base);
	bench_hit("disabled.mark_plain", bench_mark_plain, n, base);
	bench_hit("disabled.static_branch", bench_static_branch, n, base);
	bench_hit("disabled.tracepoint", bench_tracepoint, n, base);

	base = bench_loop(bench_live_none, n);
	bench_hit("disabled.live.mark", bench_live_mark, n, base);
	bench_hit("disabled.live.static_branch", bench_live_static_branch, n, base);
	bench_hit("disabled.live.plain", bench_live_plain, n, base);
	bench_hit("disabled.live.tracepoint", bench_live_tracepoint, n, base);
	bench_hit("disabled.live.static_branch_probe", bench_live_static_branch_probe, n, base);
	bench_hit("disabled.live.plain_probe", bench_live_plain_probe, n, base);
	bench_real_hits(n);
	base = bench_loop(bench_none, n);

	bench_check_direct(BENCH_CHUNK);
	if (!marker_probe_register_fast("bench_mark_on", "%d", bench_empty_fast_probe, NULL)) {
		bench_hit("enabled.mark_1fast", bench_mark_on, n, base);
		if (!marker_probe_register_fast("bench_mark_on", "%d", bench_empty_fast_probe,
						&smoke)) {
			bench_hit("enabled.mark_2fast", bench_mark_on, n, base);
			if (!marker_probe_register_fast("bench_mark_on", "%d",
							bench_empty_fast_probe, &iterations)) {
				bench_hit("enabled.mark_3fast", bench_mark_on, n, base);
				marker_probe_unregister_fast("bench_mark_on",
							     bench_empty_fast_probe, &iterations);
			}
			marker_probe_unregister_fast("bench_mark_on", bench_empty_fast_probe,
						     &smoke);
		}
		marker_probe_unregister_fast("bench_mark_on", bench_empty_fast_probe, NULL);
		marker_synchronize_unregister();
	}
	if (!marker_probe_register("bench_mark_on", "%d", bench_empty_probe, NULL)) {
		bench_hit("enabled.mark_1probe", bench_mark_on, n, base);
		if (!marker_probe_register("bench_mark_on", "%d", bench_empty_probe, &smoke)) {
			bench_hit("enabled.mark_2probes", bench_mark_on, n, base);
			marker_probe_unregister("bench_mark_on", bench_empty_probe, &smoke);
		}
		marker_probe_unregister("bench_mark_on", bench_empty_probe, NULL);
		marker_synchronize_unregister();
	}
	if (!register_trace_markers_bench_tp(bench_empty_tp_probe, NULL)) {
		bench_hit("enabled.tracepoint_1probe", bench_tracepoint, n, base);
		if (!register_trace_markers_bench_tp(bench_empty_tp_probe, &smoke)) {
			bench_hit("enabled.tracepoint_2probes", bench_tracepoint, n, base);
			if (!register_trace_markers_bench_tp(bench_empty_tp_probe, &iterations)) {
				bench_hit("enabled.tracepoint_3probes", bench_tracepoint, n, base);
				unregister_trace_markers_bench_tp(bench_empty_tp_probe,
								  &iterations);
			}
			unregister_trace_markers_bench_tp(bench_empty_tp_probe, &smoke);
		}
		unregister_trace_markers_bench_tp(bench_empty_tp_probe, NULL);
		tracepoint_synchronize_unregister();
	}
}

/*
 * Records of one int argument: a marker event, the TRACE_EVENT of the same
 * field, and v1's probe (vsnprintf(), then a record of the string), each
 * enabled in the top instance alone. bench_fp_none() is the base: every
 * function of the rows stores the argument as it does.
 */
static void bench_records(unsigned int n)
{
	u64 base = bench_loop(bench_fp_none, n);

	if (!trace_set_clr_event("markers", "bench_fp_mark", 1)) {
		bench_hit("record.mark_event", bench_fp_mark, n, base);
		trace_set_clr_event("markers", "bench_fp_mark", 0);
	} else {
		bench_result("record.mark_event_missing", 1, "-");
	}
	if (!trace_set_clr_event("markers_bench", "markers_bench_fp", 1)) {
		bench_hit("record.trace_event", bench_fp_trace_event, n, base);
		trace_set_clr_event("markers_bench", "markers_bench_fp", 0);
	}
	if (!trace_set_clr_event("markers_bench", "markers_bench_v1", 1)) {
		if (!marker_probe_register_fast("bench_fp_mark", "%d", bench_v1_probe, NULL)) {
			bench_hit("record.mark_vsnprintf", bench_fp_mark, n, base);
			marker_probe_unregister_fast("bench_fp_mark", bench_v1_probe, NULL);
			marker_synchronize_unregister();
		}
		trace_set_clr_event("markers_bench", "markers_bench_v1", 0);
	}
}

/* --- switching rows ----------------------------------------------------- */

/* A kthread on another CPU, spinning on the clock: the longest gap it saw. */
struct bench_spinner {
	u64 max_gap;
};

static int bench_spin(void *data)
{
	struct bench_spinner *s = data;
	u64 last = local_clock(), now;

	while (!kthread_should_stop()) {
		now = local_clock();
		if (now - last > READ_ONCE(s->max_gap))
			WRITE_ONCE(s->max_gap, now - last);
		last = now;
		/* Lets a single-threaded emulator run the other vCPUs. */
		cpu_relax();
		/*
		 * Not a voluntary switch, but a Tasks RCU quiescent state: the
		 * kprobe optimizer waits for one holding text_mutex.
		 */
		rcu_tasks_qs(current, false);
		/*
		 * Where preemption is voluntary (PREEMPT_VOLUNTARY, as
		 * distributions build and boot their kernels), the CPU is only
		 * given up here, to whatever waits for it, such as the grace
		 * period of the sync rows. Its time is a gap above.
		 */
		cond_resched();
	}
	return 0;
}

#ifdef CONFIG_X86
#define BENCH_COUNTS_IPIS	true

/* The function-call IPIs every CPU has taken. */
static unsigned long bench_ipis(void)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(irq_stat, cpu).counts[IRQ_COUNT_CALL_FUNCTION];
	return sum;
}
#else
#define BENCH_COUNTS_IPIS	false

static unsigned long bench_ipis(void)
{
	return 0;
}
#endif

#if defined(CONFIG_X86) && defined(CONFIG_KPROBES)
/*
 * The sync rounds and text mappings of a switch on x86-64, which the int3
 * patcher does not count: kprobes on do_sync_core(), which each round runs
 * on the CPU of the task that switches too, and on __text_poke(), counting
 * those of that task.
 */
static struct task_struct *bench_watched;
static unsigned long bench_rounds, bench_mappings;

static int bench_count_round(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(bench_watched) == current)
		bench_rounds++;
	return 0;
}

static int bench_count_mapping(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(bench_watched) == current)
		bench_mappings++;
	return 0;
}

static struct kprobe bench_round_kp, bench_mapping_kp;

static void bench_watch_start(void)
{
	/* A kprobe once unregistered is registered again from scratch. */
	bench_round_kp = (struct kprobe){ .symbol_name = "do_sync_core",
					  .pre_handler = bench_count_round };
	bench_mapping_kp = (struct kprobe){ .symbol_name = "__text_poke",
					    .pre_handler = bench_count_mapping };
	bench_rounds = 0;
	bench_mappings = 0;
	if (register_kprobe(&bench_round_kp))
		return;
	if (register_kprobe(&bench_mapping_kp)) {
		unregister_kprobe(&bench_round_kp);
		return;
	}
	WRITE_ONCE(bench_watched, current);
}

/* Adds what the kprobes saw to @st; 0 if they could not be registered. */
static void bench_watch_stop(struct markers_bench_patch_stats *st)
{
	if (!bench_watched)
		return;
	WRITE_ONCE(bench_watched, NULL);
	unregister_kprobe(&bench_mapping_kp);
	unregister_kprobe(&bench_round_kp);
	/* Each kprobe's handler is done once it is unregistered. */
	st->rounds += bench_rounds;
	st->mappings += bench_mappings;
}
#else
static void bench_watch_start(void)
{
}

static void bench_watch_stop(struct markers_bench_patch_stats *st)
{
}
#endif

/*
 * Runs @op(@arg), printing its IPIs, time and the longest stall it caused,
 * and, when it went through the markers' patcher, its sync rounds.
 */
static void bench_switch(struct bench_spinner *s, const char *row,
			 int (*op)(void *arg), void *arg)
{
	unsigned long ipis;
	struct markers_bench_patch_stats before, after;
	char name[64];
	u64 t0, ns, stall;
	int ret;

	bench_watch_start();
	msleep(20);
	WRITE_ONCE(s->max_gap, 0);
	markers_bench_patch_stats(&before);
	ipis = bench_ipis();
	t0 = local_clock();
	ret = op(arg);
	ns = local_clock() - t0;
	ipis = bench_ipis() - ipis;
	markers_bench_patch_stats(&after);
	/* The spinner records the stall once it runs again. */
	msleep(20);
	stall = READ_ONCE(s->max_gap);
	bench_watch_stop(&after);
	if (ret) {
		snprintf(name, sizeof(name), "%s.failed", row);
		bench_result(name, -ret, "errno");
		return;
	}
	if (BENCH_COUNTS_IPIS) {
		snprintf(name, sizeof(name), "%s.ipis", row);
		bench_result(name, ipis, "IPIs");
	}
	if (after.batches != before.batches) {
		snprintf(name, sizeof(name), "%s.rounds", row);
		bench_result(name, after.rounds - before.rounds, "rounds");
		if (IS_ENABLED(CONFIG_X86)) {
			snprintf(name, sizeof(name), "%s.mappings", row);
			bench_result(name, after.mappings - before.mappings, "mappings");
		}
	}
	snprintf(name, sizeof(name), "%s.ns", row);
	bench_result(name, ns, "ns");
	snprintf(name, sizeof(name), "%s.stall", row);
	bench_result(name, stall, "ns");
}

static int bench_mark_switch(void *name)
{
	return marker_probe_register(name, "%d", bench_empty_probe, NULL);
}

static int bench_mark_unswitch(void *name)
{
	return marker_probe_unregister(name, bench_empty_probe, NULL);
}

/* What a tracer then waits for before freeing what its probe used. */
static int bench_mark_sync(void *unused)
{
	marker_synchronize_unregister();
	return 0;
}

static int bench_key_switch(void *key)
{
	static_branch_enable((struct static_key_false *)key);
	return 0;
}

static int bench_key_unswitch(void *key)
{
	static_branch_disable((struct static_key_false *)key);
	return 0;
}

/*
 * The switching rows of a marker of @n MARK()s (the sites row says how many
 * sites they compiled to) and a static key of @n sites.
 */
static void bench_switching_n(struct bench_spinner *s, const char *name,
			      struct static_key_false *key, unsigned int n)
{
	char row[48];
	int got;

	/* At least one site per MARK(); GCC may copy some into probe blocks. */
	got = marker_get_sites(name, NULL, 0);
	if (got < (int)n) {
		snprintf(row, sizeof(row), "switch.%u.sites_missing", n);
		bench_result(row, n - got, "sites");
		return;
	}
	snprintf(row, sizeof(row), "switch.%u.sites", n);
	bench_result(row, got, "sites");
	snprintf(row, sizeof(row), "switch.%u.mark.on", n);
	bench_switch(s, row, bench_mark_switch, (void *)name);
	snprintf(row, sizeof(row), "switch.%u.mark.off", n);
	bench_switch(s, row, bench_mark_unswitch, (void *)name);
	snprintf(row, sizeof(row), "switch.%u.mark.sync", n);
	bench_switch(s, row, bench_mark_sync, NULL);
	snprintf(row, sizeof(row), "switch.%u.static_key.on", n);
	bench_switch(s, row, bench_key_switch, key);
	snprintf(row, sizeof(row), "switch.%u.static_key.off", n);
	bench_switch(s, row, bench_key_unswitch, key);
}

/* The switching rows; completes @done when finished, and exits. */
static int bench_switching(void *done)
{
	struct bench_spinner s = {};
	struct task_struct *spinner;

	spinner = kthread_create_on_cpu(bench_spin, &s, cpumask_last(cpu_online_mask),
					"markers_bench_spin");
	if (IS_ERR(spinner)) {
		bench_result("switch.spinner_failed", 1, "-");
	} else {
		wake_up_process(spinner);
		bench_switching_n(&s, "bench_sw1", &bench_sk1, 1);
		bench_switching_n(&s, "bench_sw64", &bench_sk64, 64);
		bench_switching_n(&s, "bench_sw1024", &bench_sk1024, 1024);
		kthread_stop(spinner);
	}
	complete(done);
	return 0;
}

/* The switching rows run on the first CPU, the spinner on the last. */
static int bench_switching_on_cpu0(void)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct task_struct *t;

	if (num_online_cpus() < 2) {
		bench_result("switch.needs_2_cpus", 1, "-");
		return 0;
	}
	t = kthread_create_on_cpu(bench_switching, &done, cpumask_first(cpu_online_mask),
				  "markers_bench");
	if (IS_ERR(t))
		return PTR_ERR(t);
	wake_up_process(t);
	/* kthread_stop() before the thread runs would keep it from running. */
	wait_for_completion(&done);
	return 0;
}

/*
 * The smallest step of local_clock() seen over 1000 reads: nanoseconds
 * from a stable TSC; a tick (4 ms here) if the kernel fell back to
 * jiffies, which makes the per-hit rows of the run meaningless.
 */
static u64 bench_clock_resolution(void)
{
	u64 prev = local_clock(), now, step = U64_MAX;
	unsigned int i;

	for (i = 0; i < 1000; i++) {
		do {
			now = local_clock();
		} while (now == prev);
		step = min(step, now - prev);
		prev = now;
	}
	return step;
}

static int __init markers_bench_init(void)
{
	unsigned int n = smoke ? 10 * BENCH_CHUNK : iterations;

	bench_result("cpus", num_online_cpus(), "-");
	bench_result("clock.resolution", bench_clock_resolution(), "ns");
	bench_hits(n);
	bench_records(n);
	bench_sites_fire();
	bench_switching_on_cpu0();
	/*
	 * Last: once an optprobe is gone, the kprobe optimizer keeps text_mutex
	 * for a while (synchronize_rcu_tasks()), which would delay a switch.
	 */
	bench_kprobes(max(n / 100, BENCH_CHUNK));
	bench_result("done", 1, "-");
	return 0;
}

static void __exit markers_bench_exit(void)
{
}

module_init(markers_bench_init);
module_exit(markers_bench_exit);
MODULE_DESCRIPTION("Markers benchmark: markers against static keys, tracepoints, kprobes");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(MARKERS_BENCH_NS);
