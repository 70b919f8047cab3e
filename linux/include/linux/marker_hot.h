/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_MARKER_HOT_H
#define _LINUX_MARKER_HOT_H

/*
 * Instrumentation of the core kernel's hot paths, for the macro benchmark
 * of markers: MARK_HOT() is a MARK() with CONFIG_MARKERS_HOT_MARKERS, a
 * tracepoint of two arguments with CONFIG_MARKERS_HOT_TRACEPOINTS, and
 * nothing otherwise, so that one source builds the three kernels the
 * benchmark compares. Every site passes two arguments; the tracepoint
 * kernel passes each as an unsigned long, and declares (here) and defines
 * (kernel/marker_hot.c) one tracepoint per site.
 */

#include <linux/compiler.h>

/* Checks the format of a site that is built as nothing. */
static inline __printf(2, 3) void __mark_hot_check(const char *name,
						   const char *format, ...)
{
}

#if defined(CONFIG_MARKERS_HOT_MARKERS)

#include <linux/marker.h>

#define MARK_HOT(name, format, a, b)	MARK(name, format, a, b)

#elif defined(CONFIG_MARKERS_HOT_TRACEPOINTS)

#include <linux/tracepoint.h>

/*
 * @prefix, then the name of the tracepoint that DECLARE_TRACE() below
 * declares for site @name.
 */
#define MARKERS_HOT_TP(prefix, name)	prefix##markers_hot_##name##_tp

DECLARE_TRACE(markers_hot_sched_ttwu,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_sched_wakeup_new,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_sched_tick,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_sched_pick,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_mm_fault,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_mm_alloc_pages,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_mm_mmap,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_filemap_read,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_vfs_read,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_vfs_write,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_vfs_openat,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_pipe_read,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_pipe_write,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_task_clone,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_task_exit,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_futex_wake,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_block_submit,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_sock_send,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_sock_recv,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_net_xmit,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_net_receive,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
DECLARE_TRACE(markers_hot_icmp_rcv,
	      TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));

/* The format is checked where the sites are markers, or none. */
#define MARK_HOT(name, format, a, b)					\
do {									\
	(void)(format);							\
	MARKERS_HOT_TP(trace_, name)((unsigned long)(a), (unsigned long)(b)); \
} while (0)

#else

#define MARK_HOT(name, format, a, b)					\
do {									\
	if (0)								\
		__mark_hot_check(#name, format, a, b);			\
} while (0)

#endif

#endif /* _LINUX_MARKER_HOT_H */
