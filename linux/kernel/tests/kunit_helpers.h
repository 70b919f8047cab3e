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
 * what every CPU sees of a batch's steps (x86-64), see kunit_observe_text().
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
 * the batches, their sync rounds (rounds of IPIs), the hits of the int3
 * bypass (x86-64), and the instructions written since the last sync round
 * began (arm64: 0 between switches, if each batch syncs after its writes).
 */
struct kunit_poke_counts {
	unsigned long sites;
	unsigned long batches;
	unsigned long sync_rounds;
	unsigned long bypass_hits;
	unsigned long unsynced;
};

#ifdef CONFIG_IMMEDIATE
#include <linux/memory.h>
#include <linux/text-patching.h>
#include <asm/text_poke_bp.h>

/*
 * The points a switch writes per marker site (its slot, or its mov: see
 * arch/x86/kernel/marker.c), and the sync rounds per batch.
 */
#define KUNIT_MARKER_SITE_POINTS	1
#define KUNIT_SYNC_ROUNDS_PER_BATCH	3

static inline struct kunit_poke_counts kunit_poke_counts(void)
{
	struct poke_sites_stats stats;

	poke_sites_get_stats(&stats);
	return (struct kunit_poke_counts){
		.sites = stats.sites,
		.batches = stats.batches,
		.sync_rounds = stats.sync_rounds,
		.bypass_hits = stats.bypass_hits,
	};
}

/*
 * What every CPU reads of some text in each round of core serialization of
 * the patcher's batches, in the round's IPI right after it serialized: the
 * bytes it may execute from then on. See kunit_observe_text().
 */
#define KUNIT_OBSERVED_ROUNDS	8
#define KUNIT_OBSERVED_BYTES	16

struct kunit_observed_cpu {
	unsigned int rounds;
	u8 bytes[KUNIT_OBSERVED_ROUNDS][KUNIT_OBSERVED_BYTES];
};

struct kunit_text_observer {
	const u8 *text;
	unsigned int len;
	struct kunit_observed_cpu *cpus;	/* by CPU number */
};

static inline void kunit_observe_round(void *data)
{
	struct kunit_text_observer *o = data;
	struct kunit_observed_cpu *c = &o->cpus[smp_processor_id()];

	if (c->rounds < KUNIT_OBSERVED_ROUNDS)
		memcpy(c->bytes[c->rounds], o->text, o->len);
	c->rounds++;
}

static inline void kunit_observe_stop(void *unused)
{
	poke_sites_observe_syncs(NULL, NULL);
}

/*
 * Has every CPU read @len bytes at @text in each round of the batches that
 * follow, until the case ends or calls kunit_observe_stop().
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
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, kunit_observe_stop, NULL), 0);
	poke_sites_observe_syncs(kunit_observe_round, o);
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

#endif /* _KERNEL_TESTS_KUNIT_HELPERS_H */
