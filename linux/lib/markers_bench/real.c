// SPDX-License-Identifier: GPL-2.0
/*
 * Instrumentation in functions of the shapes the kernel's hot paths have,
 * rather than in a one-line function: what an instrumentation site that
 * is off costs where the compiler has values to keep across it. Each
 * function is built without a site and with each kind of site at the same
 * place, passing the same value: a marker; a marker whose site is far (its
 * probe block out of a short jump's reach, as in most functions of a real
 * kernel, see the top of <linux/marker.h>); a static branch; a static
 * branch whose hook takes what a marker's probe takes; a plain load and
 * test of a flag; a bare tracepoint (DECLARE_TRACE(), no event); and,
 * with dynamic debug, a dynamic_debug site: a descriptor defined where it
 * is written, with its own static key, as pr_debug() has. The benchmark
 * times each per call, the workbench measures their text, and the silicon
 * mode times them on the host's CPU (tools/silicon/).
 *
 *  - csum: a leaf that sums a buffer in a loop (the shape of do_csum()),
 *    with the site at its entry: the buffer and length are live across it;
 *  - find: a binary tree lookup (the shape of rb_find()), with the site on
 *    a hit: the node found is live across it;
 *  - account: runtime accounting of a scheduling entity (the shape of
 *    update_curr()): loads and stores through a struct, with the site
 *    between them: the entity and the delta are live across it.
 *
 * They are written for the benchmark: the shapes, not the code, of the
 * kernel's functions. real_fns.h holds them, included once per variant.
 */

#include <linux/dynamic_debug.h>
#include <linux/marker.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/unaligned.h>

#include "bench.h"

static DEFINE_STATIC_KEY_FALSE(bench_real_key);
static bool bench_real_flag;

/* Whether dynamic_debug sites are built, as dynamic_debug.h decides. */
#if defined(CONFIG_DYNAMIC_DEBUG) || \
	(defined(CONFIG_DYNAMIC_DEBUG_CORE) && defined(DYNAMIC_DEBUG_MODULE))
#define BENCH_DYNDBG
#endif

#define BENCH_CSUM_BYTES	64

static u8 bench_csum_buf[BENCH_CSUM_BYTES + 8];

struct bench_node {
	struct bench_node *left, *right;
	int key;
};

#define BENCH_TREE_NODES	63	/* a full tree of 6 levels */

static struct bench_node bench_tree[BENCH_TREE_NODES];
static struct bench_node *bench_root;

struct bench_entity {
	u64 exec_start;
	u64 sum_exec;
	u64 max_exec;
	u64 vruntime;
	u32 inv_weight;
};

static struct bench_entity bench_entity = { .inv_weight = 4194304 };

static __always_inline void bench_no_site(int v)
{
}

static __always_inline void bench_static_site(int v)
{
	if (static_branch_unlikely(&bench_real_key))
		bench_hook(v);
}

/* A static branch making the call a marker's probe block makes. */
static __always_inline void bench_static_probe_site(int v)
{
	if (static_branch_unlikely(&bench_real_key))
		bench_probe_hook(NULL, NULL, NULL, v);
}

static __always_inline void bench_plain_site(int v)
{
	if (unlikely(READ_ONCE(bench_real_flag)))
		bench_hook(v);
}

/*
 * A dynamic_debug site, as pr_debug() builds one: its descriptor, with
 * the static key, defined in place; the hook takes the descriptor.
 */
#define bench_dyndbg_site(v)						\
	_dynamic_func_call("bench %d", bench_dyndbg_hook, v)

/* Each variant: the same functions, with its site passing the same value. */
#define BENCH_VARIANT		none
#define BENCH_SITE(v)		bench_no_site(v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT

#define BENCH_VARIANT		mark
#define BENCH_SITE(v)		MARK(bench_real, "%d", v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT

/*
 * A far site: a marker site whose probe block the compiler lays out past
 * 160 bytes of cold code that never runs, the target of an asm goto that
 * emits nothing, which the compiler must keep and which falls into the
 * block. On x86-64 the block is then past a short jb's reach: the site is
 * far, as the compiler builds one in a long function. GCC only: clang
 * knows no cold labels, and lays the padding out elsewhere.
 */
