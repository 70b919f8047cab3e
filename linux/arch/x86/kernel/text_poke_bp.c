// SPDX-License-Identifier: GPL-2.0
/*
 * Batched rewriting of instruction sites on a live SMP kernel, without
 * stop_machine(): the int3 bypass.
 *
 * Immediate values and markers change four kinds of small instructions
 * while other CPUs run them: the immediate of "mov $imm, %reg", the 2-byte
 * jump slot in front of a marker, the immediate of a marker's guard and
 * the call of a marker's probe block. poke_sites_apply() rewrites a whole
 * batch of them with three rounds of core serialization, whatever the
 * batch size.
 *
 * The rewriting is a batch of the int3 patcher, whose int3 handler emulates
 * "mov $imm, %reg" besides jumps and calls, and a guard as a jump to its
 * outcome; this file checks a batch before anything is written (the
 * shapes, the text, breakpoints of other tools, overlaps), sorts it, and
 * counts the batches and sites, for the tests and the benchmark.
 */

#define pr_fmt(fmt) "poke_sites: " fmt

#include <linux/cpu.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/text-patching.h>
#include <linux/unaligned.h>

#include <asm/text_poke_bp.h>

static_assert(POKE_SITE_MAX_LEN <= TEXT_POKE_MAX_LEN);

/* The kinds of instruction a site may be. */
enum poke_kind {
	POKE_MOV = 1,		/* mov $imm, %reg */
	POKE_JUMP_SLOT,		/* jmp rel8, or the 2-byte NOP */
	POKE_CALL,		/* call rel32 */
	POKE_GUARD,		/* cmpl $imm8, %esp */
};

#define NOP2_INSN_BYTE0		0x66
#define NOP2_INSN_BYTE1		0x90
#define NOPL_INSN_BYTE0		0x0f	/* 0f 1f /0: nopl r/m32 */
#define NOPL_INSN_BYTE1		0x1f
#define OPSIZE_PREFIX		0x66
#define MOV_IMM8_OPCODE		0xb0	/* b0+r ib */
#define MOV_IMM_OPCODE		0xb8	/* b8+r iw/id/io */
#define REX_W			0x08
#define REX_B			0x01
#define REG_SP			4

static struct poke_sites_stats poke_stats;	/* under text_mutex */

/*
 * Without memory for a batch's vector, it goes in chunks of this many
 * sites (under text_mutex): a batch each, in address order.
 */
#define POKE_CHUNK	32
static struct smp_text_poke_loc poke_chunk[POKE_CHUNK];

/* The shape of one instruction, as far as the patcher cares. */
struct poke_shape {
	enum poke_kind kind;
	u8 reg;			/* MOV: register number, REX.B included */
	u8 size;		/* MOV: immediate size */
	u8 opcode_len;		/* MOV: bytes before the immediate */
};

/* The first two bytes of a long NOP: the slot of a near marker site that is off. */
static bool poke_slot_is_nop_head(const u8 *insn)
{
	return insn[0] == NOPL_INSN_BYTE0 && insn[1] == NOPL_INSN_BYTE1;
}

/* Decodes "jmp rel8", the 2-byte NOP, and the head of a long NOP. */
static bool poke_decode_jump_slot(const u8 *insn, unsigned int len,
				  struct poke_shape *shape)
{
	if (len != JMP8_INSN_SIZE)
		return false;
	shape->kind = POKE_JUMP_SLOT;
	return insn[0] == JMP8_INSN_OPCODE ||
	       (insn[0] == NOP2_INSN_BYTE0 && insn[1] == NOP2_INSN_BYTE1) ||
	       poke_slot_is_nop_head(insn);
}

/*
 * Decodes "[66] [REX] b0+r ib" and "[66] [REX] b8+r imm". Refuses what the
 * int3 patcher does not take: the stack pointer, and the legacy high-byte
 * registers (%ah..%bh, b4-b7 without REX), which compilers never give an
 * operand.
 */
