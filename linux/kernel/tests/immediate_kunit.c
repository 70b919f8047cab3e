// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for immediate values.
 *
 * The suite is built in: it runs at boot, while kernel text is still
 * writable, and again after boot through /sys/kernel/debug/kunit, once text
 * is read-only. The readers are noinline functions called through pointers,
 * so that each imv_read() below is a site of its own in kernel text.
 *
 * Cases that need a module load immediate_kunit_mod with request_module()
 * and unload it with rmmod; without userspace they skip.
 */

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/immediate.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/memory.h>
#include <linux/objtool.h>
#include <linux/sched.h>

#include "immediate_kunit.h"
#include "kunit_helpers.h"

#ifdef CONFIG_IMMEDIATE
#include <linux/text-patching.h>
#include <asm/text_poke_bp.h>
#endif

DEFINE_IMV(int, imv_kunit_shared) = 7;
EXPORT_IMV_SYMBOL_GPL(imv_kunit_shared);

static DEFINE_IMV(u8, imv_test_u8) = 0x5a;
static DEFINE_IMV(u16, imv_test_u16) = 0x1234;
static DEFINE_IMV(u32, imv_test_u32) = 0x11223344;
static DEFINE_IMV(u64, imv_test_u64) = 0x0102030405060708ULL;
static DEFINE_IMV(s8, imv_test_s8) = -5;

static noinline u64 imv_test_read_u8(void)	{ return imv_read(imv_test_u8); }
static noinline u64 imv_test_read_u16(void)	{ return imv_read(imv_test_u16); }
static noinline u64 imv_test_read_u32(void)	{ return imv_read(imv_test_u32); }
static noinline u64 imv_test_read_u64(void)	{ return imv_read(imv_test_u64); }
static noinline u64 imv_test_read_s8(void)	{ return (u8)imv_read(imv_test_s8); }

static u64 imv_test_plain_u8(void)	{ return _imv_read(imv_test_u8); }
static u64 imv_test_plain_u16(void)	{ return _imv_read(imv_test_u16); }
static u64 imv_test_plain_u32(void)	{ return _imv_read(imv_test_u32); }
static u64 imv_test_plain_u64(void)	{ return _imv_read(imv_test_u64); }
static u64 imv_test_plain_s8(void)	{ return (u8)_imv_read(imv_test_s8); }

static int imv_test_set_u8(u64 v)	{ return imv_set(imv_test_u8, (u8)v); }
static int imv_test_set_u16(u64 v)	{ return imv_set(imv_test_u16, (u16)v); }
static int imv_test_set_u32(u64 v)	{ return imv_set(imv_test_u32, (u32)v); }
static int imv_test_set_u64(u64 v)	{ return imv_set(imv_test_u64, v); }
static int imv_test_set_s8(u64 v)	{ return imv_set(imv_test_s8, (s8)v); }

/* One immediate value of each size, and what the tests do with it. */
struct imv_test_var {
	const char *name;
	void *var;
	unsigned int size;
	u64 initial;		/* as read back: the variable's bytes */
	u64 other;		/* a value whose bytes all differ from @initial */
	u64 (*read)(void);
	u64 (*plain_read)(void);
	int (*set)(u64 value);
};

static const struct imv_test_var imv_test_vars[] = {
	{ "u8", &imv_test_u8__imv, 1, 0x5a, 0xa5,
	  imv_test_read_u8, imv_test_plain_u8, imv_test_set_u8 },
	{ "u16", &imv_test_u16__imv, 2, 0x1234, 0xedcb,
	  imv_test_read_u16, imv_test_plain_u16, imv_test_set_u16 },
	{ "u32", &imv_test_u32__imv, 4, 0x11223344, 0xeeddccbb,
	  imv_test_read_u32, imv_test_plain_u32, imv_test_set_u32 },
	{ "u64", &imv_test_u64__imv, 8, 0x0102030405060708ULL, 0xfefdfcfbfaf9f8f7ULL,
	  imv_test_read_u64, imv_test_plain_u64, imv_test_set_u64 },
	{ "s8", &imv_test_s8__imv, 1, 0xfb, 0x04,
	  imv_test_read_s8, imv_test_plain_s8, imv_test_set_s8 },
};

static void imv_test_var_desc(const struct imv_test_var *v, char *desc)
{
	strscpy(desc, v->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(imv_test_var, imv_test_vars, imv_test_var_desc);

static const struct imv_test_var *imv_param(struct kunit *test)
{
	return test->param_value;
}

/* Puts every test variable back to its initial value before each case. */
static int imv_test_init(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(imv_test_vars); i++)
		KUNIT_ASSERT_EQ(test, imv_test_vars[i].set(imv_test_vars[i].initial), 0);
	return 0;
}

static void imv_read_initial_value(struct kunit *test)
{
	const struct imv_test_var *v = imv_param(test);

	KUNIT_EXPECT_EQ(test, v->read(), v->initial);
	KUNIT_EXPECT_EQ(test, v->plain_read(), v->initial);
}

static void imv_set_reads_back(struct kunit *test)
{
	const struct imv_test_var *v = imv_param(test);

	KUNIT_ASSERT_EQ(test, v->set(v->other), 0);
	KUNIT_EXPECT_EQ(test, v->read(), v->other);
	KUNIT_EXPECT_EQ(test, v->plain_read(), v->other);
	KUNIT_ASSERT_EQ(test, v->set(v->initial), 0);
	KUNIT_EXPECT_EQ(test, v->read(), v->initial);
}

/*
 * Values that do not fit. Constants that do not fit do not even build
 * (-Woverflow): these are hidden from the compiler, as run-time values are.
 */
static void imv_set_too_wide(struct kunit *test)
{
	long long big = 0x100000000LL, w16 = 0x10000, w8 = 0x100, minus = -1, s200 = 200;

	OPTIMIZER_HIDE_VAR(big);
	OPTIMIZER_HIDE_VAR(w16);
	OPTIMIZER_HIDE_VAR(w8);
	OPTIMIZER_HIDE_VAR(minus);
	OPTIMIZER_HIDE_VAR(s200);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u8, w8), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u8, minus), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_s8, s200), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u16, w16), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u32, big), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_test_read_u8(), 0x5a);
	KUNIT_EXPECT_EQ(test, imv_test_read_s8(), 0xfb);
	KUNIT_EXPECT_EQ(test, imv_test_read_u16(), 0x1234);
	KUNIT_EXPECT_EQ(test, imv_test_read_u32(), 0x11223344);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_s8, -128), 0);
	KUNIT_EXPECT_EQ(test, imv_test_read_s8(), 0x80);
}

