/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the immediate and marker suites.
 *
 * Loading and unloading their helper modules: modprobe through
 * request_module(), rmmod through the usermode helper. Both need userspace
 * (an initramfs will do); a test that cannot load its module skips, naming
 * what is missing.
 *
 * Failing allocations, see kunit_failing_alloc().
 *
 * Stress volumes, see kunit_stress_volume().
 *
 * Somebody else's breakpoint in a site, see kunit_poke_text_byte() and
 * kunit_poke_text_insn(); the patcher's counters, see kunit_poke_counts();
 * the batches of the int3 patcher seen with kprobes (x86-64): their rounds
 * and mappings, what every CPU sees of their steps and what runs while the
 * INT3s are in, see kunit_watch_pokes().
 */
#ifndef _KERNEL_TESTS_KUNIT_HELPERS_H
#define _KERNEL_TESTS_KUNIT_HELPERS_H

#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/slab.h>

/*
 * The volume of a stress case: @full once the kernel runs, with its text
 * read-only and modules loading as in production; a fifth in the boot-time
 * run, before mark_readonly(), which only has to show the same paths
 * working there (and is not slowed fivefold on a debug kernel).
 */
static inline unsigned int kunit_stress_volume(unsigned int full)
{
	return system_state == SYSTEM_RUNNING ? full : full / 5;
}

static inline void kunit_load_module(struct kunit *test, const char *name)
{
	int ret = request_module("%s", name);

	if (ret)
		kunit_skip(test, "modprobe %s failed (%d): needs /sbin/modprobe and %s.ko",
			   name, ret, name);
}

/* Runs a program of userspace and waits for it: its exit status, or -errno. */
static inline int kunit_run_program(char **argv)
{
	char **envp = (char *[]){ "HOME=/", "PATH=/sbin:/bin:/usr/sbin:/usr/bin", NULL };

	return call_usermodehelper(argv[0], argv, envp, UMH_WAIT_PROC);
}

static inline void kunit_unload_module(struct kunit *test, const char *name)
{
	char **argv = (char *[]){ "/sbin/rmmod", (char *)name, NULL };

	KUNIT_ASSERT_EQ_MSG(test, kunit_run_program(argv), 0, "rmmod %s failed", name);
}

/*
 * Failing allocations: every allocation of immediate values and markers goes
 * through imv_alloc() or marker_alloc(); a case replaces them with
 * kunit_failing_alloc() (kunit_activate_static_stub()), which fails the Nth
 * call and counts them all.
 */
static struct {
	unsigned int nth;
	unsigned int calls;
} kunit_alloc_fault;

static inline void kunit_fail_nth_alloc(unsigned int nth)
{
	kunit_alloc_fault.nth = nth;
	kunit_alloc_fault.calls = 0;
}

/* True if the Nth allocation happened, and so failed. */
static inline bool kunit_nth_alloc_failed(void)
{
	return kunit_alloc_fault.calls >= kunit_alloc_fault.nth;
}

static inline void *kunit_failing_alloc(size_t size)
{
	if (++kunit_alloc_fault.calls == kunit_alloc_fault.nth)
		return NULL;
	return kvzalloc(size, GFP_KERNEL);
}

/*
 * The patcher's counters since boot; all 0 without one: the points written
 * (a site's slot and mov on x86-64, its slot on arm64, a recorded call),
 * the batches, their sync rounds (rounds of IPIs; on x86-64 those that
 * kunit_watch_pokes() saw), and the instructions written since the last
 * sync round began (arm64: 0 between switches, if each batch syncs after
 * its writes).
 */
struct kunit_poke_counts {
	unsigned long sites;
	unsigned long batches;
	unsigned long sync_rounds;
	unsigned long unsynced;
};

/*
 * Runs of some code by other CPUs while a batch has its INT3s in: see
 * kunit_watch_runs() (x86-64; in_int3 stays 0 elsewhere).
 */
#define KUNIT_RUN_COUNTERS	4

struct kunit_runs {
	/* the runs ended so far that counter @i counts */
	unsigned long (*done)(void *data, unsigned int i);
	void *data;
	unsigned int counters;
	unsigned int sharing;		/* runners that each counter counts */
	unsigned long at_open[KUNIT_RUN_COUNTERS];
	bool open;
	unsigned long in_int3;	/* runs that began and ended in a window */
};

