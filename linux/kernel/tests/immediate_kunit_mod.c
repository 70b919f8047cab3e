// SPDX-License-Identifier: GPL-2.0
/*
 * Helper module of the immediate KUnit suite: an immediate value defined in
 * a module, and a module site of an immediate value defined in the kernel.
 * The suite loads it with request_module() and unloads it with rmmod.
 */

#include <linux/module.h>

#include "immediate_kunit.h"

static DEFINE_IMV(int, imv_kunit_mod_value) = IMV_KUNIT_MOD_INITIAL;

int imv_kunit_mod_read(void)
{
	return imv_read(imv_kunit_mod_value);
}
EXPORT_SYMBOL_GPL(imv_kunit_mod_read);

int imv_kunit_mod_read_shared(void)
{
	return imv_read(imv_kunit_shared);
}
EXPORT_SYMBOL_GPL(imv_kunit_mod_read_shared);

int imv_kunit_mod_set(int value)
{
	return imv_set(imv_kunit_mod_value, value);
}
EXPORT_SYMBOL_GPL(imv_kunit_mod_set);

MODULE_DESCRIPTION("Helper module of the immediate values KUnit suite");
MODULE_LICENSE("GPL");