static void imv_batch_bad_input(struct kunit *test)
{
	struct imv_update dup[] = {
		IMV_UPDATE(imv_test_u8, 1),
		IMV_UPDATE(imv_test_u16, 2),
		IMV_UPDATE(imv_test_u8, 3),
	};
	int w8 = 0x1ff;
	struct imv_update bad_size = IMV_UPDATE(imv_test_u32, 5);
	struct imv_update wide[2];

	OPTIMIZER_HIDE_VAR(w8);
	wide[0] = IMV_UPDATE(imv_test_u16, 4);
	wide[1] = IMV_UPDATE(imv_test_u8, w8);
	bad_size.size = 3;
	KUNIT_EXPECT_EQ(test, imv_update_batch(dup, ARRAY_SIZE(dup)), -EINVAL);
	KUNIT_EXPECT_EQ(test, imv_update_batch(wide, ARRAY_SIZE(wide)), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_update_batch(&bad_size, 1), -EINVAL);
	bad_size.size = 4;
	bad_size.var = NULL;
	KUNIT_EXPECT_EQ(test, imv_update_batch(&bad_size, 1), -EINVAL);

	KUNIT_EXPECT_EQ(test, imv_test_read_u8(), 0x5a);
	KUNIT_EXPECT_EQ(test, imv_test_read_u16(), 0x1234);
	KUNIT_EXPECT_EQ(test, imv_test_read_u32(), 0x11223344);
}

static void imv_batch_several_values(struct kunit *test)
{
	struct imv_update updates[] = {
		IMV_UPDATE(imv_test_u8, 0x01),
		IMV_UPDATE(imv_test_u16, 0x0203),
		IMV_UPDATE(imv_test_u32, 0x04050607),
		IMV_UPDATE(imv_test_u64, 0x08090a0b0c0d0e0fULL),
		IMV_UPDATE(imv_test_s8, -1),
	};

	KUNIT_ASSERT_EQ(test, imv_update_batch(updates, ARRAY_SIZE(updates)), 0);
	KUNIT_EXPECT_EQ(test, imv_test_read_u8(), 0x01);
	KUNIT_EXPECT_EQ(test, imv_test_read_u16(), 0x0203);
	KUNIT_EXPECT_EQ(test, imv_test_read_u32(), 0x04050607);
	KUNIT_EXPECT_EQ(test, imv_test_read_u64(), 0x08090a0b0c0d0e0fULL);
	KUNIT_EXPECT_EQ(test, imv_test_read_s8(), 0xff);
}

static void imv_module_immediates(struct kunit *test)
{
	unsigned int patched = IS_ENABLED(CONFIG_IMMEDIATE);
	int (*mod_read_shared)(void);
	int (*mod_set)(int value);
	int (*mod_read)(void);

	kunit_load_module(test, "immediate_kunit_mod");
	/*
	 * The module's init function has returned and its init text is
	 * freed: of its two sites of the kernel's value only the one in its
	 * core text is left to write. Checked before any write, which would
	 * otherwise fault on the freed one.
	 */
	KUNIT_ASSERT_EQ_MSG(test, imv_get_sites(&imv_kunit_shared__imv, NULL, 0), patched,
			    "the module's site in freed init text is still listed");
	mod_read = symbol_get(imv_kunit_mod_read);
	mod_read_shared = symbol_get(imv_kunit_mod_read_shared);
	mod_set = symbol_get(imv_kunit_mod_set);
	KUNIT_ASSERT_TRUE(test, mod_read && mod_read_shared && mod_set);

	/* The module's own value, set while it is loaded. */
	KUNIT_EXPECT_EQ(test, mod_read(), IMV_KUNIT_MOD_INITIAL);
	KUNIT_EXPECT_EQ(test, mod_set(-3), 0);
	KUNIT_EXPECT_EQ(test, mod_read(), -3);
	/* A kernel value read in the module: its module site follows. */
	KUNIT_EXPECT_EQ(test, mod_read_shared(), 7);
	KUNIT_EXPECT_EQ(test, imv_set(imv_kunit_shared, 1000), 0);
	KUNIT_EXPECT_EQ(test, mod_read_shared(), 1000);
	KUNIT_EXPECT_EQ(test, imv_get_sites(&imv_kunit_shared__imv, NULL, 0),
			patched);
	symbol_put(imv_kunit_mod_read);
	symbol_put(imv_kunit_mod_read_shared);
	symbol_put(imv_kunit_mod_set);

	/* Unloaded, reloaded: the module starts from its initial value. */
	kunit_unload_module(test, "immediate_kunit_mod");
	KUNIT_EXPECT_EQ(test, imv_get_sites(&imv_kunit_shared__imv, NULL, 0), 0);
	kunit_load_module(test, "immediate_kunit_mod");
	mod_read = symbol_get(imv_kunit_mod_read);
	mod_read_shared = symbol_get(imv_kunit_mod_read_shared);
	KUNIT_ASSERT_TRUE(test, mod_read && mod_read_shared);
	KUNIT_EXPECT_EQ(test, mod_read(), IMV_KUNIT_MOD_INITIAL);
	KUNIT_EXPECT_EQ(test, mod_read_shared(), 1000);
	symbol_put(imv_kunit_mod_read);
	symbol_put(imv_kunit_mod_read_shared);
	kunit_unload_module(test, "immediate_kunit_mod");
	KUNIT_EXPECT_EQ(test, imv_set(imv_kunit_shared, 7), 0);
}

