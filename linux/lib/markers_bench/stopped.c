// SPDX-License-Identifier: GPL-2.0
/*
 * The way of the old days, for the benchmark's rows that compare with it:
 * marker sites switched with every CPU stopped while one of them writes
 * the bytes with the architecture's own text writer, as the markers and
 * immediate values of 2.6.2x did before the int3 bypass.
 *
 * Built into the kernel whenever the benchmark's module is built: a module
 * may not write kernel text, and text_poke() and aarch64_insn_patch_text()
 * are not exported; nor are the patcher's counters. What the benchmark
 * needs is exported to it alone (namespace MARKERS_BENCH): a writer of
 * nothing but live sites of the marker it is given, that hold what the
 * benchmark says they hold, and a reader of the counters.
 */

#include <linux/cpu.h>
#include <linux/export.h>
#include <linux/memory.h>
#include <linux/slab.h>
#include <linux/stop_machine.h>
#include <linux/string.h>
#include <linux/sync_core.h>

#include "bench.h"

#ifdef CONFIG_X86
#include <asm/text-patching.h>
#include <asm/text_poke_bp.h>

/* What bench_stopped_write() writes, and how many CPUs are in it. */
struct bench_stopped {
	void * const *code;
	const u8 (*bytes)[MARKERS_BENCH_SITE_BYTES];
	unsigned int nr;
	atomic_t cpus;
};

/*
 * Runs on every online CPU, all stopped with interrupts off: the last one
 * in writes, then every one serializes before it goes back to the code.
 */
static int bench_stopped_write(void *data)
{
	struct bench_stopped *st = data;
	unsigned int i;

	if (atomic_inc_return(&st->cpus) == num_online_cpus()) {
		/*
		 * text_poke() without its check of text_mutex, which the
		 * caller of stop_machine() holds for this CPU's stopper.
		 */
		for (i = 0; i < st->nr; i++)
			text_poke_kgdb(st->code[i], st->bytes[i], MARKERS_BENCH_SITE_BYTES);
		/* Orders the writes before the count; pairs with the acquire below. */
		atomic_inc_return_release(&st->cpus);
	} else {
		while (atomic_read_acquire(&st->cpus) <= num_online_cpus())
			cpu_relax();
	}
	sync_core();
	return 0;
}

/**
 * markers_bench_patch_stats() - what the markers' patcher has done since boot
 * @st: filled in
 *
 * The counters of poke_sites_get_stats(), which are not exported.
 * Context: any.
 */
void markers_bench_patch_stats(struct markers_bench_patch_stats *st)
{
	struct poke_sites_stats stats;

	poke_sites_get_stats(&stats);
	st->batches = stats.batches;
	st->rounds = stats.sync_rounds;
	st->mappings = stats.mappings;
}
EXPORT_SYMBOL_NS_GPL(markers_bench_patch_stats, MARKERS_BENCH_NS);

static int bench_write_stopped(void * const *code,
			       const u8 (*bytes)[MARKERS_BENCH_SITE_BYTES], unsigned int nr)
{
	struct bench_stopped st = {
		.code = code, .bytes = bytes, .nr = nr, .cpus = ATOMIC_INIT(0),
	};

	/* text_poke() takes the page table lock, which sleeps there. */
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		return -EOPNOTSUPP;
	return stop_machine_cpuslocked(bench_stopped_write, &st, cpu_online_mask);
}
#else
#include <linux/unaligned.h>

#include <asm/text-patching.h>

/**
 * markers_bench_patch_stats() - what the markers' patcher has done since boot
 * @st: filled in
 *
 * The counters of marker_arch_get_stats(), which are not exported.
 * Context: any.
 */
void markers_bench_patch_stats(struct markers_bench_patch_stats *st)
{
	struct marker_arch_stats stats;

	marker_arch_get_stats(&stats);
	st->batches = stats.batches;
	st->rounds = stats.syncs;
	st->mappings = 0;
}
EXPORT_SYMBOL_NS_GPL(markers_bench_patch_stats, MARKERS_BENCH_NS);

/* arm64: its own stop_machine() patcher, one instruction a site. */
static int bench_write_stopped(void * const *code,
			       const u8 (*bytes)[MARKERS_BENCH_SITE_BYTES], unsigned int nr)
{
	void **addrs = kmalloc_array(nr, sizeof(*addrs), GFP_KERNEL);
	u32 *insns = kmalloc_array(nr, sizeof(*insns), GFP_KERNEL);
	unsigned int i;
	int ret = -ENOMEM;

	if (addrs && insns) {
		for (i = 0; i < nr; i++) {
			addrs[i] = code[i];
			insns[i] = get_unaligned_le32(bytes[i]);
		}
		ret = aarch64_insn_patch_text(addrs, insns, nr);
	}
	kfree(addrs);
	kfree(insns);
	return ret;
}
#endif

/**
 * markers_bench_write_stopped() - rewrite a marker's sites with every CPU stopped
 * @name: the marker
 * @from: the MARKERS_BENCH_SITE_BYTES bytes at the start of each site now
 * @to: the bytes each site gets
 * @nr: the number of sites: all of @name's
 *
 * Each site of @name, in the order of marker_get_sites(), goes from @from
 * to @to. The registry does not follow: the benchmark puts @from back
 * before it switches the marker through the core again.
 *
 * Context: process context, may sleep; takes cpus_read_lock(), markers_mutex
 * (in marker_get_sites()), then text_mutex, under which no switch of the
 * core writes.
 * Return: 0; -EINVAL if @name does not have @nr sites or one does not hold
 * @from; -EOPNOTSUPP on x86 with PREEMPT_RT; -ENOMEM. On error nothing
 * was written.
 */
int markers_bench_write_stopped(const char *name,
				const u8 (*from)[MARKERS_BENCH_SITE_BYTES],
				const u8 (*to)[MARKERS_BENCH_SITE_BYTES], unsigned int nr)
{
	void **code = kmalloc_array(nr, sizeof(*code), GFP_KERNEL);
	unsigned int i;
	int ret = 0;

	if (!code)
		return -ENOMEM;
	cpus_read_lock();
	/* Before text_mutex: it takes markers_mutex, which comes first. */
	if (marker_get_sites(name, code, nr) != nr)
		ret = -EINVAL;
	mutex_lock(&text_mutex);
	for (i = 0; i < nr && !ret; i++)
		if (memcmp(code[i], from[i], MARKERS_BENCH_SITE_BYTES))
			ret = -EINVAL;
	if (!ret)
		ret = bench_write_stopped(code, to, nr);
	mutex_unlock(&text_mutex);
	cpus_read_unlock();
	kfree(code);
	return ret;
}
EXPORT_SYMBOL_NS_GPL(markers_bench_write_stopped, MARKERS_BENCH_NS);
