// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoints of the core kernel's hot paths, in the kernel that the
 * macro benchmark of markers builds with CONFIG_MARKERS_HOT_TRACEPOINTS:
 * at the places of the MARK_HOT() sites, for a probe module to connect
 * to. See <linux/marker_hot.h>.
 */

#include <linux/marker_hot.h>
#include <linux/module.h>

/*
 * Defines and exports the tracepoint of each site, named by
 * MARKERS_HOT_TP(), which the inner macros get expanded.
 */
#define DEFINE_MARKERS_HOT(name)	__DEFINE_MARKERS_HOT(MARKERS_HOT_TP(, name))
#define __DEFINE_MARKERS_HOT(tp)					\
	DEFINE_TRACE(tp, TP_PROTO(unsigned long a, unsigned long b), TP_ARGS(a, b))
#define EXPORT_MARKERS_HOT(name)	__EXPORT_MARKERS_HOT(MARKERS_HOT_TP(, name))
#define __EXPORT_MARKERS_HOT(tp)	EXPORT_TRACEPOINT_SYMBOL_GPL(tp)

DEFINE_MARKERS_HOT(sched_ttwu);
EXPORT_MARKERS_HOT(sched_ttwu);
DEFINE_MARKERS_HOT(sched_wakeup_new);
EXPORT_MARKERS_HOT(sched_wakeup_new);
DEFINE_MARKERS_HOT(sched_tick);
EXPORT_MARKERS_HOT(sched_tick);
DEFINE_MARKERS_HOT(sched_pick);
EXPORT_MARKERS_HOT(sched_pick);
DEFINE_MARKERS_HOT(mm_fault);
EXPORT_MARKERS_HOT(mm_fault);
DEFINE_MARKERS_HOT(mm_alloc_pages);
EXPORT_MARKERS_HOT(mm_alloc_pages);
DEFINE_MARKERS_HOT(mm_mmap);
EXPORT_MARKERS_HOT(mm_mmap);
DEFINE_MARKERS_HOT(filemap_read);
EXPORT_MARKERS_HOT(filemap_read);
DEFINE_MARKERS_HOT(vfs_read);
EXPORT_MARKERS_HOT(vfs_read);
DEFINE_MARKERS_HOT(vfs_write);
EXPORT_MARKERS_HOT(vfs_write);
DEFINE_MARKERS_HOT(vfs_openat);
EXPORT_MARKERS_HOT(vfs_openat);
DEFINE_MARKERS_HOT(pipe_read);
EXPORT_MARKERS_HOT(pipe_read);
DEFINE_MARKERS_HOT(pipe_write);
EXPORT_MARKERS_HOT(pipe_write);
DEFINE_MARKERS_HOT(task_clone);
EXPORT_MARKERS_HOT(task_clone);
DEFINE_MARKERS_HOT(task_exit);
EXPORT_MARKERS_HOT(task_exit);
DEFINE_MARKERS_HOT(futex_wake);
EXPORT_MARKERS_HOT(futex_wake);
DEFINE_MARKERS_HOT(block_submit);
EXPORT_MARKERS_HOT(block_submit);
DEFINE_MARKERS_HOT(sock_send);
EXPORT_MARKERS_HOT(sock_send);
DEFINE_MARKERS_HOT(sock_recv);
EXPORT_MARKERS_HOT(sock_recv);
DEFINE_MARKERS_HOT(net_xmit);
EXPORT_MARKERS_HOT(net_xmit);
DEFINE_MARKERS_HOT(net_receive);
EXPORT_MARKERS_HOT(net_receive);
DEFINE_MARKERS_HOT(icmp_rcv);
EXPORT_MARKERS_HOT(icmp_rcv);