/* Read by inline code in the kernel's init text and in its core text. */
static DEFINE_IMV(int, imv_test_init_value) = 3;

static __always_inline int imv_test_read_init_inline(void)
{
	return imv_read(imv_test_init_value);
}

static noinline int __init imv_test_read_init(void)
{
	return imv_test_read_init_inline();
}

static noinline int imv_test_read_core(void)
{
	return imv_test_read_init_inline();
}

/* Only while the kernel's init text is there: the boot-time run. */
static int __ref imv_test_read_init_text(void)
{
	return imv_test_read_init();
}

/* The site in init text, as the boot-time run saw it. */
static struct imv_site imv_test_init_site;

/* Whether kprobes would find @site reserved. */
static bool imv_test_reserved(const struct imv_site *site)
{
	return imv_text_reserved(site->insn, site->insn + site->len - 1);
}

/*
 * A site in the kernel's init text is written like any other while that
 * text can run, and forgotten before it is freed: listed no more, written
 * no more. kprobes finds it reserved while it is there, and the text that
 * was init text no more once it is gone (no object owns that text), while
 * the live site of the same variable stays reserved.
 */
static void imv_init_text_sites(struct kunit *test)
{
	bool init_text = system_state < SYSTEM_FREEING_INITMEM;
	unsigned int patched = IS_ENABLED(CONFIG_IMMEDIATE);
	struct imv_site sites[2];
	unsigned long poked;
	int i, n;

	n = imv_get_sites(&imv_test_init_value__imv, sites, ARRAY_SIZE(sites));
	KUNIT_ASSERT_EQ(test, n, (init_text ? 2 : 1) * patched);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE_MSG(test, imv_test_reserved(&sites[i]),
				      "%pS not reserved", sites[i].insn);
		if (init_section_contains(sites[i].insn, sites[i].len))
			imv_test_init_site = sites[i];
	}
	if (!init_text && n) {
		KUNIT_EXPECT_FALSE(test, init_section_contains(sites[0].insn, sites[0].len));
		if (imv_test_init_site.insn)
			KUNIT_EXPECT_FALSE_MSG(test, imv_test_reserved(&imv_test_init_site),
					       "freed init text at %pS still reserved",
					       imv_test_init_site.insn);
		else
			kunit_info(test, "no boot-time run: the freed site is not checked\n");
	}

	poked = kunit_poke_counts().sites;
	KUNIT_ASSERT_EQ(test, imv_set(imv_test_init_value, 4), 0);
	KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites - poked, n);
	KUNIT_EXPECT_EQ(test, imv_test_read_core(), 4);
	if (init_text)
		KUNIT_EXPECT_EQ(test, imv_test_read_init_text(), 4);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_init_value, 3), 0);
}

/*
 * A module's site in init text is written when the module comes, and
 * forgotten once its init function has returned, before the text is freed.
 */
static void imv_module_init_text(struct kunit *test)
{
	unsigned int patched = IS_ENABLED(CONFIG_IMMEDIATE);
	int (*mod_read_shared)(void);
	unsigned long poked;
	int *init_read;

	KUNIT_ASSERT_EQ(test, imv_set(imv_kunit_shared, 9), 0);
	kunit_load_module(test, "immediate_kunit_mod");
	mod_read_shared = symbol_get(imv_kunit_mod_read_shared);
	init_read = symbol_get(imv_kunit_mod_init_read);
	KUNIT_ASSERT_TRUE(test, mod_read_shared && init_read);

	KUNIT_EXPECT_EQ(test, *init_read, 9);
	KUNIT_EXPECT_EQ(test, imv_get_sites(&imv_kunit_shared__imv, NULL, 0), patched);
	poked = kunit_poke_counts().sites;
	KUNIT_EXPECT_EQ(test, imv_set(imv_kunit_shared, 10), 0);
	KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites - poked, patched);
	KUNIT_EXPECT_EQ(test, mod_read_shared(), 10);

	symbol_put(imv_kunit_mod_read_shared);
	symbol_put(imv_kunit_mod_init_read);
	kunit_unload_module(test, "immediate_kunit_mod");
	KUNIT_EXPECT_EQ(test, imv_set(imv_kunit_shared, 7), 0);
}

#ifdef CONFIG_IMMEDIATE

static DEFINE_IMV(u8, imv_test_batch);

/*
 * Checks one site byte for byte: "[66] [REX] b0+r/b8+r imm", the immediate
 * naturally aligned at the end and holding @value.
 */
static void imv_expect_site(struct kunit *test, const struct imv_site *site,
			    unsigned int size, u64 value)
{
	u8 *insn = site->insn;
	unsigned int i = 0;
	u8 rex = 0;

	KUNIT_EXPECT_EQ(test, site->size, size);
	KUNIT_EXPECT_EQ_MSG(test, ((unsigned long)insn + site->len) % size, 0,
			    "immediate of %pS is not aligned", insn);
	if (size == 2)
		KUNIT_EXPECT_EQ(test, insn[i++], 0x66);
	if ((insn[i] & 0xf0) == 0x40)
		rex = insn[i++];
	KUNIT_EXPECT_EQ(test, !!(rex & 0x08), size == 8);
	KUNIT_EXPECT_EQ(test, insn[i] & 0xf8, size == 1 ? 0xb0 : 0xb8);
	i++;
	KUNIT_EXPECT_EQ(test, i + size, site->len);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(insn + i, &value, size), 0,
			    "%pS holds %*ph, expected %*ph", insn, site->len, insn,
			    size, &value);
}

