/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the markers benchmark share: the sites switched by the
 * switching rows (sites.c), and the functions whose objects the workbench
 * measures for the footprint rows (fp_*.c).
 */
#ifndef _MARKERS_BENCH_H
#define _MARKERS_BENCH_H

#include <linux/jump_label.h>

extern int bench_sink;

/* Markers bench_sw1, bench_sw64, bench_sw1024 and keys of as many sites. */
DECLARE_STATIC_KEY_FALSE(bench_sk1);
DECLARE_STATIC_KEY_FALSE(bench_sk64);
DECLARE_STATIC_KEY_FALSE(bench_sk1024);
void bench_sites_fire(void);

/* One instrumented call each, in an object of its own. */
void bench_fp_none(int v);
void bench_fp_mark(int v);
void bench_fp_static_branch(int v);
void bench_fp_trace_event(int v);

#endif /* _MARKERS_BENCH_H */
