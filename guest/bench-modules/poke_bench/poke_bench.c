// SPDX-License-Identifier: GPL-2.0
/*
 * What the int3 patcher's upstream users pay for a switch, for the
 * numbers of patch 01 (make bench-poke): a static key of 1, 64 and 1024
 * jump labels enabled and disabled, and a static call of 1, 64 and 1024
 * call sites retargeted, each timed and counted. Built against the kernel
 * before the series and after its first patch, out of tree: it uses
 * nothing of the series.
 *
 * Each row is printed as "poke_bench: ROW VALUE UNIT". Under QEMU's
 * -icount, the clock counts guest instructions; each row is the fastest
 * of POKE_RUNS runs. The sync rounds and the
 * text mappings of the task that switches are counted with kprobes on
 * do_sync_core(), which every round runs on each CPU, and on
 * __text_poke(), which makes one mapping, as bench.c of markers_bench
 * counts them for markers.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jump_label.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/static_call.h>

/* @x, a statement without its semicolon, four times over (and so on). */
#define POKE_R4(x)	do { x; x; x; x; } while (0)
#define POKE_R16(x)	POKE_R4(POKE_R4(x))
#define POKE_R64(x)	POKE_R4(POKE_R16(x))
#define POKE_R1024(x)	POKE_R16(POKE_R64(x))

static unsigned long poke_hits;

static void poke_target_a(void)
{
	WRITE_ONCE(poke_hits, poke_hits + 1);
}

static void poke_target_b(void)
{
	WRITE_ONCE(poke_hits, poke_hits + 2);
}

static DEFINE_STATIC_KEY_FALSE(poke_key1);
static DEFINE_STATIC_KEY_FALSE(poke_key64);
static DEFINE_STATIC_KEY_FALSE(poke_key1024);
DEFINE_STATIC_CALL(poke_call1, poke_target_a);
DEFINE_STATIC_CALL(poke_call64, poke_target_a);
DEFINE_STATIC_CALL(poke_call1024, poke_target_a);

/*
 * The sites: each inlined copy of these is one jump label of its own, each
 * static_call() one call site. They never run; the jump and call tables
 * list them.
 */
static __always_inline void poke_key64_site(void)
{
	if (static_branch_unlikely(&poke_key64))
		poke_target_a();
}

static __always_inline void poke_key1024_site(void)
{
	if (static_branch_unlikely(&poke_key1024))
		poke_target_a();
}

static noinline void poke_key_sites(void)
{
	if (static_branch_unlikely(&poke_key1))
		poke_target_a();
	POKE_R64(poke_key64_site());
	POKE_R1024(poke_key1024_site());
}

static noinline void poke_call_sites(void)
{
	static_call(poke_call1)();
	POKE_R64(static_call(poke_call64)());
	POKE_R1024(static_call(poke_call1024)());
}

static unsigned long poke_rounds, poke_mappings;
static struct task_struct *poke_watched;

#ifdef CONFIG_KPROBES
static int poke_count_round(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(poke_watched) == current)
		poke_rounds++;
	return 0;
}

static int poke_count_mapping(struct kprobe *p, struct pt_regs *regs)
{
	if (READ_ONCE(poke_watched) == current)
		poke_mappings++;
	return 0;
}

static struct kprobe poke_round_kp = {
	.symbol_name = "do_sync_core",
	.pre_handler = poke_count_round,
};

static struct kprobe poke_mapping_kp = {
	.symbol_name = "__text_poke",
	.pre_handler = poke_count_mapping,
};

static int poke_watch_init(void)
{
	int ret = register_kprobe(&poke_round_kp);

	if (ret)
		return ret;
	ret = register_kprobe(&poke_mapping_kp);
	if (ret) {
		unregister_kprobe(&poke_round_kp);
		return ret;
	}
	/* The kprobe optimizer writes text in its own time: let it be done. */
	msleep(200);
	return 0;
}

static void poke_watch_exit(void)
{
	unregister_kprobe(&poke_mapping_kp);
	unregister_kprobe(&poke_round_kp);
}
#else
static int poke_watch_init(void)
{
	return -EOPNOTSUPP;
}