/* Checks every site of @var against @value; returns how many there are. */
static int imv_expect_sites(struct kunit *test, void *var, unsigned int size, u64 value)
{
	struct imv_site sites[8];
	int i, n;

	n = imv_get_sites(var, sites, ARRAY_SIZE(sites));
	for (i = 0; i < min_t(int, n, ARRAY_SIZE(sites)); i++)
		imv_expect_site(test, &sites[i], size, value);
	return n;
}

static void imv_site_encoding(struct kunit *test)
{
	const struct imv_test_var *v = imv_param(test);

	KUNIT_ASSERT_GE(test, imv_expect_sites(test, v->var, v->size, v->initial), 1);
	KUNIT_ASSERT_EQ(test, v->set(v->other), 0);
	imv_expect_sites(test, v->var, v->size, v->other);
}

/* A refused update leaves the sites as they were. */
static void imv_refused_leaves_sites(struct kunit *test)
{
	struct imv_update dup[] = {
		IMV_UPDATE(imv_test_u16, 1),
		IMV_UPDATE(imv_test_u16, 2),
	};
	int w8 = 0x1ff;

	OPTIMIZER_HIDE_VAR(w8);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u8, w8), -ERANGE);
	KUNIT_EXPECT_EQ(test, imv_update_batch(dup, ARRAY_SIZE(dup)), -EINVAL);
	imv_expect_sites(test, &imv_test_u8__imv, 1, 0x5a);
	imv_expect_sites(test, &imv_test_u16__imv, 2, 0x1234);
}

/* Any allocation of an update may fail: -ENOMEM, and nothing has changed. */
static void imv_set_nomem(struct kunit *test)
{
	unsigned int nth;
	int ret;

	kunit_activate_static_stub(test, imv_alloc, kunit_failing_alloc);
	for (nth = 1; ; nth++) {
		kunit_fail_nth_alloc(nth);
		ret = imv_set(imv_test_u32, 0x55667788);
		if (!kunit_nth_alloc_failed())
			break;
		KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
		KUNIT_EXPECT_EQ(test, imv_test_read_u32(), 0x11223344);
		imv_expect_sites(test, &imv_test_u32__imv, 4, 0x11223344);
	}
	kunit_deactivate_static_stub(test, imv_alloc);

	KUNIT_EXPECT_GT_MSG(test, nth, 1, "the update allocated nothing");
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, imv_test_read_u32(), 0x55667788);
	imv_expect_sites(test, &imv_test_u32__imv, 4, 0x55667788);
}

/* 4^5 = 1024 inlined copies of one imv_read(): 1024 sites of one variable. */
static __always_inline unsigned int imv_read_4(void)
{
	return imv_read(imv_test_batch) + imv_read(imv_test_batch) +
	       imv_read(imv_test_batch) + imv_read(imv_test_batch);
}

static __always_inline unsigned int imv_read_16(void)
{
	return imv_read_4() + imv_read_4() + imv_read_4() + imv_read_4();
}

static __always_inline unsigned int imv_read_64(void)
{
	return imv_read_16() + imv_read_16() + imv_read_16() + imv_read_16();
}

static __always_inline unsigned int imv_read_256(void)
{
	return imv_read_64() + imv_read_64() + imv_read_64() + imv_read_64();
}

static noinline unsigned int imv_read_1024(void)
{
	return imv_read_256() + imv_read_256() + imv_read_256() + imv_read_256();
}

/* One batch of 1024 sites costs three rounds of core serialization. */
static void imv_batch_1024_sites(struct kunit *test)
{
	struct kunit_poke_counts before, after;

	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_batch__imv, NULL, 0), 1024);
	KUNIT_ASSERT_EQ(test, imv_read_1024(), 0);
	kunit_watch_pokes(test);
	before = kunit_poke_counts();
	KUNIT_ASSERT_EQ(test, imv_set(imv_test_batch, 3), 0);
	after = kunit_poke_counts();
	KUNIT_EXPECT_EQ(test, imv_read_1024(), 3 * 1024);
	KUNIT_EXPECT_EQ(test, after.batches - before.batches, 1);
	KUNIT_EXPECT_EQ(test, after.sites - before.sites, 1024);
	KUNIT_EXPECT_EQ(test, after.sync_rounds - before.sync_rounds, 3);
	kunit_info(test, "1024 sites: %lu batch, %lu sync rounds\n",
		   after.batches - before.batches, after.sync_rounds - before.sync_rounds);
	KUNIT_ASSERT_EQ(test, imv_set(imv_test_batch, 0), 0);
	KUNIT_EXPECT_EQ(test, imv_read_1024(), 0);
}

/*
 * The int3 protocol, as every CPU sees it: at the first round of the batch
 * the site holds the int3 and the old immediate, at the second the int3
 * and the new one, at the third the first byte is back. A CPU that had not
 * serialized with the int3 in place could run the old first byte with the
 * new immediate; one that had not serialized at the end could still run
 * the int3.
 */
static void imv_patcher_cpus_see_every_step(struct kunit *test)
{
	const u32 new_value = 0xa1b2c3d4, old_value = 0x11223344;
	u8 expected[3][KUNIT_OBSERVED_BYTES];
	struct kunit_text_observer *o;
	struct imv_site site;

	KUNIT_ASSERT_GE(test, imv_get_sites(&imv_test_u32__imv, &site, 1), 1);
	KUNIT_ASSERT_EQ(test, imv_test_read_u32(), old_value);
	memcpy(expected[0], site.insn, site.len);
	expected[0][0] = INT3_INSN_OPCODE;
	memcpy(expected[1], expected[0], site.len);
	memcpy(expected[1] + site.len - sizeof(new_value), &new_value, sizeof(new_value));
	memcpy(expected[2], expected[1], site.len);
	expected[2][0] = ((const u8 *)site.insn)[0];

	o = kunit_observe_text(test, site.insn, site.len);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u32, new_value), 0);
	kunit_observe_stop(NULL);
	KUNIT_EXPECT_EQ(test, imv_test_read_u32(), new_value);
	kunit_expect_rounds_seen(test, o, expected, ARRAY_SIZE(expected));
	kunit_info(test, "%u CPUs watched %pS, now %*ph\n", num_online_cpus(), site.insn,
		   site.len, site.insn);
}

