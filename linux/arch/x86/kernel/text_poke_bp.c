// SPDX-License-Identifier: GPL-2.0
/*
 * Batched rewriting of instruction sites on a live SMP kernel, without
 * stop_machine(): the int3 bypass.
 *
 * Immediate values and markers change three kinds of small instructions
 * while other CPUs run them: the immediate of "mov $imm, %reg", the 2-byte
 * jump slot in front of a marker and the call of a marker's probe block.
 * poke_sites_apply() rewrites a whole batch of them with three rounds of
 * core serialization, whatever the batch size.
 *
 * It follows the protocol of text_poke_bp_batch() but cannot use it: that
 * one only knows how to emulate jumps, calls and NOPs, and BUGs on "mov".
 * Here the int3 handler emulates every shape it is given, so a CPU that
 * hits a site halfway through its update continues as if the new
 * instruction had run. The handler, poke_sites_int3_handler(), is called by
 * exc_int3() right after poke_int3_handler() and for the same reasons: it
 * comes before kprobes, the die notifiers and everything else that may be
 * instrumented or patched itself, it is noinstr and calls out to nothing.
 */

#define pr_fmt(fmt) "poke_sites: " fmt

#include <linux/bsearch.h>
#include <linux/cpu.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include <linux/unaligned.h>

#include <asm/text-patching.h>
#include <asm/text_poke_bp.h>

/* How the int3 handler runs a site's new instruction. */
enum poke_emulate {
	POKE_EMULATE_MOV = 1,	/* set @reg to @value, continue after the site */
	POKE_EMULATE_JMP,	/* continue at @value */
	POKE_EMULATE_CALL,	/* push the return address, continue at @value */
};

#define NOP2_INSN_BYTE0		0x66
#define NOP2_INSN_BYTE1		0x90
#define OPSIZE_PREFIX		0x66
#define MOV_IMM8_OPCODE		0xb0	/* b0+r ib */
#define MOV_IMM_OPCODE		0xb8	/* b8+r iw/id/io */
#define REX_W			0x08
#define REX_B			0x01
#define REG_SP			4

/* The batch the int3 handler is serving; see poke_sites_bp_batch(). */
static struct {
	struct poke_site *vec;
	unsigned int nr;
	atomic_t refs;
} poke_desc;

static atomic_long_t poke_bypass_hits;
static struct poke_sites_stats poke_stats;	/* under text_mutex */

/* pt_regs slot of each register number (REX.B:reg) in "b0+r"/"b8+r". */
static const u8 poke_reg_index[16] = {
	offsetof(struct pt_regs, ax) / sizeof(long),
	offsetof(struct pt_regs, cx) / sizeof(long),
	offsetof(struct pt_regs, dx) / sizeof(long),
	offsetof(struct pt_regs, bx) / sizeof(long),
	offsetof(struct pt_regs, sp) / sizeof(long),
	offsetof(struct pt_regs, bp) / sizeof(long),
	offsetof(struct pt_regs, si) / sizeof(long),
	offsetof(struct pt_regs, di) / sizeof(long),
	offsetof(struct pt_regs, r8) / sizeof(long),
	offsetof(struct pt_regs, r9) / sizeof(long),
	offsetof(struct pt_regs, r10) / sizeof(long),
	offsetof(struct pt_regs, r11) / sizeof(long),
	offsetof(struct pt_regs, r12) / sizeof(long),
	offsetof(struct pt_regs, r13) / sizeof(long),
	offsetof(struct pt_regs, r14) / sizeof(long),
	offsetof(struct pt_regs, r15) / sizeof(long),
};

/* The shape of one instruction, as far as the patcher cares. */
struct poke_shape {
	enum poke_emulate emulate;
	u8 reg;			/* MOV: register number, REX.B included */
	u8 size;		/* MOV: immediate size */
	u8 opcode_len;		/* MOV: bytes before the immediate */
	unsigned long value;	/* MOV: immediate; JMP, CALL: offset from the site */
};

