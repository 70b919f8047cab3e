// SPDX-License-Identifier: GPL-2.0-only
/*
 * Markers sample: sites that fire when /proc/marker-example is read or
 * written.
 *
 *   # modprobe marker-example
 *   # echo sample_read > /sys/kernel/tracing/markers/enable
 *   # cat /proc/marker-example
 *   # cat /sys/kernel/tracing/trace
 *
 * probe-example.c connects probes of its own to the same markers. See
 * Documentation/markers.txt.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#define SAMPLE_WRITE_MAX	64

static const char sample_text[] = "markers are switched from /sys/kernel/tracing/markers\n";

static ssize_t sample_read(struct file *file, char __user *buf, size_t count,
			   loff_t *ppos)
{
	/* The arguments are only evaluated when a probe is connected. */
	MARK(sample_read, "pid %d count %zu pos %lld", task_pid_nr(current), count,
	     *ppos);
	return simple_read_from_buffer(buf, count, ppos, sample_text,
				       sizeof(sample_text) - 1);
}

static ssize_t sample_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	char data[SAMPLE_WRITE_MAX];
	size_t len = min(count, sizeof(data) - 1);

	if (copy_from_user(data, ubuf, len))
		return -EFAULT;
	data[len] = '\0';
	MARK(sample_write, "pid %d len %zu data %s", task_pid_nr(current), count,
	     strim(data));

	/* Costly arguments: computed only when the marker is on. */
	if (marker_enabled(sample_write_crc))
		MARK(sample_write_crc, "crc %08x", crc32_le(~0, data, len));
	return count;
}

static const struct proc_ops sample_proc_ops = {
	.proc_read = sample_read,
	.proc_write = sample_write,
	.proc_lseek = default_llseek,
};

static int __init marker_example_init(void)
{
	if (!proc_create("marker-example", 0644, NULL, &sample_proc_ops))
		return -ENOMEM;
	/* __init code uses _MARK(): it is never patched. */
	_MARK(sample_loaded, "module %s", KBUILD_MODNAME);
	return 0;
}

static void __exit marker_example_exit(void)
{
	remove_proc_entry("marker-example", NULL);
}

module_init(marker_example_init);
module_exit(marker_example_exit);
MODULE_DESCRIPTION("Markers sample: sites that fire on /proc/marker-example");
MODULE_LICENSE("GPL");
