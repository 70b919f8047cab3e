// SPDX-License-Identifier: GPL-2.0-only
/*
 * Markers sample: probes connected to the markers of marker-example.c.
 * Fast probes decode the markers' arguments and count the hits; a probe
 * that takes a va_list formats the last write. The counts and the last
 * write are in /proc/marker-probe-example, the counts also in the kernel
 * log on unload.
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
#include <linux/spinlock.h>

/* One probe: the marker and format it expects, and what it saw. */
struct sample_probe {
	const char *name;
	const char *format;
	marker_fast_probe_func *func;
	atomic_t hits;
	int last_pid;
};

/*
 * A fast probe: called with the site's arguments themselves. Every sample
 * marker starts with the pid: "pid %d ...". notrace, as probes should be
 * (Documentation/markers.txt).
 */
static notrace void sample_probe_count(void *probe_private, void *call_private,
				       const struct marker *marker, ...)
{
	struct sample_probe *p = probe_private;
	va_list args;

	va_start(args, marker);
	p->last_pid = va_arg(args, int);
	va_end(args);
	atomic_inc(&p->hits);
}

static struct sample_probe sample_probes[] = {
	{ "sample_read", "pid %d count %zu pos %lld", sample_probe_count },
	{ "sample_write", "pid %d len %zu data %s", sample_probe_count },
};

/*
 * A probe that takes a va_list, the type to use when the arguments go
 * straight to a v*printf() function: the last write, as the format says.
 */
static char sample_last_write[128];
static DEFINE_RAW_SPINLOCK(sample_last_write_lock);

static __printf(3, 0)
void sample_probe_format(void *probe_private, void *call_private,
			 const char *fmt, va_list *args)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sample_last_write_lock, flags);
	vsnprintf(sample_last_write, sizeof(sample_last_write), fmt, *args);
	raw_spin_unlock_irqrestore(&sample_last_write_lock, flags);
}

static int sample_probes_show(struct seq_file *m, void *v)
{
	char last[sizeof(sample_last_write)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sample_probes); i++)
		seq_printf(m, "%s %d hits, last pid %d\n", sample_probes[i].name,
			   atomic_read(&sample_probes[i].hits), sample_probes[i].last_pid);
	raw_spin_lock_irq(&sample_last_write_lock);
	strscpy(last, sample_last_write);
	raw_spin_unlock_irq(&sample_last_write_lock);
	seq_printf(m, "last write: %s\n", last);
	return 0;
}

/* Disconnects the formatting probe, if @format, and the first @n others. */
static void sample_probes_unregister(bool format, unsigned int n)
{
	if (format)
		marker_probe_unregister("sample_write", sample_probe_format, NULL);
	while (n--)
		marker_probe_unregister_fast(sample_probes[n].name, sample_probes[n].func,
					     &sample_probes[n]);
	/* No probe runs once this returns: the data may go. */
	marker_synchronize_unregister();
}

static int __init probe_example_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(sample_probes); i++) {
		ret = marker_probe_register_fast(sample_probes[i].name,
						 sample_probes[i].format,
						 sample_probes[i].func, &sample_probes[i]);
		if (ret) {
			pr_err("cannot connect to %s: %d\n", sample_probes[i].name, ret);
			sample_probes_unregister(false, i);
			return ret;
		}
	}
	ret = marker_probe_register("sample_write", "pid %d len %zu data %s",
				    sample_probe_format, NULL);
	if (ret) {
		pr_err("cannot connect to sample_write: %d\n", ret);
		sample_probes_unregister(false, i);
		return ret;
	}
	if (!proc_create_single("marker-probe-example", 0444, NULL, sample_probes_show)) {
		sample_probes_unregister(true, i);
		return -ENOMEM;
	}
	return 0;
}

static void __exit probe_example_exit(void)
{
	unsigned int i;

	remove_proc_entry("marker-probe-example", NULL);
	sample_probes_unregister(true, ARRAY_SIZE(sample_probes));
	for (i = 0; i < ARRAY_SIZE(sample_probes); i++)
		pr_info("%s: %d hits\n", sample_probes[i].name,
			atomic_read(&sample_probes[i].hits));
}

module_init(probe_example_init);
module_exit(probe_example_exit);
MODULE_DESCRIPTION("Markers sample: probes that count the hits of marker-example");
MODULE_LICENSE("GPL");