#ifdef CONFIG_X86_POKE_SITES
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/sched/clock.h>
#include <linux/memory.h>
#include <linux/text-patching.h>
#include <asm/text_poke_bp.h>

/*
 * The points a switch writes per marker site (its slot, or its guard: see
 * arch/x86/kernel/marker.c), and the sync rounds per batch.
 */
#define KUNIT_MARKER_SITE_POINTS	1
#define KUNIT_SYNC_ROUNDS_PER_BATCH	3

/*
 * What every CPU reads of some text in each round of core serialization of
 * poke_sites_apply()'s batches, in the round's IPI: the bytes it may execute
 * from then on. See kunit_observe_text().
 */
#define KUNIT_OBSERVED_ROUNDS	8
#define KUNIT_OBSERVED_BYTES	16

struct kunit_observed_cpu {
	unsigned int rounds;
	u8 bytes[KUNIT_OBSERVED_ROUNDS][KUNIT_OBSERVED_BYTES];
};

/* Tasks that may be in poke_sites_apply() at once (one batches, others wait). */
#define KUNIT_WATCHED_TASKS	8

/*
 * poke_sites_apply()'s batches seen from outside, as any tool could see
 * them: a kretprobe on poke_sites_apply() (text_mutex keeps a batch alone,
 * and the task in it makes its rounds and writes), kprobes on the rounds of
 * core serialization (on_each_cpu_cond_mask() of do_sync_core() in that
 * task, the int3 patcher's own sync function being inlined, and
 * do_sync_core(), every CPU's part of the round, in its IPI) and on
 * __text_poke() (one mapping of the text, to write one step at a page or
 * two).
 */
struct kunit_poke_watch {
	struct kretprobe apply;
	struct kprobe sync, sync_cpu, map;
	struct task_struct *tasks[KUNIT_WATCHED_TASKS];
	unsigned int rounds_of[KUNIT_WATCHED_TASKS];	/* since it entered */
	bool round_watched;		/* the round under way is of a batch */
	void *sync_fn;			/* do_sync_core(), once seen */
	const u8 *mapped;		/* the first entry of the last mapping */
	unsigned long rounds;
	unsigned long mappings;
	struct kunit_runs *runs;
	/* see kunit_observe_text() */
	const u8 *text;
	unsigned int len;
	struct kunit_observed_cpu *cpus;
};

static struct kunit_poke_watch *kunit_watch;

/* The slot of the current task if it is in poke_sites_apply(), or -1. */
static inline int kunit_watch_slot(struct kunit_poke_watch *w)
{
	int i;

	for (i = 0; i < KUNIT_WATCHED_TASKS; i++)
		if (READ_ONCE(w->tasks[i]) == current)
			return i;
	return -1;
}

#ifdef CONFIG_KRETPROBES
static inline struct kunit_poke_watch *kunit_watch_of(struct kretprobe_instance *ri)
{
	return container_of(get_kretprobe(ri), struct kunit_poke_watch, apply);
}
#else
/* Never called: kunit_watch_pokes() skips without kretprobes. */
static inline struct kunit_poke_watch *kunit_watch_of(struct kretprobe_instance *ri)
{
	return NULL;
}
#endif

static inline int kunit_watch_apply_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kunit_poke_watch *w = kunit_watch_of(ri);
	int i;

	for (i = 0; i < KUNIT_WATCHED_TASKS; i++) {
		if (!cmpxchg(&w->tasks[i], NULL, current)) {
			w->rounds_of[i] = 0;
			*(int *)ri->data = i;
			return 0;
		}
	}
	return 1;	/* not watched: no return handler */
}

static inline int kunit_watch_apply_exit(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kunit_poke_watch *w = kunit_watch_of(ri);

	WRITE_ONCE(w->tasks[*(int *)ri->data], NULL);
	return 0;
}

static inline void kunit_runs_open(struct kunit_runs *r)
{
	unsigned int i;

	for (i = 0; i < r->counters; i++)
		r->at_open[i] = r->done(r->data, i);
	r->open = true;
}

