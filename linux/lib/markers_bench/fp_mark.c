// SPDX-License-Identifier: GPL-2.0
/* Footprint: the call with one marker of one argument. */

#include <linux/marker.h>

#include "bench.h"

void bench_fp_mark(int v)
{
	WRITE_ONCE(bench_sink, v);
	MARK(bench_fp_mark, "%d", v);
}
