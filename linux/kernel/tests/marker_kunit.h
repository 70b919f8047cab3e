/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What marker_kunit_mod.ko shares with the marker suite: a function with a
 * site of marker_test_module, sites of marker_test_module_init in its init
 * text and in its core text, the address of its init text, and an
 * immediate value the suite defines and the module's firing kthreads read.
 */
#ifndef _MARKER_KUNIT_H
#define _MARKER_KUNIT_H

#include <linux/atomic.h>
#include <linux/immediate.h>

/* The namespace of what the suite and the module export to each other. */
#define MARKER_KUNIT_NS		"EXPORTED_FOR_KUNIT_TESTING"

/* The format of marker_test_module. */
#define MARKER_KUNIT_MOD_FORMAT	"value %d"
/* What the module's init function fires marker_test_module_init with. */
#define MARKER_KUNIT_MOD_INIT_VALUE	17

DECLARE_IMV(int, marker_kunit_imv);
/* The calls of the module's probe of marker_test_probe_module, "%d". */
extern atomic_long_t marker_kunit_probe_calls;

void marker_kunit_mod_fire(int value);
void marker_kunit_mod_fire_init_marker(int value);
extern void *marker_kunit_mod_init_text;

#endif /* _MARKER_KUNIT_H */
