// SPDX-License-Identifier: GPL-2.0
/*
 * Footprint: the call with one bare tracepoint of one argument:
 * DECLARE_TRACE() (BENCH_DECLARE_TRACE()) and DEFINE_TRACE(), no
 * TRACE_EVENT() and no event, as the scheduler declares the hooks of
 * out-of-tree instrumentation.
 */

#include <linux/compiler.h>
#include <linux/tracepoint.h>

#include "bench.h"

BENCH_DECLARE_TRACE(markers_bench_fp, TP_PROTO(int v), TP_ARGS(v));
DEFINE_TRACE(markers_bench_fp_tp, TP_PROTO(int v), TP_ARGS(v));

void bench_fp_tracepoint(int v)
{
	WRITE_ONCE(bench_sink, v);
	trace_markers_bench_fp_tp(v);
}
