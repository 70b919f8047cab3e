// SPDX-License-Identifier: GPL-2.0
/*
 * One probe on every MARK_HOT() site of the kernel (<linux/marker_hot.h>),
 * for the macro benchmark: a fast probe on each marker in a kernel built
 * with CONFIG_MARKERS_HOT_MARKERS, a probe on each tracepoint in one built
 * with CONFIG_MARKERS_HOT_TRACEPOINTS. Each probe counts its hits, per
 * CPU; the module prints the total when it is removed. In a kernel
 * without the sites it refuses to load (-ENODEV).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/marker_hot.h>
#include <linux/module.h>
#include <linux/percpu.h>

static DEFINE_PER_CPU(unsigned long, hot_hits);

static unsigned long hot_total(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(hot_hits, cpu);
	return sum;
}

#if IS_ENABLED(CONFIG_MARKERS_HOT_MARKERS)

static const char * const hot_names[] = {
	"sched_ttwu", "sched_wakeup_new", "sched_tick", "sched_pick",
	"mm_fault", "mm_alloc_pages", "mm_mmap", "filemap_read",
	"vfs_read", "vfs_write", "vfs_openat", "pipe_read",
	"pipe_write", "task_clone", "task_exit", "futex_wake",
	"block_submit", "sock_send", "sock_recv", "net_xmit",
	"net_receive", "icmp_rcv",
};

static void hot_probe(void *probe_private, void *call_private,
		      const struct marker *marker, ...)
{
	this_cpu_inc(hot_hits);
}

#define HOT_NR	ARRAY_SIZE(hot_names)

static void hot_disconnect(unsigned int n)
{
	while (n--)
		marker_probe_unregister_fast(hot_names[n], hot_probe, NULL);
	marker_synchronize_unregister();
}

static int hot_connect(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(hot_names); i++) {
		ret = marker_probe_register_fast(hot_names[i], NULL, hot_probe, NULL);
		if (ret) {
			pr_err("%s: %d\n", hot_names[i], ret);
			hot_disconnect(i);
			return ret;
		}
	}
	return 0;
}

#elif IS_ENABLED(CONFIG_MARKERS_HOT_TRACEPOINTS)

static void hot_probe(void *data, unsigned long a, unsigned long b)
{
	this_cpu_inc(hot_hits);
}

/* Each tracepoint has a register and an unregister function of its own. */
#define HOT_TRACEPOINT(name)						\
	{ register_trace_markers_hot_##name, unregister_trace_markers_hot_##name, #name }

static const struct hot_tracepoint {
	int (*reg)(void (*probe)(void *data, unsigned long a, unsigned long b), void *data);
	int (*unreg)(void (*probe)(void *data, unsigned long a, unsigned long b), void *data);
	const char *name;
} hot_tracepoints[] = {
	HOT_TRACEPOINT(sched_ttwu), HOT_TRACEPOINT(sched_wakeup_new),
	HOT_TRACEPOINT(sched_tick), HOT_TRACEPOINT(sched_pick),
	HOT_TRACEPOINT(mm_fault), HOT_TRACEPOINT(mm_alloc_pages),
	HOT_TRACEPOINT(mm_mmap), HOT_TRACEPOINT(filemap_read),
	HOT_TRACEPOINT(vfs_read), HOT_TRACEPOINT(vfs_write),
	HOT_TRACEPOINT(vfs_openat), HOT_TRACEPOINT(pipe_read),
	HOT_TRACEPOINT(pipe_write), HOT_TRACEPOINT(task_clone),
	HOT_TRACEPOINT(task_exit), HOT_TRACEPOINT(futex_wake),
	HOT_TRACEPOINT(block_submit), HOT_TRACEPOINT(sock_send),
	HOT_TRACEPOINT(sock_recv), HOT_TRACEPOINT(net_xmit),
	HOT_TRACEPOINT(net_receive), HOT_TRACEPOINT(icmp_rcv),
};

#define HOT_NR	ARRAY_SIZE(hot_tracepoints)

static void hot_disconnect(unsigned int n)
{
	while (n--)
		hot_tracepoints[n].unreg(hot_probe, NULL);
	tracepoint_synchronize_unregister();
}

static int hot_connect(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(hot_tracepoints); i++) {
		ret = hot_tracepoints[i].reg(hot_probe, NULL);
		if (ret) {
			pr_err("%s: %d\n", hot_tracepoints[i].name, ret);
			hot_disconnect(i);
			return ret;
		}
	}
	return 0;
}

#else

#define HOT_NR	0

static void hot_disconnect(unsigned int n)
{
}

static int hot_connect(void)
{
	return -ENODEV;
}

#endif

static int __init hot_init(void)
{
	return hot_connect();
}

static void __exit hot_exit(void)
{
	hot_disconnect(HOT_NR);
	pr_info("hits %lu\n", hot_total());
}

module_init(hot_init);
module_exit(hot_exit);
MODULE_DESCRIPTION("A probe on every MARK_HOT() site, counting hits");
MODULE_LICENSE("GPL");
