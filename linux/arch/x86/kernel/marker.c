// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 marker sites: the bytes of each state (see <linux/marker.h>) and
 * switching a batch of sites through poke_sites_apply(). The policy lives
 * in kernel/marker.c.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <linux/marker.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/unaligned.h>

#include <asm/text-patching.h>
#include <asm/text_poke_bp.h>

#define MARKER_SLOT_LEN		2	/* the jump slot */
#define MARKER_MOV_OFFSET	2	/* movb $imm, %al: b0 ib */
#define MARKER_TEST_OFFSET	4	/* testb %al, %al: 84 c0 */
#define MARKER_JNE_OFFSET	6	/* jne: 75 rel8 or 0f 85 rel32 */
#define MOV_AL_IMM8		0xb0
#define JNE8_OPCODE		0x75

static const u8 marker_nop2[] = { 0x66, 0x90 };
static const u8 marker_test_al[] = { 0x84, 0xc0 };

/* A site's pattern, decoded. */
struct marker_pattern {
	u8 *slot;
	u8 *probe_block;	/* where jne goes */
	unsigned int size;	/* slot to the end of jne */
};

static int marker_pattern_decode(const struct marker_site *site,
				 struct marker_pattern *pat)
{
	u8 *code = marker_site_code(site);
	u8 *jne = code + MARKER_JNE_OFFSET;

	if (code[MARKER_MOV_OFFSET] != MOV_AL_IMM8 ||
	    memcmp(code + MARKER_TEST_OFFSET, marker_test_al, sizeof(marker_test_al)))
		goto bad;
	if (jne[0] == JNE8_OPCODE) {
		pat->size = MARKER_JNE_OFFSET + 2;
		pat->probe_block = code + pat->size + (s8)jne[1];
	} else if (jne[0] == 0x0f && jne[1] == 0x85) {
		pat->size = MARKER_JNE_OFFSET + 6;
		pat->probe_block = code + pat->size + get_unaligned((s32 *)(jne + 2));
	} else {
		goto bad;
	}
	pat->slot = code;
	return 0;
bad:
	pr_err("unexpected site at %pS: %*ph\n", code, 12, code);
	return -EINVAL;
}

/* The jump slot in @state. */
static void marker_slot_bytes(const struct marker_pattern *pat,
			      enum marker_site_state state, u8 *slot)
{
	long rel = pat->probe_block - (pat->slot + MARKER_SLOT_LEN);

	switch (state) {
	case MARKER_SITE_OFF:
		slot[0] = JMP8_INSN_OPCODE;
		slot[1] = pat->size - MARKER_SLOT_LEN;
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

/* Adds the pokes that take one site from @from to @to; returns how many. */
static unsigned int marker_site_pokes(const struct marker_pattern *pat,
				      enum marker_site_state from,
				      enum marker_site_state to,
				      struct poke_site *poke)
{
	unsigned int n = 0;

	poke[n].addr = pat->slot;
	poke[n].len = MARKER_SLOT_LEN;
	marker_slot_bytes(pat, from, poke[n].old);
	marker_slot_bytes(pat, to, poke[n].new);
	if (memcmp(poke[n].old, poke[n].new, MARKER_SLOT_LEN))
		n++;

	poke[n].addr = pat->slot + MARKER_MOV_OFFSET;
	poke[n].len = 2;
	poke[n].old[0] = MOV_AL_IMM8;
	poke[n].old[1] = from == MARKER_SITE_ON;
	poke[n].new[0] = MOV_AL_IMM8;
	poke[n].new[1] = to == MARKER_SITE_ON;
	if (poke[n].old[1] != poke[n].new[1])
		n++;
	return n;
}

/**
 * arch_marker_patch() - switch a batch of marker sites
 * @changes: the sites, each with the state it is in and the one to put it in
 * @nr: how many
 *
 * All the sites change in one batch of poke_sites_apply().
 *
 * Context: process context; the caller holds cpus_read_lock().
 * Return: 0, or the error of poke_sites_apply() (nothing written); -EINVAL
 * for a site that does not look like one; -ENOMEM.
 */
int arch_marker_patch(const struct marker_site_change *changes, unsigned int nr)
{
	struct marker_pattern pat;
	struct poke_site *pokes;
	unsigned int i, n = 0;
	int ret = 0;

	if (!nr)
		return 0;
	pokes = marker_alloc(array3_size(2, nr, sizeof(*pokes)));
	if (!pokes)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		ret = marker_pattern_decode(changes[i].site, &pat);
		if (ret)
			goto out_free;
		n += marker_site_pokes(&pat, changes[i].from, changes[i].to, pokes + n);
	}
	ret = poke_sites_apply(pokes, n);
out_free:
	kvfree(pokes);
	return ret;
}

/**
 * arch_marker_site_size() - the length of a marker site's pattern
 * @site: the site
 *
 * Return: the bytes from the jump slot to the end of jne, 0 if the site
 * does not look like one.
 */
unsigned int arch_marker_site_size(const struct marker_site *site)
{
	struct marker_pattern pat;

	return marker_pattern_decode(site, &pat) ? 0 : pat.size;
}
