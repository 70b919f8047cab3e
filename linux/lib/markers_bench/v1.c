// SPDX-License-Identifier: GPL-2.0
/*
 * The record of a hit as v1 made it, to compare marker events with: a probe
 * that formats the arguments with vsnprintf() into a 256-byte buffer on the
 * stack and records them as one string.
 */

#include <linux/kernel.h>
#include <linux/marker.h>

#include "bench.h"

#define CREATE_TRACE_POINTS
#include "v1_trace.h"

#define BENCH_V1_MESSAGE_MAX	256

void bench_v1_probe(void *probe_private, void *call_private,
		    const struct marker *marker, ...)
{
	char message[BENCH_V1_MESSAGE_MAX];
	va_list args;

	va_start(args, marker);
	vsnprintf(message, sizeof(message), marker->format, args);
	va_end(args);
	trace_markers_bench_v1(marker->name, message);
}
