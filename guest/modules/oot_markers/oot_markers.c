// SPDX-License-Identifier: GPL-2.0
/*
 * Markers in a module built out of tree, unsigned, the way a tracer or a
 * driver vendor builds one: its site is listed and patched like any other,
 * a probe it connects sees every hit while on and none once off. The
 * checks run at load; the module refuses to load (-EINVAL) if one fails.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/marker.h>
#include <linux/module.h>

#define OOT_FIRES	100

static unsigned long oot_hits, oot_sum;

static void oot_probe(void *probe_private, void *call_private, const char *fmt,
		      va_list *args)
{
	oot_hits++;
	oot_sum += va_arg(*args, int);
}

static noinline void oot_fire(int v)
{
	MARK(oot_markers_tick, "v %d", v);
}

static unsigned long oot_fire_all(void)
{
	int i;

	oot_hits = 0;
	oot_sum = 0;
	for (i = 1; i <= OOT_FIRES; i++)
		oot_fire(i);
	return oot_hits;
}

static int __init oot_init(void)
{
	void *site = NULL;
	int ret;

	/* Without CONFIG_MARKER_SITES the site tests a variable: nothing to patch. */
	if (marker_get_sites("oot_markers_tick", &site, 1) != IS_ENABLED(CONFIG_MARKER_SITES)) {
		pr_err("the patched site is not listed\n");
		return -EINVAL;
	}
	if (oot_fire_all()) {
		pr_err("the probe ran while off\n");
		return -EINVAL;
	}
	ret = marker_probe_register("oot_markers_tick", "v %d", oot_probe, NULL);
	if (ret) {
		pr_err("marker_probe_register: %d\n", ret);
		return ret;
	}
	if (oot_fire_all() != OOT_FIRES || oot_sum != OOT_FIRES * (OOT_FIRES + 1) / 2) {
		pr_err("on: %lu hits, sum %lu\n", oot_hits, oot_sum);
		ret = -EINVAL;
	}
	marker_probe_unregister("oot_markers_tick", oot_probe, NULL);
	marker_synchronize_unregister();
	if (!ret && oot_fire_all()) {
		pr_err("the probe ran once off again\n");
		ret = -EINVAL;
	}
	if (!ret)
		pr_info("site %pS: %d hits on, none off\n", site, OOT_FIRES);
	return ret;
}

static void __exit oot_exit(void)
{
}

module_init(oot_init);
module_exit(oot_exit);
MODULE_DESCRIPTION("Markers in an out-of-tree module");
MODULE_LICENSE("GPL");
