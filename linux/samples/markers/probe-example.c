// SPDX-License-Identifier: GPL-2.0-only
/*
 * Markers sample: probes connected to the markers of marker-example.c.
 * Each probe decodes the marker's arguments and counts the hits; the counts
 * are in /proc/marker-probe-example and in the kernel log on unload.
 *
 *   # modprobe probe-example
 *   # modprobe marker-example
 *   # cat /proc/marker-example; echo hello > /proc/marker-example
 *   # cat /proc/marker-probe-example
 *
 * The probes may be registered before marker-example is loaded: its sites
 * are armed when it comes. See Documentation/markers.txt.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

/* One probe: the marker and format it expects, and what it saw. */
struct sample_probe {
	const char *name;
	const char *format;
	marker_probe_func *func;
	atomic_t hits;
	int last_pid;
};

static void sample_probe_count(void *probe_private, void *call_private,
			       const char *fmt, va_list *args)
{
	struct sample_probe *p = probe_private;

	/* Every sample marker starts with the pid: "pid %d ...". */
	p->last_pid = va_arg(*args, int);
	atomic_inc(&p->hits);
}

static struct sample_probe sample_probes[] = {
	{ "sample_read", "pid %d count %zu pos %lld", sample_probe_count },
	{ "sample_write", "pid %d len %zu data %s", sample_probe_count },
};

static int sample_probes_show(struct seq_file *m, void *v)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sample_probes); i++)
		seq_printf(m, "%s %d hits, last pid %d\n", sample_probes[i].name,
			   atomic_read(&sample_probes[i].hits), sample_probes[i].last_pid);
	return 0;
}

static void sample_probes_unregister(unsigned int n)
{
	while (n--)
		marker_probe_unregister(sample_probes[n].name, sample_probes[n].func,
					&sample_probes[n]);
	/* No probe runs once this returns: the data may go. */
	marker_synchronize_unregister();
}

static int __init probe_example_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sample_probes); i++) {
		ret = marker_probe_register(sample_probes[i].name, sample_probes[i].format,
					    sample_probes[i].func, &sample_probes[i]);
		if (ret) {
			pr_err("cannot connect to %s: %d\n", sample_probes[i].name, ret);
			sample_probes_unregister(i);
			return ret;
		}
	}
	if (!proc_create_single("marker-probe-example", 0444, NULL, sample_probes_show)) {
		sample_probes_unregister(i);
		return -ENOMEM;
	}
	return 0;
}

static void __exit probe_example_exit(void)
{
	unsigned int i;

	remove_proc_entry("marker-probe-example", NULL);
	sample_probes_unregister(ARRAY_SIZE(sample_probes));
	for (i = 0; i < ARRAY_SIZE(sample_probes); i++)
		pr_info("%s: %d hits\n", sample_probes[i].name,
			atomic_read(&sample_probes[i].hits));
}

module_init(probe_example_init);
module_exit(probe_example_exit);
MODULE_DESCRIPTION("Markers sample: probes that count the hits of marker-example");
MODULE_LICENSE("GPL");