static bool poke_decode_mov(const u8 *insn, unsigned int len, struct poke_shape *shape)
{
	unsigned int i = 0;
	bool opsize = false;
	u8 rex = 0, op;

	if (insn[i] == OPSIZE_PREFIX) {
		opsize = true;
		i++;
	}
	if ((insn[i] & 0xf0) == 0x40)
		rex = insn[i++];
	if (i >= len)
		return false;
	op = insn[i++];

	if ((op & 0xf8) == MOV_IMM8_OPCODE) {
		if (opsize)
			return false;
		shape->size = 1;
	} else if ((op & 0xf8) == MOV_IMM_OPCODE) {
		if (opsize && (rex & REX_W))
			return false;
		shape->size = (rex & REX_W) ? 8 : opsize ? 2 : 4;
	} else {
		return false;
	}
	shape->reg = (op & 7) | ((rex & REX_B) ? 8 : 0);
	/* Register 4 to 7 of a byte mov without REX is %ah to %bh. */
	if (shape->reg == REG_SP || (shape->size == 1 && !rex && shape->reg > REG_SP) ||
	    i + shape->size != len)
		return false;

	shape->kind = POKE_MOV;
	shape->opcode_len = i;
	return true;
}

/* Decodes "call rel32". */
static bool poke_decode_call(const u8 *insn, unsigned int len, struct poke_shape *shape)
{
	shape->kind = POKE_CALL;
	return len == CALL_INSN_SIZE && insn[0] == CALL_INSN_OPCODE;
}

/* Decodes "cmpl $imm8, %esp". */
static bool poke_decode_guard(const u8 *insn, unsigned int len, struct poke_shape *shape)
{
	shape->kind = POKE_GUARD;
	return len == POKE_GUARD_LEN && insn[0] == POKE_GUARD_OPCODE &&
	       insn[1] == POKE_GUARD_MODRM;
}

static bool poke_decode(const u8 *insn, unsigned int len, struct poke_shape *shape)
{
	return poke_decode_jump_slot(insn, len, shape) || poke_decode_mov(insn, len, shape) ||
	       poke_decode_call(insn, len, shape) || poke_decode_guard(insn, len, shape);
}

/*
 * Checks that @site rewrites one supported instruction into another of the
 * same kind (for "mov", the same prefixes and opcode, so the same register
 * and size: only the immediate differs), and sets up @tp, the entry of
 * the int3 patcher's batch that rewrites it.
 *
 * A CPU that meets the INT3 on a guard is sent to the guard's @outcome,
 * as a "jmp rel32" from the guard would send it: the int3 handler takes a
 * jump's displacement from the end of the rewritten instruction, whatever
 * the length of the jump it is given to emulate. The flags the guard sets
 * are the branch's only input, so skipping both is running them.
 */
static int poke_site_loc(struct smp_text_poke_loc *tp, const struct poke_site *site)
{
	u8 jump[JMP32_INSN_SIZE];
	struct poke_shape old, new;
	long rel;

	if (!poke_decode(site->old, site->len, &old) ||
	    !poke_decode(site->new, site->len, &new) ||
	    old.kind != new.kind)
		return -EINVAL;
	if (new.kind == POKE_MOV) {
		if (old.opcode_len != new.opcode_len ||
		    memcmp(site->old, site->new, new.opcode_len))
			return -EINVAL;
		return smp_text_poke_loc_init_mov(tp, site->addr, site->new, site->len);
	}
	if (new.kind == POKE_GUARD) {
		rel = (long)site->outcome - (long)(site->addr + site->len);
		if (!site->outcome || rel != (s32)rel)
			return -EINVAL;
		jump[0] = JMP32_INSN_OPCODE;
		put_unaligned((s32)rel, (s32 *)(jump + 1));
		smp_text_poke_loc_init(tp, site->addr, site->new, site->len, jump);
		return 0;
	}
	/*
	 * A slot that becomes the head of a long NOP runs, while it is
	 * rewritten, as the 2-byte NOP: the site's pattern after it, whose
	 * immediate is 0 in a site that can take that slot, goes on to the
	 * end of the site as the long NOP would.
	 */
	smp_text_poke_loc_init(tp, site->addr, site->new, site->len,
			       poke_slot_is_nop_head(site->new) ?
			       x86_nops[JMP8_INSN_SIZE] : NULL);
	return 0;
}

