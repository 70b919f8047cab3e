// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 marker sites: the bytes of the jump slot in each state (see
 * <linux/marker.h>), switched in the same batch as the immediate values
 * that the sites' mov instructions hold. The policy lives in kernel/marker.c.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <linux/immediate.h>
#include <linux/marker.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <asm/text-patching.h>
#include <asm/text_poke_bp.h>

#define MARKER_SLOT_LEN		2	/* the jump slot */
#define MARKER_JNE8_LEN		8	/* slot, mov, test, jne rel8 */
#define MARKER_JNE32_LEN	12	/* slot, mov, test, jne rel32 */
#define JNE8_OPCODE		0x75

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

/**
 * arch_marker_switch() - switch marker sites and their immediate values
 * @updates: the new @enabled of markers
 * @nr: how many
 * @changes: the sites, each with the state it is in and the one to put it in
 * @nr_changes: how many
 *
 * The slots that change and every mov site of @updates are rewritten in one
 * batch of imv_update_batch_pokes().
 *
 * Context: process context; the caller holds cpus_read_lock().
 * Return: 0; -EINVAL for a site that does not look like one; -ENOMEM; or
 * the error of imv_update_batch_pokes(). On error nothing has changed.
 */
int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
		       const struct marker_site_change *changes, unsigned int nr_changes)
{
	struct poke_site *pokes = NULL;
	unsigned int i, n = 0;
	int ret;

	if (nr_changes) {
		pokes = marker_alloc(array_size(nr_changes, sizeof(*pokes)));
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
	ret = imv_update_batch_pokes(updates, nr, pokes, n);
out_free:
	kvfree(pokes);
	return ret;
}