#ifdef CONFIG_CC_IS_GCC
#define BENCH_FAR

static __always_inline bool bench_far_site(struct marker *marker)
{
	asm goto("" : : : : pad);
	return __marker_site(marker);
pad: __cold;
	asm volatile(".skip 160, 0xcc");
	return true;
}

#define BENCH_VARIANT		mark_far
#define BENCH_SITE(v)							\
	__MARK(bench_far_site, __marker_record_call, bench_real, NULL, "%d", v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT
#endif

#define BENCH_VARIANT		static_branch
#define BENCH_SITE(v)		bench_static_site(v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT

#define BENCH_VARIANT		static_branch_probe
#define BENCH_SITE(v)		bench_static_probe_site(v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT

#define BENCH_VARIANT		tracepoint
#define BENCH_SITE(v)		trace_markers_bench_tp(v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT

#define BENCH_VARIANT		plain
#define BENCH_SITE(v)		bench_plain_site(v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT

#ifdef BENCH_DYNDBG
#define BENCH_VARIANT		dyndbg
#define BENCH_SITE(v)		bench_dyndbg_site(v)
#include "real_fns.h"
#undef BENCH_SITE
#undef BENCH_VARIANT
#endif

static const struct bench_real bench_real[] = {
	{ "csum", "none", bench_csum_call_none },
	{ "csum", "mark", bench_csum_call_mark },
#ifdef BENCH_FAR
	{ "csum", "mark_far", bench_csum_call_mark_far },
#endif
	{ "csum", "static_branch", bench_csum_call_static_branch },
	{ "csum", "static_branch_probe", bench_csum_call_static_branch_probe },
	{ "csum", "tracepoint", bench_csum_call_tracepoint },
	{ "csum", "plain", bench_csum_call_plain },
#ifdef BENCH_DYNDBG
	{ "csum", "dyndbg", bench_csum_call_dyndbg },
#endif
	{ "find", "none", bench_find_call_none },
	{ "find", "mark", bench_find_call_mark },
#ifdef BENCH_FAR
	{ "find", "mark_far", bench_find_call_mark_far },
#endif
	{ "find", "static_branch", bench_find_call_static_branch },
	{ "find", "static_branch_probe", bench_find_call_static_branch_probe },
	{ "find", "tracepoint", bench_find_call_tracepoint },
	{ "find", "plain", bench_find_call_plain },
#ifdef BENCH_DYNDBG
	{ "find", "dyndbg", bench_find_call_dyndbg },
#endif
	{ "account", "none", bench_account_call_none },
	{ "account", "mark", bench_account_call_mark },
#ifdef BENCH_FAR
	{ "account", "mark_far", bench_account_call_mark_far },
#endif
	{ "account", "static_branch", bench_account_call_static_branch },
	{ "account", "static_branch_probe", bench_account_call_static_branch_probe },
	{ "account", "tracepoint", bench_account_call_tracepoint },
	{ "account", "plain", bench_account_call_plain },
#ifdef BENCH_DYNDBG
	{ "account", "dyndbg", bench_account_call_dyndbg },
#endif
};

/* Links bench_tree[lo..hi] into a balanced tree of the keys lo..hi. */
static struct bench_node *bench_tree_build(int lo, int hi)
{
	int mid = lo + (hi - lo) / 2;
	struct bench_node *n;

	if (lo > hi)
		return NULL;
	n = &bench_tree[mid];
	n->key = mid;
	n->left = bench_tree_build(lo, mid - 1);
	n->right = bench_tree_build(mid + 1, hi);
	return n;
}

const struct bench_real *bench_real_fns(unsigned int *nr)
{
	unsigned int i;

	for (i = 0; i < sizeof(bench_csum_buf); i++)
		bench_csum_buf[i] = i * 37;
	bench_root = bench_tree_build(0, BENCH_TREE_NODES - 1);
	*nr = ARRAY_SIZE(bench_real);
	return bench_real;
}
