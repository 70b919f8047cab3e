// SPDX-License-Identifier: GPL-2.0
/* Footprint: the call without instrumentation, the reference. */

#include <linux/compiler.h>

#include "bench.h"

void bench_fp_none(int v)
{
	WRITE_ONCE(bench_sink, v);
}
