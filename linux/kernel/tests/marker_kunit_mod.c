// SPDX-License-Identifier: GPL-2.0
/*
 * Helper module of the marker KUnit suite: a module with a marker site. The
 * suite registers a probe first, then loads, unloads and reloads it.
 */

#include <linux/marker.h>
#include <linux/module.h>

#include "marker_kunit.h"

void marker_kunit_mod_fire(int value)
{
	MARK(marker_test_module, "value %d", value);
}
EXPORT_SYMBOL_GPL(marker_kunit_mod_fire);

MODULE_DESCRIPTION("Helper module of the markers KUnit suite");
MODULE_LICENSE("GPL");
