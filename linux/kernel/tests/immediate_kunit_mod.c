// SPDX-License-Identifier: GPL-2.0
/*
 * Helper module of the immediate KUnit suite: an immediate value defined in
 * a module, and module sites, in core text and in init text, of an
 * immediate value defined in the kernel.
 * The suite loads it with request_module() and unloads it with rmmod.
 */

#include <linux/module.h>

#include "immediate_kunit.h"

static DEFINE_IMV(int, imv_kunit_mod_value) = IMV_KUNIT_MOD_INITIAL;

int imv_kunit_mod_read(void)
{
	return imv_read(imv_kunit_mod_value);
}
EXPORT_SYMBOL_NS_GPL(imv_kunit_mod_read, IMV_KUNIT_NS);

/* Inline code lands where it is used: in init text and in core text. */
static __always_inline int imv_kunit_mod_read_shared_inline(void)
{
	return imv_read(imv_kunit_shared);
}

int imv_kunit_mod_read_shared(void)
{
	return imv_kunit_mod_read_shared_inline();
}
EXPORT_SYMBOL_NS_GPL(imv_kunit_mod_read_shared, IMV_KUNIT_NS);

int imv_kunit_mod_init_read;
EXPORT_SYMBOL_NS_GPL(imv_kunit_mod_init_read, IMV_KUNIT_NS);

int imv_kunit_mod_set(int value)
{
	return imv_set(imv_kunit_mod_value, value);
}
EXPORT_SYMBOL_NS_GPL(imv_kunit_mod_set, IMV_KUNIT_NS);

static int __init imv_kunit_mod_init(void)
{
	imv_kunit_mod_init_read = imv_kunit_mod_read_shared_inline();
	return 0;
}

/* Without an exit function the module could not be unloaded. */
static void __exit imv_kunit_mod_exit(void)
{
}

module_init(imv_kunit_mod_init);
module_exit(imv_kunit_mod_exit);
MODULE_DESCRIPTION("Helper module of the immediate values KUnit suite");
MODULE_LICENSE("GPL");