/* Whether every counter has counted a run that began in the window. */
static inline bool kunit_runs_ran(struct kunit_runs *r)
{
	unsigned int i;

	for (i = 0; i < r->counters; i++)
		if (r->done(r->data, i) - r->at_open[i] <= r->sharing)
			return false;
	return true;
}

static inline void kunit_runs_close(struct kunit_runs *r)
{
	unsigned long n;
	unsigned int i;

	/* A run of each runner may have begun before the window. */
	for (i = 0; i < r->counters; i++) {
		n = r->done(r->data, i) - r->at_open[i];
		if (n > r->sharing)
			r->in_int3 += n - r->sharing;
	}
	r->open = false;
}

/*
 * In the window, for up to a millisecond: gives the runners, which only
 * get a turn now and then under a single-threaded emulator, time to make a
 * run of their own in it, while this CPU, in the batch, keeps the INT3s in.
 */
static inline void kunit_runs_wait(struct kunit_runs *r)
{
	u64 end = local_clock() + NSEC_PER_MSEC;

	while (!kunit_runs_ran(r) && local_clock() < end)
		cpu_relax();
}

/*
 * A round of core serialization. Once the first of a batch is over, every
 * CPU has serialized with the INT3s in, and a CPU that runs a site traps
 * until the first bytes are written, after the second round: a window of
 * kunit_watch_runs() opens at the first write after the first round and
 * closes at the first write after the second, unless the INT3s were gone
 * by the second (the writes after the first were those of the first
 * bytes: nothing else changed).
 */
static inline int kunit_watch_sync(struct kprobe *p, struct pt_regs *regs)
{
	struct kunit_poke_watch *w = container_of(p, struct kunit_poke_watch, sync);
	void *fn = (void *)regs_get_kernel_argument(regs, 1);
	int slot = kunit_watch_slot(w);
	struct kunit_runs *r = w->runs;
	char name[KSYM_SYMBOL_LEN];

	if (slot >= 0 && !w->sync_fn) {
		sprint_symbol_no_offset(name, (unsigned long)fn);
		if (!strcmp(name, "do_sync_core"))
			w->sync_fn = fn;
	}
	if (slot < 0 || fn != w->sync_fn) {
		WRITE_ONCE(w->round_watched, false);
		return 0;
	}
	WRITE_ONCE(w->round_watched, true);
	w->rounds++;
	if (++w->rounds_of[slot] >= 2 && r && r->open) {
		if (w->rounds_of[slot] > 2 || *w->mapped != INT3_INSN_OPCODE)
			r->open = false;
		else
			kunit_runs_wait(r);
	}
	return 0;
}

/* A CPU's part of a round, in its IPI: what it may execute from then on. */
static inline int kunit_watch_sync_cpu(struct kprobe *p, struct pt_regs *regs)
{
	struct kunit_poke_watch *w = container_of(p, struct kunit_poke_watch, sync_cpu);
	struct kunit_observed_cpu *c;

	if (!READ_ONCE(w->round_watched) || !w->cpus)
		return 0;
	c = &w->cpus[smp_processor_id()];
	if (c->rounds < KUNIT_OBSERVED_ROUNDS)
		memcpy(c->bytes[c->rounds], w->text, w->len);
	c->rounds++;
	return 0;
}

static inline int kunit_watch_map(struct kprobe *p, struct pt_regs *regs)
{
	struct kunit_poke_watch *w = container_of(p, struct kunit_poke_watch, map);
	int slot = kunit_watch_slot(w);
	struct kunit_runs *r = w->runs;

	if (slot < 0)
		return 0;
	w->mappings++;
	w->mapped = (const u8 *)regs_get_kernel_argument(regs, 1);
	if (r && r->open && w->rounds_of[slot] == 2)
		kunit_runs_close(r);
	else if (r && !r->open && w->rounds_of[slot] == 1)
		kunit_runs_open(r);
	return 0;
}

static inline void kunit_unwatch_pokes(void *data)
{
	struct kunit_poke_watch *w = data;

	unregister_kprobe(&w->map);
	unregister_kprobe(&w->sync_cpu);
	unregister_kprobe(&w->sync);
	unregister_kretprobe(&w->apply);
	kunit_watch = NULL;
}

