/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The functions of real.c, included once per variant: with BENCH_SITE(v),
 * the instrumentation of the variant passing @v, and BENCH_VARIANT, the
 * suffix of the names. No include guard: each inclusion builds them again.
 */

#define __BENCH_NAME(fn, variant)	bench_##fn##_##variant
#define _BENCH_NAME(fn, variant)	__BENCH_NAME(fn, variant)
#define BENCH_NAME(fn)			_BENCH_NAME(fn, BENCH_VARIANT)

/* Sums @len bytes of @buf as 32-bit words, folded: the site at the entry. */
static noinline __noclone u32 BENCH_NAME(csum)(const u8 *buf, int len)
{
	u64 sum = 0;
	int i;

	BENCH_SITE(len);
	for (i = 0; i + 4 <= len; i += 4)
		sum += get_unaligned((const u32 *)(buf + i));
	for (; i < len; i++)
		sum += (u32)buf[i] << (8 * (i & 3));
	sum = (sum & U32_MAX) + (sum >> 32);
	return (sum & U32_MAX) + (sum >> 32);
}

static void BENCH_NAME(csum_call)(int v)
{
	WRITE_ONCE(bench_sink, BENCH_NAME(csum)(bench_csum_buf, BENCH_CSUM_BYTES + (v & 7)));
}

/* The node of @key under @n, or NULL: the site on a hit. */
static noinline __noclone struct bench_node *BENCH_NAME(find)(struct bench_node *n, int key)
{
	while (n) {
		if (key < n->key) {
			n = n->left;
		} else if (key > n->key) {
			n = n->right;
		} else {
			BENCH_SITE(key);
			return n;
		}
	}
	return NULL;
}

static void BENCH_NAME(find_call)(int v)
{
	struct bench_node *n = BENCH_NAME(find)(bench_root, v % BENCH_TREE_NODES);

	WRITE_ONCE(bench_sink, n ? n->key : -1);
}

/* Charges @se for its time since it last ran: the site between the stores. */
static noinline __noclone void BENCH_NAME(account)(struct bench_entity *se, u64 now)
{
	u64 delta = now - se->exec_start;

	if ((s64)delta <= 0)
		return;
	se->exec_start = now;
	se->max_exec = max(delta, se->max_exec);
	se->sum_exec += delta;
	BENCH_SITE((int)delta);
	se->vruntime += mul_u64_u32_shr(delta, se->inv_weight, 22);
}

static void BENCH_NAME(account_call)(int v)
{
	BENCH_NAME(account)(&bench_entity, bench_entity.exec_start + 1000 + (v & 7));
}

#undef BENCH_NAME
#undef _BENCH_NAME
#undef __BENCH_NAME
