// SPDX-License-Identifier: GPL-2.0
/*
 * Markers in tracefs, for a root shell: /sys/kernel/tracing/markers/
 *
 *   list	every marker: name, state, probes, sites, module and format
 *   enable	write NAME to switch a marker on, !NAME to switch it off;
 *		read it to see the markers switched on here
 *   sites	every patched site: its marker, where it is, its bytes now
 *
 * A marker switched on here gets a probe that formats its arguments with
 * the marker's format and records a markers:marker_hit event, which shows
 * in trace and trace_pipe. The three files are root's and refuse to open under
 * lockdown (LOCKDOWN_TRACEFS). See Documentation/markers.txt.
 */

#define pr_fmt(fmt) "trace_markers: " fmt

#include <linux/list.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>

#define CREATE_TRACE_POINTS
#include <trace/events/markers.h>

#include "trace.h"

/* The longest message an event records; longer ones are cut. */
#define MARKER_HIT_MAX		256

/* The longest line the enable file takes: "!", a name, "\n". */
#define MARKER_CMD_MAX		(MARKER_NAME_MAX + 2)

/* A marker switched on through the enable file. */
struct trace_marker_on {
	struct list_head list;
	char name[MARKER_NAME_MAX + 1];
};

static DEFINE_MUTEX(trace_markers_mutex);
static LIST_HEAD(trace_markers_on);	/* under trace_markers_mutex */

/* The probe of every marker switched on here: one event per hit. */
static void trace_marker_probe(void *probe_private, void *call_private,
			       const struct marker *marker, ...)
{
	struct trace_marker_on *on = probe_private;
	char message[MARKER_HIT_MAX];
	va_list args;

	va_start(args, marker);
	vsnprintf(message, sizeof(message), marker->format, args);
	va_end(args);
	trace_marker_hit(on->name, message);
}

static struct trace_marker_on *trace_marker_find_on(const char *name)
{
	struct trace_marker_on *on;

	lockdep_assert_held(&trace_markers_mutex);
	list_for_each_entry(on, &trace_markers_on, list)
		if (!strcmp(on->name, name))
			return on;
	return NULL;
}

static int trace_marker_match(const struct marker_info *info, void *name)
{
	return !strcmp(info->name, name);
}

/* Whether @name is a marker the list file shows. */
static bool trace_marker_known(const char *name)
{
	return marker_walk(trace_marker_match, (void *)name);
}

/* The event is on while at least one marker is switched on here. */
static int trace_marker_event_set(bool on)
{
	return trace_set_clr_event("markers", "marker_hit", on);
}

static int trace_marker_switch_on(const char *name)
{
	struct trace_marker_on *on;
	bool first;
	int ret;

	lockdep_assert_held(&trace_markers_mutex);
	if (trace_marker_find_on(name))
		return -EBUSY;
	if (!trace_marker_known(name))
		return -ENOENT;
	on = kzalloc(sizeof(*on), GFP_KERNEL);
	if (!on)
		return -ENOMEM;
	strscpy(on->name, name);

	first = list_empty(&trace_markers_on);
	if (first) {
		ret = trace_marker_event_set(true);
		if (ret)
			goto out_free;
	}
	ret = marker_probe_register_fast(name, NULL, trace_marker_probe, on);
	if (ret)
		goto out_event;
	list_add_tail(&on->list, &trace_markers_on);
	return 0;

out_event:
	if (first)
		trace_marker_event_set(false);
out_free:
	kfree(on);
	return ret;
}

static int trace_marker_switch_off(const char *name)
{
	struct trace_marker_on *on;
	int ret;

	lockdep_assert_held(&trace_markers_mutex);
	on = trace_marker_find_on(name);
	if (!on)
		return -ENOENT;
	/*
	 * The probe is disconnected even when the sites cannot be switched
	 * off (they stay on without probes): the marker is off here, and the
	 * writer gets the error.
	 */
	ret = marker_probe_unregister_fast(name, trace_marker_probe, on);
	WARN_ON_ONCE(ret == -ENOENT);
	list_del(&on->list);
	marker_synchronize_unregister();
	kfree(on);
	if (list_empty(&trace_markers_on))
		trace_marker_event_set(false);
	return ret;
}

/*
 * Opens a file of the directory: its show function is the inode's data.
 * tracing_check_open_get_tr() refuses under lockdown (LOCKDOWN_TRACEFS).
 */
static int trace_markers_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, inode->i_private, NULL);
}

/* list and sites */
static const struct file_operations trace_markers_read_fops = {
	.open = trace_markers_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int trace_markers_list_row(const struct marker_info *info, void *data)
{
	struct seq_file *m = data;
	const char *where = "-";

	if (info->has_sites)
		where = info->module ? module_name(info->module) : "vmlinux";
	seq_printf(m, "%-32s %-3s %6u %6u %-24s \"%s\"\n", info->name,
		   info->enabled ? "on" : "off", info->nr_probes, info->nr_sites,
		   where, info->format ?: "");
	return 0;
}

static int trace_markers_list_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%-32s %-3s %6s %6s %-24s %s\n", "# name", "state", "probes",
		   "sites", "module", "format");
	return marker_walk(trace_markers_list_row, m);
}

static int trace_markers_sites_row(const char *name, void *code, unsigned int size,
				   struct module *mod, void *data)
{
	seq_printf(data, "%-32s %-48pS %*ph\n", name, code, size, code);
	return 0;
}

static int trace_markers_sites_show(struct seq_file *m, void *v)
{
	return marker_walk_sites(trace_markers_sites_row, m);
}

static int trace_markers_enable_show(struct seq_file *m, void *v)
{
	struct trace_marker_on *on;

	guard(mutex)(&trace_markers_mutex);
	list_for_each_entry(on, &trace_markers_on, list)
		seq_printf(m, "%s\n", on->name);
	return 0;
}

/*
 * One command per write: "NAME" or "!NAME", surrounded by blanks at most.
 * Malformed input is -EINVAL, an unknown marker -ENOENT, a marker already
 * on -EBUSY; nothing changes on error.
 */
static ssize_t trace_markers_enable_write(struct file *file, const char __user *ubuf,
					  size_t cnt, loff_t *ppos)
{
	char buf[MARKER_CMD_MAX + 1];
	bool off;
	char *name;
	int ret;

	if (!cnt || cnt > MARKER_CMD_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	if (strlen(buf) != cnt)
		return -EINVAL;
	name = strim(buf);
	off = *name == '!';
	if (off)
		name++;
	if (!marker_name_valid(name))
		return -EINVAL;

	guard(mutex)(&trace_markers_mutex);
	ret = off ? trace_marker_switch_off(name) : trace_marker_switch_on(name);
	return ret ? ret : cnt;
}

static const struct file_operations trace_markers_enable_fops = {
	.open = trace_markers_open,
	.read = seq_read,
	.write = trace_markers_enable_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static __init int trace_markers_init(void)
{
	struct dentry *dir;

	if (tracing_init_dentry())
		return 0;
	dir = tracefs_create_dir("markers", NULL);
	if (!dir) {
		pr_warn("cannot create the markers directory\n");
		return 0;
	}
	trace_create_file("list", TRACE_MODE_READ, dir, trace_markers_list_show,
			  &trace_markers_read_fops);
	trace_create_file("enable", TRACE_MODE_WRITE, dir, trace_markers_enable_show,
			  &trace_markers_enable_fops);
	trace_create_file("sites", TRACE_MODE_READ, dir, trace_markers_sites_show,
			  &trace_markers_read_fops);
	return 0;
}
fs_initcall(trace_markers_init);
