// SPDX-License-Identifier: GPL-2.0
/* Footprint: the call with one static branch guarding a call. */

#include <linux/jump_label.h>

#include "bench.h"

static DEFINE_STATIC_KEY_FALSE(bench_fp_key);

static noinline void bench_fp_consume(int v)
{
	WRITE_ONCE(bench_sink, v + 1);
}

void bench_fp_static_branch(int v)
{
	WRITE_ONCE(bench_sink, v);
	if (static_branch_unlikely(&bench_fp_key))
		bench_fp_consume(v);
}
