/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM markers_bench

#if !defined(_MARKERS_BENCH_FP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MARKERS_BENCH_FP_TRACE_H

#include <linux/tracepoint.h>

/* Footprint: a TRACE_EVENT of one argument. */
TRACE_EVENT(markers_bench_fp,
	    TP_PROTO(int v),
	    TP_ARGS(v),
	    TP_STRUCT__entry(__field(int, v)),
	    TP_fast_assign(__entry->v = v;),
	    TP_printk("%d", __entry->v)
);

#endif /* _MARKERS_BENCH_FP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fp_trace
#include <trace/define_trace.h>
