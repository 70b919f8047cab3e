// SPDX-License-Identifier: GPL-2.0
/*
 * The counters of the markers' patcher, for the switching rows of the
 * benchmark: its batches and, on arm64, its sync rounds.
 *
 * Built into the kernel whenever the benchmark's module is built, since
 * the architecture's readers of those counters are not exported; this
 * reader is, to the benchmark alone (namespace MARKERS_BENCH), and it
 * writes nothing.
 */

#include <linux/export.h>

#include "bench.h"

#ifdef CONFIG_X86
#include <asm/text_poke_bp.h>
#endif

/**
 * markers_bench_patch_stats() - what the markers' patcher has done since boot
 * @st: filled in
 *
 * The counters of poke_sites_get_stats() on x86-64, whose int3 patcher
 * counts neither its rounds nor its mappings (@st->rounds and
 * @st->mappings are 0: the benchmark sees them with kprobes), and of
 * marker_arch_get_stats() on arm64, which does not count mappings.
 *
 * Context: process context; on x86-64 takes text_mutex.
 */
void markers_bench_patch_stats(struct markers_bench_patch_stats *st)
{
#ifdef CONFIG_X86
	struct poke_sites_stats stats;

	poke_sites_get_stats(&stats);
	st->batches = stats.batches;
	st->rounds = 0;
	st->mappings = 0;
#else
	struct marker_arch_stats stats;

	marker_arch_get_stats(&stats);
	st->batches = stats.batches;
	st->rounds = stats.syncs;
	st->mappings = 0;
#endif
}
EXPORT_SYMBOL_NS_GPL(markers_bench_patch_stats, MARKERS_BENCH_NS);
