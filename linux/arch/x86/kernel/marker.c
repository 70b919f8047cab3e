// SPDX-License-Identifier: GPL-2.0
/*
 * x86-64 marker sites: the bytes of each site in each state (see
 * <linux/marker.h>) and of the recorded calls of probe blocks. The policy
 * lives in kernel/marker_switch.c.
 *
 * A site is "near" when its jb is short and a jmp rel8 from its slot
 * reaches the probe block: then only its slot is ever written, and its
 * guard's immediate stays 0. Off, the slot is 0f 1f, which makes the whole
 * site one 7-byte NOP (see <asm/marker.h>); on, it jumps to the probe
 * block. Every other site is "far": only its guard's immediate is ever
 * written (0, never below %esp, off; 0xff, always, on), its slot stays the
 * NOP it was built with, and off it runs its pattern, not taken.
 *
 * That split is what makes each switch safe while other CPUs run the site.
 * A CPU may sit between any two instructions of the pattern as built (a
 * task preempted there), so those bytes must always decode as they were
 * built from each of their boundaries; they do, as only the slot or the
 * immediate changes. A CPU entering the site at its slot must never find
 * 0f 1f in front of an INT3 on the guard (that would read as a 3-byte NOP,
 * and run the guard's ModRM byte as code): hence no site both holds 0f 1f
 * and has its immediate written.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <linux/immediate.h>
#include <linux/marker.h>
#include <linux/memory.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/text-patching.h>
#include <linux/unaligned.h>

#include <asm/alternative.h>
#include <asm/sections.h>
#include <asm/text_poke_bp.h>

#define MARKER_SLOT_LEN		2	/* the jump slot */
#define MARKER_NEAR_LEN		7	/* slot, guard, jb rel8 */
#define MARKER_FAR_LEN		11	/* slot, guard, jb rel32 */
#define GUARD_OFF		0x00	/* %esp is never below 0 */
#define GUARD_ON		0xff	/* and always below 0xffffffff */
#define JB8_OPCODE		0x72
#define JB32_OPCODE		0x82	/* after 0x0f */

/* Switches of at most this many sites and calls need no allocation. */
#define MARKER_STACK_POKES	8

/*
 * Where a site's jb goes. Only the slot and the guard's immediate are ever
 * rewritten, so the jb is read as built; its length was recorded with the
 * site.
 */
void *arch_marker_site_block(const struct site_entry *site)
{
	u8 *code = site_entry_code(site);
	u8 *end = code + site->len;

	if (code[MARKER_SLOT_LEN] != POKE_GUARD_OPCODE ||
	    code[MARKER_SLOT_LEN + 1] != POKE_GUARD_MODRM)
		return NULL;
	if (site->len == MARKER_NEAR_LEN && end[-2] == JB8_OPCODE)
		return end + (s8)end[-1];
	if (site->len == MARKER_FAR_LEN && end[-6] == 0x0f && end[-5] == JB32_OPCODE)
		return end + get_unaligned((s32 *)(end - 4));
	return NULL;
}

static int marker_probe_block(const struct site_entry *site, u8 **block)
{
	u8 *code = site_entry_code(site);

	*block = arch_marker_site_block(site);
	if (*block)
		return 0;
	pr_err("unexpected site at %pS: %*ph\n", code, site->len, code);
	return -EINVAL;
}

/* The displacement of a jmp rel8 from the slot of @site to @block, if any. */
static bool marker_near(const struct site_entry *site, const u8 *block, s8 *rel)
{
	long d = block - ((u8 *)site_entry_code(site) + MARKER_SLOT_LEN);

	if (site->len != MARKER_NEAR_LEN || d < S8_MIN || d > S8_MAX)
		return false;
	*rel = d;
	return true;
}

/*
 * The instruction of @site that a switch from @from to @to rewrites, in
 * @poke: the slot of a near site, the guard of a far one, which a CPU
 * meeting it mid-switch skips to the block (on) or to the site's end. False
 * when the two states have the same bytes (a far site, built and off).
 */
static bool marker_site_poke(const struct site_entry *site, u8 *block,
			     enum marker_site_state from, enum marker_site_state to,
			     struct poke_site *poke)
{
	static const u8 near[][MARKER_SLOT_LEN] = {
		[MARKER_SITE_BUILT] = { 0x66, 0x90 },
		[MARKER_SITE_OFF] = { 0x0f, 0x1f },
		[MARKER_SITE_ON] = { JMP8_INSN_OPCODE, 0 },
	};
	u8 *code = site_entry_code(site);
	s8 rel;

