// SPDX-License-Identifier: GPL-2.0
/*
 * Footprint: the call with one dynamic_debug site of one argument: a
 * descriptor with its static key, defined in place, as pr_debug() has.
 * Without dynamic debug the site is nothing.
 */

#include <linux/compiler.h>
#include <linux/dynamic_debug.h>

#include "bench.h"

void bench_fp_dyndbg(int v)
{
	WRITE_ONCE(bench_sink, v);
#if defined(CONFIG_DYNAMIC_DEBUG) || \
	(defined(CONFIG_DYNAMIC_DEBUG_CORE) && defined(DYNAMIC_DEBUG_MODULE))
	_dynamic_func_call("bench %d", bench_dyndbg_hook, v);
#endif
}