/* Readers of the concurrency test, one kthread per CPU. */
struct imv_reader {
	u64 (*read)(void);
	u64 a, b;
	unsigned long reads;
	unsigned long torn;
	u64 torn_value;
};

static int imv_reader_fn(void *data)
{
	struct imv_reader *r = data;

	while (!kthread_should_stop()) {
		u64 v = r->read();

		if (v != r->a && v != r->b) {
			r->torn++;
			r->torn_value = v;
		}
		WRITE_ONCE(r->reads, r->reads + 1);
		/* Lets a single-threaded emulator switch to the other vCPUs. */
		cpu_relax();
		if (!(r->reads % 4096))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

#define IMV_READERS	3
#define IMV_FLIPS	10000

/* The reads that reader @i of @data has made so far. */
static unsigned long imv_reads_done(void *data, unsigned int i)
{
	const struct imv_reader *readers = data;

	return READ_ONCE(readers[i].reads);
}

/*
 * Three CPUs read a site in a loop while this one flips its value 10^4 times
 * (a fifth of that at boot): every read must be the old or the new value,
 * and some must have run while the INT3s were in, through the int3
 * handler (x86-64).
 */
static void imv_concurrent_flips(struct kunit *test)
{
	const struct imv_test_var *v = imv_param(test);
	unsigned int flips = kunit_stress_volume(IMV_FLIPS);
	struct task_struct *tasks[IMV_READERS] = {};
	struct imv_reader readers[IMV_READERS] = {};
	struct kunit_poke_counts before, after;
	struct kunit_runs runs;
	unsigned int cpu, n = 0, i;
	unsigned long reads = 0;
	int ret = 0;

	if (num_online_cpus() < IMV_READERS + 1)
		kunit_skip(test, "needs %d online CPUs", IMV_READERS + 1);

	kunit_watch_pokes(test);
	kunit_watch_runs(test, &runs, imv_reads_done, readers, IMV_READERS, 1);
	before = kunit_poke_counts();
	for_each_online_cpu(cpu) {
		if (n == IMV_READERS)
			break;
		readers[n] = (struct imv_reader){ .read = v->read, .a = v->initial,
						  .b = v->other };
		tasks[n] = kthread_create_on_cpu(imv_reader_fn, &readers[n], cpu,
						 "imv_reader/%u");
		if (IS_ERR(tasks[n])) {
			ret = PTR_ERR(tasks[n]);
			break;
		}
		wake_up_process(tasks[n++]);
	}
	/* The readers use this stack frame: no assertion until they stop. */
	for (i = 0; i < flips && !ret; i++)
		ret = v->set(i % 2 ? v->initial : v->other);
	for (i = 0; i < n; i++) {
		kthread_stop(tasks[i]);
		reads += readers[i].reads;
		KUNIT_EXPECT_EQ_MSG(test, readers[i].torn, 0,
				    "reader %u saw %llx, neither %llx nor %llx", i,
				    readers[i].torn_value, v->initial, v->other);
	}
	kunit_watch_runs_stop();
	after = kunit_poke_counts();

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_GT(test, reads, 0);
	if (IS_ENABLED(CONFIG_IMMEDIATE))
		KUNIT_EXPECT_GT_MSG(test, runs.in_int3, 0,
				    "no reader ran the site while its INT3 was in");
	kunit_info(test, "%u flips, %lu reads, %lu through the int3 handler, %lu sync rounds\n",
		   flips, reads, runs.in_int3, after.sync_rounds - before.sync_rounds);
}

/*
 * A 1-byte site written by hand, whose register keeps bits of its own above
 * the byte, as a compiler may arrange: the bypass must write the low byte
 * only, as "movb" does. (imv_read() sites own their whole register.)
 */
static DEFINE_IMV(u8, imv_test_merge) = 0x5a;

#define IMV_TEST_MERGE_HIGH	0x11223300

static noinline u64 imv_test_read_merged(void)
{
	u32 v;

	asm volatile("movl $" __stringify(IMV_TEST_MERGE_HIGH) ", %k0\n\t"
		     ANNOTATE_NOENDBR "\n\t"
		     "1:	movb $0, %b0\n\t"
		     "2:\n\t"
		     IMV_SITE_ENTRY("1b", "%c1", "2b - 1b", "1")
		     : "=q" (v) : "i" (&imv_test_merge__imv));
	return v;
}

static u64 imv_test_plain_merged(void)
{
	return IMV_TEST_MERGE_HIGH | _imv_read(imv_test_merge);
}

static int imv_test_set_merged(u64 v)
{
	return imv_set(imv_test_merge, (u8)v);
}

/* The same with a 2-byte site, "movw": the bypass keeps bits 16 and up. */
static DEFINE_IMV(u16, imv_test_merge16) = 0x5aa5;

#define IMV_TEST_MERGE16_HIGH	0x11220000

static noinline u64 imv_test_read_merged16(void)
{
	u32 v;

	asm volatile("movl $" __stringify(IMV_TEST_MERGE16_HIGH) ", %k0\n\t"
		     ANNOTATE_NOENDBR "\n\t"
		     "1:	movw $0, %w0\n\t"
		     "2:\n\t"
		     IMV_SITE_ENTRY("1b", "%c1", "2b - 1b", "2")
		     : "=r" (v) : "i" (&imv_test_merge16__imv));
	return v;
}

static u64 imv_test_plain_merged16(void)
{
	return IMV_TEST_MERGE16_HIGH | _imv_read(imv_test_merge16);
}

static int imv_test_set_merged16(u64 v)
{
	return imv_set(imv_test_merge16, (u16)v);
}

#ifdef CONFIG_X86_64
/*
 * A 4-byte site in each register an asm output can get (all but %rsp and
 * %rbp), written by hand: each lane's register holds all ones, then its
 * "movl" loads the value, which clears bits 32 and up. The bypass must do
 * the same, to the register the instruction names (REX.B included).
 */
static DEFINE_IMV(u32, imv_test_lanes) = 0x11223344;

#define IMV_TEST_LANES_A	0x11223344
#define IMV_TEST_LANES_B	0xeeddccbb

/* Into @dst, a site whose register is @reg, all ones before the site runs. */
#define IMV_TEST_LANE(dst, reg)						\
do {									\
	register u64 lane asm(reg) = -1;				\
									\
	asm volatile(ANNOTATE_NOENDBR "\n\t"				\
		     "1:	movl $0, %k0\n\t"				\
		     "2:\n\t"						\
		     IMV_SITE_ENTRY("1b", "%c1", "2b - 1b", "4")		\
		     : "+r" (lane) : "i" (&imv_test_lanes__imv));		\
	(dst) = lane;							\
} while (0)

/* The first lane that read neither value, or the first lane. */
static noinline u64 imv_test_read_lanes(void)
{
	u64 lanes[14];
	unsigned int i;

	IMV_TEST_LANE(lanes[0], "rax");
	IMV_TEST_LANE(lanes[1], "rbx");
	IMV_TEST_LANE(lanes[2], "rcx");
	IMV_TEST_LANE(lanes[3], "rdx");
	IMV_TEST_LANE(lanes[4], "rsi");
	IMV_TEST_LANE(lanes[5], "rdi");
	IMV_TEST_LANE(lanes[6], "r8");
	IMV_TEST_LANE(lanes[7], "r9");
	IMV_TEST_LANE(lanes[8], "r10");
	IMV_TEST_LANE(lanes[9], "r11");
	IMV_TEST_LANE(lanes[10], "r12");
	IMV_TEST_LANE(lanes[11], "r13");
	IMV_TEST_LANE(lanes[12], "r14");
	IMV_TEST_LANE(lanes[13], "r15");
	for (i = 0; i < ARRAY_SIZE(lanes); i++)
		if (lanes[i] != IMV_TEST_LANES_A && lanes[i] != IMV_TEST_LANES_B)
			return lanes[i];
	return lanes[0];
}

static u64 imv_test_plain_lanes(void)
{
	return _imv_read(imv_test_lanes);
}

static int imv_test_set_lanes(u64 v)
{
	return imv_set(imv_test_lanes, (u32)v);
}

#endif /* CONFIG_X86_64 */

static const struct imv_test_var imv_concurrent_vars[] = {
	{ "u8_upper_bits_live", &imv_test_merge__imv, 1,
	  IMV_TEST_MERGE_HIGH | 0x5a, IMV_TEST_MERGE_HIGH | 0xa5,
	  imv_test_read_merged, imv_test_plain_merged, imv_test_set_merged },
	{ "u16_upper_bits_live", &imv_test_merge16__imv, 2,
	  IMV_TEST_MERGE16_HIGH | 0x5aa5, IMV_TEST_MERGE16_HIGH | 0xa55a,
	  imv_test_read_merged16, imv_test_plain_merged16, imv_test_set_merged16 },
	{ "u32", &imv_test_u32__imv, 4, 0x11223344, 0xeeddccbb,
	  imv_test_read_u32, imv_test_plain_u32, imv_test_set_u32 },
	{ "u64", &imv_test_u64__imv, 8, 0x0102030405060708ULL, 0xfefdfcfbfaf9f8f7ULL,
	  imv_test_read_u64, imv_test_plain_u64, imv_test_set_u64 },
#ifdef CONFIG_X86_64
	{ "u32_every_register_upper_bits_set", &imv_test_lanes__imv, 4,
	  IMV_TEST_LANES_A, IMV_TEST_LANES_B,
	  imv_test_read_lanes, imv_test_plain_lanes, imv_test_set_lanes },
#endif
};

KUNIT_ARRAY_PARAM(imv_concurrent_var, imv_concurrent_vars, imv_test_var_desc);

static int imv_test_kprobe_handler(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/* kprobes must refuse to plant a breakpoint inside a site. */
static void imv_kprobe_refused(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = imv_test_kprobe_handler };
	struct imv_site site;
	int ret;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES");
	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_u32__imv, &site, 1), 1);
	kp.addr = (kprobe_opcode_t *)site.insn;
	ret = register_kprobe(&kp);
	if (!ret)
		unregister_kprobe(&kp);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, imv_test_read_u32(), 0x11223344);
}