	if (!marker_near(site, block, &rel)) {
		bool was_on = from == MARKER_SITE_ON, on = to == MARKER_SITE_ON;

		if (was_on == on)
			return false;
		poke->addr = code + MARKER_SLOT_LEN;
		poke->len = POKE_GUARD_LEN;
		poke->old[0] = POKE_GUARD_OPCODE;
		poke->old[1] = POKE_GUARD_MODRM;
		poke->old[2] = was_on ? GUARD_ON : GUARD_OFF;
		memcpy(poke->new, poke->old, POKE_GUARD_LEN - 1);
		poke->new[2] = on ? GUARD_ON : GUARD_OFF;
		poke->outcome = on ? block : code + site->len;
		return true;
	}
	poke->addr = code;
	poke->len = MARKER_SLOT_LEN;
	poke->outcome = NULL;
	memcpy(poke->old, near[from], MARKER_SLOT_LEN);
	memcpy(poke->new, near[to], MARKER_SLOT_LEN);
	if (from == MARKER_SITE_ON)
		poke->old[1] = rel;
	if (to == MARKER_SITE_ON)
		poke->new[1] = rel;
	return true;
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
 * The poke that retargets the call of @change: 1 if the text holds that
 * call; 0 if it does not, as when the compiler placed something else
 * before the point the site recorded (never rewritten: the site goes on
 * calling marker_probe_iterate()) or a retreat has sent the call on
 * already; -EBUSY if it holds the call under somebody else's breakpoint (a
 * debugger's), which only its owner takes out, putting back the byte it
 * replaced.
 */
static int marker_call_poke(const struct marker_call_change *change,
			    struct poke_site *poke)
{
	u8 *insn = site_entry_code(change->site);

	poke->addr = insn;
	poke->len = MARKER_CALL_LEN;
	poke->outcome = NULL;
	marker_call_bytes(insn, change->from, poke->old);
	marker_call_bytes(insn, change->to, poke->new);
	if (!memcmp(insn, poke->old, MARKER_CALL_LEN))
		return 1;
	if (insn[0] == INT3_INSN_OPCODE &&
	    !memcmp(insn + 1, poke->old + 1, MARKER_CALL_LEN - 1))
		return -EBUSY;
	return 0;
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
 * The slot or the immediate of each site that changes (see the top of
 * this file) and the calls are rewritten in one batch of
 * poke_sites_apply(); then the values of @updates are stored: they are
 * plain variables, which no immediate-value site reads, so markers need
 * no CONFIG_IMMEDIATE. A recorded call that does not hold the call to
 * @from is left alone. Nothing is allocated for a switch of at most
 * MARKER_STACK_POKES sites and calls.
 *
 * Context: process context; the caller holds cpus_read_lock(). Takes
 * text_mutex.
 * Return: 0; the error of imv_update_check() for @updates; -EINVAL for a
 * site that does not look like one; -EBUSY for a recorded call that holds
 * the call to @from under somebody else's breakpoint; -ENOMEM; or the
 * error of poke_sites_apply(). On error nothing has changed.
 */
int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
		       const struct marker_site_change *changes, unsigned int nr_changes,
		       const struct marker_call_change *calls, unsigned int nr_calls)
{
	struct poke_site stack[MARKER_STACK_POKES], *pokes = stack;
	unsigned int i, n = 0;
	int ret;

	ret = imv_update_check(updates, nr);
	if (ret)
		return ret;
	if (nr_changes + nr_calls > ARRAY_SIZE(stack)) {
		pokes = marker_alloc(array_size(nr_changes + nr_calls, sizeof(*pokes)));
		if (!pokes)
			return -ENOMEM;
	}
	for (i = 0; i < nr_changes; i++) {
		const struct marker_site_change *c = &changes[i];
		u8 *block;

		ret = marker_probe_block(c->site, &block);
		if (ret)
			goto out_free;
		n += marker_site_poke(c->site, block, c->from, c->to, &pokes[n]);
	}
	/* The thunks of call depth tracking are written under text_mutex. */
	mutex_lock(&text_mutex);
	for (i = 0; i < nr_calls; i++) {
		ret = marker_call_poke(&calls[i], &pokes[n]);
		if (ret < 0)
			break;
		n += ret;
	}
	mutex_unlock(&text_mutex);
	if (ret < 0)
		goto out_free;
	ret = n ? poke_sites_apply(pokes, n) : 0;
	for (i = 0; !ret && i < nr; i++)
		imv_store(&updates[i]);
out_free:
	if (pokes != stack)
		kvfree(pokes);
	return ret;
}
