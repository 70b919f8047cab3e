// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of the core kernel's hot paths, in the kernel that the
 * macro benchmark of markers builds with CONFIG_MARKERS_HOT_TRACEPOINTS:
 * at the places of the MARK_HOT() sites, for a probe module to connect
 * to. See <linux/marker_hot.h>.
 */

#include <linux/marker_hot.h>
#include <linux/module.h>

DEFINE_TRACE(markers_hot_sched_ttwu,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_sched_ttwu);
DEFINE_TRACE(markers_hot_sched_wakeup_new,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_sched_wakeup_new);
DEFINE_TRACE(markers_hot_sched_tick,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_sched_tick);
DEFINE_TRACE(markers_hot_sched_pick,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_sched_pick);
DEFINE_TRACE(markers_hot_mm_fault,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_mm_fault);
DEFINE_TRACE(markers_hot_mm_alloc_pages,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_mm_alloc_pages);
DEFINE_TRACE(markers_hot_mm_mmap,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_mm_mmap);
DEFINE_TRACE(markers_hot_filemap_read,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_filemap_read);
DEFINE_TRACE(markers_hot_vfs_read,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_vfs_read);
DEFINE_TRACE(markers_hot_vfs_write,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_vfs_write);
DEFINE_TRACE(markers_hot_vfs_openat,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_vfs_openat);
DEFINE_TRACE(markers_hot_pipe_read,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_pipe_read);
DEFINE_TRACE(markers_hot_pipe_write,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_pipe_write);
DEFINE_TRACE(markers_hot_task_clone,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_task_clone);
DEFINE_TRACE(markers_hot_task_exit,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_task_exit);
DEFINE_TRACE(markers_hot_futex_wake,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_futex_wake);
DEFINE_TRACE(markers_hot_block_submit,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_block_submit);
DEFINE_TRACE(markers_hot_sock_send,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_sock_send);
DEFINE_TRACE(markers_hot_sock_recv,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_sock_recv);
DEFINE_TRACE(markers_hot_net_xmit,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_net_xmit);
DEFINE_TRACE(markers_hot_net_receive,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_net_receive);
DEFINE_TRACE(markers_hot_icmp_rcv,
	     TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b));
EXPORT_TRACEPOINT_SYMBOL_GPL(markers_hot_icmp_rcv);