/*
 * A site whose first byte is somebody else's breakpoint (what a kprobe
 * writes) is not ours to rewrite: -EBUSY, and nothing changes. Nothing runs
 * the site while the breakpoint is there.
 */
static void imv_breakpoint_busy(struct kunit *test)
{
	u8 before[POKE_SITE_MAX_LEN];
	struct imv_site site;

	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_u16__imv, &site, 1), 1);
	memcpy(before, site.insn, site.len);
	kunit_poke_text_byte(site.insn, INT3_INSN_OPCODE);

	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u16, 0x4321), -EBUSY);
	KUNIT_EXPECT_EQ(test, _imv_read(imv_test_u16), 0x1234);
	KUNIT_EXPECT_EQ(test, memcmp(site.insn + 1, before + 1, site.len - 1), 0);

	kunit_poke_text_byte(site.insn, before[0]);
	KUNIT_EXPECT_EQ(test, memcmp(site.insn, before, site.len), 0);
	KUNIT_EXPECT_EQ(test, imv_test_read_u16(), 0x1234);
	KUNIT_EXPECT_EQ(test, imv_set(imv_test_u16, 0x4321), 0);
	KUNIT_EXPECT_EQ(test, imv_test_read_u16(), 0x4321);
}

/* The patcher refuses what it cannot do, before writing anything. */
/*
 * A site that starts in the last byte of another and runs one byte past
 * its end. With 0xb1 as the top byte of imv_test_u64, the last byte of
 * its 64-bit "mov $imm" (REX.W b8+r imm64) is the opcode of "mov $imm8,
 * %cl" (b1 ib), whose immediate is the byte after the site. Neither poke
 * changes a byte, and the first alone is a batch the patcher takes, so
 * that only the overlap is wrong, and a patcher that misses it writes
 * nothing that matters.
 */
