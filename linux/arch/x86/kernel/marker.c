// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 marker sites: the bytes of the jump slot in each state (see
 * <linux/marker.h>) and of the recorded calls of probe blocks, switched in
 * the same batch as the immediate values that the sites' mov instructions
 * hold. The policy lives in kernel/marker_switch.c.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <linux/immediate.h>
#include <linux/marker.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <asm/alternative.h>
#include <asm/sections.h>
#include <asm/text-patching.h>
#include <asm/text_poke_bp.h>

#define MARKER_SLOT_LEN		2	/* the jump slot */
#define MARKER_JNE8_LEN		8	/* slot, mov, test, jne rel8 */
#define MARKER_JNE32_LEN	12	/* slot, mov, test, jne rel32 */
#define JNE8_OPCODE		0x75

/* Switches of at most this many slots and calls need no allocation. */
#define MARKER_STACK_POKES	8

static const u8 marker_nop2[] = { 0x66, 0x90 };

/*
 * Where a site's jne goes. Only the slot and the mov are ever rewritten, so
 * the jne is read as built; its length was recorded with the site.
 */
static int marker_probe_block(const struct site_entry *site, u8 **block)
{
	u8 *code = site_entry_code(site);
	u8 *end = code + site->len;

	if (site->len == MARKER_JNE8_LEN && end[-2] == JNE8_OPCODE) {
		*block = end + (s8)end[-1];
		return 0;
	}
	if (site->len == MARKER_JNE32_LEN && end[-6] == 0x0f && end[-5] == 0x85) {
		*block = end + get_unaligned((s32 *)(end - 4));
		return 0;
	}
	pr_err("unexpected site at %pS: %*ph\n", code, site->len, code);
	return -EINVAL;
}

/* The jump slot of @site in @state; @block is where its jne goes. */
static void marker_slot_bytes(const struct site_entry *site, u8 *block,
			      enum marker_site_state state, u8 *slot)
{
	u8 *code = site_entry_code(site);
	long rel = block - (code + MARKER_SLOT_LEN);

	switch (state) {
	case MARKER_SITE_OFF:
		slot[0] = JMP8_INSN_OPCODE;
		slot[1] = site->len - MARKER_SLOT_LEN;
		return;
	case MARKER_SITE_ON:
		if (rel >= S8_MIN && rel <= S8_MAX) {
			slot[0] = JMP8_INSN_OPCODE;
			slot[1] = rel;
			return;
		}
		fallthrough;
	case MARKER_SITE_BUILT:
		memcpy(slot, marker_nop2, MARKER_SLOT_LEN);
		return;
	}
}

/* The poke that takes the slot of @change from its state to the next. */
static int marker_slot_poke(const struct marker_site_change *change,
			    struct poke_site *poke)
{
	u8 *block;
	int ret;

	ret = marker_probe_block(change->site, &block);
	if (ret)
		return ret;
	poke->addr = site_entry_code(change->site);
	poke->len = MARKER_SLOT_LEN;
	marker_slot_bytes(change->site, block, change->from, poke->old);
	marker_slot_bytes(change->site, block, change->to, poke->new);
	return 0;
}

/*
 * Whether @insn is in init text, of the kernel or of a module: call depth
 * tracking sends only the calls of core text through accounting thunks.
 */
static bool marker_call_in_init_text(const u8 *insn)
{
	unsigned long addr = (unsigned long)insn;
	struct module *mod;

	if (is_kernel_inittext(addr))
		return true;
	guard(preempt)();
	mod = __module_address(addr);
	return mod && within_module_init(addr, mod);
}

/*
 * "call @target" at @insn, as the kernel runs it: with call depth tracking,
 * through the accounting thunk of @target, which the translation may write,
 * unless @insn is in init text, whose calls callthunks leaves as they are.
 * Called under text_mutex, as static calls translate theirs.
 */
static void marker_call_bytes(const u8 *insn, void *target, u8 *bytes)
{
	void *dest = marker_call_in_init_text(insn) ? target :
		     callthunks_translate_call_dest(target);
	s32 rel = (long)dest - (long)(insn + MARKER_CALL_LEN);

	bytes[0] = CALL_INSN_OPCODE;
	put_unaligned(rel, (s32 *)(bytes + 1));
}

/*
 * The poke that retargets the call of @change. False if the text does not
 * hold that call: the compiler placed something else before the point the
 * site recorded, which is then never rewritten, and the site goes on
 * calling marker_probe_iterate().
 */
static bool marker_call_poke(const struct marker_call_change *change,
			     struct poke_site *poke)
{
	u8 *insn = site_entry_code(change->site);

	poke->addr = insn;
	poke->len = MARKER_CALL_LEN;
	marker_call_bytes(insn, change->from, poke->old);
	marker_call_bytes(insn, change->to, poke->new);
	return !memcmp(insn, poke->old, MARKER_CALL_LEN);
}

/**
 * arch_marker_switch() - switch marker sites, their calls and immediate values
 * @updates: the new @enabled of markers
 * @nr: how many
 * @changes: the sites, each with the state it is in and the one to put it in
 * @nr_changes: how many
 * @calls: the recorded calls to retarget
 * @nr_calls: how many
 *
 * The slots and calls that change and every mov site of @updates are
 * rewritten in one batch of imv_update_batch_pokes(), or of
 * poke_sites_apply() without @updates. A recorded call that does not hold
 * @from is left alone. Nothing is allocated for a switch of at most
 * MARKER_STACK_POKES slots and calls without @updates.
 *
 * Context: process context; the caller holds cpus_read_lock(). Takes
 * text_mutex.
 * Return: 0; -EINVAL for a site that does not look like one; -ENOMEM; or
 * the error of imv_update_batch_pokes() or poke_sites_apply(). On error
 * nothing has changed.
 */
int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
		       const struct marker_site_change *changes, unsigned int nr_changes,
		       const struct marker_call_change *calls, unsigned int nr_calls)
{
	struct poke_site stack[MARKER_STACK_POKES], *pokes = stack;
	unsigned int i, n = 0;
	int ret = 0;

	if (nr_changes + nr_calls > ARRAY_SIZE(stack)) {
		pokes = marker_alloc(array_size(nr_changes + nr_calls, sizeof(*pokes)));
		if (!pokes)
			return -ENOMEM;
	}
	for (i = 0; i < nr_changes; i++) {
		ret = marker_slot_poke(&changes[i], &pokes[n]);
		if (ret)
			goto out_free;
		if (memcmp(pokes[n].old, pokes[n].new, MARKER_SLOT_LEN))
			n++;
	}
	/* The thunks of call depth tracking are written under text_mutex. */
	mutex_lock(&text_mutex);
	for (i = 0; i < nr_calls; i++)
		n += marker_call_poke(&calls[i], &pokes[n]);
	mutex_unlock(&text_mutex);
	if (nr)
		ret = imv_update_batch_pokes(updates, nr, pokes, n);
	else if (n)
		ret = poke_sites_apply(pokes, n);
out_free:
	if (pokes != stack)
		kvfree(pokes);
	return ret;
}
