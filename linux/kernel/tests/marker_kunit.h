/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What marker_kunit_mod.ko shares with the marker suite: a function with a
 * site of marker_test_module, and an immediate value the suite defines and
 * the module's firing kthreads read.
 */
#ifndef _MARKER_KUNIT_H
#define _MARKER_KUNIT_H

#include <linux/immediate.h>

/* The format of marker_test_module. */
#define MARKER_KUNIT_MOD_FORMAT	"value %d"

DECLARE_IMV(int, marker_kunit_imv);

void marker_kunit_mod_fire(int value);

#endif /* _MARKER_KUNIT_H */