/*
 * Watches poke_sites_apply()'s batches until the case ends: the counts of
 * kunit_poke_counts() and kunit_poke_mappings() then include their rounds,
 * and kunit_observe_text() and kunit_watch_runs() work. The int3 patcher
 * has no hook of its own for this: kprobes are what any tool would use.
 */
static inline void kunit_watch_pokes(struct kunit *test)
{
	struct kunit_poke_watch *w;
	int ret;

	if (!IS_ENABLED(CONFIG_KRETPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES, to watch the int3 patcher");
	w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	w->apply = (struct kretprobe){
		.kp.symbol_name = "poke_sites_apply",
		.entry_handler = kunit_watch_apply_entry,
		.handler = kunit_watch_apply_exit,
		.data_size = sizeof(int),
		.maxactive = KUNIT_WATCHED_TASKS,
	};
	w->sync = (struct kprobe){ .symbol_name = "on_each_cpu_cond_mask",
				   .pre_handler = kunit_watch_sync };
	w->sync_cpu = (struct kprobe){ .symbol_name = "do_sync_core",
				       .pre_handler = kunit_watch_sync_cpu };
	w->map = (struct kprobe){ .symbol_name = "__text_poke",
				  .pre_handler = kunit_watch_map };
	ret = register_kretprobe(&w->apply);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "kretprobe on poke_sites_apply()");
	ret = register_kprobe(&w->sync);
	if (!ret) {
		ret = register_kprobe(&w->sync_cpu);
		if (!ret) {
			ret = register_kprobe(&w->map);
			if (ret)
				unregister_kprobe(&w->sync_cpu);
		}
		if (ret)
			unregister_kprobe(&w->sync);
	}
	if (ret)
		unregister_kretprobe(&w->apply);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0,
			    "kprobes on on_each_cpu_cond_mask(), do_sync_core(), __text_poke()");
	kunit_watch = w;
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kunit_unwatch_pokes, w), 0);
}

static inline struct kunit_poke_counts kunit_poke_counts(void)
{
	struct poke_sites_stats stats;

	poke_sites_get_stats(&stats);
	return (struct kunit_poke_counts){
		.sites = stats.sites,
		.batches = stats.batches,
		.sync_rounds = kunit_watch ? kunit_watch->rounds : 0,
	};
}

/* The mappings of the text that the watched batches made. */
static inline unsigned long kunit_poke_mappings(struct kunit *test)
{
	KUNIT_ASSERT_NOT_NULL(test, kunit_watch);
	return kunit_watch->mappings;
}

/*
 * Counts, in @r->in_int3, the runs of some code by other CPUs that began
 * and ended while a watched batch had its INT3s in, every CPU serialized
 * with them: each of those went through the int3 handler. @done(@data, @i)
 * is how many runs counter @i (of @counters, each counting the runs of
 * @sharing runners) has seen end so far; it is called in kprobes'
 * handlers. Until kunit_watch_runs_stop().
 */
static inline void kunit_watch_runs(struct kunit *test, struct kunit_runs *r,
				    unsigned long (*done)(void *data, unsigned int i),
				    void *data, unsigned int counters, unsigned int sharing)
{
	KUNIT_ASSERT_NOT_NULL(test, kunit_watch);
	KUNIT_ASSERT_LE(test, counters, KUNIT_RUN_COUNTERS);
	*r = (struct kunit_runs){ .done = done, .data = data, .counters = counters,
				  .sharing = sharing };
	mutex_lock(&text_mutex);
	kunit_watch->runs = r;
	mutex_unlock(&text_mutex);
}

static inline void kunit_watch_runs_stop(void)
{
	mutex_lock(&text_mutex);
	kunit_watch->runs = NULL;
	mutex_unlock(&text_mutex);
}

struct kunit_text_observer {
	const u8 *text;
	unsigned int len;
	struct kunit_observed_cpu *cpus;	/* by CPU number */
};

static inline void kunit_observe_stop(void *unused)
{
	if (!kunit_watch)
		return;
	mutex_lock(&text_mutex);
	kunit_watch->cpus = NULL;
	mutex_unlock(&text_mutex);
}

/*
 * Has every CPU read @len bytes at @text in each round of the watched
 * batches that follow, until the case ends or calls kunit_observe_stop().
 */