static bool poke_decode_jump_slot(const u8 *insn, unsigned int len,
				  struct poke_shape *shape)
{
	if (len != JMP8_INSN_SIZE)
		return false;
	shape->emulate = POKE_EMULATE_JMP;
	if (insn[0] == JMP8_INSN_OPCODE) {
		shape->value = JMP8_INSN_SIZE + (long)(s8)insn[1];
		return true;
	}
	if (insn[0] == NOP2_INSN_BYTE0 && insn[1] == NOP2_INSN_BYTE1) {
		shape->value = JMP8_INSN_SIZE;
		return true;
	}
	return false;
}

/*
 * Decodes "[66] [REX] b0+r ib" and "[66] [REX] b8+r imm". Refuses the legacy
 * high-byte registers (%ah..%bh) and %rsp, which no compiler picks for an
 * output operand and the handler does not emulate.
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
		if (opsize || (!rex && (op & 7) >= REG_SP))
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
	if (shape->reg == REG_SP || i + shape->size != len)
		return false;

	shape->emulate = POKE_EMULATE_MOV;
	shape->opcode_len = i;
	shape->value = 0;
	memcpy(&shape->value, insn + i, shape->size);
	return true;
}

/* Decodes "call rel32". */
static bool poke_decode_call(const u8 *insn, unsigned int len, struct poke_shape *shape)
{
	if (len != CALL_INSN_SIZE || insn[0] != CALL_INSN_OPCODE)
		return false;
	shape->emulate = POKE_EMULATE_CALL;
	shape->value = CALL_INSN_SIZE + (long)get_unaligned((s32 *)(insn + 1));
	return true;
}

static bool poke_decode(const u8 *insn, unsigned int len, struct poke_shape *shape)
{
	return poke_decode_jump_slot(insn, len, shape) || poke_decode_mov(insn, len, shape) ||
	       poke_decode_call(insn, len, shape);
}

/*
 * Checks that @site rewrites one supported instruction into another of the
 * same kind (the same register and size for "mov"), and records how the int3
 * handler emulates the new one.
 */
static int poke_site_prepare(struct poke_site *site)
{
	struct poke_shape old, new;

	if (!poke_decode(site->old, site->len, &old) ||
	    !poke_decode(site->new, site->len, &new) ||
	    old.emulate != new.emulate)
		return -EINVAL;

	if (new.emulate == POKE_EMULATE_MOV) {
		if (old.opcode_len != new.opcode_len ||
		    memcmp(site->old, site->new, new.opcode_len))
			return -EINVAL;
		site->reg = poke_reg_index[new.reg];
		site->size = new.size;
		site->value = new.value;
	} else {
		site->value = (unsigned long)site->addr + new.value;
	}
	site->emulate = new.emulate;
	return 0;
}

static bool poke_site_in_text(const struct poke_site *site)
{
	unsigned long start = (unsigned long)site->addr;
	unsigned long last = start + site->len - 1;

	if (core_kernel_text(start))
		return core_kernel_text(last);
	return is_module_text_address(start) && is_module_text_address(last);
}

/*
 * A site must be text, and not under a breakpoint: that means someone else
 * (kprobes, a debugger) owns the instruction right now.
 */
