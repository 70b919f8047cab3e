/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What immediate_kunit_mod.ko exports to the immediate suite: readers and a
 * setter of its own immediate value, and a reader of one defined by the
 * suite, so that both directions cross the module boundary.
 */
#ifndef _IMMEDIATE_KUNIT_H
#define _IMMEDIATE_KUNIT_H

#include <linux/immediate.h>

/* The namespace of what the module exports to the suite. */
#define IMV_KUNIT_NS		"EXPORTED_FOR_KUNIT_TESTING"

/* Defined and exported by the built-in suite. */
DECLARE_IMV(int, imv_kunit_shared);

/* The module's initial value of its own immediate. */
#define IMV_KUNIT_MOD_INITIAL	42

int imv_kunit_mod_read(void);
int imv_kunit_mod_read_shared(void);
int imv_kunit_mod_set(int value);
/* What the module's init function read of imv_kunit_shared, in init text. */
extern int imv_kunit_mod_init_read;

#endif /* _IMMEDIATE_KUNIT_H */
