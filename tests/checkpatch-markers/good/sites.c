// SPDX-License-Identifier: GPL-2.0
/* Every kind of marker site, written as the documentation shows them. */
#include <linux/init.h>
#include <linux/marker.h>
#include <linux/sched.h>

static int sample_value;

void sample_fire(struct task_struct *p, const char *s, u64 ns)
{
	MARK(sample_wakeup, "pid %d prio %d", p->pid, p->prio);
	MARK(sample_noargs, MARK_NOARGS);
	MARK(sample_percent, "100%% of %s", s);
	MARK(sample_width, "%*d|%-8.3s|%#llx", 4, sample_value, s,
	     (unsigned long long)ns);
	MARK(sample_multi_line,
	     "a (%d), b [%s]"
	     " c %p",
	     (sample_value, sample_value), "x, y)", p);
	MARK_PRIVATE(sample_private, &sample_value, "%lu %zu", 1UL, sizeof(*p));
	if (marker_enabled(sample_costly))
		MARK(sample_costly, "%u", jiffies_to_msecs(jiffies));
	/* MARK(sample_in_comment, "%d"); is not a site */
	pr_info("MARK(not_a_site, \"%%d\")\n");
}

static int __init sample_init(void)
{
	_MARK(sample_init_done, "%d", sample_value);
	return 0;
}

static void __exit sample_exit(void)
{
	_MARK(sample_exit_done, MARK_NOARGS);
}
