// SPDX-License-Identifier: GPL-2.0
/*
 * Helper module of the marker KUnit suite: a module with a marker site, a
 * marker that inline code puts into its init text and its core text, and
 * an immediate value site. The suite registers a probe first, then loads,
 * unloads and reloads it; with fire=N, N kthreads of the module fire its
 * sites from load to unload, so that the suite can unload it while they do.
 * With probe=1 the module is a probe module instead: it connects a probe
 * to the suite's marker_test_probe_module from init to exit, a fast one
 * (which the marker's sites call straight) with fast=1.
 */

#include <linux/kthread.h>
#include <linux/marker.h>
#include <linux/module.h>

#include "marker_kunit.h"

static unsigned int fire;
module_param(fire, uint, 0444);
MODULE_PARM_DESC(fire, "kthreads firing the module's sites until it unloads");

static bool probe;
module_param(probe, bool, 0444);
MODULE_PARM_DESC(probe, "connect a probe to marker_test_probe_module until unloaded");

static bool fast;
module_param(fast, bool, 0444);
MODULE_PARM_DESC(fast, "with probe=1, connect a fast probe rather than a va_list one");

#define MARKER_KUNIT_MOD_FIRERS	4

static struct task_struct *firers[MARKER_KUNIT_MOD_FIRERS];

void marker_kunit_mod_fire(int value)
{
	MARK(marker_test_module, "value %d", value);
}
EXPORT_SYMBOL_NS_GPL(marker_kunit_mod_fire, MARKER_KUNIT_NS);

/* Inline code lands where it is used: in init text and in core text below. */
static __always_inline void marker_kunit_mod_fire_inline(int value)
{
	MARK(marker_test_module_init, "%d", value);
}

void marker_kunit_mod_fire_init_marker(int value)
{
	marker_kunit_mod_fire_inline(value);
}
EXPORT_SYMBOL_NS_GPL(marker_kunit_mod_fire_init_marker, MARKER_KUNIT_NS);

/* Where the module's init function was, once it has been freed. */
void *marker_kunit_mod_init_text;
EXPORT_SYMBOL_NS_GPL(marker_kunit_mod_init_text, MARKER_KUNIT_NS);

static int marker_kunit_mod_firer(void *data)
{
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		MARK(marker_test_module_race, "%d", imv_read(marker_kunit_imv));
		/* Lets a single-threaded emulator switch to the other vCPUs. */
		cpu_relax();
		if (!(++n % 1024))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* Called until the module's exit has disconnected it and synchronized. */
static void marker_kunit_mod_probe(void *probe_private, void *call_private,
				   const char *fmt, va_list *args)
{
	atomic_long_inc(&marker_kunit_probe_calls);
}

static void marker_kunit_mod_fast_probe(void *probe_private, void *call_private,
					const struct marker *marker, ...)
{
	atomic_long_inc(&marker_kunit_probe_calls);
}

static int marker_kunit_mod_connect(void)
{
	const char *name = "marker_test_probe_module";

	if (fast)
		return marker_probe_register_fast(name, "%d", marker_kunit_mod_fast_probe, NULL);
	return marker_probe_register(name, "%d", marker_kunit_mod_probe, NULL);
}

static void marker_kunit_mod_disconnect(void)
{
	const char *name = "marker_test_probe_module";

	if (fast)
		marker_probe_unregister_fast(name, marker_kunit_mod_fast_probe, NULL);
	else
		marker_probe_unregister(name, marker_kunit_mod_probe, NULL);
	marker_synchronize_unregister();
}

static int __init marker_kunit_mod_init(void)
{
	unsigned int i;
	int ret;

	marker_kunit_mod_init_text = marker_kunit_mod_init;
	marker_kunit_mod_fire_inline(MARKER_KUNIT_MOD_INIT_VALUE);
	if (probe) {
		ret = marker_kunit_mod_connect();
		if (ret)
			return ret;
	}
	for (i = 0; i < min(fire, MARKER_KUNIT_MOD_FIRERS); i++) {
		firers[i] = kthread_run(marker_kunit_mod_firer, NULL, "marker_mod_firer/%u", i);
		if (IS_ERR(firers[i])) {
			while (i--)
				kthread_stop(firers[i]);
			ret = -ENOMEM;
			goto out_probe;
		}
	}
	return 0;

out_probe:
	if (probe)
		marker_kunit_mod_disconnect();
	return ret;
}

static void __exit marker_kunit_mod_exit(void)
{
	unsigned int i;

	for (i = 0; i < MARKER_KUNIT_MOD_FIRERS; i++)
		if (firers[i])
			kthread_stop(firers[i]);
	if (probe)
		marker_kunit_mod_disconnect();
}

module_init(marker_kunit_mod_init);
module_exit(marker_kunit_mod_exit);
MODULE_DESCRIPTION("Helper module of the markers KUnit suite");
MODULE_IMPORT_NS(MARKER_KUNIT_NS);
MODULE_LICENSE("GPL");
