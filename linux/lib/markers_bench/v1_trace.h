/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM markers_bench

#if !defined(_MARKERS_BENCH_V1_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MARKERS_BENCH_V1_TRACE_H

#include <linux/tracepoint.h>

/* The event of v1's tracefs markers: a name and a formatted message. */
TRACE_EVENT(markers_bench_v1,
	    TP_PROTO(const char *name, const char *message),
	    TP_ARGS(name, message),
	    TP_STRUCT__entry(__string(name, name)
			     __string(message, message)),
	    TP_fast_assign(__assign_str(name);
			   __assign_str(message);),
	    TP_printk("%s: %s", __get_str(name), __get_str(message))
);

#endif /* _MARKERS_BENCH_V1_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE v1_trace
#include <trace/define_trace.h>