static void imv_patcher_overlap_one_byte(struct kunit *test)
{
	const u64 was = imv_test_plain_u64();
	struct poke_site pokes[2] = {};
	struct imv_site site;
	int alone, both;

	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_u64__imv, &site, 1), 1);
	KUNIT_ASSERT_EQ(test, imv_test_set_u64((was & GENMASK_ULL(55, 0)) | 0xb1ULL << 56), 0);
	KUNIT_ASSERT_EQ(test, ((u8 *)site.insn)[site.len - 1], 0xb1);
	pokes[0] = (struct poke_site){ .addr = site.insn, .len = site.len };
	memcpy(pokes[0].old, site.insn, site.len);
	memcpy(pokes[0].new, site.insn, site.len);
	pokes[1] = (struct poke_site){ .addr = site.insn + site.len - 1, .len = 2 };
	memcpy(pokes[1].old, pokes[1].addr, 2);
	memcpy(pokes[1].new, pokes[1].addr, 2);

	cpus_read_lock();
	alone = poke_sites_apply(pokes, 1);
	both = poke_sites_apply(pokes, 2);
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, alone, 0);
	KUNIT_EXPECT_EQ_MSG(test, both, -EINVAL,
			    "a site at the last byte of another, %*ph, then %*ph",
			    site.len, site.insn, 2, pokes[1].addr);
	KUNIT_EXPECT_EQ(test, imv_test_set_u64(was), 0);
}

/*
 * Offers poke_sites_apply() the 2 bytes from the last byte of
 * imv_test_u64's 64-bit "mov $imm" (@site), its top byte set to @opcode,
 * unchanged, so that nothing would be written; @poke keeps what was offered.
 */
static int imv_test_offer_top_byte(struct kunit *test, const struct imv_site *site,
				   u64 was, u8 opcode, struct poke_site *poke)
{
	int ret;

	KUNIT_ASSERT_EQ(test, imv_test_set_u64((was & GENMASK_ULL(55, 0)) | (u64)opcode << 56), 0);
	*poke = (struct poke_site){ .addr = site->insn + site->len - 1, .len = 2 };
	memcpy(poke->old, poke->addr, 2);
	memcpy(poke->new, poke->addr, 2);
	cpus_read_lock();
	ret = poke_sites_apply(poke, 1);
	cpus_read_unlock();
	return ret;
}

/*
 * "mov $imm8, %ah" (b4 ib), which no compiler writes, is refused before
 * anything is looked at, where "mov $imm8, %al" (b0 ib) is taken: the
 * int3 patcher emulates no high-byte register.
 */
static void imv_patcher_refuses_high_byte(struct kunit *test)
{
	const u64 was = imv_test_plain_u64();
	struct poke_site al_poke, ah_poke;
	struct imv_site site;
	int al, ah;

	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_u64__imv, &site, 1), 1);
	al = imv_test_offer_top_byte(test, &site, was, 0xb0, &al_poke);
	ah = imv_test_offer_top_byte(test, &site, was, 0xb4, &ah_poke);

	KUNIT_EXPECT_EQ(test, imv_test_set_u64(was), 0);
	KUNIT_EXPECT_EQ_MSG(test, al, 0, "mov $imm8, %%al: %*ph", 2, al_poke.old);
	KUNIT_EXPECT_EQ_MSG(test, ah, -EINVAL, "mov $imm8, %%ah: %*ph", 2, ah_poke.old);
}

static void imv_patcher_bad_sites(struct kunit *test)
{
	static const u8 mov_al_1[] = { 0xb0, 0x01 }, mov_al_2[] = { 0xb0, 0x02 };
	static const u8 mov_cl_2[] = { 0xb1, 0x02 }, nops[] = { 0x90, 0x90 };
	static u8 not_text[2] = { 0xb0, 0x01 };
	struct poke_sites_stats before, after;
	struct poke_site pokes[2] = {};
	struct imv_site site, site64;

	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_u8__imv, &site, 1), 1);
	poke_sites_get_stats(&before);
	cpus_read_lock();

	/* An unknown site: not kernel text. */
	pokes[0] = (struct poke_site){ .addr = not_text, .len = 2 };
	memcpy(pokes[0].old, mov_al_1, 2);
	memcpy(pokes[0].new, mov_al_2, 2);
	KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 1), -EINVAL);
	/* A shape the int3 handler cannot emulate, a change of register. */
	pokes[0].addr = site.insn;
	memcpy(pokes[0].old, nops, 2);
	KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 1), -EINVAL);
	memcpy(pokes[0].old, mov_al_1, 2);
	memcpy(pokes[0].new, mov_cl_2, 2);
	KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 1), -EINVAL);
	/* Text that does not hold what the caller believes. */
	pokes[0].len = site.len;
	memcpy(pokes[0].old, site.insn, site.len);
	memcpy(pokes[0].new, site.insn, site.len);
	pokes[0].old[site.len - 1] ^= 0xff;
	KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 1), -EINVAL);
	/* Overlapping sites: the same one twice. */
	pokes[0].old[site.len - 1] ^= 0xff;
	pokes[1] = pokes[0];
	KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 2), -EINVAL);
	/*
	 * And a site inside another: the bytes of a 64-bit "mov $imm"
	 * (REX.W b8+r imm64) from its second on are a 32-bit one (b8+r
	 * imm32), which the text holds, so that only the overlap is wrong.
	 */
	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_u64__imv, &site64, 1), 1);
	KUNIT_ASSERT_EQ(test, site64.len, 10);
	pokes[0] = (struct poke_site){ .addr = site64.insn, .len = site64.len };
	memcpy(pokes[0].old, site64.insn, site64.len);
	memcpy(pokes[0].new, site64.insn, site64.len);
	pokes[0].new[site64.len - 1] ^= 0xff;
	pokes[1] = (struct poke_site){ .addr = site64.insn + 1, .len = 5 };
	memcpy(pokes[1].old, site64.insn + 1, 5);
	memcpy(pokes[1].new, site64.insn + 1, 5);
	pokes[1].new[4] ^= 0xff;
	KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(site64.insn, pokes[0].old, site64.len), 0);

	cpus_read_unlock();
	poke_sites_get_stats(&after);
	KUNIT_EXPECT_EQ(test, after.batches, before.batches);
	imv_patcher_overlap_one_byte(test);
	imv_patcher_refuses_high_byte(test);
	KUNIT_EXPECT_EQ(test, not_text[1], 0x01);
	imv_expect_site(test, &site, 1, 0x5a);
}

