// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 marker sites: the instruction of the jump slot in each state (see
 * <linux/marker.h>) and the recorded calls of probe blocks, rewritten in
 * one batch per switch. The policy lives in kernel/marker_switch.c.
 *
 * Every instruction this file writes replaces a B, BL or NOP with another
 * of them. The architecture lets other CPUs execute such an instruction
 * while it changes: each of them runs the old or the new one. So a batch
 * writes its instructions one by one, as arm64 jump labels do, and ends
 * with one round of IPIs, after which no CPU can still run an old one.
 * A site is its slot alone: a NOP as built and while off, so that boot and
 * module load write nothing, and a B to the probe block while on.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <linux/immediate.h>
#include <linux/marker.h>
#include <linux/memory.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/text-patching.h>

#include <asm/insn.h>

/* A site: its slot. */
#define MARKER_SITE_LEN		AARCH64_INSN_SIZE

/* Switches of at most this many instructions need no allocation. */
#define MARKER_STACK_WRITES	8

/* A batch: where each instruction is, what it holds, what it gets. */
struct marker_batch {
	void **addr;
	u32 *old;
	u32 *new;
	unsigned int n;
};

static struct marker_arch_stats marker_stats;

/* The instruction at @addr: A64 instructions are little-endian. */
static u32 marker_insn_at(const void *addr)
{
	return le32_to_cpu(*(const __le32 *)addr);
}

/**
 * marker_arch_get_stats() - what marker switches have written since boot
 * @stats: filled in
 *
 * For tests and benchmarks. Context: any; the counts are read without a lock.
 */
void marker_arch_get_stats(struct marker_arch_stats *stats)
{
	stats->batches = READ_ONCE(marker_stats.batches);
	stats->insns = READ_ONCE(marker_stats.insns);
	stats->syncs = READ_ONCE(marker_stats.syncs);
	stats->unsynced = READ_ONCE(marker_stats.unsynced);
}

/*
 * A site's probe block: the target its entry records, as the slot names
 * it only while on. Never the site itself.
 */
void *arch_marker_site_block(const struct site_entry *site)
{
	if (site->len != MARKER_SITE_LEN)
		return NULL;
	return site_entry_target(site);
}

static int marker_probe_block(const struct site_entry *site, u32 **block)
{
	u32 *code = site_entry_code(site);

	*block = arch_marker_site_block(site);
	if (*block)
		return 0;
	pr_err("unexpected site at %pS: %*ph\n", code, site->len, code);
	return -EINVAL;
}

/* The jump slot of @site in @state; @block is its probe block. */
static u32 marker_slot_insn(const struct site_entry *site, u32 *block,
			    enum marker_site_state state)
{
	unsigned long code = (unsigned long)site_entry_code(site);

	if (state == MARKER_SITE_ON)
		return aarch64_insn_gen_branch_imm(code, (unsigned long)block,
						   AARCH64_INSN_BRANCH_NOLINK);
	return aarch64_insn_gen_nop();
}

/* Adds to @b the write of @new at @addr, which holds @old. */
static void marker_batch_add(struct marker_batch *b, void *addr, u32 old, u32 new)
{
	b->addr[b->n] = addr;
	b->old[b->n] = old;
	b->new[b->n++] = new;
}

/*
 * Adds to @b the write that takes the slot of @change from its state to
 * the next, if it changes the slot. -EBUSY if the slot holds a breakpoint
 * (a debugger's: kprobes may not touch a site), -EINVAL if it holds
 * anything else than it should, -ERANGE if the probe block is out of reach
 * of a B (it never is: the block is in the site's function).
 */
static int marker_slot_write(const struct marker_site_change *change,
			     struct marker_batch *b)
{
	u32 *addr = site_entry_code(change->site);
	u32 insn = marker_insn_at(addr);
	u32 old, new, *block;
	int ret;

	ret = marker_probe_block(change->site, &block);
	if (ret)
		return ret;
	old = marker_slot_insn(change->site, block, change->from);
	new = marker_slot_insn(change->site, block, change->to);
	if (old == AARCH64_BREAK_FAULT || new == AARCH64_BREAK_FAULT)
		return -ERANGE;
	if (insn != old) {
		if (aarch64_insn_is_brk(insn))
			return -EBUSY;
		pr_err("site at %pS holds %08x, not %08x\n", addr, insn, old);
		return -EINVAL;
	}
	if (old != new)
		marker_batch_add(b, addr, old, new);
	return 0;
}

/*
 * Adds to @b the write that retargets the call of @change. None if the
 * text does not hold that call (the compiler placed something else before
 * the point the site recorded, a module calls through a PLT, or a retreat
 * has sent the call on already), or if the new target is out of reach of
 * a BL: the call is then never rewritten, and the site goes on calling
 * marker_probe_iterate(), which calls every probe. -EBUSY if it holds
 * somebody else's breakpoint (a debugger's), which replaced the whole
 * instruction: only its owner knows what it was, and puts it back.
 */
