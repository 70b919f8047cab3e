/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM markers

#if !defined(_TRACE_MARKERS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_MARKERS_H

#include <linux/tracepoint.h>

/*
 * A marker switched on through /sys/kernel/tracing/markers/enable hit: its
 * name and its arguments, formatted with the marker's format.
 */
TRACE_EVENT(marker_hit,
	    TP_PROTO(const char *name, const char *message),
	    TP_ARGS(name, message),
	    TP_STRUCT__entry(__string(name, name)
			     __string(message, message)),
	    TP_fast_assign(__assign_str(name);
			   __assign_str(message);),
	    TP_printk("%s: %s", __get_str(name), __get_str(message))
);

#endif /* _TRACE_MARKERS_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
