// SPDX-License-Identifier: GPL-2.0
/*
 * One probe on every MARK_HOT() site of the kernel (<linux/marker_hot.h>),
 * for the macro benchmark: a fast probe on each marker in a kernel built
 * with CONFIG_MARKERS_HOT_MARKERS, a probe on each tracepoint in one built
 * with CONFIG_MARKERS_HOT_TRACEPOINTS. Each probe counts the hits of its
 * site, per CPU: /sys/module/hot_probes/parameters/hits lists them, a
 * line "NAME COUNT" a site, and the module prints their total when it
 * is removed. In a kernel without the sites it refuses to load (-ENODEV).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/marker_hot.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>

/* The sites, in the order of <linux/marker_hot.h>; a probe's data is its index. */
static const char * const hot_names[] = {
	"sched_ttwu", "sched_wakeup_new", "sched_tick", "sched_pick",
	"mm_fault", "mm_alloc_pages", "mm_mmap", "filemap_read",
	"vfs_read", "vfs_write", "vfs_openat", "pipe_read",
	"pipe_write", "task_clone", "task_exit", "futex_wake",
	"block_submit", "sock_send", "sock_recv", "net_xmit",
	"net_receive", "icmp_rcv",
};

#define HOT_SITES	ARRAY_SIZE(hot_names)

static DEFINE_PER_CPU(unsigned long [HOT_SITES], hot_hits);

static unsigned long hot_site_hits(unsigned int site)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(hot_hits, cpu)[site];
	return sum;
}

static unsigned long hot_total(void)
{
	unsigned long sum = 0;
	unsigned int i;

	for (i = 0; i < HOT_SITES; i++)
		sum += hot_site_hits(i);
	return sum;
}

static int hot_hits_get(char *buf, const struct kernel_param *kp)
{
	unsigned int i;
	int len = 0;

	for (i = 0; i < HOT_SITES; i++)
		len += sysfs_emit_at(buf, len, "%s %lu\n", hot_names[i], hot_site_hits(i));
	return len;
}

static const struct kernel_param_ops hot_hits_ops = {
	.get = hot_hits_get,
};
module_param_cb(hits, &hot_hits_ops, NULL, 0444);
MODULE_PARM_DESC(hits, "the hits of each site, a line \"NAME COUNT\" a site");

#if IS_ENABLED(CONFIG_MARKERS_HOT_MARKERS)

static void hot_probe(void *probe_private, void *call_private,
		      const struct marker *marker, ...)
{
	this_cpu_inc(hot_hits[(unsigned long)probe_private]);
}

#define HOT_NR	HOT_SITES

static void hot_disconnect(unsigned int n)
{
	while (n--)
		marker_probe_unregister_fast(hot_names[n], hot_probe, (void *)(unsigned long)n);
	marker_synchronize_unregister();
}

static int hot_connect(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < HOT_SITES; i++) {
		ret = marker_probe_register_fast(hot_names[i], NULL, hot_probe,
						 (void *)(unsigned long)i);
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
	this_cpu_inc(hot_hits[(unsigned long)data]);
}

/* Each tracepoint has a register and an unregister function of its own. */
#define HOT_TRACEPOINT(name)						\
	{ MARKERS_HOT_TP(register_trace_, name),			\
	  MARKERS_HOT_TP(unregister_trace_, name), #name }

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

static_assert(ARRAY_SIZE(hot_tracepoints) == HOT_SITES);

#define HOT_NR	ARRAY_SIZE(hot_tracepoints)

static void hot_disconnect(unsigned int n)
{
	while (n--)
		hot_tracepoints[n].unreg(hot_probe, (void *)(unsigned long)n);
	tracepoint_synchronize_unregister();
}

static int hot_connect(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(hot_tracepoints); i++) {
		ret = hot_tracepoints[i].reg(hot_probe, (void *)(unsigned long)i);
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
