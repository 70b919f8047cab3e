/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What marker_kunit_mod.ko exports to the marker suite: a function with a
 * site of marker_test_module.
 */
#ifndef _MARKER_KUNIT_H
#define _MARKER_KUNIT_H

/* The format of marker_test_module. */
#define MARKER_KUNIT_MOD_FORMAT	"value %d"

void marker_kunit_mod_fire(int value);

#endif /* _MARKER_KUNIT_H */