/* Whether [@start, @last] is text of @mod: all core text, or all init text. */
static bool poke_module_text(const struct module *mod, unsigned long start,
			     unsigned long last)
{
	return (within_module_mem_type(start, mod, MOD_TEXT) &&
		within_module_mem_type(last, mod, MOD_TEXT)) ||
	       (within_module_mem_type(start, mod, MOD_INIT_TEXT) &&
		within_module_mem_type(last, mod, MOD_INIT_TEXT));
}

/*
 * Whether @site is kernel or module text. *@mod is the module of the
 * site checked before, if any: the sites of a batch are mostly those of
 * one module, which is then looked up once. The caller keeps the modules
 * of its sites from going away (site tables are emptied by the module
 * notifier, under the lock the caller holds).
 */
static bool poke_site_in_text(const struct poke_site *site, struct module **mod)
{
	unsigned long start = (unsigned long)site->addr;
	unsigned long last = start + site->len - 1;

	if (core_kernel_text(start))
		return core_kernel_text(last);
	if (!*mod || !poke_module_text(*mod, start, last)) {
		guard(preempt)();
		*mod = __module_text_address(start);
	}
	return *mod && poke_module_text(*mod, start, last);
}

/*
 * A site must be text, and not under a breakpoint: that means someone else
 * (kprobes, a debugger) owns the instruction right now.
 */
static int poke_site_check_owner(const struct poke_site *site, struct module **mod)
{
	if (!site->len || site->len > POKE_SITE_MAX_LEN)
		return -EINVAL;
	if (!poke_site_in_text(site, mod)) {
		pr_err("%pS is not kernel or module text\n", site->addr);
		return -EINVAL;
	}
	return *(u8 *)site->addr == INT3_INSN_OPCODE ? -EBUSY : 0;
}

/* The text must hold what the caller believes it holds. */
static int poke_site_check_text(const struct poke_site *site)
{
	if (!memcmp(site->addr, site->old, site->len))
		return 0;
	pr_err("unexpected text at %pS: %*ph, expected %*ph\n", site->addr,
	       site->len, site->addr, site->len, site->old);
	return -EINVAL;
}

static int poke_site_cmp(const void *a, const void *b)
{
	const struct poke_site *x = a, *y = b;

	if (x->addr < y->addr)
		return -1;
	return x->addr > y->addr;
}

/* The end of the ascending run of @sites that starts at @from (< @nr). */
static unsigned int poke_sites_ascending(const struct poke_site *sites,
					 unsigned int from, unsigned int nr)
{
	while (++from < nr && sites[from - 1].addr <= sites[from].addr)
		;
	return from;
}

/* Merges the ascending runs @a[0, @mid) and @a[@mid, @n) into @out. */
static void poke_sites_merge(const struct poke_site *a, unsigned int mid,
			     unsigned int n, struct poke_site *out)
{
	unsigned int i = 0, j = mid, k;

	for (k = 0; k < n; k++) {
		if (j == n || (i < mid && a[i].addr <= a[j].addr))
			out[k] = a[i++];
		else
			out[k] = a[j++];
	}
}

/*
 * Sorts @sites by address. A batch comes in a few ascending runs (the
 * slots of a marker's sites, the movs of its immediate values, the calls
 * of its probe blocks): they are merged pairwise until one is left, in
 * linear time per round. Without memory for that, heapsort.
 */
static void poke_sites_sort(struct poke_site *sites, unsigned int nr)
{
	struct poke_site *buf, *src = sites, *dst;
	unsigned int start, mid, end;

	if (!nr || poke_sites_ascending(sites, 0, nr) == nr)
		return;
	buf = kvmalloc_array(nr, sizeof(*buf), GFP_KERNEL);
	if (!buf) {
		sort(sites, nr, sizeof(*sites), poke_site_cmp, NULL);
		return;
	}
	dst = buf;
	do {
		for (start = 0; start < nr; start = end) {
			mid = poke_sites_ascending(src, start, nr);
			end = mid < nr ? poke_sites_ascending(src, mid, nr) : nr;
			poke_sites_merge(src + start, mid - start, end - start, dst + start);
		}
		swap(src, dst);
	} while (poke_sites_ascending(src, 0, nr) < nr);
	if (src != sites)
		memcpy(sites, src, array_size(nr, sizeof(*sites)));
	kvfree(buf);
}