static inline struct kunit_text_observer *kunit_observe_text(struct kunit *test,
							     const void *text,
							     unsigned int len)
{
	struct kunit_text_observer *o = kunit_kzalloc(test, sizeof(*o), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_LE(test, len, KUNIT_OBSERVED_BYTES);
	o->text = text;
	o->len = len;
	o->cpus = kunit_kcalloc(test, nr_cpu_ids, sizeof(*o->cpus), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o->cpus);
	if (!kunit_watch)
		kunit_watch_pokes(test);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kunit_observe_stop, NULL), 0);
	mutex_lock(&text_mutex);
	kunit_watch->text = text;
	kunit_watch->len = len;
	kunit_watch->cpus = o->cpus;
	mutex_unlock(&text_mutex);
	return o;
}

/*
 * Every CPU saw @expected[0], ..., @expected[@nr - 1], one in each round,
 * and no other round; every online CPU took part.
 */
static inline void kunit_expect_rounds_seen(struct kunit *test,
					    const struct kunit_text_observer *o,
					    u8 (*expected)[KUNIT_OBSERVED_BYTES],
					    unsigned int nr)
{
	unsigned int cpu, r, seen = 0;

	for_each_possible_cpu(cpu) {
		const struct kunit_observed_cpu *c = &o->cpus[cpu];

		if (!c->rounds)
			continue;
		seen++;
		for (r = 0; r < min(c->rounds, nr); r++)
			KUNIT_EXPECT_EQ_MSG(test, memcmp(c->bytes[r], expected[r], o->len), 0,
					    "CPU %u at round %u saw %*ph, expected %*ph", cpu,
					    r + 1, o->len, c->bytes[r], o->len, expected[r]);
		if (c->rounds < nr)
			KUNIT_FAIL(test, "CPU %u never serialized with %*ph, round %u of %u",
				   cpu, o->len, expected[c->rounds], c->rounds + 1, nr);
		else
			KUNIT_EXPECT_EQ_MSG(test, c->rounds, nr, "CPU %u: rounds of serialization",
					    cpu);
	}
	KUNIT_EXPECT_EQ(test, seen, num_online_cpus());
}

/* Writes one byte of text, as a kprobe or a debugger would. */
static inline void kunit_poke_text_byte(u8 *addr, u8 byte)
{
	mutex_lock(&text_mutex);
	text_poke(addr, &byte, 1);
	smp_text_poke_sync_each_cpu();
	mutex_unlock(&text_mutex);
}
#elif defined(CONFIG_MARKER_SITES) && defined(CONFIG_ARM64)
#include <linux/marker.h>
#include <linux/memory.h>
#include <linux/text-patching.h>

#define KUNIT_MARKER_SITE_POINTS	1
#define KUNIT_SYNC_ROUNDS_PER_BATCH	1

static inline struct kunit_poke_counts kunit_poke_counts(void)
{
	struct marker_arch_stats stats;

	marker_arch_get_stats(&stats);
	return (struct kunit_poke_counts){
		.sites = stats.insns,
		.batches = stats.batches,
		.sync_rounds = stats.syncs,
		.unsynced = stats.unsynced,
	};
}

/* Writes one instruction of text, as a kprobe or a debugger would. */
static inline void kunit_poke_text_insn(void *addr, u32 insn)
{
	mutex_lock(&text_mutex);
	aarch64_insn_patch_text_nosync(addr, insn);
	mutex_unlock(&text_mutex);
	kick_all_cpus_sync();
}
#else
#define KUNIT_MARKER_SITE_POINTS	0

static inline struct kunit_poke_counts kunit_poke_counts(void)
{
	return (struct kunit_poke_counts){};
}
#endif

#ifndef CONFIG_X86_POKE_SITES
/* Only x86-64's int3 patcher is watched; in_int3 stays 0. */
static inline void kunit_watch_pokes(struct kunit *test)
{
}

static inline void kunit_watch_runs(struct kunit *test, struct kunit_runs *r,
				    unsigned long (*done)(void *data, unsigned int i),
				    void *data, unsigned int counters, unsigned int sharing)
{
	*r = (struct kunit_runs){};
}

static inline void kunit_watch_runs_stop(void)
{
}
#endif

#endif /* _KERNEL_TESTS_KUNIT_HELPERS_H */