static int poke_site_check_owner(const struct poke_site *site)
{
	if (!site->len || site->len > POKE_SITE_MAX_LEN)
		return -EINVAL;
	if (!poke_site_in_text(site)) {
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

static __always_inline int poke_site_match(const void *key, const void *elt)
{
	const struct poke_site *site = elt;

	if (key < site->addr)
		return -1;
	return key > site->addr;
}

static __always_inline void poke_site_emulate(const struct poke_site *site,
					      struct pt_regs *regs)
{
	unsigned long *reg;

	if (site->emulate == POKE_EMULATE_JMP) {
		int3_emulate_jmp(regs, site->value);
		return;
	}
	if (site->emulate == POKE_EMULATE_CALL) {
		int3_emulate_call(regs, site->value);
		return;
	}

	/* Writes like the CPU: 8 and 16-bit moves keep the upper bits. */
	reg = (unsigned long *)regs + site->reg;
	switch (site->size) {
	case 1:
		*reg = (*reg & ~0xffUL) | (u8)site->value;
		break;
	case 2:
		*reg = (*reg & ~0xffffUL) | (u16)site->value;
		break;
	case 4:
		*reg = (u32)site->value;
		break;
	default:
		*reg = site->value;
		break;
	}
	int3_emulate_jmp(regs, (unsigned long)site->addr + site->len);
}

/**
 * poke_sites_int3_handler() - send a CPU on past a site being rewritten
 * @regs: the registers of the int3 trap
 *
 * Called by exc_int3() before anything else but poke_int3_handler(), in
 * whatever context the trap hit (NMI included), before entry code has run:
 * like poke_int3_handler() it is noinstr, takes no lock, and calls nothing
 * that is not inlined, lest it hits yet another INT3.
 *
 * Return: 1 if the trap hit a site of the batch in flight and the CPU has
 * been sent on as if the new instruction had run; 0 otherwise.
 */
noinstr int poke_sites_int3_handler(struct pt_regs *regs)
{
	const struct poke_site *site;
	int ret = 0;
	void *ip;

	if (user_mode(regs))
		return 0;

	/*
	 * Having seen our INT3, we must see the batch that placed it:
	 *
	 *	poke_desc.refs = 1		INT3
	 *	smp_wmb()			smp_rmb()
	 *	write INT3			if (poke_desc.refs != 0)
	 */
	smp_rmb();
	if (!raw_atomic_inc_not_zero(&poke_desc.refs))
		return 0;

	ip = (void *)regs->ip - INT3_INSN_SIZE;
	site = __inline_bsearch(ip, poke_desc.vec, poke_desc.nr, sizeof(*site),
				poke_site_match);
	if (site) {
		poke_site_emulate(site, regs);
		raw_atomic_long_inc(&poke_bypass_hits);
		ret = 1;
	}

	/* Our reads of the batch happen before poke_sites_bp_batch() sees 0. */
	smp_mb__before_atomic();
	raw_atomic_dec(&poke_desc.refs);
	return ret;
}

static void poke_sites_sync(void)
{
	text_poke_sync();
	poke_stats.sync_rounds++;
}

/* The three writes of a batch, each over every site. */
enum poke_step {
	POKE_STEP_TRAP,		/* INT3 on the first byte */
	POKE_STEP_TAIL,		/* every byte but the first */
	POKE_STEP_HEAD,		/* the first byte */
};

/* One mapping's worth of a step: sites that lie on one page or two. */
struct poke_run {
	const struct poke_site *sites;
	unsigned int nr;
	enum poke_step step;
};

/*
 * A text_poke_f: makes @run's step at @dst, the writable alias of its text.
 * That alias is in the user half of the poking mm, which KASAN has no
 * shadow for: no instrumented access may touch it (text_poke()'s own
 * memcpy() checks the shadow out of line, with the reports __text_poke()
 * turns off).
 */
static void __no_sanitize_address poke_run_write(void *dst, const void *src, size_t len)
{
	const struct poke_run *run = src;
	const u8 *base = run->sites[0].addr;
	unsigned int i;

	for (i = 0; i < run->nr; i++) {
		const struct poke_site *site = &run->sites[i];
		u8 *to = dst + ((const u8 *)site->addr - base);
		unsigned int k;

		switch (run->step) {
		case POKE_STEP_TRAP:
			to[0] = INT3_INSN_OPCODE;
			break;
		case POKE_STEP_TAIL:
			for (k = INT3_INSN_SIZE; k < site->len; k++)
				to[k] = site->new[k];
			break;
		case POKE_STEP_HEAD:
			to[0] = site->new[0];
			break;
		}
	}
}

/*
 * How many of @sites (sorted, @nr > 0) one mapping reaches from the first:
 * those that end on its page or the next, in the same kind of text. A page
 * that holds a site is mapped text, so both pages of a run exist.
 */
static unsigned int poke_run_length(const struct poke_site *sites, unsigned int nr,
				    size_t *len)
{
	unsigned long first = (unsigned long)sites[0].addr;
	bool core = core_kernel_text(first);
	unsigned int n;

	for (n = 1; n < nr; n++) {
		unsigned long end = (unsigned long)sites[n].addr + sites[n].len - 1;

		if ((end & PAGE_MASK) - (first & PAGE_MASK) > PAGE_SIZE ||
		    core_kernel_text(end) != core)
			break;
	}
	*len = (unsigned long)sites[n - 1].addr + sites[n - 1].len - first;
	return n;
}

/* Makes @step at every site, one mapping per run of close sites. */
static void poke_sites_write(const struct poke_site *sites, unsigned int nr,
			     enum poke_step step)
{
	struct poke_run run = { .step = step };
	unsigned int i;
	size_t len;

	for (i = 0; i < nr; i += run.nr) {
		run.sites = &sites[i];
		run.nr = poke_run_length(run.sites, nr - i, &len);
		text_poke_with(poke_run_write, sites[i].addr, &run, len);
		poke_stats.mappings++;
	}
}

/*
 * Rewrites the sites, which text_mutex keeps ours, while other CPUs may run
 * them:
 *
 *  0. publish the batch for the int3 handler;
 *  1. write INT3 on the first byte of every site, sync all CPUs;
 *  2. write every byte but the first, sync all CPUs;
 *  3. write the first bytes, sync all CPUs;
 *  4. wait for the handlers still running on other CPUs.
 *
 * A CPU that hits a site between 1 and 3 traps and is sent on as if the new
 * instruction had run; after 3 it runs the new instruction. Instruction
 * boundaries never move, so a task preempted next to a site resumes safely.
 * Each step maps a page (or two) once for all the sites on it, rather than
 * once per site as text_poke() would.
 */
static void poke_sites_bp_batch(struct poke_site *sites, unsigned int nr)
{
	unsigned int i;

	lockdep_assert_held(&text_mutex);

	/* 0. Publish; the handler's inc_not_zero() acquires the batch. */
	poke_desc.vec = sites;
	poke_desc.nr = nr;
	atomic_set_release(&poke_desc.refs, 1);
	/* Batch before INT3; pairs with smp_rmb() in poke_sites_int3_handler(). */
	smp_wmb();

	/* 1. Trap every site. */
	poke_sites_write(sites, nr, POKE_STEP_TRAP);
	poke_sites_sync();

	/* 2. Tails: nobody executes them now, everybody traps on byte 0. */
	poke_sites_write(sites, nr, POKE_STEP_TAIL);
	for (i = 0; i < nr; i++)
		perf_event_text_poke(sites[i].addr, sites[i].old, sites[i].len,
				     sites[i].new, sites[i].len);
	poke_sites_sync();

	/* 3. Heads: each site now holds its whole new instruction. */
	poke_sites_write(sites, nr, POKE_STEP_HEAD);
	poke_sites_sync();

	/* 4. No handler may still look at the batch once we return. */
	if (!atomic_dec_and_test(&poke_desc.refs))
		atomic_cond_read_acquire(&poke_desc.refs, !VAL);
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
	unsigned int i;
	int ret;

	lockdep_assert_cpus_held();
	might_sleep();

	guard(mutex)(&text_mutex);
	for (i = 0; i < nr; i++) {
		ret = poke_site_check_owner(&sites[i]);
		if (!ret)
			ret = poke_site_prepare(&sites[i]);
		if (ret)
			return ret;
	}
	poke_sites_sort(sites, nr);
	for (i = 0; i < nr; i++) {
		if (i && sites[i - 1].addr + sites[i - 1].len > sites[i].addr)
			return -EINVAL;
		ret = poke_site_check_text(&sites[i]);
		if (ret)
			return ret;
	}
	if (!nr)
		return 0;

	if (system_state == SYSTEM_BOOTING)
		poke_sites_write_early(sites, nr);
	else
		poke_sites_bp_batch(sites, nr);
	poke_stats.batches++;
	poke_stats.sites += nr;
	return 0;
}
EXPORT_SYMBOL_GPL(poke_sites_apply);

/**
 * poke_sites_get_stats() - read the patcher's counters
 * @stats: filled in with the counts since boot
 *
 * Context: process context; takes text_mutex.
 */
void poke_sites_get_stats(struct poke_sites_stats *stats)
{
	guard(mutex)(&text_mutex);
	*stats = poke_stats;
	stats->bypass_hits = atomic_long_read(&poke_bypass_hits);
}
EXPORT_SYMBOL_GPL(poke_sites_get_stats);