static int marker_call_write(const struct marker_call_change *change,
			     struct marker_batch *b)
{
	unsigned long pc = (unsigned long)site_entry_code(change->site);
	u32 insn = marker_insn_at((void *)pc);
	u32 old, new;

	if (aarch64_insn_is_brk(insn))
		return -EBUSY;
	old = aarch64_insn_gen_branch_imm(pc, (unsigned long)change->from,
					  AARCH64_INSN_BRANCH_LINK);
	new = aarch64_insn_gen_branch_imm(pc, (unsigned long)change->to,
					  AARCH64_INSN_BRANCH_LINK);
	if (old != AARCH64_BREAK_FAULT && new != AARCH64_BREAK_FAULT && insn == old)
		marker_batch_add(b, (void *)pc, old, new);
	return 0;
}

/*
 * Writes @insns at the @n places of @b, each page mapped once for the
 * writes on it that follow each other; their round of IPIs is still to
 * come. Returns how many were written.
 */
static unsigned int marker_insns_write(const struct marker_batch *b, const u32 *insns,
				       unsigned int n)
{
	unsigned int done = aarch64_insn_patch_text_batch_nosync(b->addr, insns, n);

	WRITE_ONCE(marker_stats.unsynced, marker_stats.unsynced + done);
	return done;
}

/*
 * The round of IPIs of a batch: each CPU takes an exception, which
 * discards the old instructions it may have fetched. Every write of the
 * batch must come before it.
 */
static void marker_sync_cpus(void)
{
	kick_all_cpus_sync();
	WRITE_ONCE(marker_stats.syncs, marker_stats.syncs + 1);
	WRITE_ONCE(marker_stats.unsynced, 0);
}

/*
 * Writes the new instructions of @b in order; on a failure, puts back those
 * written. Then one round of IPIs.
 */
static int marker_insns_apply(const struct marker_batch *b)
{
	unsigned int done = marker_insns_write(b, b->new, b->n);

	if (done < b->n)
		marker_insns_write(b, b->old, done);
	marker_sync_cpus();
	if (done < b->n)
		return -EFAULT;
	WRITE_ONCE(marker_stats.batches, marker_stats.batches + 1);
	WRITE_ONCE(marker_stats.insns, marker_stats.insns + b->n);
	return 0;
}

/**
 * arch_marker_switch() - switch marker sites, their calls and markers
 * @updates: the new @enabled of markers
 * @nr: how many
 * @changes: the sites, each with the state it is in and the one to put it in
 * @nr_changes: how many
 * @calls: the recorded calls to retarget
 * @nr_calls: how many
 *
 * Every slot and call is checked before anything is written; then the
 * values of @updates are stored (plain variables: arm64 has no immediate
 * values, see CONFIG_IMMEDIATE) and the slots and calls that change are
 * written, in one batch ending in one round of IPIs. Writes to one page
 * that follow each other share one mapping of it. A recorded call that
 * does not hold the call to @from, or cannot reach @to, is left alone.
 * Nothing is allocated for a switch of at most MARKER_STACK_WRITES
 * instructions.
 *
 * Context: process context; the caller holds cpus_read_lock(). Takes
 * text_mutex.
 * Return: 0; -EINVAL for a site that does not hold what it should; -EBUSY
 * for a site or a recorded call that holds a breakpoint; -ERANGE; -ENOMEM;
 * or -EFAULT when a write failed, those before it put back. On error
 * nothing has changed.
 */
int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
		       const struct marker_site_change *changes, unsigned int nr_changes,
		       const struct marker_call_change *calls, unsigned int nr_calls)
{
	void *stack_addr[MARKER_STACK_WRITES];
	u32 stack_old[MARKER_STACK_WRITES], stack_new[MARKER_STACK_WRITES];
	struct marker_batch b = { .addr = stack_addr, .old = stack_old, .new = stack_new };
	unsigned int i, max = nr_changes + nr_calls;
	void *mem = NULL;
	int ret;

	ret = imv_update_check(updates, nr);
	if (ret)
		return ret;
	if (max > MARKER_STACK_WRITES) {
		/* The addresses, then the old and the new instructions. */
		mem = marker_alloc(array_size(max, sizeof(void *) + 2 * sizeof(u32)));
		if (!mem)
			return -ENOMEM;
		b.addr = mem;
		b.old = (u32 *)(b.addr + max);
		b.new = b.old + max;
	}
	mutex_lock(&text_mutex);
	for (i = 0; i < nr_changes; i++) {
		ret = marker_slot_write(&changes[i], &b);
		if (ret)
			goto out_unlock;
	}
	for (i = 0; i < nr_calls; i++) {
		ret = marker_call_write(&calls[i], &b);
		if (ret)
			goto out_unlock;
	}
	if (b.n)
		ret = marker_insns_apply(&b);
	if (!ret)
		for (i = 0; i < nr; i++)
			imv_store(&updates[i]);
out_unlock:
	mutex_unlock(&text_mutex);
	kvfree(mem);
	return ret;
}
