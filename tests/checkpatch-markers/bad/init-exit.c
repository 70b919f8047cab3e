// SPDX-License-Identifier: GPL-2.0
#include <linux/init.h>
#include <linux/marker.h>

/*
 * expect: 15: MARK() in __init code: use _MARK()
 * expect: 16: marker_enabled() in __init code
 * expect: 21: MARK_PRIVATE() in __exit code: use _MARK()
 */
static int __init
sample_init(void)
{
	int v = 1;

	MARK(sample_init_begin, "%d", v);
	if (marker_enabled(sample_init_costly))
		v++;
	return 0;
}

static void __exit sample_exit(void) { MARK_PRIVATE(sample_exit_end, NULL, MARK_NOARGS); }
