// SPDX-License-Identifier: GPL-2.0
/* Footprint: the call with one TRACE_EVENT of one argument. */

#include <linux/compiler.h>

#include "bench.h"

#define CREATE_TRACE_POINTS
#include "fp_trace.h"

void bench_fp_trace_event(int v)
{
	WRITE_ONCE(bench_sink, v);
	trace_markers_bench_fp(v);
}
