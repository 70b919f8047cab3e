// SPDX-License-Identifier: GPL-2.0
/*
 * The sites of the switching rows of the markers benchmark: markers of 1,
 * 64 and 1024 sites, and static keys of as many. Each site is an inlined
 * copy of one MARK() or one static_branch_unlikely().
 */

#include <linux/marker.h>

#include "bench.h"

DEFINE_STATIC_KEY_FALSE(bench_sk1);
DEFINE_STATIC_KEY_FALSE(bench_sk64);
DEFINE_STATIC_KEY_FALSE(bench_sk1024);

void bench_hook(int v)
{
	WRITE_ONCE(bench_sink, -v);
}

void bench_probe_hook(void *probe_private, void *call_private,
		      const struct marker *marker, ...)
{
	va_list args;

	va_start(args, marker);
	WRITE_ONCE(bench_sink, -va_arg(args, int));
	va_end(args);
}

void bench_dyndbg_hook(struct _ddebug *descriptor, int v)
{
	WRITE_ONCE(bench_sink, -v);
}

static __always_inline void bench_sink_if(bool on, int v)
{
	if (on)
		WRITE_ONCE(bench_sink, v);
}

/* 4^3 = 64 copies of each kind of site. */
static __always_inline void bench_64_4(int v)
{
	MARK(bench_sw64, "%d", v);
	MARK(bench_sw64, "%d", v + 1);
	MARK(bench_sw64, "%d", v + 2);
	MARK(bench_sw64, "%d", v + 3);
	bench_sink_if(static_branch_unlikely(&bench_sk64), v);
	bench_sink_if(static_branch_unlikely(&bench_sk64), v + 1);
	bench_sink_if(static_branch_unlikely(&bench_sk64), v + 2);
	bench_sink_if(static_branch_unlikely(&bench_sk64), v + 3);
}

static __always_inline void bench_64_16(int v)
{
	bench_64_4(v);
	bench_64_4(v + 4);
	bench_64_4(v + 8);
	bench_64_4(v + 12);
}

static noinline void bench_64(int v)
{
	bench_64_16(v);
	bench_64_16(v + 16);
	bench_64_16(v + 32);
	bench_64_16(v + 48);
}

/* 4^5 = 1024 copies of each kind of site. */
static __always_inline void bench_1024_4(int v)
{
	MARK(bench_sw1024, "%d", v);
	MARK(bench_sw1024, "%d", v + 1);
	MARK(bench_sw1024, "%d", v + 2);
	MARK(bench_sw1024, "%d", v + 3);
	bench_sink_if(static_branch_unlikely(&bench_sk1024), v);
	bench_sink_if(static_branch_unlikely(&bench_sk1024), v + 1);
	bench_sink_if(static_branch_unlikely(&bench_sk1024), v + 2);
	bench_sink_if(static_branch_unlikely(&bench_sk1024), v + 3);
}

static __always_inline void bench_1024_16(int v)
{
	bench_1024_4(v);
	bench_1024_4(v + 4);
	bench_1024_4(v + 8);
	bench_1024_4(v + 12);
}

static __always_inline void bench_1024_64(int v)
{
	bench_1024_16(v);
	bench_1024_16(v + 16);
	bench_1024_16(v + 32);
	bench_1024_16(v + 48);
}

static __always_inline void bench_1024_256(int v)
{
	bench_1024_64(v);
	bench_1024_64(v + 64);
	bench_1024_64(v + 128);
	bench_1024_64(v + 192);
}

static noinline void bench_1024(int v)
{
	bench_1024_256(v);
	bench_1024_256(v + 256);
	bench_1024_256(v + 512);
	bench_1024_256(v + 768);
}

/* Runs every site once, off: the functions stay, and work. */
void bench_sites_fire(void)
{
	MARK(bench_sw1, "%d", 1);
	bench_sink_if(static_branch_unlikely(&bench_sk1), 1);
	bench_64(0);
	bench_1024(0);
}