/* The poke that changes the immediate of @site from @from to @to. */
static void imv_test_poke(struct poke_site *poke, const struct imv_site *site, u8 from, u8 to)
{
	*poke = (struct poke_site){ .addr = site->insn, .len = site->len };
	memcpy(poke->old, site->insn, site->len);
	memcpy(poke->new, site->insn, site->len);
	poke->old[site->len - 1] = from;
	poke->new[site->len - 1] = to;
}

/*
 * Pokes of the 1024 sites of imv_test_batch from @from to @to, @reversed
 * (1024 runs of one site) or in three interleaved ascending runs, as the
 * batches of markers come.
 */
static void imv_test_batch_pokes(const struct imv_site *sites, struct poke_site *pokes,
				 bool reversed, u8 from, u8 to)
{
	unsigned int run, i, n = 0;

	for (run = 0; run < (reversed ? 1 : 3); run++)
		for (i = run; i < 1024; i += reversed ? 1 : 3)
			imv_test_poke(&pokes[n++], &sites[reversed ? 1023 - i : i], from, to);
}

/*
 * The patcher takes a batch in any order: it writes every site and returns
 * the batch sorted by address, whether it came reversed or in runs.
 */
static void imv_patcher_sorts_batch(struct kunit *test)
{
	struct imv_site *sites = kunit_kcalloc(test, 1024, sizeof(*sites), GFP_KERNEL);
	struct poke_site *pokes = kunit_kcalloc(test, 1024, sizeof(*pokes), GFP_KERNEL);
	unsigned int i, order;

	KUNIT_ASSERT_NOT_NULL(test, sites);
	KUNIT_ASSERT_NOT_NULL(test, pokes);
	KUNIT_ASSERT_EQ(test, imv_get_sites(&imv_test_batch__imv, sites, 1024), 1024);
	KUNIT_ASSERT_EQ(test, imv_read_1024(), 0);
	for (order = 0; order < 2; order++) {
		imv_test_batch_pokes(sites, pokes, !order, 0, 7);
		cpus_read_lock();
		KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 1024), 0);
		cpus_read_unlock();
		KUNIT_EXPECT_EQ_MSG(test, imv_read_1024(), 7 * 1024, "%s",
				    order ? "in runs" : "reversed");
		for (i = 1; i < 1024; i++)
			if (pokes[i - 1].addr >= pokes[i].addr)
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, 1024, "%s: not sorted at %u",
				    order ? "in runs" : "reversed", i);

		imv_test_batch_pokes(sites, pokes, !order, 7, 0);
		cpus_read_lock();
		KUNIT_EXPECT_EQ(test, poke_sites_apply(pokes, 1024), 0);
		cpus_read_unlock();
		KUNIT_EXPECT_EQ(test, imv_read_1024(), 0);
	}
}

#endif /* CONFIG_IMMEDIATE */

static struct kunit_case imv_test_cases[] = {
	KUNIT_CASE_PARAM(imv_read_initial_value, imv_test_var_gen_params),
	KUNIT_CASE_PARAM(imv_set_reads_back, imv_test_var_gen_params),
	KUNIT_CASE(imv_set_too_wide),
	KUNIT_CASE(imv_batch_bad_input),
	KUNIT_CASE(imv_batch_several_values),
	KUNIT_CASE(imv_module_immediates),
	KUNIT_CASE(imv_init_text_sites),
	KUNIT_CASE(imv_module_init_text),
#ifdef CONFIG_IMMEDIATE
	KUNIT_CASE_PARAM(imv_site_encoding, imv_test_var_gen_params),
	KUNIT_CASE(imv_refused_leaves_sites),
	KUNIT_CASE(imv_set_nomem),
	KUNIT_CASE(imv_batch_1024_sites),
	KUNIT_CASE(imv_patcher_cpus_see_every_step),
	KUNIT_CASE_PARAM_ATTR(imv_concurrent_flips, imv_concurrent_var_gen_params,
			      { .speed = KUNIT_SPEED_SLOW }),
	KUNIT_CASE(imv_kprobe_refused),
	KUNIT_CASE(imv_breakpoint_busy),
	KUNIT_CASE(imv_patcher_bad_sites),
	KUNIT_CASE(imv_patcher_sorts_batch),
#endif
	{}
};

static struct kunit_suite imv_test_suite = {
	.name = "immediate",
	.init = imv_test_init,
	.test_cases = imv_test_cases,
};

kunit_test_suite(imv_test_suite);

MODULE_DESCRIPTION("KUnit tests for immediate values");
MODULE_LICENSE("GPL");
