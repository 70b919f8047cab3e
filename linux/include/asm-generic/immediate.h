/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ASM_GENERIC_IMMEDIATE_H
#define _ASM_GENERIC_IMMEDIATE_H

/*
 * Immediate values without architecture support (or with CONFIG_IMMEDIATE
 * off): imv_read() is a plain load, imv_set() a plain store. The semantics
 * are those of the patched implementation; only the cost differs.
 * Included by <linux/immediate.h>, never directly.
 */

#define __imv_read(var)		READ_ONCE(var)

static inline int imv_update_batch(const struct imv_update *updates, unsigned int nr)
{
	unsigned int i;
	int ret;

	ret = imv_update_check(updates, nr);
	if (ret)
		return ret;
	for (i = 0; i < nr; i++)
		imv_store(&updates[i]);
	return 0;
}

static inline void imv_init(void) { }

static inline void imv_free_init_mem(void) { }

static inline int imv_text_reserved(void *start, void *end)
{
	return 0;
}

static inline int imv_get_sites(const void *var, struct imv_site *sites,
				unsigned int max)
{
	return 0;
}

#endif /* _ASM_GENERIC_IMMEDIATE_H */
