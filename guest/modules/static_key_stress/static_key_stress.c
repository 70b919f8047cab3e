// SPDX-License-Identifier: GPL-2.0
/*
 * The control of the emulator: upstream static keys under the load the
 * markers suites put on markers. One key is toggled 10^4 times while a
 * kthread on every other CPU runs its site; the kernel must survive it
 * and the readers must have seen both branches.
 *
 * Nothing here is ours: with an unpatched kernel, a guest that dies on
 * this (a stale int3) is an emulator that loses cross-vCPU code
 * modification, not a bug of the series. See README.md.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>

#define STRESS_TOGGLES	10000
#define STRESS_READERS	3

static DEFINE_STATIC_KEY_FALSE(stress_key);

struct stress_reader {
	struct task_struct *task;
	unsigned long on, off;
};

static struct stress_reader readers[STRESS_READERS];

static noinline bool stress_site(void)
{
	return static_branch_unlikely(&stress_key);
}

static int stress_read(void *data)
{
	struct stress_reader *r = data;

	while (!kthread_should_stop()) {
		if (stress_site())
			r->on++;
		else
			r->off++;
		/* Hands over to the next vCPU under single-threaded TCG. */
		cpu_relax();
		cond_resched_tasks_rcu_qs();
	}
	return 0;
}

static void stress_stop(unsigned int n)
{
	while (n--)
		kthread_stop(readers[n].task);
}

static int __init stress_init(void)
{
	unsigned int i, n = 0, cpu = 0, seen = 0;

	for (i = 0; i < STRESS_READERS; i++) {
		struct task_struct *t;

		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			break;
		t = kthread_create_on_cpu(stress_read, &readers[i], cpu, "stress_read/%u");
		if (IS_ERR(t)) {
			stress_stop(n);
			return PTR_ERR(t);
		}
		readers[i].task = t;
		wake_up_process(t);
		n++;
	}
	for (i = 0; i < STRESS_TOGGLES; i++) {
		static_branch_enable(&stress_key);
		static_branch_disable(&stress_key);
	}
	stress_stop(n);
	for (i = 0; i < n; i++) {
		pr_info("reader %u: %lu on, %lu off\n", i, readers[i].on, readers[i].off);
		seen += readers[i].on && readers[i].off;
	}
	pr_info("%u toggles, %u readers, %u saw both branches\n", STRESS_TOGGLES, n, seen);
	return 0;
}

static void __exit stress_exit(void)
{
}

module_init(stress_init);
module_exit(stress_exit);
MODULE_DESCRIPTION("Toggles an upstream static key while other CPUs run its site");
MODULE_LICENSE("GPL");
