/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the markers benchmark share: the sites switched by the
 * switching rows (sites.c), the reader of the patcher's counters, built
 * into the kernel (stats.c), and the functions whose objects the workbench
 * measures for the footprint rows (fp_*.c).
 */
#ifndef _MARKERS_BENCH_H
#define _MARKERS_BENCH_H

#include <linux/jump_label.h>
#include <linux/marker.h>
#include <linux/tracepoint.h>

/* The namespace of what stats.c, built in, exports to the module. */
#define MARKERS_BENCH_NS	"MARKERS_BENCH"

/*
 * Declares the bare tracepoint @name_tp (no event), which DEFINE_TRACE()
 * defines by that name.
 */
#define BENCH_DECLARE_TRACE(name, proto, args)				\
	DECLARE_TRACE(name, PARAMS(proto), PARAMS(args))

extern int bench_sink;

/* The per-hit rows' tracepoint, markers_bench_tp (defined in bench.c). */
BENCH_DECLARE_TRACE(markers_bench, TP_PROTO(int v), TP_ARGS(v));

/* Markers bench_sw1, bench_sw64, bench_sw1024 and keys of as many sites. */
DECLARE_STATIC_KEY_FALSE(bench_sk1);
DECLARE_STATIC_KEY_FALSE(bench_sk64);
DECLARE_STATIC_KEY_FALSE(bench_sk1024);
void bench_sites_fire(void);
/* What the sites of the live-value rows call when on, out of their sight. */
void bench_hook(int v);
/*
 * The same with the arguments a marker's probe block passes: the value
 * comes fourth, after the probe's data, the site's data and the marker,
 * as in the call to a fast probe.
 */
void bench_probe_hook(void *probe_private, void *call_private,
		      const struct marker *marker, ...);

struct _ddebug;
/* What the dynamic_debug sites of real.c call when on: the descriptor first. */
void bench_dyndbg_hook(struct _ddebug *descriptor, int v);

/*
 * The functions of real.c: @call calls function @fn built with the
 * instrumentation @variant ("none", "mark", "static_branch",
 * "static_branch_probe", "tracepoint", "plain" or, with dynamic debug,
 * "dyndbg"), which is off; the "none" one of each comes first.
 */
struct bench_real {
	const char *fn;
	const char *variant;
	void (*call)(int v);
};

const struct bench_real *bench_real_fns(unsigned int *nr);

/* One instrumented call each, in an object of its own. */
void bench_fp_none(int v);
void bench_fp_mark(int v);
void bench_fp_static_branch(int v);
void bench_fp_trace_event(int v);
void bench_fp_tracepoint(int v);
void bench_fp_dyndbg(int v);

/*
 * What the markers' patcher has done since boot (stats.c reads it); on
 * x86-64 the rounds and mappings of a switch come from kprobes (bench.c).
 */
struct markers_bench_patch_stats {
	unsigned long batches;
	unsigned long rounds;		/* sync rounds of IPIs */
	unsigned long mappings;		/* of text pages (x86-64) */
};

void markers_bench_patch_stats(struct markers_bench_patch_stats *st);

/* v1's tracefs probe: vsnprintf() and a record of the string (v1.c). */
void bench_v1_probe(void *probe_private, void *call_private,
		    const struct marker *marker, ...);

#endif /* _MARKERS_BENCH_H */