/*
 * Rewrites the sites, which text_mutex keeps ours, while other CPUs may run
 * them, in a batch of the int3 patcher: INT3 on the first byte of every
 * site, the other bytes, then the first bytes, each step followed by a round
 * of core serialization. A CPU that hits a site meanwhile traps and is sent
 * on as if the new instruction had run. One batch for all the sites, whose
 * entries @tp holds already, or, without memory for them (@tp NULL), one per
 * POKE_CHUNK sites: every site still changes from its old instruction to its
 * new one, only not at the same time as those of other chunks, which the
 * callers allow for.
 */
static void poke_sites_rewrite(const struct poke_site *sites, unsigned int nr,
			       struct smp_text_poke_loc *tp)
{
	unsigned int i, k, n;

	if (tp) {
		smp_text_poke_batch_vec(tp, nr);
		poke_stats.batches++;
		return;
	}
	for (i = 0; i < nr; i += n) {
		n = min(nr - i, POKE_CHUNK);
		/* poke_sites_apply() made sure that no entry is refused. */
		for (k = 0; k < n; k++)
			WARN_ON_ONCE(poke_site_loc(&poke_chunk[k], &sites[i + k]));
		smp_text_poke_batch_vec(poke_chunk, n);
		poke_stats.batches++;
	}
}

/* Single CPU, writable text: no other CPU can be running the sites. */
static void __ref poke_sites_write_early(struct poke_site *sites, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		text_poke_early(sites[i].addr, sites[i].new, sites[i].len);
}

/**
 * poke_sites_apply() - rewrite a batch of instruction sites on a live kernel
 * @sites: the sites; sorted by address on return
 * @nr: how many
 *
 * Every site is checked before any is written: it must be kernel or module
 * text without another tool's breakpoint, its shapes must be supported (see
 * &struct poke_site), the sites must not overlap, and the text must hold
 * @old. While the system is still booting on one CPU the new bytes are
 * written directly; after that the batch goes through the int3 bypass, in
 * three rounds of core serialization.
 *
 * Context: process context; the caller holds cpus_read_lock(). Takes
 * text_mutex.
 * Return: 0 once every site holds its new bytes; -EINVAL for an unsupported
 * or overlapping site, or text that is not what @old says (nothing written);
 * -EBUSY if a site carries a breakpoint of somebody else (nothing written).
 */
int poke_sites_apply(struct poke_site *sites, unsigned int nr)
{
	struct smp_text_poke_loc *tp = NULL, scratch;
	struct module *mod = NULL;
	bool early = system_state == SYSTEM_BOOTING;
	unsigned int i;
	int ret;

	lockdep_assert_cpus_held();
	might_sleep();

	if (!nr)
		return 0;
	guard(mutex)(&text_mutex);
	poke_sites_sort(sites, nr);
	for (i = 0; i < nr; i++) {
		ret = poke_site_check_owner(&sites[i], &mod);
		if (ret)
			return ret;
	}
	/* The entries of the batch are set up as the sites are checked. */
	if (!early)
		tp = kvmalloc_array(nr, sizeof(*tp), GFP_KERNEL);
	for (i = 0; i < nr; i++) {
		if (i && sites[i - 1].addr + sites[i - 1].len > sites[i].addr)
			ret = -EINVAL;
		else
			ret = poke_site_loc(tp ? &tp[i] : &scratch, &sites[i]);
		if (!ret)
			ret = poke_site_check_text(&sites[i]);
		if (ret)
			goto out_free;
	}

	if (early) {
		poke_sites_write_early(sites, nr);
		poke_stats.batches++;
	} else {
		poke_sites_rewrite(sites, nr, tp);
	}
	poke_stats.sites += nr;
out_free:
	kvfree(tp);
	return ret;
}

/**
 * poke_sites_get_stats() - read the patcher's counters
 * @stats: filled in with the counts since boot
 *
 * What a batch does inside the int3 patcher, its rounds of core
 * serialization, its mappings of the text and the CPUs it sends on past a
 * site, is not counted here: a test sees those with kprobes, as any tool
 * would.
 *
 * Context: process context; takes text_mutex.
 */
void poke_sites_get_stats(struct poke_sites_stats *stats)
{
	guard(mutex)(&text_mutex);
	*stats = poke_stats;
}