static void poke_watch_exit(void)
{
}
#endif

static void poke_row(const char *row, const char *what, u64 value, const char *unit)
{
	pr_info("%s.%s %llu %s\n", row, what, value, unit);
}

/*
 * Each switch is timed this many times, undone between two, and the
 * fastest printed: a timer interrupt or a kworker woken meanwhile adds
 * about a thousand instructions to a run, as much as the difference a
 * small switch shows.
 */
#define POKE_RUNS	5

/*
 * Times @op(@arg), @undo(@arg) after each run, and prints the fewest
 * instructions (ns) of a run, with the rounds and mappings of that run.
 */
static void poke_measure(const char *row, void (*op)(void *arg), void (*undo)(void *arg),
			 void *arg)
{
	unsigned long rounds = 0, mappings = 0;
	u64 t0, ns, best = U64_MAX;
	unsigned int i;

	for (i = 0; i < POKE_RUNS; i++) {
		poke_rounds = 0;
		poke_mappings = 0;
		WRITE_ONCE(poke_watched, current);
		t0 = local_clock();
		op(arg);
		ns = local_clock() - t0;
		WRITE_ONCE(poke_watched, NULL);
		if (ns < best) {
			best = ns;
			rounds = poke_rounds;
			mappings = poke_mappings;
		}
		undo(arg);
	}
	poke_row(row, "ns", best, "ns");
	poke_row(row, "rounds", rounds, "rounds");
	poke_row(row, "mappings", mappings, "mappings");
}

static void poke_key_on(void *key)
{
	static_branch_enable((struct static_key_false *)key);
}

static void poke_key_off(void *key)
{
	static_branch_disable((struct static_key_false *)key);
}

/* Retargets static call @n to poke_target_b(), or back to poke_target_a(). */
#define POKE_CALL_OPS(n)						\
static void poke_call##n##_to_b(void *unused)				\
{									\
	static_call_update(poke_call##n, poke_target_b);		\
}									\
static void poke_call##n##_to_a(void *unused)				\
{									\
	static_call_update(poke_call##n, poke_target_a);		\
}

POKE_CALL_OPS(1)
POKE_CALL_OPS(64)
POKE_CALL_OPS(1024)

struct poke_size {
	unsigned int sites;
	struct static_key_false *key;
	void (*call_to_b)(void *unused);
	void (*call_to_a)(void *unused);
};

static int __init poke_bench_init(void)
{
	const struct poke_size sizes[] = {
		{ 1, &poke_key1, poke_call1_to_b, poke_call1_to_a },
		{ 64, &poke_key64, poke_call64_to_b, poke_call64_to_a },
		{ 1024, &poke_key1024, poke_call1024_to_b, poke_call1024_to_a },
	};
	char row[32];
	unsigned int i;
	int ret;

	ret = poke_watch_init();
	if (ret) {
		pr_info("kprobes_failed %d errno\n", -ret);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		snprintf(row, sizeof(row), "key.%u.on", sizes[i].sites);
		poke_measure(row, poke_key_on, poke_key_off, sizes[i].key);
		poke_key_on(sizes[i].key);
		snprintf(row, sizeof(row), "key.%u.off", sizes[i].sites);
		poke_measure(row, poke_key_off, poke_key_on, sizes[i].key);
		poke_key_off(sizes[i].key);
		snprintf(row, sizeof(row), "call.%u.update", sizes[i].sites);
		poke_measure(row, sizes[i].call_to_b, sizes[i].call_to_a, NULL);
	}
	poke_watch_exit();
	/* Keeps the sites, which nothing else calls, in the module. */
	if (READ_ONCE(poke_hits) == ULONG_MAX) {
		poke_key_sites();
		poke_call_sites();
	}
	pr_info("done 1 -\n");
	return 0;
}

static void __exit poke_bench_exit(void)
{
}

module_init(poke_bench_init);
module_exit(poke_bench_exit);
MODULE_DESCRIPTION("Static key and static call switches timed, for make bench-poke");
MODULE_LICENSE("GPL");
