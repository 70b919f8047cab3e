// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for kernel markers.
 *
 * The suite is built in: it runs at boot, while kernel text is still
 * writable, and again after boot through /sys/kernel/debug/kunit, once text
 * is read-only. The sites are in noinline functions. Without
 * CONFIG_MARKER_SITES every site tests a plain variable, and the cases
 * about patched sites are left out. The cases about the bytes of a site
 * decode them for x86-64 (CONFIG_X86_POKE_SITES) or arm64.
 *
 * The module case loads marker_kunit_mod with request_module() and unloads
 * it with rmmod; without userspace it skips.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kmsg_dump.h>
#include <linux/kthread.h>
#include <linux/marker.h>
#include <linux/memory.h>
#include <linux/sched/clock.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "../marker_internal.h"
#include "kunit_helpers.h"
#include "marker_kunit.h"

#ifdef CONFIG_MARKER_SITES
#include <linux/ftrace.h>
#include <linux/unaligned.h>
#include <asm/insn.h>
#endif
#ifdef CONFIG_X86_POKE_SITES
#include <linux/text-patching.h>
#include <asm/alternative.h>
#include <asm/text_poke_bp.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/debug-monitors.h>
#endif
#ifdef CONFIG_MARKER_EVENTS
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/unaligned.h>
#include "../trace/trace.h"
#endif

static int marker_test_cookie;

/* Read by the firing kthreads of marker_kunit_mod. */
DEFINE_IMV(int, marker_kunit_imv) = 1;
EXPORT_IMV_SYMBOL_GPL(marker_kunit_imv);

static noinline void marker_test_fire_basic(int value)
{
	MARK(marker_test_basic, "%d", value);
}

static noinline void marker_test_fire_args(int i, long l, u64 u, const char *s,
					   void *p, char c)
{
	MARK_PRIVATE(marker_test_args, &marker_test_cookie,
		     "i %d l %ld u %llu s %s p %p c %c", i, l, u, s, p, c);
}

static noinline void marker_test_fire_noargs(void)
{
	MARK(marker_test_noargs, MARK_NOARGS);
}

/* MARKER_MAX_ARGS arguments of every size a format takes. */
static noinline void marker_test_fire_max(int i, long l, u64 u, const char *s,
					  void *p, char c, unsigned int x, short h)
{
	MARK(marker_test_max, "i %d l %ld u %llu s %s p %p c %c x %x h %hd",
	     i, l, u, s, p, c, x, h);
}

static noinline void marker_test_fire_plain(int value)
{
	_MARK(marker_test_plain, "%d", value);
}

static noinline bool marker_test_guard_on(void)
{
	return marker_enabled(marker_test_guard);
}

/* What a counting probe saw: @marker, the marker a fast one was given. */
struct marker_test_probe {
	atomic_t calls;
	int last;
	void *call_private;
	const char *fmt;
	const struct marker *marker;
};

static struct marker_test_probe marker_test_p1, marker_test_p2, marker_test_p3, marker_test_p4;

/*
 * What a decoding probe read: the arguments of marker_test_args (the first
 * six) or of marker_test_max (all eight), and in which order it ran.
 */
struct marker_test_decoded {
	int i;
	long l;
	u64 u;
	char s[16];
	void *p;
	char c;
	unsigned int x;
	short h;
	void *call_private;
	const char *fmt;
	int calls;
	int order;
};

static struct marker_test_decoded marker_test_decoded, marker_test_fast_decoded;
static atomic_t marker_test_order;

/* For markers whose format is "%d" or "value %d". */
static void marker_test_count(void *probe_private, void *call_private,
			      const char *fmt, va_list *args)
{
	struct marker_test_probe *p = probe_private;

	p->call_private = call_private;
	p->fmt = fmt;
	if (strcmp(fmt, MARK_NOARGS))
		p->last = va_arg(*args, int);
	atomic_inc(&p->calls);
}

static void marker_test_other(void *probe_private, void *call_private,
			      const char *fmt, va_list *args)
{
	marker_test_count(probe_private, call_private, fmt, args);
}

static void marker_test_fast_count(void *probe_private, void *call_private,
				   const struct marker *marker, ...);
static void marker_test_decode(void *probe_private, void *call_private,
			       const char *fmt, va_list *args);
static void marker_test_fast_decode(void *probe_private, void *call_private,
				    const struct marker *marker, ...);
#ifdef CONFIG_MARKER_SITES
static void marker_test_holder_probe(void *probe_private, void *call_private,
				     const struct marker *marker, ...);
static void marker_test_fast_where(void *probe_private, void *call_private,
				   const struct marker *marker, ...);

/*
 * A probe that holds its marker's probe array while another CPU replaces
 * it: what it reads of the array after the replacement. The array is that
 * of two probes, the holder last, so that the iterator reads nothing of
 * it but its @nr once the holder returns.
 */
struct marker_test_holder {
	const struct marker_probes *old;
	atomic_t inside;		/* it holds @old */
	atomic_t replaced;		/* the array was replaced meanwhile */
	bool swapped;			/* marker->probes was another array then */
	unsigned int nr_after;		/* @old->nr, read after the replacement */
	void *private_after;		/* @old->probe[0].probe_private, likewise */
	/*
	 * Whether every byte of @old past its rcu_head, which kfree_rcu()
	 * may use at once, was after the replacement what it was before:
	 * an array freed at once has the allocator's free pointer in the
	 * middle (SLUB), whatever the config.
	 */
	bool intact;
	u8 copy[sizeof(struct marker_probes) + 2 * sizeof(struct marker_probe)];
	unsigned int calls;
	struct completion fired;
};

static struct marker_test_holder marker_test_holder;
#endif

static int marker_test_init(struct kunit *test)
{
	memset(&marker_test_p1, 0, sizeof(marker_test_p1));
	memset(&marker_test_p2, 0, sizeof(marker_test_p2));
	memset(&marker_test_p3, 0, sizeof(marker_test_p3));
	memset(&marker_test_p4, 0, sizeof(marker_test_p4));
	return 0;
}

/* Disconnects what a failed or skipped case left connected. */
static void marker_test_exit(struct kunit *test)
{
	static const char * const decoded[] = { "marker_test_args", "marker_test_max" };
	void *data[] = {
		&marker_test_p1, &marker_test_p2, &marker_test_p3, &marker_test_p4, NULL
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(data); i++) {
		while (!marker_probe_unregister_private_data(marker_test_count, data[i]))
			;
		while (!marker_probe_unregister_private_data(marker_test_other, data[i]))
			;
		marker_probe_unregister_fast("marker_test_basic", marker_test_fast_count,
					     data[i]);
#ifdef CONFIG_MARKER_SITES
		marker_probe_unregister_fast("marker_test_module", marker_test_fast_where,
					     data[i]);
#endif
	}
#ifdef CONFIG_MARKER_SITES
	marker_probe_unregister_fast("marker_test_basic", marker_test_holder_probe,
				     &marker_test_holder);
#endif
	marker_probe_unregister_private_data(marker_test_decode, &marker_test_decoded);
	for (i = 0; i < ARRAY_SIZE(decoded); i++)
		marker_probe_unregister_fast(decoded[i], marker_test_fast_decode,
					     &marker_test_fast_decoded);
	marker_synchronize_unregister();
}

/* The number of probes of @name, as marker_walk() reports it. */
struct marker_test_find {
	const char *name;
	struct marker_info info;
	unsigned int rows;
	unsigned int sites;
};

static int marker_test_find_fn(const struct marker_info *info, void *data)
{
	struct marker_test_find *f = data;

	if (strcmp(info->name, f->name))
		return 0;
	f->info = *info;
	f->rows++;
	f->sites += info->nr_sites;
	return 0;
}

static struct marker_test_find marker_test_find(struct kunit *test, const char *name)
{
	struct marker_test_find f = { .name = name };

	KUNIT_EXPECT_EQ(test, marker_walk(marker_test_find_fn, &f), 0);
	return f;
}

static unsigned int marker_test_nr_probes(struct kunit *test, const char *name)
{
	return marker_test_find(test, name).info.nr_probes;
}

static void marker_disabled_calls_nothing(struct kunit *test)
{
	int i;

	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_noargs", NULL,
						    marker_test_count, &marker_test_p2), 0);
	for (i = 0; i < 10; i++)
		marker_test_fire_basic(i);
	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_basic", "%d",
						    marker_test_count, &marker_test_p1), 0);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister("marker_test_basic",
						      marker_test_count, &marker_test_p1), 0);
	marker_synchronize_unregister();
	for (i = 0; i < 10; i++)
		marker_test_fire_basic(i);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p2.calls), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister("marker_test_noargs",
						      marker_test_count, &marker_test_p2), 0);
}

#ifdef CONFIG_MARKER_SITES
/*
 * Whether every site of @name (NULL: of every marker) passes its entry's
 * data, which the probe its calls may go straight to takes as its own; a
 * site with other data would hand that to marker_probe_va_one() or a fast
 * probe. Read from the registry, so that a case fails before it fires a
 * site. Returns how many sites it checked.
 */
static unsigned int marker_test_expect_site_data(struct kunit *test, const char *name)
{
	unsigned int checked = 0, wrong = 0;
	struct site_entry *site;
	struct site_table *t;

	guard(mutex)(&markers_mutex);
	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t)) {
		for (site = t->start; site < t->stop; site++) {
			const struct marker *m = marker_site_marker(site);

			if (marker_entry_is_call(site) || !m->entry ||
			    (name && strcmp(m->name, name)))
				continue;
			checked++;
			if (m->data != m->entry->data && !wrong++)
				KUNIT_FAIL(test, "%s: site %pS passes %p, its entry %p",
					   m->name, site_entry_code(site), m->data,
					   m->entry->data);
		}
	}
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0, "sites of %s with other data than their entry's",
			    name ?: "every marker");
	return checked;
}

/*
 * Every site passes its entry's data: the kernel's, attached at boot before
 * any probe, and those of one marker with a va_list probe, with a fast one,
 * and after both. Before any case fires a site with a probe, which would
 * oops on wrong data.
 */
static void marker_sites_pass_entry_data(struct kunit *test)
{
	const char *name = "marker_test_args";

	KUNIT_EXPECT_GT(test, marker_test_expect_site_data(test, NULL), 0);

	KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_count,
						    &marker_test_p1), 0);
	KUNIT_EXPECT_GT(test, marker_test_expect_site_data(test, name), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);

	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, marker_test_fast_count,
							 &marker_test_p1), 0);
	KUNIT_EXPECT_GT(test, marker_test_expect_site_data(test, name), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, marker_test_fast_count,
							   &marker_test_p1), 0);
	marker_synchronize_unregister();
	KUNIT_EXPECT_GT(test, marker_test_expect_site_data(test, NULL), 0);
}
#endif

/*
 * The format of the marker a fast probe was handed, read as a tracer reads
 * it, without faulting: a wrong @marker gives NULL, which fails the case's
 * check of the format rather than oopsing the guest.
 */
static const char *marker_test_read_format(const struct marker *marker)
{
	const char *fmt;

	if (get_kernel_nofault(fmt, &marker->format))
		return NULL;
	return fmt;
}

/*
 * @probe_private: the struct marker_test_decoded to fill. The string is
 * read as a tracer reads one, without faulting: a probe handed a wrong
 * argument fails the case's expectations rather than oopsing the guest.
 */
static void marker_test_decode_va(void *probe_private, const char *fmt, va_list args)
{
	struct marker_test_decoded *d = probe_private;

	d->i = va_arg(args, int);
	d->l = va_arg(args, long);
	d->u = va_arg(args, u64);
	if (strncpy_from_kernel_nofault(d->s, va_arg(args, const char *), sizeof(d->s)) < 0)
		d->s[0] = '\0';
	d->p = va_arg(args, void *);
	d->c = va_arg(args, int);
	if (fmt && !strcmp(fmt, "i %d l %ld u %llu s %s p %p c %c x %x h %hd")) {
		d->x = va_arg(args, unsigned int);
		d->h = va_arg(args, int);
	}
	d->fmt = fmt;
	d->calls++;
	d->order = atomic_inc_return(&marker_test_order);
}

static void marker_test_decode(void *probe_private, void *call_private,
			       const char *fmt, va_list *args)
{
	((struct marker_test_decoded *)probe_private)->call_private = call_private;
	marker_test_decode_va(probe_private, fmt, *args);
}

static void marker_test_fast_decode(void *probe_private, void *call_private,
				    const struct marker *marker, ...)
{
	va_list args;

	((struct marker_test_decoded *)probe_private)->call_private = call_private;
	va_start(args, marker);
	marker_test_decode_va(probe_private, marker_test_read_format(marker),
			      args);
	va_end(args);
}

/*
 * Fires marker_test_max, or marker_test_args (its first six arguments),
 * with @p as the pointer; marker_test_expect_decoded() checks them.
 */
static void marker_test_fire_decoded(bool max, void *p)
{
	atomic_set(&marker_test_order, 0);
	if (max)
		marker_test_fire_max(-42, LONG_MIN, 0xfedcba9876543210ULL, "hello", p, 'z',
				     0x89abcdefU, -12345);
	else
		marker_test_fire_args(-42, LONG_MIN, 0xfedcba9876543210ULL, "hello", p, 'z');
}

/* @d saw what the site passed, with @p as its pointer argument. */
static void marker_test_expect_decoded(struct kunit *test, const struct marker_test_decoded *d,
				       const void *p, bool max)
{
	KUNIT_EXPECT_EQ(test, d->i, -42);
	KUNIT_EXPECT_EQ(test, d->l, LONG_MIN);
	KUNIT_EXPECT_EQ(test, d->u, 0xfedcba9876543210ULL);
	KUNIT_EXPECT_STREQ(test, d->s, "hello");
	KUNIT_EXPECT_PTR_EQ(test, d->p, p);
	KUNIT_EXPECT_EQ(test, d->c, 'z');
	if (max) {
		KUNIT_EXPECT_EQ(test, d->x, 0x89abcdefU);
		KUNIT_EXPECT_EQ(test, d->h, -12345);
	}
}

/*
 * A va_list probe alone gets the exact arguments of a marker of six and of
 * MARKER_MAX_ARGS, most of them on the stack.
 */
static void marker_probe_gets_arguments(struct kunit *test)
{
	struct marker_test_decoded *d = &marker_test_decoded;
	unsigned int max;

	for (max = 0; max < 2; max++) {
		const char *name = max ? "marker_test_max" : "marker_test_args";

		memset(d, 0, sizeof(*d));
		KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_decode, d), 0);
		marker_test_fire_decoded(max, d);
		KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_decode, d), 0);

		KUNIT_EXPECT_EQ_MSG(test, d->calls, 1, "%s", name);
		marker_test_expect_decoded(test, d, d, max);
		KUNIT_EXPECT_PTR_EQ(test, d->call_private,
				    max ? NULL : (void *)&marker_test_cookie);
		KUNIT_EXPECT_STREQ(test, d->fmt,
				   max ? "i %d l %ld u %llu s %s p %p c %c x %x h %hd" :
					 "i %d l %ld u %llu s %s p %p c %c");
	}
}

/*
 * A fast probe alone, then with a va_list probe registered after it, then
 * before it: each gets the exact arguments, in registration order, on a
 * marker of six arguments and on one of MARKER_MAX_ARGS.
 */
static void marker_test_fast_and_va(struct kunit *test, const char *name, bool max)
{
	struct marker_test_decoded *va = &marker_test_decoded;
	struct marker_test_decoded *fast = &marker_test_fast_decoded;
	const char *fmt = max ? "i %d l %ld u %llu s %s p %p c %c x %x h %hd" :
				"i %d l %ld u %llu s %s p %p c %c";
	marker_fast_probe_func *fast_fn = marker_test_fast_decode;
	unsigned int round;

	memset(va, 0, sizeof(*va));
	memset(fast, 0, sizeof(*fast));
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, fast_fn, fast), 0);
	for (round = 0; round < 3; round++) {
		if (round == 1)
			KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_decode,
								    va), 0);
		if (round == 2) {
			/* The fast probe goes last. */
			KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast_fn, fast), 0);
			KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, fast_fn, fast),
					0);
		}
		marker_test_fire_decoded(max, fast);
		KUNIT_EXPECT_EQ_MSG(test, fast->calls, round + 1, "%s round %u", name, round);
		marker_test_expect_decoded(test, fast, fast, max);
		KUNIT_EXPECT_STREQ(test, fast->fmt, fmt);
		KUNIT_EXPECT_PTR_EQ(test, fast->call_private,
				    max ? NULL : (void *)&marker_test_cookie);
		if (!round)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, va->calls, round, "%s round %u", name, round);
		marker_test_expect_decoded(test, va, fast, max);
		KUNIT_EXPECT_STREQ(test, va->fmt, fmt);
		/* Round 1: fast, then va_list; round 2: the other way. */
		KUNIT_EXPECT_EQ(test, fast->order, round == 1 ? 1 : 2);
		KUNIT_EXPECT_EQ(test, va->order, round == 1 ? 2 : 1);
	}
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 2);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_decode, va), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, fast_fn, fast), 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_synchronize_unregister();
	marker_test_fire_decoded(max, fast);
	KUNIT_EXPECT_EQ(test, fast->calls, 3);
	KUNIT_EXPECT_EQ(test, va->calls, 2);
}

static void marker_fast_probe_gets_arguments(struct kunit *test)
{
	marker_test_fast_and_va(test, "marker_test_args", false);
	marker_test_fast_and_va(test, "marker_test_max", true);
}

/* Fires @n times, then checks both probes' counts and what they saw. */
static void marker_test_fire_expect(struct kunit *test, int n, int calls1, int calls2)
{
	int before1 = atomic_read(&marker_test_p1.calls);
	int before2 = atomic_read(&marker_test_p2.calls);
	int i;

	for (i = 0; i < n; i++)
		marker_test_fire_basic(i);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), calls1);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p2.calls), calls2);
	if (calls1 > before1)
		KUNIT_EXPECT_EQ(test, marker_test_p1.last, n - 1);
	if (calls2 > before2)
		KUNIT_EXPECT_EQ(test, marker_test_p2.last, n - 1);
}

/* 0 -> 1 -> 2 -> 1 -> 0 probes, with the exact number of calls each. */
static void marker_probe_transitions(struct kunit *test)
{
	const char *name = "marker_test_basic";

	marker_test_fire_expect(test, 3, 0, 0);
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	marker_test_fire_expect(test, 5, 5, 0);
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_other,
						    &marker_test_p2), 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 2);
	marker_test_fire_expect(test, 7, 12, 7);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	marker_synchronize_unregister();
	marker_test_fire_expect(test, 11, 12, 18);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_other,
						      &marker_test_p2), 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_synchronize_unregister();
	marker_test_fire_expect(test, 13, 12, 18);
	KUNIT_EXPECT_FALSE(test, marker_test_find(test, name).info.enabled);
}

/* A fast probe counts like marker_test_count(), for markers of one int. */
static void marker_test_fast_count(void *probe_private, void *call_private,
				   const struct marker *marker, ...)
{
	struct marker_test_probe *p = probe_private;
	va_list args;

	p->call_private = call_private;
	p->marker = marker;
	p->fmt = marker_test_read_format(marker);
	va_start(args, marker);
	p->last = va_arg(args, int);
	va_end(args);
	atomic_inc(&p->calls);
}

/* Bad input to the fast API: a clear error, and nothing changed. */
static void marker_fast_register_errors(struct kunit *test)
{
	const char *name = "marker_test_basic";

	KUNIT_EXPECT_EQ(test, marker_probe_register_fast(name, NULL, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, marker_probe_register_fast(NULL, NULL, marker_test_fast_count,
							 NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, marker_probe_register_fast("1abc", NULL, marker_test_fast_count,
							 NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, marker_probe_register_fast(name, "%s", marker_test_fast_count,
							 &marker_test_p1), -EPERM);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, marker_test_fast_count,
							   &marker_test_p1), -ENOENT);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_test_fire_expect(test, 2, 0, 0);

	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, "%d", marker_test_fast_count,
							 &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_register_fast(name, "%d", marker_test_fast_count,
							 &marker_test_p1), -EBUSY);
	/* The va_list API does not know fast probes: not connected there. */
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_private_data(marker_test_count,
								   &marker_test_p1), -ENOENT);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	marker_test_fire_expect(test, 3, 3, 0);
	KUNIT_EXPECT_PTR_EQ(test, marker_test_p1.call_private, NULL);
	KUNIT_EXPECT_STREQ(test, marker_test_p1.fmt, "%d");
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, marker_test_fast_count,
							   &marker_test_p1), 0);
	marker_synchronize_unregister();
	marker_test_fire_expect(test, 2, 3, 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
}

static void marker_noargs_format(struct kunit *test)
{
	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_noargs", MARK_NOARGS,
						    marker_test_count, &marker_test_p1), 0);
	marker_test_fire_noargs();
	KUNIT_EXPECT_EQ(test, marker_probe_unregister("marker_test_noargs",
						      marker_test_count, &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);
	KUNIT_EXPECT_STREQ(test, marker_test_p1.fmt, MARK_NOARGS);
	KUNIT_EXPECT_PTR_EQ(test, marker_test_p1.call_private, NULL);
}

/* _MARK() has no patched site, yet calls its probes. */
static void marker_plain_site_calls(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, marker_get_sites("marker_test_plain", NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, marker_test_find(test, "marker_test_plain").sites, 1);
	marker_test_fire_plain(1);
	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_plain", "%d",
						    marker_test_count, &marker_test_p1), 0);
	marker_test_fire_plain(2);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister("marker_test_plain",
						      marker_test_count, &marker_test_p1), 0);
	marker_synchronize_unregister();
	marker_test_fire_plain(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, 2);
}

static void marker_enabled_guard(struct kunit *test)
{
	KUNIT_EXPECT_FALSE(test, marker_test_guard_on());
	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_guard", NULL,
						    marker_test_count, &marker_test_p1), 0);
	KUNIT_EXPECT_TRUE(test, marker_test_guard_on());
	KUNIT_ASSERT_EQ(test, marker_probe_unregister("marker_test_guard",
						      marker_test_count, &marker_test_p1), 0);
	KUNIT_EXPECT_FALSE(test, marker_test_guard_on());
	/* A guard has no format: the marker takes the first one registered. */
	KUNIT_EXPECT_PTR_EQ(test, marker_test_find(test, "marker_test_guard").info.format,
			    NULL);
}

/* Bad input: a clear error, and nothing changed. */
static void marker_register_errors(struct kunit *test)
{
	static const char * const bad_names[] = {
		"", "1abc", "a-b", "a b", "marker_test_basic\n",
		"a_name_that_is_much_longer_than_the_sixty_four_characters_allowed_x",
	};
	const char *name = "marker_test_basic";
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_names); i++)
		KUNIT_EXPECT_EQ_MSG(test, marker_probe_register(bad_names[i], NULL,
								marker_test_count, NULL),
				    -EINVAL, "name \"%s\"", bad_names[i]);
	KUNIT_EXPECT_EQ(test, marker_probe_register(NULL, NULL, marker_test_count, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, NULL, NULL, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, "%s", marker_test_count,
						    &marker_test_p1), -EPERM);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	KUNIT_EXPECT_STREQ(test, marker_test_find(test, name).info.format, "%d");

	KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_count,
						    &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), -EBUSY);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	KUNIT_EXPECT_PTR_EQ(test, marker_get_private_data(name, marker_test_count, 0),
			    (void *)&marker_test_p1);
	KUNIT_EXPECT_PTR_EQ(test, marker_get_private_data(name, marker_test_count, 1),
			    ERR_PTR(-ENOENT));
	KUNIT_EXPECT_PTR_EQ(test, marker_get_private_data(name, marker_test_other, 0),
			    ERR_PTR(-ENOENT));

	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p2), -ENOENT);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister("marker_test_no_such",
						      marker_test_count, NULL), -ENOENT);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(NULL, marker_test_count, NULL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_private_data(marker_test_other,
								   &marker_test_p1),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	marker_test_fire_basic(5);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);

	KUNIT_EXPECT_EQ(test, marker_probe_unregister_private_data(marker_test_count,
								   &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
}

/* Any allocation of a registration may fail: -ENOMEM, and nothing changed. */
static void marker_register_nomem(struct kunit *test)
{
	static const char * const names[] = { "marker_test_basic", "marker_test_no_site_yet" };
	u8 before[12], after[12];
	unsigned int i, nth;
	void *code = NULL;
	int ret;

	/* The bytes of marker_test_basic's site, off; none without CONFIG_MARKER_SITES. */
	if (marker_get_sites(names[0], &code, 1) == 1)
		memcpy(before, code, sizeof(before));
	kunit_activate_static_stub(test, marker_alloc, kunit_failing_alloc);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		for (nth = 1; ; nth++) {
			kunit_fail_nth_alloc(nth);
			ret = marker_probe_register(names[i], "%d", marker_test_count,
						    &marker_test_p1);
			if (!kunit_nth_alloc_failed())
				break;
			KUNIT_EXPECT_EQ(test, ret, -ENOMEM);
			if (code) {
				memcpy(after, code, sizeof(after));
				KUNIT_EXPECT_MEMEQ(test, after, before, sizeof(before));
			}
			KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, names[i]), 0);
			KUNIT_EXPECT_FALSE(test, marker_test_find(test, names[i]).info.enabled);
			marker_test_fire_basic(nth);
			KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
		}
		KUNIT_EXPECT_GT_MSG(test, nth, 1, "%s: registration allocated nothing",
				    names[i]);
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, names[i]), 1);
		/* Switching the sites off allocates too: not under the stub. */
		kunit_deactivate_static_stub(test, marker_alloc);
		KUNIT_EXPECT_EQ(test, marker_probe_unregister(names[i], marker_test_count,
							      &marker_test_p1), 0);
		kunit_activate_static_stub(test, marker_alloc, kunit_failing_alloc);
	}
	kunit_deactivate_static_stub(test, marker_alloc);
	KUNIT_EXPECT_EQ(test, marker_test_find(test, "marker_test_no_site_yet").rows, 0);
}

/* Unregistering cannot fail for want of memory: the probe always goes. */
static void marker_unregister_nomem(struct kunit *test)
{
	const char *name = "marker_test_basic";
	unsigned int nth;
	bool failed;
	int ret;

	for (nth = 1; ; nth++) {
		KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_count,
							    &marker_test_p1), 0);
		KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_other,
							    &marker_test_p2), 0);
		kunit_activate_static_stub(test, marker_alloc, kunit_failing_alloc);
		kunit_fail_nth_alloc(nth);
		ret = marker_probe_unregister(name, marker_test_count, &marker_test_p1);
		kunit_deactivate_static_stub(test, marker_alloc);
		failed = kunit_nth_alloc_failed();
		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
		marker_synchronize_unregister();
		atomic_set(&marker_test_p1.calls, 0);
		atomic_set(&marker_test_p2.calls, 0);
		marker_test_fire_basic(1);
		KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p2.calls), 1);
		KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_other,
							      &marker_test_p2), 0);
		if (!failed)
			break;
	}
	KUNIT_EXPECT_GT_MSG(test, nth, 1, "removing a probe allocated nothing");
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
}

/* A probe registered before its module's sites exist arms them on load. */
static void marker_module_sites(struct kunit *test)
{
	const char *name = "marker_test_module";
	void (*fire)(int value);
	struct marker_test_find f;

	KUNIT_ASSERT_EQ(test, marker_probe_register(name, MARKER_KUNIT_MOD_FORMAT,
						    marker_test_count, &marker_test_p1), 0);
	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.rows, 1);
	KUNIT_EXPECT_FALSE(test, f.info.has_sites);

	kunit_load_module(test, "marker_kunit_mod");
	fire = symbol_get(marker_kunit_mod_fire);
	KUNIT_ASSERT_NOT_NULL(test, fire);
	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.sites, 1);
	KUNIT_EXPECT_STREQ(test, f.info.module ? module_name(f.info.module) : "",
			   "marker_kunit_mod");
	fire(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);
	symbol_put(marker_kunit_mod_fire);
	kunit_unload_module(test, "marker_kunit_mod");

	f = marker_test_find(test, name);
	KUNIT_EXPECT_FALSE(test, f.info.has_sites);
	KUNIT_EXPECT_EQ(test, f.info.nr_probes, 1);

	kunit_load_module(test, "marker_kunit_mod");
	fire = symbol_get(marker_kunit_mod_fire);
	KUNIT_ASSERT_NOT_NULL(test, fire);
	fire(2);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 2);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, 2);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	marker_synchronize_unregister();
	fire(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 2);
	symbol_put(marker_kunit_mod_fire);
	kunit_unload_module(test, "marker_kunit_mod");
	KUNIT_EXPECT_EQ(test, marker_test_find(test, name).rows, 0);
}

#define MARKER_LOG_LINE	512

/* The lines of the kernel log that contain both @a and @b. */
static unsigned int marker_test_log_lines(struct kunit *test, const char *a, const char *b)
{
	struct kmsg_dump_iter iter;
	unsigned int n = 0;
	size_t len;
	char *line;

	line = kunit_kmalloc(test, MARKER_LOG_LINE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, line);
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, MARKER_LOG_LINE - 1, &len)) {
		line[len] = '\0';
		n += strstr(line, a) && strstr(line, b);
	}
	return n;
}

/*
 * A module whose site has another format than the probes registered for
 * its marker: the site is left off, with one warning naming the site and
 * both formats; the probe is not called from it, the marker lists no site.
 * Once the probe is gone, the site attaches, with its format, while the
 * module stays: a probe of that format is called from it. Loaded again,
 * the module's site attaches at once.
 */
static void marker_module_format_mismatch(struct kunit *test)
{
	const char *name = "marker_test_module";
	/* Where the site is depends on the architecture: the name will do. */
	const char *site = "marker_test_module: site ";
	const char *warning = "has format \"" MARKER_KUNIT_MOD_FORMAT "\", not \"%d\": left off";
	void (*fire)(int value);
	struct marker_test_find f;
	unsigned int warned;

	if (!IS_ENABLED(CONFIG_PRINTK))
		kunit_skip(test, "needs CONFIG_PRINTK to read the warning");
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	warned = marker_test_log_lines(test, site, warning);
	kunit_load_module(test, "marker_kunit_mod");
	KUNIT_EXPECT_EQ(test, marker_test_log_lines(test, site, warning) - warned, 1);
	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.rows, 1);
	KUNIT_EXPECT_FALSE(test, f.info.has_sites);
	KUNIT_EXPECT_EQ(test, f.info.nr_probes, 1);
	KUNIT_EXPECT_STREQ(test, f.info.format, "%d");
	KUNIT_EXPECT_EQ(test, marker_get_sites(name, NULL, 0), 0);
	fire = symbol_get(marker_kunit_mod_fire);
	KUNIT_ASSERT_NOT_NULL(test, fire);
	fire(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);

	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.rows, 1);
	KUNIT_EXPECT_EQ(test, f.sites, 1);
	KUNIT_EXPECT_EQ(test, f.info.nr_probes, 0);
	KUNIT_EXPECT_STREQ(test, f.info.format, MARKER_KUNIT_MOD_FORMAT);
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), -EPERM);
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, MARKER_KUNIT_MOD_FORMAT,
						    marker_test_count, &marker_test_p1), 0);
	fire(2);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	marker_synchronize_unregister();
	symbol_put(marker_kunit_mod_fire);
	kunit_unload_module(test, "marker_kunit_mod");
	KUNIT_EXPECT_EQ(test, marker_test_find(test, name).rows, 0);
	KUNIT_EXPECT_EQ(test, marker_test_log_lines(test, site, warning) - warned, 1);

	kunit_load_module(test, "marker_kunit_mod");
	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.sites, 1);
	KUNIT_EXPECT_STREQ(test, f.info.format, MARKER_KUNIT_MOD_FORMAT);
	KUNIT_EXPECT_EQ(test, marker_test_log_lines(test, site, warning) - warned, 1);
	kunit_unload_module(test, "marker_kunit_mod");
}

/*
 * The site left off for another format attaches when that format's last
 * probe goes (marker_orphans_attach()), which allocates: with each of the
 * unregistration's allocations failing in turn, the unregistration still
 * succeeds, and the site either attaches or stays off with one warning.
 * Loaded again, its module's site attaches and fires. Nothing leaks
 * (kmemleak in the debug kernel).
 */
static void marker_module_orphans_nomem(struct kunit *test)
{
	const char *name = "marker_test_module";
	const char *warning = "no memory to attach the sites left off";
	void (*fire)(int value);
	unsigned int nth, warned, sites, calls;
	bool failed;

	if (!IS_ENABLED(CONFIG_PRINTK))
		kunit_skip(test, "needs CONFIG_PRINTK to read the warning");
	for (nth = 1; ; nth++) {
		KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
							    &marker_test_p1), 0);
		kunit_load_module(test, "marker_kunit_mod");
		KUNIT_EXPECT_EQ(test, marker_test_find(test, name).sites, 0);
		warned = marker_test_log_lines(test, name, warning);
		kunit_activate_static_stub(test, marker_alloc, kunit_failing_alloc);
		kunit_fail_nth_alloc(nth);
		KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
							      &marker_test_p1), 0);
		failed = kunit_nth_alloc_failed();
		kunit_deactivate_static_stub(test, marker_alloc);
		sites = marker_test_find(test, name).sites;
		warned = marker_test_log_lines(test, name, warning) - warned;
		if (failed)
			KUNIT_EXPECT_TRUE_MSG(test, sites == 1 || warned == 1,
					      "allocation %u failed: %u sites, %u warnings", nth,
					      sites, warned);
		else
			KUNIT_EXPECT_EQ(test, sites, 1);
		kunit_unload_module(test, "marker_kunit_mod");
		if (!failed)
			break;

		kunit_load_module(test, "marker_kunit_mod");
		KUNIT_EXPECT_EQ(test, marker_test_find(test, name).sites, 1);
		KUNIT_EXPECT_EQ(test, marker_probe_register(name, MARKER_KUNIT_MOD_FORMAT,
							    marker_test_count, &marker_test_p1), 0);
		fire = symbol_get(marker_kunit_mod_fire);
		KUNIT_ASSERT_NOT_NULL(test, fire);
		calls = atomic_read(&marker_test_p1.calls);
		fire(nth);
		KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), calls + 1);
		KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
							      &marker_test_p1), 0);
		marker_synchronize_unregister();
		symbol_put(marker_kunit_mod_fire);
		kunit_unload_module(test, "marker_kunit_mod");
	}
	/* The first allocation at least was failed: the path ran. */
	KUNIT_EXPECT_GT(test, nth, 1);
	KUNIT_EXPECT_EQ(test, marker_test_find(test, name).rows, 0);
}

static int marker_test_kprobe_handler(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}

/*
 * marker_synchronize_unregister() waits for a grace period of the readers
 * that run the probes (preemption disabled): the RCU state taken before it
 * has passed when it returns. The full state, since grace periods are
 * expedited while the kernel boots.
 */
static void marker_synchronize_waits(struct kunit *test)
{
	struct marker_gp_state state;

	get_state_synchronize_rcu_full(&state);
	marker_synchronize_unregister();
	KUNIT_EXPECT_TRUE(test, poll_state_synchronize_rcu_full(&state));
}

/* Counts the live sites of a marker that marker_walk_sites() reports. */
struct marker_test_site_count {
	const char *name;
	unsigned int nr;
};

static int marker_test_count_sites_fn(const char *name, void *code, unsigned int size,
				      struct module *mod, void *data)
{
	struct marker_test_site_count *c = data;

	c->nr += !strcmp(name, c->name);
	return 0;
}

static unsigned int marker_test_walked_sites(struct kunit *test, const char *name)
{
	struct marker_test_site_count c = { .name = name };

	KUNIT_EXPECT_EQ(test, marker_walk_sites(marker_test_count_sites_fn, &c), 0);
	return c.nr;
}

/* Inline code lands where it is used: in the kernel's init text, and here. */
static __always_inline void marker_test_fire_inline(int value)
{
	MARK(marker_test_init, "%d", value);
}

/* Used only in the kernel's init text: a marker with no site elsewhere. */
static __always_inline void marker_test_fire_init_only(int value)
{
	MARK(marker_test_init_only, "%d", value);
}

static noinline void __init marker_test_fire_init(int value)
{
	marker_test_fire_inline(value);
	marker_test_fire_init_only(value);
}

static noinline void marker_test_fire_core(int value)
{
	marker_test_fire_inline(value);
}

/* Only while the kernel's init text is there: the boot-time run. */
static void __ref marker_test_fire_init_text(int value)
{
	marker_test_fire_init(value);
}

/*
 * marker_test_init_only, whose only site is in the kernel's init text: the
 * list shows it with that site while the text is there (@site_live). Once
 * the text is freed, it shows it only while it has probes, with no site,
 * and a switch writes nothing.
 */
static void marker_test_init_only_listed(struct kunit *test, bool site_live)
{
	const char *name = "marker_test_init_only";
	struct marker_test_find f;
	unsigned long poked;

	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.rows, site_live ? 1 : 0);
	KUNIT_EXPECT_EQ(test, f.sites, site_live ? 1 : 0);

	poked = kunit_poke_counts().sites;
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p2), 0);
	if (!site_live)
		KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites, poked);
	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ_MSG(test, f.rows, 1, "a marker with a probe is listed");
	KUNIT_EXPECT_EQ(test, f.info.nr_probes, 1);
	KUNIT_EXPECT_EQ(test, f.sites, site_live ? 1 : 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p2), 0);
	f = marker_test_find(test, name);
	KUNIT_EXPECT_EQ(test, f.rows, site_live ? 1 : 0);
}

/*
 * The points that switching the only probe of @name on or off writes, with
 * @sites live sites: the slot (or on x86-64 the guard) of each, and each live
 * call, which goes straight to the probe or to marker_probe_va_one().
 */
static unsigned long marker_test_switch_points(const char *name, unsigned int sites)
{
	return KUNIT_MARKER_SITE_POINTS * sites + marker_get_calls(name, NULL, 0);
}

/* The site of marker_test_init in the kernel's init text, found at boot. */
static void *marker_test_init_site;

/*
 * Finds that site while the init text is there, whether the suites run at
 * boot or only after it (kunit.autorun=0): the after-boot run checks that
 * kprobes find no text where it was.
 */
static int __init marker_test_find_init_site(void)
{
	void *code[2];
	int i, n;

	n = marker_get_sites("marker_test_init", code, ARRAY_SIZE(code));
	for (i = 0; i < min_t(int, n, ARRAY_SIZE(code)); i++)
		if (init_section_contains(code[i], 1))
			marker_test_init_site = code[i];
	return 0;
}
late_initcall(marker_test_find_init_site);

/*
 * A site in the kernel's init text is on like any other while that text can
 * run; once it is freed, a switch writes only the other sites, the list and
 * the sites leave it out, and kprobes finds no text there. Without
 * CONFIG_MARKER_SITES sites have no code to forget: both stay listed.
 */
static void marker_init_text_sites(struct kunit *test)
{
	const char *name = "marker_test_init";
	bool init_text = system_state < SYSTEM_FREEING_INITMEM;
	unsigned int patched = IS_ENABLED(CONFIG_MARKER_SITES);
	unsigned int i, live = (init_text ? 2 : 1) * patched;
	unsigned long poked;
	void *code[2];

	KUNIT_ASSERT_EQ(test, marker_get_sites(name, code, ARRAY_SIZE(code)), live);
	for (i = 0; i < live; i++)
		KUNIT_EXPECT_EQ(test, init_section_contains(code[i], 1),
				code[i] == marker_test_init_site);
	KUNIT_EXPECT_EQ(test, marker_test_walked_sites(test, name), live);
	KUNIT_EXPECT_EQ(test, marker_test_find(test, name).sites,
			init_text || !patched ? 2 : 1);

	/*
	 * A switch writes the slot (or on x86-64 the guard) of each live site,
	 * and points its call at marker_probe_va_one(), or back.
	 */
	poked = kunit_poke_counts().sites;
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites - poked,
			marker_test_switch_points(name, live));
	if (init_text)
		marker_test_fire_init_text(1);
	marker_test_fire_core(2);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), init_text ? 2 : 1);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, 2);
	poked = kunit_poke_counts().sites;
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites - poked,
			marker_test_switch_points(name, live));

	marker_test_init_only_listed(test, init_text || !patched);
	if (init_text || !patched)
		return;
	KUNIT_ASSERT_NOT_NULL_MSG(test, marker_test_init_site,
				  "no site of %s was in init text at boot", name);
	if (IS_ENABLED(CONFIG_KPROBES)) {
		struct kprobe kp = {
			.addr = marker_test_init_site,
			.pre_handler = marker_test_kprobe_handler,
		};
		int ret = register_kprobe(&kp);

		if (!ret)
			unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "kprobe on freed init text %pS",
				    kp.addr);
	}
}

/*
 * A module whose init function holds a site (through inline code): the site
 * is armed while the init function runs; once the init text is freed, the
 * marker switches on and off writing only the live site, the list and the
 * sites show only that one, and kprobes finds no text where init was.
 */
static void marker_module_init_text(struct kunit *test)
{
	const char *name = "marker_test_module_init";
	unsigned int patched = IS_ENABLED(CONFIG_MARKER_SITES);
	void (*fire)(int value);
	unsigned long poked;
	void **init_text;
	void *code[2];

	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	kunit_load_module(test, "marker_kunit_mod");
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, MARKER_KUNIT_MOD_INIT_VALUE);
	fire = symbol_get(marker_kunit_mod_fire_init_marker);
	init_text = symbol_get(marker_kunit_mod_init_text);
	KUNIT_ASSERT_TRUE(test, fire && init_text);

	KUNIT_EXPECT_EQ(test, marker_get_sites(name, code, ARRAY_SIZE(code)), patched);
	KUNIT_EXPECT_EQ(test, marker_test_walked_sites(test, name), patched);
	KUNIT_EXPECT_EQ(test, marker_test_find(test, name).sites, patched ? 1 : 2);

	poked = kunit_poke_counts().sites;
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites - poked,
			marker_test_switch_points(name, patched));
	marker_synchronize_unregister();
	fire(3);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);

	poked = kunit_poke_counts().sites;
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	KUNIT_EXPECT_EQ(test, kunit_poke_counts().sites - poked,
			marker_test_switch_points(name, patched));
	fire(4);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 2);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, 4);

	/* kallsyms knows no symbol there any more (-ENOENT), or no text (-EINVAL). */
	if (IS_ENABLED(CONFIG_KPROBES)) {
		struct kprobe kp = {
			.addr = *init_text,
			.pre_handler = marker_test_kprobe_handler,
		};
		int ret = register_kprobe(&kp);

		if (!ret)
			unregister_kprobe(&kp);
		KUNIT_EXPECT_TRUE_MSG(test, ret == -ENOENT || ret == -EINVAL,
				      "kprobe on freed init text %pS: %d", kp.addr, ret);
	}

	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	marker_synchronize_unregister();
	symbol_put(marker_kunit_mod_fire_init_marker);
	symbol_put(marker_kunit_mod_init_text);
	kunit_unload_module(test, "marker_kunit_mod");
}

#ifdef CONFIG_X86_POKE_SITES
/*
 * Every recorded call of @name, if it has any, goes to @fn. Returns whether
 * they all do, so that a case does not fire a site whose probes would then
 * read arguments that are not there.
 */
static bool marker_test_expect_calls(struct kunit *test, const char *name, void *fn)
{
	void *calls[4], *dest;
	bool ok = true;
	int i, n;

	scoped_guard(mutex, &text_mutex)
		dest = callthunks_translate_call_dest(fn);

	n = marker_get_calls(name, calls, ARRAY_SIZE(calls));
	for (i = 0; i < min_t(int, n, ARRAY_SIZE(calls)); i++) {
		u8 *call = calls[i];
		void *to = call + CALL_INSN_SIZE + get_unaligned((s32 *)(call + 1));
		/* Call depth tracking leaves the calls of init text plain. */
		void *want = init_section_contains(call, 1) ? fn : dest;

		KUNIT_EXPECT_EQ(test, call[0], CALL_INSN_OPCODE);
		KUNIT_EXPECT_PTR_EQ_MSG(test, to, want, "%s: call at %pS goes to %pS, not %pS",
					name, call, to, want);
		ok &= call[0] == CALL_INSN_OPCODE && to == want;
	}
	return ok;
}
#elif defined(CONFIG_MARKER_SITES)
/* Every recorded call of @name, if it has any, is a BL to @fn; whether so. */
static bool marker_test_expect_calls(struct kunit *test, const char *name, void *fn)
{
	void *calls[4];
	bool ok = true;
	int i, n;

	n = marker_get_calls(name, calls, ARRAY_SIZE(calls));
	for (i = 0; i < min_t(int, n, ARRAY_SIZE(calls)); i++) {
		u32 insn = le32_to_cpu(*(__le32 *)calls[i]);

		KUNIT_ASSERT_TRUE_MSG(test, aarch64_insn_is_bl(insn), "%s: %pS holds %08x",
				      name, calls[i], insn);
		KUNIT_EXPECT_PTR_EQ_MSG(test, calls[i] + aarch64_get_branch_offset(insn), fn,
					"%s: call at %pS goes to %ps, not %ps", name, calls[i],
					calls[i] + aarch64_get_branch_offset(insn), fn);
		ok &= calls[i] + aarch64_get_branch_offset(insn) == fn;
	}
	return ok;
}
#else
static bool marker_test_expect_calls(struct kunit *test, const char *name, void *fn)
{
	int n = marker_get_calls(name, NULL, 0);

	KUNIT_EXPECT_EQ(test, n, 0);
	return !n;
}
#endif

/* Connects a counting probe to @name, a fast one if @fast. */
static int marker_test_connect(const char *name, bool fast, struct marker_test_probe *p)
{
	if (fast)
		return marker_probe_register_fast(name, "%d", marker_test_fast_count, p);
	return marker_probe_register(name, "%d", marker_test_count, p);
}

static int marker_test_disconnect(const char *name, bool fast, struct marker_test_probe *p)
{
	if (fast)
		return marker_probe_unregister_fast(name, marker_test_fast_count, p);
	return marker_probe_unregister(name, marker_test_count, p);
}

/*
 * Every allocation of switching the sites off fails in turn: unregistering
 * the last probe returns 0, the probe is gone (no call after
 * marker_synchronize_unregister()), the sites stay on, byte for byte,
 * without probes, and the next switch goes on from there. A fast probe's
 * calls went straight to it: they go back to the iterator even then.
 */
static void marker_test_switch_off_fails(struct kunit *test, bool fast)
{
	const char *name = "marker_test_basic";
	u8 before[12], after[12];
	unsigned int nth;
	void *code = NULL;
	int ret;

	marker_get_sites(name, &code, 1);
	for (nth = 1; ; nth++) {
		KUNIT_ASSERT_EQ(test, marker_test_connect(name, fast, &marker_test_p1), 0);
		if (code)
			memcpy(before, code, sizeof(before));
		kunit_activate_static_stub(test, marker_alloc, kunit_failing_alloc);
		kunit_fail_nth_alloc(nth);
		ret = marker_test_disconnect(name, fast, &marker_test_p1);
		kunit_deactivate_static_stub(test, marker_alloc);
		if (!kunit_nth_alloc_failed())
			break;

		KUNIT_EXPECT_EQ(test, ret, 0);
		KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
		marker_test_expect_calls(test, name, marker_probe_iterate);
		marker_synchronize_unregister();
		atomic_set(&marker_test_p1.calls, 0);
		marker_test_fire_basic(nth);
		KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
		if (code) {
			memcpy(after, code, sizeof(after));
			KUNIT_EXPECT_MEMEQ(test, after, before, sizeof(before));
		}
		/* Armed without probes: the next switch goes on from there. */
		KUNIT_ASSERT_EQ(test, marker_test_connect(name, fast, &marker_test_p1), 0);
		marker_test_expect_calls(test, name, fast ? (void *)marker_test_fast_count :
							    (void *)marker_probe_va_one);
		KUNIT_ASSERT_EQ(test, marker_test_disconnect(name, fast, &marker_test_p1), 0);
	}
	KUNIT_EXPECT_GT_MSG(test, nth, 1, "switching the sites off allocated nothing");
	KUNIT_EXPECT_EQ(test, ret, 0);
	marker_synchronize_unregister();
	atomic_set(&marker_test_p1.calls, 0);
	marker_test_fire_basic(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
}

static void marker_switch_off_fails(struct kunit *test)
{
	marker_test_switch_off_fails(test, false);
}

static void marker_fast_switch_off_fails(struct kunit *test)
{
	marker_test_switch_off_fails(test, true);
}

/*
 * A removal of each kind of transition of the calls: the probes that are
 * connected ('f' fast, 'v' va_list, in order), and the one removed.
 */
struct marker_test_removal {
	const char *desc;
	const char *kinds;
	unsigned int remove;
	/* marker_test_init rather than marker_test_basic */
	bool init;
};

static const struct marker_test_removal marker_test_removals[] = {
	{ "1 fast -> 0", "f", 0 },
	{ "2 fast -> 1, the first goes", "ff", 0 },
	{ "2 fast -> 1, the second goes", "ff", 1 },
	{ "3 fast -> 2", "fff", 1 },
	{ "4 fast -> 3", "ffff", 1 },
	{ "fast + va_list -> fast", "fv", 1 },
	{ "fast + va_list -> va_list", "fv", 0 },
	{ "2 va_list -> 1", "vv", 1 },
	{ "1 va_list -> 0", "v", 0 },
	/* After boot, a site in freed init text beside the live one. */
	{ "init text: 1 fast -> 0", "f", 0, true },
	{ "init text: 2 fast -> 1", "ff", 0, true },
	{ "init text: 1 va_list -> 0", "v", 0, true },
};

static void marker_test_removal_desc(const struct marker_test_removal *r, char *desc)
{
	strscpy(desc, r->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(marker_test_removal, marker_test_removals, marker_test_removal_desc);

/*
 * One removal of @r on @name, with allocation @nth of it failing: it
 * returns 0, and after marker_synchronize_unregister() the site calls each
 * probe left once per hit and the removed one never. Returns the points
 * the removal wrote; @failed says whether allocation @nth came.
 */
static unsigned long marker_test_remove_nomem(struct kunit *test,
					      const struct marker_test_removal *r,
					      const char *name, void (*fire)(int value),
					      unsigned int nth, bool *failed)
{
	struct marker_test_probe *p[] = {
		&marker_test_p1, &marker_test_p2, &marker_test_p3, &marker_test_p4
	};
	unsigned int i, n = strlen(r->kinds);
	bool fast[ARRAY_SIZE(p)];
	unsigned long points;
	int ret;

	for (i = 0; i < n; i++)
		fast[i] = r->kinds[i] == 'f';
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ(test, marker_test_connect(name, fast[i], p[i]), 0);
	kunit_activate_static_stub(test, marker_alloc, kunit_failing_alloc);
	kunit_fail_nth_alloc(nth);
	points = kunit_poke_counts().sites;
	ret = marker_test_disconnect(name, fast[r->remove], p[r->remove]);
	points = kunit_poke_counts().sites - points;
	kunit_deactivate_static_stub(test, marker_alloc);
	*failed = kunit_nth_alloc_failed();

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s, allocation %u failing", name, nth);
	KUNIT_EXPECT_EQ_MSG(test, marker_test_nr_probes(test, name), n - 1,
			    "%s, allocation %u failing", name, nth);
	marker_synchronize_unregister();
	for (i = 0; i < n; i++)
		atomic_set(&p[i]->calls, 0);
	fire(nth);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&p[i]->calls), i != r->remove,
				    "%s, probe %u, allocation %u failing", name, i, nth);
		/* Each fast probe left gets the marker the first one got. */
		if (fast[i] && i != r->remove && p[i]->marker != p[!r->remove]->marker)
			KUNIT_FAIL(test, "%s, probe %u got marker %p, probe %u %p, allocation %u",
				   name, i, p[i]->marker, !r->remove, p[!r->remove]->marker, nth);
	}
	for (i = 0; i < n; i++) {
		if (i == r->remove)
			continue;
		KUNIT_ASSERT_EQ(test, marker_test_disconnect(name, fast[i], p[i]), 0);
	}
	return points;
}

/*
 * Removing a probe cannot fail for want of memory, whatever its calls go
 * to: with each allocation of the removal failing in turn, it returns 0,
 * and the probes left are called, the removed one never. The calls that
 * go back to the iterator without memory (marker_entry_retreat_calls())
 * are only the live ones: after boot, marker_test_init's call in freed
 * init text is not written, so each removal on marker_test_init (one live
 * site) writes as many points as the same removal on marker_test_basic
 * (one site).
 */
static void marker_removal_nomem(struct kunit *test)
{
	const struct marker_test_removal *r = test->param_value;
	void (*fire)(int value) = r->init ? marker_test_fire_core : marker_test_fire_basic;
	const char *name = r->init ? "marker_test_init" : "marker_test_basic";
	bool freed = r->init && system_state >= SYSTEM_FREEING_INITMEM;
	unsigned long points, expected;
	bool failed, basic_failed;
	unsigned int nth;

	for (nth = 1; ; nth++) {
		points = marker_test_remove_nomem(test, r, name, fire, nth, &failed);
		if (freed) {
			expected = marker_test_remove_nomem(test, r, "marker_test_basic",
							    marker_test_fire_basic, nth,
							    &basic_failed);
			KUNIT_EXPECT_EQ_MSG(test, points, expected,
					    "points written, allocation %u failing", nth);
			KUNIT_EXPECT_EQ_MSG(test, failed, basic_failed,
					    "allocation %u came in one removal only", nth);
		}
		if (!failed)
			break;
	}
	KUNIT_EXPECT_GT_MSG(test, nth, 1, "the removal allocated nothing");
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
}

/*
 * A fast probe connected before a module comes: the recorded call of the
 * module's init site goes straight to it while init runs, and still
 * holds that call, in freed memory, once the init text is gone. Removing
 * the probe with each allocation failing in turn sends back the calls of
 * the live site only (marker_entry_retreat_calls()): a retreat that
 * walked the forgotten site too would read, and write, freed module
 * memory.
 */
static void marker_module_init_fast_nomem(struct kunit *test)
{
	static const struct marker_test_removal one_fast = { "1 fast -> 0", "f", 0 };
	const char *name = "marker_test_module_init";
	void (*fire)(int value);
	unsigned int nth;
	bool failed;

	KUNIT_ASSERT_EQ(test, marker_test_connect(name, true, &marker_test_p1), 0);
	kunit_load_module(test, "marker_kunit_mod");
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, MARKER_KUNIT_MOD_INIT_VALUE);
	fire = symbol_get(marker_kunit_mod_fire_init_marker);
	KUNIT_ASSERT_NOT_NULL(test, fire);
	/* No switch writes freed text: the init call keeps the probe's call. */
	KUNIT_ASSERT_EQ(test, marker_test_disconnect(name, true, &marker_test_p1), 0);

	for (nth = 1; ; nth++) {
		marker_test_remove_nomem(test, &one_fast, name, fire, nth, &failed);
		if (!failed)
			break;
	}
	KUNIT_EXPECT_GT_MSG(test, nth, 1, "the removal allocated nothing");
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	symbol_put(marker_kunit_mod_fire_init_marker);
	kunit_unload_module(test, "marker_kunit_mod");
}

/* --- concurrency ---------------------------------------------------------- */

/*
 * The sites the stress cases fire: a near one and a far one, whose probe
 * block lies past the NOPs after it, beyond a jb rel8 on x86-64: every
 * switch there writes the slot of the one and the guard of the other,
 * which CPUs that meet its INT3 skip to the block or to the site's end.
 * __used: marker_site_layout reads both sites even where the stress cases
 * skip (no kretprobes to watch the patcher with).
 */
static noinline __used void marker_test_fire_race(void)
{
	MARK(marker_test_race, MARK_NOARGS);
}

static noinline __used void marker_test_fire_race_far(void)
{
	MARK(marker_test_race, MARK_NOARGS);
	asm volatile(".rept 160\n\tnop\n\t.endr");
}

#define MARKER_FIRERS		3
#define MARKER_REGISTRATIONS	10000
#define MARKER_POOL		64

/* The data of one registration: a call once it is dead is a bug. */
struct marker_race_data {
	bool dead;
	atomic_long_t calls;
	atomic_long_t late;
};

static void marker_test_race_probe(void *probe_private, void *call_private,
				   const char *fmt, va_list *args)
{
	struct marker_race_data *d = probe_private;

	if (READ_ONCE(d->dead))
		atomic_long_inc(&d->late);
	atomic_long_inc(&d->calls);
}

/* The fires of firer @i, counted at @data[@i], so far. */
static unsigned long marker_fires_done(void *data, unsigned int i)
{
	const unsigned long *fires = data;

	return READ_ONCE(fires[i]);
}

static int marker_firer_fn(void *data)
{
	unsigned long *fires = data;

	while (!kthread_should_stop()) {
		marker_test_fire_race();
		marker_test_fire_race_far();
		WRITE_ONCE(*fires, *fires + 1);
		/* Lets a single-threaded emulator switch to the other vCPUs. */
		cpu_relax();
		if (!(*fires % 4096))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/*
 * Registration @i of a probe on @name, of @format, with data from two pools
 * that take turns: the data of a registration is declared dead once it has
 * been unregistered and marker_synchronize_unregister() has returned, so a
 * call with dead data is a call after unregistration. A pool stays dead for
 * a whole round of MARKER_POOL registrations before it is reused.
 */
static int marker_race_round(struct marker_race_data (*pools)[MARKER_POOL],
			     const char *name, const char *format, unsigned int i)
{
	struct marker_race_data *pool = pools[(i / MARKER_POOL) % 2];
	struct marker_race_data *d = &pool[i % MARKER_POOL];
	unsigned int j;
	int ret;

	if (i % MARKER_POOL == 0)
		for (j = 0; j < MARKER_POOL; j++)
			WRITE_ONCE(pool[j].dead, false);
	ret = marker_probe_register(name, format, marker_test_race_probe, d);
	if (ret)
		return ret;
	/* Now and then stay registered long enough to be called. */
	if (i % MARKER_POOL == 0)
		usleep_range(1000, 2000);
	ret = marker_probe_unregister(name, marker_test_race_probe, d);
	if (i % MARKER_POOL == MARKER_POOL - 1) {
		marker_synchronize_unregister();
		for (j = 0; j < MARKER_POOL; j++)
			WRITE_ONCE(pool[j].dead, true);
	}
	return ret;
}

/* The calls, and the calls after unregistration, the pools have seen. */
static void marker_race_count(struct marker_race_data (*pools)[MARKER_POOL],
			      long *calls, long *late)
{
	unsigned int i;

	*calls = 0;
	*late = 0;
	for (i = 0; i < 2 * MARKER_POOL; i++) {
		*calls += atomic_long_read(&pools[i / MARKER_POOL][i % MARKER_POOL].calls);
		*late += atomic_long_read(&pools[i / MARKER_POOL][i % MARKER_POOL].late);
	}
}

/* The pools of marker_concurrent_pair(), where its probe checks its data. */
static struct marker_race_data (*marker_pair_pools)[MARKER_POOL];
static atomic_long_t marker_pair_strays;

/* A fast probe that counts a call whose data is not of the pools. */
static void marker_test_pair_probe(void *probe_private, void *call_private,
				   const struct marker *marker, ...)
{
	struct marker_race_data *d = probe_private;
	uintptr_t first = (uintptr_t)&marker_pair_pools[0][0];

	if ((uintptr_t)d < first ||
	    (uintptr_t)d >= first + 2 * sizeof(*marker_pair_pools) ||
	    ((uintptr_t)d - first) % sizeof(*d)) {
		atomic_long_inc(&marker_pair_strays);
		return;
	}
	marker_test_race_probe(d, call_private, marker->format, NULL);
}

/* A round of marker_concurrent_pair(): its fast probes, its slots of a pool. */
#define MARKER_PAIR_PROBES	3
#define MARKER_PAIR_SLOTS	4

/*
 * Round @i of marker_concurrent_pair(): three fast probes, connected and
 * disconnected one by one, 0 -> 1 -> 2 -> 3 -> 2 -> 1 -> 0, with data of the
 * pools of marker_race_round().
 */
static int marker_pair_round(struct marker_race_data (*pools)[MARKER_POOL],
			     const char *name, const char *format, unsigned int i)
{
	unsigned int slot = MARKER_PAIR_SLOTS * i % MARKER_POOL;
	struct marker_race_data *pool = pools[(MARKER_PAIR_SLOTS * i / MARKER_POOL) % 2];
	marker_fast_probe_func *fast = marker_test_pair_probe;
	unsigned int j, n;
	int ret = 0;

	BUILD_BUG_ON(MARKER_POOL % MARKER_PAIR_SLOTS);
	if (slot == 0)
		for (j = 0; j < MARKER_POOL; j++)
			WRITE_ONCE(pool[j].dead, false);
	for (n = 0; n < MARKER_PAIR_PROBES; n++) {
		ret = marker_probe_register_fast(name, format, fast, &pool[slot + n]);
		if (ret)
			break;
	}
	if (!ret && i % 4 == 0)
		usleep_range(1000, 2000);
	for (j = 0; j < n; j++)
		ret = marker_probe_unregister_fast(name, fast, &pool[slot + j]) ?: ret;
	if (slot == MARKER_POOL - MARKER_PAIR_SLOTS) {
		marker_synchronize_unregister();
		for (j = 0; j < MARKER_POOL; j++)
			WRITE_ONCE(pool[j].dead, true);
	}
	return ret;
}

/*
 * How long the rounds of a stress case may go on: KUnit fails a case that
 * runs 300 s as hung, and on a loaded host (two KASAN guests and another
 * kernel's guests and build on two cores) 10000 rounds took 311 s. The case
 * then stops early and says how many rounds it made; its checks hold for
 * any number of them.
 */
#define MARKER_STRESS_BUDGET	(150 * HZ)

/*
 * Three CPUs fire a marker while this one makes @registrations @round()s
 * on it, or as many as MARKER_STRESS_BUDGET allows.
 */
static void marker_test_concurrent(struct kunit *test, unsigned int registrations,
				   int (*round)(struct marker_race_data (*pools)[MARKER_POOL],
						const char *name, const char *format,
						unsigned int i))
{
	struct marker_race_data (*pools)[MARKER_POOL];
	struct task_struct *tasks[MARKER_FIRERS] = {};
	unsigned long fires[MARKER_FIRERS] = {};
	unsigned long deadline = jiffies + MARKER_STRESS_BUDGET;
	unsigned int cpu, n = 0, i, rounds;
	struct kunit_runs runs;
	long calls, late;
	int ret = 0;

	if (num_online_cpus() < MARKER_FIRERS + 1)
		kunit_skip(test, "needs %d online CPUs", MARKER_FIRERS + 1);
	pools = kunit_kcalloc(test, 2, sizeof(*pools), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pools);
	kunit_watch_pokes(test);
	kunit_watch_runs(test, &runs, marker_fires_done, fires, MARKER_FIRERS, 1);
	marker_pair_pools = pools;
	atomic_long_set(&marker_pair_strays, 0);

	for_each_online_cpu(cpu) {
		if (n == MARKER_FIRERS)
			break;
		tasks[n] = kthread_create_on_cpu(marker_firer_fn, &fires[n], cpu,
						 "marker_firer/%u");
		if (IS_ERR(tasks[n])) {
			ret = PTR_ERR(tasks[n]);
			break;
		}
		wake_up_process(tasks[n++]);
	}
	/* The firers use this stack frame: no assertion until they stop. */
	for (rounds = 0; rounds < registrations && !ret; rounds++) {
		if (rounds && time_after(jiffies, deadline))
			break;
		ret = round(pools, "marker_test_race", MARK_NOARGS, rounds);
	}
	for (i = 0; i < n; i++)
		kthread_stop(tasks[i]);
	kunit_watch_runs_stop();
	marker_race_count(pools, &calls, &late);

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_GT(test, calls, 0);
	KUNIT_EXPECT_EQ_MSG(test, late, 0, "probes called after unregistration");
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&marker_pair_strays), 0,
			    "probes called with the data of another call target");
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, "marker_test_race"), 0);
	/* Patched sites: the firers met the int3s of the switches. */
	if (IS_ENABLED(CONFIG_X86_POKE_SITES))
		KUNIT_EXPECT_GT_MSG(test, runs.in_int3, 0,
				    "no fire ran the site while its INT3s were in");
	kunit_info(test, "%u of %u rounds, %lu + %lu + %lu fires (%lu through the int3 handler), %ld probe calls\n",
		   rounds, registrations, fires[0], fires[1], fires[2], runs.in_int3, calls);
}

/*
 * Three CPUs fire a marker while this one registers and unregisters a probe
 * 10^4 times (a fifth of that at boot).
 */
static void marker_concurrent_register(struct kunit *test)
{
	marker_test_concurrent(test, kunit_stress_volume(MARKER_REGISTRATIONS),
			       marker_race_round);
}

#define MARKER_PAIR_ROUNDS	200

/*
 * The same with up to three fast probes, whose calls go straight to the
 * only one, to marker_probe_pair() with two and to marker_probe_triple()
 * with three, 200 times (a fifth at boot): besides no late call, no probe
 * gets the data of another call target (a probe's with the pair's or the
 * triple's, or the other way round).
 */
static void marker_concurrent_pair(struct kunit *test)
{
	marker_test_concurrent(test, kunit_stress_volume(MARKER_PAIR_ROUNDS),
			       marker_pair_round);
}

#define MARKER_MODULE_RELOADS	100

/* The other side of marker_module_race(). */
struct marker_registrar {
	struct marker_race_data (*pools)[MARKER_POOL];
	unsigned int rounds;
	int ret;
};

static int marker_registrar_fn(void *data)
{
	struct marker_registrar *r = data;

	while (!kthread_should_stop() && !r->ret) {
		r->ret = marker_race_round(r->pools, "marker_test_module_race", "%d",
					   r->rounds);
		if (!r->ret)
			r->ret = imv_set(marker_kunit_imv, r->rounds & 1 ? 2 : 1);
		r->rounds++;
	}
	return 0;
}

/*
 * A module with marker and immediate sites is loaded and unloaded 100 times
 * (a fifth of that at boot), its own kthreads firing its sites, while
 * another CPU registers and unregisters probes on its marker and flips the
 * immediate value it reads.
 */
static void marker_module_race(struct kunit *test)
{
	char **load = (char *[]){ "/sbin/modprobe", "marker_kunit_mod", "fire=2", NULL };
	char **unload = (char *[]){ "/sbin/rmmod", "marker_kunit_mod", NULL };
	unsigned int reloads = kunit_stress_volume(MARKER_MODULE_RELOADS);
	struct marker_registrar r = {};
	struct task_struct *task;
	long calls, late;
	unsigned int i;
	int ret = 0;

	r.pools = kunit_kcalloc(test, 2, sizeof(*r.pools), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, r.pools);
	if (kunit_run_program(load))
		kunit_skip(test, "modprobe marker_kunit_mod failed: needs /sbin/modprobe");
	kunit_unload_module(test, "marker_kunit_mod");

	task = kthread_run(marker_registrar_fn, &r, "marker_registrar");
	KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	/* The registrar uses this stack frame: stop it before any assertion. */
	for (i = 0; i < reloads && !ret; i++) {
		ret = kunit_run_program(load);
		if (!ret)
			ret = kunit_run_program(unload);
	}
	kthread_stop(task);
	marker_race_count(r.pools, &calls, &late);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "modprobe or rmmod failed at reload %u", i);
	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_GT(test, calls, 0);
	KUNIT_EXPECT_EQ_MSG(test, late, 0, "probes called after unregistration");
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, "marker_test_module_race"), 0);
	KUNIT_EXPECT_EQ(test, imv_set(marker_kunit_imv, 1), 0);
	kunit_info(test, "%u reloads, %u registrations, %ld probe calls\n",
		   reloads, r.rounds, calls);
}

/* Counted by the probe of marker_kunit_mod, loaded with probe=1. */
atomic_long_t marker_kunit_probe_calls;
EXPORT_SYMBOL_NS_GPL(marker_kunit_probe_calls, MARKER_KUNIT_NS);

static noinline void marker_test_fire_probe_module(int value)
{
	MARK(marker_test_probe_module, "%d", value);
}

/* What firing kthreads call, and how many calls they have made. */
struct marker_test_firing {
	void (*fire)(int value);
	atomic_long_t fires;
};

/* Calls @data's function until stopped; counts the calls. */
static int marker_test_firer(void *data)
{
	struct marker_test_firing *f = data;
	unsigned long n = 0;

	while (!kthread_should_stop()) {
		f->fire(n);
		atomic_long_inc(&f->fires);
		/* Lets a single-threaded emulator switch to the other vCPUs. */
		cpu_relax();
		if (!(++n % 1024))
			cond_resched_tasks_rcu_qs();
	}
	return 0;
}

/* Waits for @n more fires: progress, not time, so no timeout. */
static void marker_test_wait_fires(atomic_long_t *fires, long n)
{
	long target = atomic_long_read(fires) + n;

	while (atomic_long_read(fires) < target)
		usleep_range(100, 200);
}

#define MARKER_PROBE_MODULE_RELOADS	20
#define MARKER_PROBE_MODULE_FIRES	1000

/*
 * A probe in a module: marker_kunit_mod, loaded with probe=1, connects it
 * in its init, and disconnects it in its exit, followed by
 * marker_synchronize_unregister(). Three CPUs fire the marker while the
 * module is loaded and unloaded 20 times: the probe gets every fire made
 * while the module is there (but those already under way when it came),
 * and none once it is gone; its text is freed then, a late call would
 * oops.
 */
static void marker_probe_module_unload(struct kunit *test)
{
	char **loads[] = {
		(char *[]){ "/sbin/modprobe", "marker_kunit_mod", "probe=1", NULL },
		(char *[]){ "/sbin/modprobe", "marker_kunit_mod", "probe=1", "fast=1", NULL },
	};
	char **load = loads[0];
	char **unload = (char *[]){ "/sbin/rmmod", "marker_kunit_mod", NULL };
	unsigned int reloads = kunit_stress_volume(MARKER_PROBE_MODULE_RELOADS);
	struct task_struct *firers[MARKER_FIRERS];
	struct marker_test_firing firing = { .fire = marker_test_fire_probe_module };
	long calls, min_calls = LONG_MAX, late = 0;
	unsigned int i, n;
	int ret = 0;

	if (kunit_run_program(load))
		kunit_skip(test, "modprobe marker_kunit_mod failed: needs /sbin/modprobe");
	kunit_unload_module(test, "marker_kunit_mod");

	for (n = 0; n < ARRAY_SIZE(firers); n++) {
		firers[n] = kthread_run(marker_test_firer, &firing,
					"marker_probe_mod/%u", n);
		if (IS_ERR(firers[n])) {
			ret = PTR_ERR(firers[n]);
			break;
		}
	}
	/* The firers use this stack frame: no assertion until they stop. */
	/* Every other load connects a fast probe, which the sites call straight. */
	for (i = 0; i < reloads && !ret; i++) {
		load = loads[i % ARRAY_SIZE(loads)];
		calls = atomic_long_read(&marker_kunit_probe_calls);
		ret = kunit_run_program(load);
		if (ret)
			break;
		marker_test_wait_fires(&firing.fires, MARKER_PROBE_MODULE_FIRES);
		ret = kunit_run_program(unload);
		calls = atomic_long_read(&marker_kunit_probe_calls) - calls;
		min_calls = min(min_calls, calls);
		calls = atomic_long_read(&marker_kunit_probe_calls);
		marker_test_wait_fires(&firing.fires, MARKER_PROBE_MODULE_FIRES);
		late += atomic_long_read(&marker_kunit_probe_calls) - calls;
	}
	while (n--)
		kthread_stop(firers[n]);

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "modprobe or rmmod failed at reload %u", i);
	KUNIT_EXPECT_EQ(test, i, reloads);
	KUNIT_EXPECT_GE(test, min_calls, MARKER_PROBE_MODULE_FIRES - MARKER_FIRERS);
	KUNIT_EXPECT_EQ_MSG(test, late, 0, "probe calls once its module was gone");
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, "marker_test_probe_module"), 0);
	kunit_info(test, "%u reloads, %ld fires, %ld probe calls, at least %ld per load\n",
		   reloads, atomic_long_read(&firing.fires),
		   atomic_long_read(&marker_kunit_probe_calls), min_calls);
}

#ifdef CONFIG_MARKER_SITES

#ifdef CONFIG_X86_POKE_SITES		/* x86-64 */

#define MARKER_GUARD_OPCODE	0x83	/* cmpl $imm8, %esp */
#define MARKER_GUARD_MODRM	0xfc
#define MARKER_GUARD_IMM	4	/* where the guard's immediate is */

/*
 * A site's bytes, as <linux/marker.h> documents them. A near site (a short
 * jb, a probe block in reach of a jmp rel8 from the slot) only ever has
 * its slot written, a far one only its guard's immediate (@switched: the
 * first byte a switch writes).
 */
struct marker_test_site {
	u8 *code;
	u8 *probe_block;
	unsigned int size;
	bool near;
	u8 *switched;
};

static void marker_test_decode_site(struct kunit *test, u8 *code,
				    struct marker_test_site *site)
{
	long rel;

	site->code = code;
	KUNIT_ASSERT_EQ(test, code[2], MARKER_GUARD_OPCODE);
	KUNIT_ASSERT_EQ(test, code[3], MARKER_GUARD_MODRM);
	if (code[5] == 0x72) {
		site->size = 7;
		site->probe_block = code + 7 + (s8)code[6];
	} else {
		KUNIT_ASSERT_EQ(test, code[5], 0x0f);
		KUNIT_ASSERT_EQ(test, code[6], 0x82);
		site->size = 11;
		site->probe_block = code + 11 + *(s32 *)(code + 7);
	}
	rel = site->probe_block - (code + 2);
	site->near = site->size == 7 && rel >= S8_MIN && rel <= S8_MAX;
	site->switched = site->near ? code : code + 2;
}

/* Off: a near site is one 7-byte NOP; a far one runs its pattern, not taken. */
static void marker_test_expect_off(struct kunit *test, const struct marker_test_site *site)
{
	KUNIT_EXPECT_EQ(test, site->code[0], site->near ? 0x0f : 0x66);
	KUNIT_EXPECT_EQ(test, site->code[1], site->near ? 0x1f : 0x90);
	KUNIT_EXPECT_EQ(test, site->code[MARKER_GUARD_IMM], 0);
}

/* On: a near site jumps to its probe block; a far one takes its jb. */
static void marker_test_expect_on(struct kunit *test, const struct marker_test_site *site)
{
	if (site->near) {
		KUNIT_EXPECT_EQ(test, site->code[0], JMP8_INSN_OPCODE);
		KUNIT_EXPECT_PTR_EQ(test, site->code + 2 + (s8)site->code[1],
				    site->probe_block);
	} else {
		KUNIT_EXPECT_EQ(test, site->code[0], 0x66);
		KUNIT_EXPECT_EQ(test, site->code[1], 0x90);
	}
	KUNIT_EXPECT_EQ(test, site->code[MARKER_GUARD_IMM], site->near ? 0 : 0xff);
}

/* Where each instruction of a site starts. */
static const unsigned int marker_test_insn_offsets[] = { 0, 2, 5 };

/* The instruction right before @code, decoding @fn from its start. */
static void *marker_test_insn_before(struct kunit *test, void *fn, void *code)
{
	void *addr = fn, *prev = NULL;
	struct insn insn;

	while (addr < code) {
		KUNIT_ASSERT_EQ_MSG(test, insn_decode_kernel(&insn, addr), 0,
				    "cannot decode %pS", addr);
		prev = addr;
		addr += insn.length;
	}
	KUNIT_ASSERT_PTR_EQ(test, addr, code);
	KUNIT_ASSERT_NOT_NULL(test, prev);
	return prev;
}

/*
 * Puts a breakpoint on the instruction of @site that a switch writes (its
 * slot or its guard), or (@slot) what it held.
 */
static void marker_test_break_slot(struct marker_test_site *site, bool set, u32 *slot)
{
	if (set)
		*slot = site->switched[0];
	kunit_poke_text_byte(site->switched, set ? INT3_INSN_OPCODE : *slot);
}

/* Puts a breakpoint on the recorded call at @call, or (@insn) what it held. */
static void marker_test_break_call(u8 *call, bool set, u32 *insn)
{
	if (set)
		*insn = call[0];
	kunit_poke_text_byte(call, set ? INT3_INSN_OPCODE : *insn);
}

#else				/* arm64 */

/* nop */
#define MARKER_TEST_NOP		0xd503201f

/* A site's instruction and its entry, as <linux/marker.h> documents them. */
struct marker_test_site {
	u8 *code;
	u8 *probe_block;
	unsigned int size;
};

static u32 marker_test_insn(const void *addr)
{
	return le32_to_cpu(*(const __le32 *)addr);
}

/*
 * The site at @code, a site of the kernel's table: its slot, whatever it
 * holds, and the probe block its entry records, in 4-byte units from the
 * slot (struct site_entry), which must be in the slot's function.
 */
static void marker_test_decode_site(struct kunit *test, u8 *code,
				    struct marker_test_site *site)
{
	const struct site_entry *e;
	unsigned long size, offset;
	long block;

	for (e = __start___marker_sites; e < __stop___marker_sites; e++)
		if (site_entry_code(e) == code && e->size == MARKER_ENTRY_SITE)
			break;
	KUNIT_ASSERT_TRUE_MSG(test, e < __stop___marker_sites, "no site at %pS", code);
	KUNIT_ASSERT_EQ(test, e->len, AARCH64_INSN_SIZE);
	KUNIT_ASSERT_NE(test, e->target, 0);
	site->code = code;
	site->size = e->len;
	site->probe_block = code + 4 * e->target;
	if (!IS_ENABLED(CONFIG_KALLSYMS))
		return;
	KUNIT_ASSERT_TRUE(test, kallsyms_lookup_size_offset((unsigned long)code, &size,
							    &offset));
	block = (long)offset + 4L * e->target;
	KUNIT_EXPECT_TRUE_MSG(test, block >= 0 && block < (long)size,
			      "the probe block of %pS, %+d, is not in its function", code,
			      4 * e->target);
}

static void marker_test_expect_off(struct kunit *test, const struct marker_test_site *site)
{
	KUNIT_EXPECT_EQ_MSG(test, marker_test_insn(site->code), MARKER_TEST_NOP,
			    "slot %08x is no NOP", marker_test_insn(site->code));
}

/* The slot of @site is a B to its probe block. */
static void marker_test_expect_on(struct kunit *test, const struct marker_test_site *site)
{
	u32 slot = marker_test_insn(site->code);

	KUNIT_ASSERT_TRUE_MSG(test, aarch64_insn_is_b(slot), "slot %08x is no B", slot);
	KUNIT_EXPECT_PTR_EQ(test, site->code + aarch64_get_branch_offset(slot),
			    site->probe_block);
}

static const unsigned int marker_test_insn_offsets[] = { 0 };

/* The instruction right before @code, in @fn. */
static void *marker_test_insn_before(struct kunit *test, void *fn, void *code)
{
	KUNIT_ASSERT_TRUE(test, code - AARCH64_INSN_SIZE >= fn);
	return code - AARCH64_INSN_SIZE;
}

/* Puts a breakpoint in the slot of @site, or (@slot) what it held. */
static void marker_test_break_slot(struct marker_test_site *site, bool set, u32 *slot)
{
	if (set)
		*slot = marker_test_insn(site->code);
	kunit_poke_text_insn(site->code, set ? BRK64_OPCODE_KPROBES : *slot);
}

/* Puts a breakpoint on the recorded call at @call, or (@insn) what it held. */
static void marker_test_break_call(u8 *call, bool set, u32 *insn)
{
	if (set)
		*insn = marker_test_insn(call);
	kunit_poke_text_insn(call, set ? BRK64_OPCODE_KPROBES : *insn);
}

#endif

/* The bytes of @site of marker @name off, on, and off again. */
static void marker_test_layout(struct kunit *test, const char *name,
			       struct marker_test_site *site)
{
	kunit_info(test, "%s off: %*ph\n", name, site->size, site->code);
	marker_test_expect_off(test, site);
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	kunit_info(test, "%s on:  %*ph\n", name, site->size, site->code);
	marker_test_expect_on(test, site);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	marker_test_expect_off(test, site);
}

#ifdef CONFIG_X86_POKE_SITES
/* marker_test_basic, in a small function, has a near site (x86-64). */
static void marker_test_expect_near(struct kunit *test, const struct marker_test_site *site)
{
	KUNIT_EXPECT_TRUE_MSG(test, site->near, "marker_test_basic's site is far");
}

/* How many of the @n sites at @code are far. */
static unsigned int marker_test_far_sites(struct kunit *test, void **code, unsigned int n)
{
	struct marker_test_site site;
	unsigned int i, far = 0;

	for (i = 0; i < n; i++) {
		marker_test_decode_site(test, code[i], &site);
		far += !site.near;
	}
	return far;
}

/*
 * A far site of marker_test_many, whose 1024 copies make a function where
 * most probe blocks are out of reach of a jmp rel8 (x86-64).
 */
static void marker_test_far_layout(struct kunit *test)
{
	void **code = kunit_kcalloc(test, 1024, sizeof(*code), GFP_KERNEL);
	struct marker_test_site site;
	unsigned int i, n, far;

	KUNIT_ASSERT_NOT_NULL(test, code);
	n = marker_get_sites("marker_test_many", code, 1024);
	KUNIT_ASSERT_GE(test, n, 1);
	far = marker_test_far_sites(test, code, min(n, 1024U));
	kunit_info(test, "marker_test_many: %u far sites of %u\n", far, n);
	for (i = 0; i < min(n, 1024U); i++) {
		marker_test_decode_site(test, code[i], &site);
		if (!site.near)
			break;
	}
	KUNIT_ASSERT_LT_MSG(test, i, min(n, 1024U), "no far site to check");
	marker_test_layout(test, "marker_test_many", &site);

	/* The stress cases fire a near and a far site of marker_test_race. */
	KUNIT_ASSERT_EQ(test, marker_get_sites("marker_test_race", code, 2), 2);
	far = marker_test_far_sites(test, code, 2);
	KUNIT_EXPECT_EQ_MSG(test, far, 1, "marker_test_race: %u far sites of 2", far);
}
#else
static void marker_test_expect_near(struct kunit *test, const struct marker_test_site *site)
{
}

static void marker_test_far_layout(struct kunit *test)
{
}
#endif

/*
 * The bytes of a site off, on, and off again; on x86-64, of a near site
 * (marker_test_basic, in a small function) and of a far one.
 */
static void marker_site_layout(struct kunit *test)
{
	struct marker_test_site site;
	void *code;

	KUNIT_ASSERT_EQ(test, marker_get_sites("marker_test_basic", &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	marker_test_expect_near(test, &site);
	marker_test_layout(test, "marker_test_basic", &site);
	marker_test_far_layout(test);
}

#ifdef CONFIG_X86_POKE_SITES

/* The bytes of a site that a switch may write: its jump slot and its guard. */
#define MARKER_SWITCHED_BYTES	5

/*
 * The rounds of the batch that takes @site from @from to @to: an int3 on
 * the one instruction a switch writes (the slot of a near site, the guard
 * of a far one) in front of the old bytes, then of the new ones, then the
 * new site.
 */
static void marker_test_switch_rounds(const struct marker_test_site *site,
				      u8 (*rounds)[KUNIT_OBSERVED_BYTES], const u8 *from,
				      const u8 *to)
{
	unsigned int r;

	memcpy(rounds[0], from, MARKER_SWITCHED_BYTES);
	memcpy(rounds[1], to, MARKER_SWITCHED_BYTES);
	memcpy(rounds[2], to, MARKER_SWITCHED_BYTES);
	for (r = 0; r < 2; r++)
		rounds[r][site->switched - site->code] = INT3_INSN_OPCODE;
}

/*
 * A switch on and off as every CPU sees it, in the IPI of each round of the
 * patcher: the one instruction that changes (the slot of this near site)
 * goes through the three steps, and no other byte of the site moves, so
 * that a CPU entering the site or sitting in it only ever finds whole
 * instructions.
 */
static void marker_switch_cpus_see_every_step(struct kunit *test)
{
	u8 off[MARKER_SWITCHED_BYTES], on[MARKER_SWITCHED_BYTES];
	u8 rounds[3][KUNIT_OBSERVED_BYTES] = {};
	struct kunit_text_observer *o;
	struct marker_test_site site;
	void *code;

	KUNIT_ASSERT_EQ(test, marker_get_sites("marker_test_basic", &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	memcpy(off, site.code, sizeof(off));

	o = kunit_observe_text(test, site.code, sizeof(off));
	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_basic", "%d",
						    marker_test_count, &marker_test_p1), 0);
	kunit_observe_stop(NULL);
	marker_test_expect_on(test, &site);
	memcpy(on, site.code, sizeof(on));
	marker_test_switch_rounds(&site, rounds, off, on);
	kunit_expect_rounds_seen(test, o, rounds, ARRAY_SIZE(rounds));

	o = kunit_observe_text(test, site.code, sizeof(on));
	KUNIT_ASSERT_EQ(test, marker_probe_unregister("marker_test_basic",
						      marker_test_count, &marker_test_p1), 0);
	kunit_observe_stop(NULL);
	marker_test_expect_off(test, &site);
	marker_test_switch_rounds(&site, rounds, on, off);
	kunit_expect_rounds_seen(test, o, rounds, ARRAY_SIZE(rounds));
	kunit_info(test, "%u CPUs watched the site off (%*ph) and on (%*ph)\n",
		   num_online_cpus(), (int)sizeof(off), off, (int)sizeof(on), on);
}

#endif /* CONFIG_X86_POKE_SITES */

/*
 * Where the recorded call of a marker of at most MARKER_REG_ARGS arguments
 * goes with two fast probes: marker_probe_pair(), but for a kCFI kernel,
 * whose iterator calls them since the pair's indirect calls carry no type
 * hash.
 */
static void *marker_test_two_fast_call(void)
{
	return MARKER_KCFI ? (void *)marker_probe_iterate_regs : (void *)marker_probe_pair;
}

/* The same with three fast probes: marker_probe_triple(), but for kCFI. */
static void *marker_test_three_fast_call(void)
{
	return MARKER_KCFI ? (void *)marker_probe_iterate_regs : (void *)marker_probe_triple;
}

/*
 * The recorded call of a site goes straight to the only probe while it is
 * a fast one, with the data of that probe; to marker_probe_va_one() while
 * it is a va_list one; to marker_probe_pair() while it has two fast probes
 * (the marker has one argument; with kCFI, to marker_probe_iterate_regs());
 * to marker_probe_iterate(), which it was built to call, otherwise.
 * _MARK() sites have none.
 */
static void marker_direct_call(struct kunit *test)
{
	marker_fast_probe_func *fast = marker_test_fast_count;
	const char *name = "marker_test_basic";
	struct marker_test_site site;
	struct marker_gp_state gp;
	void *code;

	KUNIT_ASSERT_EQ(test, marker_get_sites(name, &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	KUNIT_ASSERT_EQ(test, marker_get_calls(name, NULL, 0), 1);
	marker_test_expect_calls(test, name, marker_probe_iterate);

	/* 0 -> 1 fast: on, straight to the probe */
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, "%d", fast, &marker_test_p1), 0);
	marker_test_expect_on(test, &site);
	marker_test_expect_calls(test, name, fast);
	marker_test_fire_expect(test, 4, 4, 0);
	/* 1 -> 2: the iterator calls both */
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p2), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_test_fire_expect(test, 4, 8, 4);
	/* 2 -> 1 fast: straight again */
	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p2), 0);
	marker_test_expect_calls(test, name, fast);
	marker_test_fire_expect(test, 4, 12, 4);
	/*
	 * The same probe with other data: the pair of fast probes, then
	 * straight with the data left, once a grace period has passed since
	 * the sites' data changed.
	 */
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, "%d", fast, &marker_test_p2), 0);
	marker_test_expect_calls(test, name, marker_test_two_fast_call());
	marker_test_fire_expect(test, 4, 16, 8);
	get_state_synchronize_rcu_full(&gp);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &marker_test_p1), 0);
	KUNIT_EXPECT_TRUE_MSG(test, poll_state_synchronize_rcu_full(&gp),
			      "the calls went straight to the probe with new data at once");
	marker_test_expect_calls(test, name, fast);
	marker_test_fire_expect(test, 4, 16, 12);
	/* 1 -> 0: off, back to the iterator */
	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &marker_test_p2), 0);
	marker_test_expect_off(test, &site);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_synchronize_unregister();
	marker_test_fire_expect(test, 4, 16, 12);
	/*
	 * A va_list probe alone: marker_probe_va_one(), which calls the
	 * registry's copy of it; with a fast one beside it, the iterator;
	 * alone again, marker_probe_va_one() with that copy; off, the
	 * iterator. Another probe goes into the copy only a grace period
	 * after the calls last went to marker_probe_va_one(): a CPU still in
	 * it could call one probe with the other's data.
	 */
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	marker_test_expect_on(test, &site);
	marker_test_expect_calls(test, name, marker_probe_va_one);
	marker_test_fire_expect(test, 4, 20, 12);
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, "%d", fast, &marker_test_p2), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_test_fire_expect(test, 4, 24, 16);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &marker_test_p2), 0);
	marker_test_expect_calls(test, name, marker_probe_va_one);
	marker_test_fire_expect(test, 4, 28, 16);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p1), 0);
	marker_test_expect_off(test, &site);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	get_state_synchronize_rcu_full(&gp);
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p2), 0);
	KUNIT_EXPECT_TRUE_MSG(test, poll_state_synchronize_rcu_full(&gp),
			      "marker_probe_va_one() got another probe at once");
	marker_test_expect_calls(test, name, marker_probe_va_one);
	marker_test_fire_expect(test, 4, 28, 20);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p2), 0);
	marker_test_expect_off(test, &site);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_synchronize_unregister();

	KUNIT_EXPECT_EQ(test, marker_get_calls("marker_test_plain", NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, marker_get_calls("marker_test_noargs", NULL, 0), 1);
}

/* What the probes of marker_test_regs saw. */
struct marker_test_regs_seen {
	int calls;
	int order;	/* the number of calls of both probes at this one's last */
	int i;
	u64 u;
	const char *s;
	void *ret;	/* where a fast probe returned to, at its last call */
	const struct marker *marker;	/* what a fast probe got */
	void *call_private;
};

static int marker_test_regs_calls;

static noinline void marker_test_fire_regs(int i, u64 u, const char *s)
{
	MARK_PRIVATE(marker_test_regs, &marker_test_regs_calls, "i %d u %llu s %s", i, u, s);
}

/*
 * Leaves garbage in every argument register, as any C function may: what
 * calls a probe and then another must give the second its arguments again.
 */
static __always_inline void marker_test_clobber_arg_regs(void)
{
#if defined(CONFIG_X86_64)
	asm volatile("movq $-1, %%rsi\n\tmovq $-1, %%rdx\n\tmovq $-1, %%rcx\n\t"
		     "movq $-1, %%r8\n\tmovq $-1, %%r9"
		     : : : "rsi", "rdx", "rcx", "r8", "r9");
#elif defined(CONFIG_ARM64)
	asm volatile("mov x1, #-1\n\tmov x2, #-1\n\tmov x3, #-1\n\t"
		     "mov x4, #-1\n\tmov x5, #-1"
		     : : : "x1", "x2", "x3", "x4", "x5");
#endif
}

static void marker_test_regs_fast(void *probe_private, void *call_private,
				  const struct marker *marker, ...)
{
	struct marker_test_regs_seen *seen = probe_private;
	va_list args;

	va_start(args, marker);
	seen->i = va_arg(args, int);
	seen->u = va_arg(args, u64);
	seen->s = va_arg(args, const char *);
	va_end(args);
	seen->ret = __builtin_return_address(0);
	seen->marker = marker;
	seen->call_private = call_private;
	seen->calls++;
	seen->order = ++marker_test_regs_calls;
	marker_test_clobber_arg_regs();
}

static void marker_test_regs_va(void *probe_private, void *call_private,
				const char *fmt, va_list *args)
{
	struct marker_test_regs_seen *seen = probe_private;

	seen->i = va_arg(*args, int);
	seen->u = va_arg(*args, u64);
	seen->s = va_arg(*args, const char *);
	seen->call_private = call_private;
	seen->calls++;
	seen->order = ++marker_test_regs_calls;
}

static void marker_test_expect_regs_seen(struct kunit *test,
					 const struct marker_test_regs_seen *seen,
					 int calls, int i, u64 u, const char *s)
{
	KUNIT_EXPECT_EQ(test, seen->calls, calls);
	KUNIT_EXPECT_EQ(test, seen->i, i);
	KUNIT_EXPECT_EQ(test, seen->u, u);
	KUNIT_EXPECT_PTR_EQ(test, seen->s, s);
	KUNIT_EXPECT_PTR_EQ(test, seen->call_private, (void *)&marker_test_regs_calls);
}

/*
 * The probe that a recorded call goes straight to, and the last probe of
 * marker_probe_pair() or marker_probe_triple(), which they jump to, return
 * to the site itself: no frame of the pair, the triple or an iterator stays
 * between them.
 */
static void marker_test_expect_return_to_site(struct kunit *test,
					      const struct marker_test_regs_seen *seen)
{
	char sym[KSYM_SYMBOL_LEN];

	if (!IS_ENABLED(CONFIG_MARKER_SITES) || !IS_ENABLED(CONFIG_KALLSYMS))
		return;
	sprint_symbol_no_offset(sym, (unsigned long)seen->ret);
	KUNIT_EXPECT_TRUE_MSG(test, strstarts(sym, "marker_test_fire_regs"),
			      "the probe returned to %pS, not to the site", seen->ret);
}

/*
 * Each fast probe leaves garbage in the argument registers when it returns,
 * and every probe checks what it got, call_private included.
 *
 * A marker of three arguments: with two fast probes its call goes to
 * marker_probe_pair(), with three to marker_probe_triple() (with kCFI, both
 * to marker_probe_iterate_regs()), with four to marker_probe_iterate_regs();
 * each gives every probe the exact arguments, in registration order. With a
 * va_list probe too, the call goes to marker_probe_iterate(), and all get
 * them; without it, back to the pair; with one fast probe, the call is
 * straight; off, it is marker_probe_iterate() again. A marker of
 * MARKER_MAX_ARGS arguments keeps marker_probe_iterate() with two, three
 * and four fast probes (four would reach the iterator of registers), and
 * each of four gets all its arguments, in registration order.
 */
static void marker_regs_iterator(struct kunit *test)
{
	struct marker_test_regs_seen f1 = {}, f2 = {}, f3 = {}, f4 = {}, va = {};
	static struct marker_test_decoded max[4];
	marker_fast_probe_func *fast = marker_test_regs_fast;
	const char *name = "marker_test_regs";
	static const char s1[] = "one", s2[] = "two";
	const u64 u = 0xfedcba9876543210ULL;
	bool iterate = true;
	unsigned int n;

	KUNIT_ASSERT_EQ(test, marker_get_calls(name, NULL, 0), 1);
	marker_test_regs_calls = 0;
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, fast, &f1), 0);
	marker_test_expect_calls(test, name, fast);
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, fast, &f2), 0);
	marker_test_expect_calls(test, name, marker_test_two_fast_call());
	marker_test_fire_regs(-7, u, s1);
	marker_test_expect_regs_seen(test, &f1, 1, -7, u, s1);
	marker_test_expect_regs_seen(test, &f2, 1, -7, u, s1);
	KUNIT_EXPECT_EQ(test, f1.order, 1);
	KUNIT_EXPECT_EQ(test, f2.order, 2);
	/* The first probe left garbage in the registers: the second got the site's. */
	KUNIT_EXPECT_NOT_NULL(test, f1.marker);
	if (f1.marker)
		KUNIT_EXPECT_STREQ(test, f1.marker->name, name);
	KUNIT_EXPECT_PTR_EQ(test, f2.marker, f1.marker);
	if (marker_test_two_fast_call() == (void *)marker_probe_pair)
		marker_test_expect_return_to_site(test, &f2);

	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, fast, &f3), 0);
	marker_test_expect_calls(test, name, marker_test_three_fast_call());
	marker_test_fire_regs(9, ~u, s2);
	marker_test_expect_regs_seen(test, &f1, 2, 9, ~u, s2);
	marker_test_expect_regs_seen(test, &f2, 2, 9, ~u, s2);
	marker_test_expect_regs_seen(test, &f3, 1, 9, ~u, s2);
	KUNIT_EXPECT_EQ(test, f1.order, 3);
	KUNIT_EXPECT_EQ(test, f2.order, 4);
	KUNIT_EXPECT_EQ(test, f3.order, 5);
	KUNIT_EXPECT_PTR_EQ(test, f2.marker, f1.marker);
	KUNIT_EXPECT_PTR_EQ(test, f3.marker, f1.marker);
	if (marker_test_three_fast_call() == (void *)marker_probe_triple)
		marker_test_expect_return_to_site(test, &f3);

	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL, fast, &f4), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate_regs);
	marker_test_fire_regs(-1, u >> 1, s1);
	marker_test_expect_regs_seen(test, &f1, 3, -1, u >> 1, s1);
	marker_test_expect_regs_seen(test, &f2, 3, -1, u >> 1, s1);
	marker_test_expect_regs_seen(test, &f3, 2, -1, u >> 1, s1);
	marker_test_expect_regs_seen(test, &f4, 1, -1, u >> 1, s1);
	KUNIT_EXPECT_EQ(test, f4.order, 9);
	KUNIT_EXPECT_PTR_EQ(test, f4.marker, f1.marker);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &f4), 0);
	marker_test_expect_calls(test, name, marker_test_three_fast_call());
	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &f3), 0);
	marker_test_expect_calls(test, name, marker_test_two_fast_call());

	KUNIT_ASSERT_EQ(test, marker_probe_register(name, NULL, marker_test_regs_va, &va), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_test_fire_regs(INT_MIN, U64_MAX, s2);
	marker_test_expect_regs_seen(test, &f1, 4, INT_MIN, U64_MAX, s2);
	marker_test_expect_regs_seen(test, &f2, 4, INT_MIN, U64_MAX, s2);
	marker_test_expect_regs_seen(test, &va, 1, INT_MIN, U64_MAX, s2);
	KUNIT_EXPECT_EQ(test, va.order, 12);

	KUNIT_ASSERT_EQ(test, marker_probe_unregister(name, marker_test_regs_va, &va), 0);
	marker_test_expect_calls(test, name, marker_test_two_fast_call());
	marker_test_fire_regs(3, 4, s1);
	marker_test_expect_regs_seen(test, &f1, 5, 3, 4, s1);
	marker_test_expect_regs_seen(test, &f2, 5, 3, 4, s1);
	KUNIT_EXPECT_EQ(test, f1.order, 13);
	KUNIT_EXPECT_EQ(test, f2.order, 14);

	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &f1), 0);
	marker_test_expect_calls(test, name, fast);
	marker_test_fire_regs(5, 6, s2);
	marker_test_expect_regs_seen(test, &f2, 6, 5, 6, s2);
	marker_test_expect_return_to_site(test, &f2);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister_fast(name, fast, &f2), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_synchronize_unregister();
	marker_test_fire_regs(7, 8, s1);
	KUNIT_EXPECT_EQ(test, f1.calls + f2.calls + f3.calls + f4.calls + va.calls, 15);

	name = "marker_test_max";
	memset(max, 0, sizeof(max));
	for (n = 0; n < ARRAY_SIZE(max); n++) {
		KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL,
								 marker_test_fast_decode,
								 &max[n]), 0);
		if (n)
			iterate &= marker_test_expect_calls(test, name, marker_probe_iterate);
	}
	/*
	 * Anywhere else, the probes would read most of the eight arguments,
	 * the string among them, from the frame of a function that passes on
	 * three: the case reports the call rather than oops.
	 */
	if (iterate)
		marker_test_fire_decoded(true, max);
	for (n = 0; iterate && n < ARRAY_SIZE(max); n++) {
		KUNIT_EXPECT_EQ_MSG(test, max[n].calls, 1, "probe %u of marker_test_max", n + 1);
		KUNIT_EXPECT_EQ_MSG(test, max[n].order, n + 1, "probe %u of marker_test_max",
				    n + 1);
		marker_test_expect_decoded(test, &max[n], max, true);
	}
	for (n = 0; n < ARRAY_SIZE(max); n++)
		KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, marker_test_fast_decode,
								   &max[n]), 0);
	marker_synchronize_unregister();
}

/*
 * The recorded call of a module's marker: as for the kernel's, on x86-64.
 * An arm64 module may reach the kernel through a PLT only, whose calls are
 * never rewritten (they go on calling the iterator, which calls every
 * probe): there, only what the probes get is checked.
 */
static void marker_test_expect_module_calls(struct kunit *test, const char *name, void *fn)
{
	if (!IS_ENABLED(CONFIG_X86_64) || !IS_ENABLED(CONFIG_MARKER_SITES))
		return;
	KUNIT_EXPECT_EQ(test, marker_get_calls(name, NULL, 0), 1);
	marker_test_expect_calls(test, name, fn);
}

/* Which data each call of marker_test_fast_where() got, and its value. */
struct marker_test_where {
	atomic_t n;
	void *probe_private[8];
	int value[8];
};

static struct marker_test_where marker_test_where;

/* Records its data without reading it: wrong data is a failed case, not an oops. */
static void marker_test_fast_where(void *probe_private, void *call_private,
				   const struct marker *marker, ...)
{
	struct marker_test_where *w = &marker_test_where;
	int i = atomic_fetch_inc(&w->n);
	va_list args;

	if (i >= (int)ARRAY_SIZE(w->value))
		return;
	w->probe_private[i] = probe_private;
	va_start(args, marker);
	w->value[i] = va_arg(args, int);
	va_end(args);
}

/* The calls of marker_test_fast_where() since the last check are @calls. */
static void marker_test_expect_where(struct kunit *test, int *seen, int value,
				     void * const *calls, int n)
{
	struct marker_test_where *w = &marker_test_where;
	int i;

	KUNIT_ASSERT_EQ(test, atomic_read(&w->n), *seen + n);
	for (i = 0; i < n; i++) {
		/* Wrong data: the next hit would take the pair through it. */
		KUNIT_ASSERT_PTR_EQ_MSG(test, w->probe_private[*seen + i], calls[i],
					"call %d of %d of the hit of %d", i + 1, n, value);
		KUNIT_EXPECT_EQ(test, w->value[*seen + i], value);
	}
	*seen += n;
}

/*
 * Fast probes of a module's marker, registered while the module is not
 * loaded: its coming site calls straight to the only one, with that
 * probe's data; to the pair (the iterator of registers with kCFI) for two,
 * and straight to the one left, with its own data, when the other goes.
 * The probe records the data it gets, so that wrong data fails the case.
 */
static void marker_module_fast_probes(struct kunit *test)
{
	marker_fast_probe_func *fast = marker_test_fast_where;
	void *p1 = &marker_test_p1, *p2 = &marker_test_p2;
	const char *name = "marker_test_module";
	void (*fire)(int value);
	int seen = 0;

	memset(&marker_test_where, 0, sizeof(marker_test_where));
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, MARKER_KUNIT_MOD_FORMAT, fast, p1),
			0);
	kunit_load_module(test, "marker_kunit_mod");
	fire = symbol_get(marker_kunit_mod_fire);
	KUNIT_ASSERT_NOT_NULL(test, fire);
	marker_test_expect_module_calls(test, name, fast);
	fire(1);
	marker_test_expect_where(test, &seen, 1, (void *[]){ p1 }, 1);
	symbol_put(marker_kunit_mod_fire);
	kunit_unload_module(test, "marker_kunit_mod");

	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, MARKER_KUNIT_MOD_FORMAT, fast, p2),
			0);
	kunit_load_module(test, "marker_kunit_mod");
	fire = symbol_get(marker_kunit_mod_fire);
	KUNIT_ASSERT_NOT_NULL(test, fire);
	marker_test_expect_module_calls(test, name, marker_test_two_fast_call());
	fire(2);
	marker_test_expect_where(test, &seen, 2, (void *[]){ p1, p2 }, 2);

	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, fast, p1), 0);
	marker_test_expect_module_calls(test, name, fast);
	fire(3);
	marker_test_expect_where(test, &seen, 3, (void *[]){ p2 }, 1);

	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, fast, p2), 0);
	marker_synchronize_unregister();
	fire(4);
	marker_test_expect_where(test, &seen, 4, NULL, 0);
	symbol_put(marker_kunit_mod_fire);
	kunit_unload_module(test, "marker_kunit_mod");
	KUNIT_EXPECT_EQ(test, marker_test_find(test, name).rows, 0);
}

/* How long the holder waits for the replacement: a registration takes ms. */
#define MARKER_TEST_HOLD_NS	(5 * NSEC_PER_SEC)

static void marker_test_holder_probe(void *probe_private, void *call_private,
				     const struct marker *marker, ...)
{
	struct marker_test_holder *h = probe_private;
	const size_t from = offsetof(struct marker_probes, nr);
	u64 start = local_clock();

	if (h->calls++)
		return;
	h->old = rcu_dereference_sched(marker->probes);
	if (h->old->nr == 2)
		memcpy(h->copy, h->old, sizeof(h->copy));
	atomic_set_release(&h->inside, 1);
	while (!atomic_read_acquire(&h->replaced) &&
	       local_clock() - start < MARKER_TEST_HOLD_NS)
		cpu_relax();
	h->swapped = rcu_dereference_sched(marker->probes) != h->old;
	h->nr_after = READ_ONCE(h->old->nr);
	h->private_after = READ_ONCE(h->old->probe[0].probe_private);
	h->intact = h->nr_after == 2 &&
		    !memcmp(h->copy + from, (const u8 *)h->old + from, sizeof(h->copy) - from);
}

static int marker_test_holder_firer(void *data)
{
	struct marker_test_holder *h = data;

	marker_test_fire_basic(5);
	complete(&h->fired);
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/*
 * A replaced probe array is freed after a grace period: a site that is
 * calling through it goes on reading it. The holder probe, first of a fast
 * and a va_list probe (so that marker_probe_iterate() walks the array),
 * waits on another CPU while this one registers a third probe, which
 * replaces the array without waiting for a grace period; then it reads
 * the old array, and the iterator goes on to the va_list probe there. An
 * array freed at once is freed memory by then (KASAN fails the case); a
 * registration that waited for the holder would not have replaced it.
 */
static void marker_probes_freed_after_gp(struct kunit *test)
{
	const char *name = "marker_test_basic";
	struct marker_test_holder *h = &marker_test_holder;
	struct task_struct *firer;
	unsigned int cpu, other;
	int ret;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs 2 online CPUs");
	memset(h, 0, sizeof(*h));
	init_completion(&h->fired);
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p2), 0);
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, "%d", marker_test_holder_probe,
							 h), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);

	/* This task registers on one CPU, the firer holds the array on another. */
	migrate_disable();
	cpu = smp_processor_id();
	other = cpumask_any_but(cpu_online_mask, cpu);
	firer = kthread_create_on_cpu(marker_test_holder_firer, h, other, "marker_holder/%u");
	if (IS_ERR(firer)) {
		migrate_enable();
		KUNIT_FAIL(test, "kthread_create_on_cpu: %ld", PTR_ERR(firer));
		goto out;
	}
	wake_up_process(firer);
	while (!atomic_read_acquire(&h->inside) && !completion_done(&h->fired))
		usleep_range(100, 200);
	ret = marker_probe_register(name, "%d", marker_test_count, &marker_test_p3);
	atomic_set_release(&h->replaced, 1);
	wait_for_completion(&h->fired);
	kthread_stop(firer);
	migrate_enable();

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, h->calls, 1);
	KUNIT_EXPECT_TRUE_MSG(test, h->swapped,
			      "the registration did not replace the array while a probe ran");
	KUNIT_EXPECT_EQ(test, h->nr_after, 2);
	KUNIT_EXPECT_PTR_EQ(test, h->private_after, &marker_test_p2);
	KUNIT_EXPECT_TRUE_MSG(test, h->intact,
			      "the replaced array changed before a grace period had passed");
	/* The iterator ended with the old array: its first probe, not the third. */
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p2.calls), 1);
	KUNIT_EXPECT_EQ(test, marker_test_p2.last, 5);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p3.calls), 0);
	if (!ret)
		KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
							      &marker_test_p3), 0);
out:
	KUNIT_EXPECT_EQ(test, marker_probe_unregister(name, marker_test_count,
						      &marker_test_p2), 0);
	KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, marker_test_holder_probe,
							   h), 0);
	marker_synchronize_unregister();
}

/* What a probe of marker_test_reg4 saw. */
struct marker_test_reg4_seen {
	unsigned int calls;
	int i;
	u64 u;
	const char *s;
	long l;
};

/*
 * MARKER_REG_ARGS + 1 arguments: the last one is on the stack of the
 * site's variadic call on x86-64, past what marker_probe_iterate_regs(),
 * marker_probe_pair() and marker_probe_triple() pass on.
 */
static noinline void marker_test_fire_reg4(int i, u64 u, const char *s, long l)
{
	MARK(marker_test_reg4, "i %d u %llu s %s l %ld", i, u, s, l);
}

static void marker_test_reg4_fast(void *probe_private, void *call_private,
				  const struct marker *marker, ...)
{
	struct marker_test_reg4_seen *seen = probe_private;
	va_list args;

	va_start(args, marker);
	seen->i = va_arg(args, int);
	seen->u = va_arg(args, u64);
	seen->s = va_arg(args, const char *);
	seen->l = va_arg(args, long);
	va_end(args);
	seen->calls++;
}

/*
 * A marker of one argument more than MARKER_REG_ARGS, with one to four
 * fast probes (two and three reach the pair and the triple, four the
 * iterator of registers, if a check is wrong): its call goes straight to the
 * only one, then to marker_probe_iterate(), never to the pair, the triple
 * or the iterator of registers
 * (built with clang, it records no call, and always calls the iterator);
 * each probe gets every argument, the last one included, at each hit.
 */
static void marker_reg_args_limit(struct kunit *test)
{
	struct marker_test_reg4_seen seen[4] = {};
	const char *name = "marker_test_reg4";
	const char *s = "four";
	unsigned int n, k;

	BUILD_BUG_ON(MARKER_REG_ARGS + 1 != 4);
	/* With clang, a site that passes arguments on the stack records no call. */
	KUNIT_ASSERT_EQ(test, marker_get_calls(name, NULL, 0),
			__marker_call_recordable(MARKER_REG_ARGS + 1) ? 1 : 0);
	for (n = 1; n <= ARRAY_SIZE(seen); n++) {
		KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, NULL,
								 marker_test_reg4_fast,
								 &seen[n - 1]), 0);
		marker_test_expect_calls(test, name, n == 1 ? (void *)marker_test_reg4_fast :
								(void *)marker_probe_iterate);
		marker_test_fire_reg4(-(int)n, U64_MAX - n, s, LONG_MIN + n);
		for (k = 0; k < n; k++) {
			KUNIT_EXPECT_EQ_MSG(test, seen[k].calls, n - k, "probe %u of %u", k + 1, n);
			KUNIT_EXPECT_EQ_MSG(test, seen[k].i, -(int)n, "probe %u of %u", k + 1, n);
			KUNIT_EXPECT_EQ_MSG(test, seen[k].u, U64_MAX - n, "probe %u of %u",
					    k + 1, n);
			KUNIT_EXPECT_PTR_EQ_MSG(test, seen[k].s, s, "probe %u of %u", k + 1, n);
			KUNIT_EXPECT_EQ_MSG(test, seen[k].l, LONG_MIN + n, "probe %u of %u",
					    k + 1, n);
		}
	}
	for (n = 0; n < ARRAY_SIZE(seen); n++)
		KUNIT_EXPECT_EQ(test, marker_probe_unregister_fast(name, marker_test_reg4_fast,
								   &seen[n]), 0);
	marker_synchronize_unregister();
}

/* 4^5 = 1024 inlined copies of one MARK(): 1024 sites of one marker. */
static __always_inline void marker_fire_4(int v)
{
	MARK(marker_test_many, "%d", v);
	MARK(marker_test_many, "%d", v + 1);
	MARK(marker_test_many, "%d", v + 2);
	MARK(marker_test_many, "%d", v + 3);
}

static __always_inline void marker_fire_16(int v)
{
	marker_fire_4(v);
	marker_fire_4(v + 4);
	marker_fire_4(v + 8);
	marker_fire_4(v + 12);
}

static __always_inline void marker_fire_64(int v)
{
	marker_fire_16(v);
	marker_fire_16(v + 16);
	marker_fire_16(v + 32);
	marker_fire_16(v + 48);
}

static __always_inline void marker_fire_256(int v)
{
	marker_fire_64(v);
	marker_fire_64(v + 64);
	marker_fire_64(v + 128);
	marker_fire_64(v + 192);
}

/*
 * __used: marker_site_layout reads its sites even where every case that
 * calls it skips (no kretprobes to watch the patcher with).
 */
static noinline __used void marker_fire_1024(void)
{
	marker_fire_256(0);
	marker_fire_256(256);
	marker_fire_256(512);
	marker_fire_256(768);
}

#ifdef CONFIG_X86_POKE_SITES
static int marker_test_cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/*
 * The pages that hold the patch points of @name's @nr sites (a jump slot
 * and the guard after it, each from its first byte to its last) and of their
 * recorded calls.
 */
static unsigned int marker_test_patched_pages(struct kunit *test, const char *name,
					      unsigned int nr)
{
	void **code = kunit_kcalloc(test, 2 * nr, sizeof(*code), GFP_KERNEL);
	unsigned long *pages = kunit_kcalloc(test, 4 * nr, sizeof(*pages), GFP_KERNEL);
	unsigned int i, n = 0, distinct = 0;
	int sites, calls;

	KUNIT_ASSERT_NOT_NULL(test, code);
	KUNIT_ASSERT_NOT_NULL(test, pages);
	sites = marker_get_sites(name, code, nr);
	calls = marker_get_calls(name, code + nr, nr);
	KUNIT_ASSERT_EQ(test, sites, nr);
	KUNIT_ASSERT_GE(test, calls, 0);
	for (i = 0; i < nr; i++) {
		pages[n++] = (unsigned long)code[i] >> PAGE_SHIFT;
		pages[n++] = ((unsigned long)code[i] + JMP8_INSN_SIZE + 2) >> PAGE_SHIFT;
	}
	for (i = 0; i < calls; i++) {
		pages[n++] = (unsigned long)code[nr + i] >> PAGE_SHIFT;
		pages[n++] = ((unsigned long)code[nr + i] + CALL_INSN_SIZE - 1) >> PAGE_SHIFT;
	}
	sort(pages, n, sizeof(*pages), marker_test_cmp_ulong, NULL);
	for (i = 0; i < n; i++)
		distinct += !i || pages[i] != pages[i - 1];
	return distinct;
}

/*
 * Each of the three steps of a batch maps each page that holds patch
 * points of @name once (or a pair of pages), not once per site.
 */
static void marker_test_expect_mappings(struct kunit *test, const char *name,
					unsigned int nr, unsigned long before)
{
	unsigned int pages = marker_test_patched_pages(test, name, nr);
	unsigned long mappings = kunit_poke_mappings(test) - before;

	KUNIT_EXPECT_GE(test, mappings, 3);
	KUNIT_EXPECT_LE(test, mappings, 3 * pages);
	kunit_info(test, "%lu mappings (%u pages)\n", mappings, pages);
}
#endif

/*
 * All 1024 sites of a marker switch in one batch of the patcher: three
 * sync rounds on x86-64, one on arm64, and the slot (or guard) and call of
 * each site written once. On arm64 the round comes after every write of the batch:
 * no instruction is written after it began. GCC may copy a site into the
 * probe block before it (arm64 does, for most of them): then there are
 * more sites, all switched.
 */
static void marker_batch_1024_sites(struct kunit *test)
{
	unsigned int n = marker_get_sites("marker_test_many", NULL, 0);
	struct kunit_poke_counts before, after;
#ifdef CONFIG_X86_POKE_SITES
	unsigned long mappings;
#endif

	KUNIT_ASSERT_GE(test, n, 1024);
	kunit_watch_pokes(test);
#ifdef CONFIG_X86_POKE_SITES
	mappings = kunit_poke_mappings(test);
#endif
	before = kunit_poke_counts();
	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_many", "%d",
						    marker_test_count, &marker_test_p1), 0);
	after = kunit_poke_counts();
	KUNIT_EXPECT_EQ(test, after.batches - before.batches, 1);
	KUNIT_EXPECT_EQ(test, after.sync_rounds - before.sync_rounds,
			KUNIT_SYNC_ROUNDS_PER_BATCH);
	KUNIT_EXPECT_EQ(test, after.sites - before.sites,
			marker_test_switch_points("marker_test_many", n));
	KUNIT_EXPECT_EQ_MSG(test, after.unsynced, 0,
			    "instructions written after the batch's sync round began");
	kunit_info(test, "%u sites: %lu batch, %lu sync rounds, %lu points\n", n,
		   after.batches - before.batches, after.sync_rounds - before.sync_rounds,
		   after.sites - before.sites);
#ifdef CONFIG_X86_POKE_SITES
	marker_test_expect_mappings(test, "marker_test_many", n, mappings);
#endif
	marker_fire_1024();
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1024);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, 1023);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister("marker_test_many",
						      marker_test_count, &marker_test_p1), 0);
	KUNIT_EXPECT_EQ_MSG(test, kunit_poke_counts().unsynced, 0,
			    "instructions written after the batch's sync round began");
	marker_synchronize_unregister();
	marker_fire_1024();
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1024);
}

/* kprobes refuses every instruction of a site. */
static void marker_kprobe_refused(struct kunit *test)
{
	const unsigned int *offsets = marker_test_insn_offsets;
	struct marker_test_site site;
	unsigned int i;
	void *code;
	int ret;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES");
	KUNIT_ASSERT_EQ(test, marker_get_sites("marker_test_basic", &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	for (i = 0; i < ARRAY_SIZE(marker_test_insn_offsets); i++) {
		struct kprobe kp = {
			.addr = (kprobe_opcode_t *)(site.code + offsets[i]),
			.pre_handler = marker_test_kprobe_handler,
		};

		ret = register_kprobe(&kp);
		if (!ret)
			unregister_kprobe(&kp);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "kprobe at %pS", kp.addr);
	}
	marker_test_expect_off(test, &site);
}

/* The live sites of a marker with their lengths, from marker_walk_sites(). */
struct marker_test_sites {
	const char *name;
	unsigned int nr;
	void *code[1024];
	unsigned int len[1024];
};

static int marker_test_sites_fn(const char *name, void *code, unsigned int size,
				struct module *mod, void *data)
{
	struct marker_test_sites *s = data;

	if (strcmp(name, s->name) || s->nr == ARRAY_SIZE(s->code))
		return 0;
	s->code[s->nr] = code;
	s->len[s->nr++] = size;
	return 0;
}

static struct marker_test_sites *marker_test_get_sites(struct kunit *test, const char *name)
{
	struct marker_test_sites *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->name = name;
	KUNIT_ASSERT_EQ(test, marker_walk_sites(marker_test_sites_fn, s), 0);
	return s;
}

/* Switches marker_test_many on and off until stopped; counts the rounds. */
static int marker_test_switcher(void *data)
{
	unsigned long *rounds = data;

	while (!kthread_should_stop()) {
		if (!marker_probe_register("marker_test_many", "%d", marker_test_count,
					   &marker_test_p2) &&
		    !marker_probe_unregister("marker_test_many", marker_test_count,
					     &marker_test_p2))
			(*rounds)++;
		cond_resched();
	}
	return 0;
}

/* Sites of marker_test_many whose every byte a kprobe is tried on. */
#define MARKER_KPROBE_STRIDE	4

/*
 * While a marker of 1024 sites switches on and off in a loop, so that its
 * slots and movs are int3 for a while, a kprobe on any byte of any site is
 * refused as reserved (-EINVAL), never armed: the reservation goes by the
 * site records, not by the bytes.
 */
static void marker_kprobe_refused_while_switching(struct kunit *test)
{
	struct kunit_poke_counts before, after;
	struct task_struct *switcher;
	struct marker_test_sites *s;
	unsigned long rounds = 0;
	unsigned int i, off, tried = 0;
	int ret;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES");
	s = marker_test_get_sites(test, "marker_test_many");
	KUNIT_ASSERT_EQ(test, s->nr, 1024);

	before = kunit_poke_counts();
	switcher = kthread_run(marker_test_switcher, &rounds, "marker_switcher");
	KUNIT_ASSERT_FALSE(test, IS_ERR(switcher));
	for (i = 0; i < s->nr; i += MARKER_KPROBE_STRIDE) {
		for (off = 0; off < s->len[i]; off++) {
			struct kprobe kp = {
				.addr = s->code[i] + off,
				.pre_handler = marker_test_kprobe_handler,
			};

			ret = register_kprobe(&kp);
			if (!ret)
				unregister_kprobe(&kp);
			KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "kprobe at site %u + %u (%pS)",
					    i, off, kp.addr);
			tried++;
		}
		/* Lets a single-threaded emulator run the switcher. */
		cpu_relax();
	}
	kthread_stop(switcher);
	after = kunit_poke_counts();
	KUNIT_EXPECT_GT(test, rounds, 0);
	kunit_info(test, "%u kprobes refused while the marker switched %lu times (%lu batches)\n",
		   tried, rounds, after.batches - before.batches);
}

static int marker_test_sink;
static atomic_t marker_test_kprobe_hits;

/* The store comes right before the site: every call runs it once. */
static noinline void marker_test_fire_kprobed(int value)
{
	WRITE_ONCE(marker_test_sink, value);
	MARK(marker_test_kprobed, "%d", value);
}

static int marker_test_kprobe_count(struct kprobe *p, struct pt_regs *regs)
{
	atomic_inc(&marker_test_kprobe_hits);
	return 0;
}

#define MARKER_KPROBED_SWITCHES	500

/* The calls that the firers of @data have made so far (one counter). */
static unsigned long marker_test_firing_done(void *data, unsigned int i)
{
	struct marker_test_firing *f = data;

	return atomic_long_read(&f->fires);
}

/*
 * A kprobe on the instruction right before a site, in the same function,
 * while CPUs fire the function and the site switches: every call hits the
 * kprobe exactly once, on and off, and on x86-64 the int3s of the switch
 * are all taken by the patcher's handler, none by kprobes.
 */
static void marker_site_next_to_kprobe(struct kunit *test)
{
	struct kprobe kp = { .pre_handler = marker_test_kprobe_count };
	unsigned int i, n, switches = kunit_stress_volume(MARKER_KPROBED_SWITCHES);
	struct task_struct *firers[MARKER_FIRERS];
	struct marker_test_firing firing = { .fire = marker_test_fire_kprobed };
	struct kunit_runs runs;
	struct marker_test_sites *s;
	int ret = 0;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES");
	s = marker_test_get_sites(test, "marker_test_kprobed");
	KUNIT_ASSERT_EQ(test, s->nr, 1);
	kp.addr = marker_test_insn_before(test, marker_test_fire_kprobed, s->code[0]);
	KUNIT_ASSERT_EQ_MSG(test, ftrace_location((unsigned long)kp.addr), 0,
			    "%pS is the ftrace call, not an int3 kprobe", kp.addr);
	atomic_set(&marker_test_kprobe_hits, 0);
	kunit_watch_pokes(test);
	KUNIT_ASSERT_EQ_MSG(test, register_kprobe(&kp), 0, "kprobe at %pS", kp.addr);

	kunit_watch_runs(test, &runs, marker_test_firing_done, &firing, 1, ARRAY_SIZE(firers));
	for (n = 0; n < ARRAY_SIZE(firers); n++) {
		firers[n] = kthread_run(marker_test_firer, &firing,
					"marker_kprobed/%u", n);
		if (IS_ERR(firers[n])) {
			ret = PTR_ERR(firers[n]);
			break;
		}
	}
	/* The firers use this stack frame: no assertion until they stop. */
	for (i = 0; i < switches && !ret; i++) {
		ret = marker_probe_register("marker_test_kprobed", "%d", marker_test_count,
					    &marker_test_p1);
		cpu_relax();
		if (!ret)
			ret = marker_probe_unregister("marker_test_kprobed",
						      marker_test_count, &marker_test_p1);
		cpu_relax();
	}
	for (i = 0; i < n; i++)
		kthread_stop(firers[i]);
	kunit_watch_runs_stop();
	unregister_kprobe(&kp);
	marker_synchronize_unregister();

	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_kprobe_hits),
			atomic_long_read(&firing.fires));
	KUNIT_EXPECT_GT(test, atomic_read(&marker_test_p1.calls), 0);
	KUNIT_EXPECT_LE(test, atomic_read(&marker_test_p1.calls),
			atomic_long_read(&firing.fires));
	/* x86-64: the firers met the int3s of the switches. */
	if (IS_ENABLED(CONFIG_X86_POKE_SITES))
		KUNIT_EXPECT_GT_MSG(test, runs.in_int3, 0,
				    "no call ran the site while its INT3s were in");
	kunit_info(test, "%ld calls (%lu through the int3 handler), %d kprobe hits, %d probe calls\n",
		   atomic_long_read(&firing.fires), runs.in_int3,
		   atomic_read(&marker_test_kprobe_hits), atomic_read(&marker_test_p1.calls));
}

/* A site carrying somebody else's breakpoint cannot be armed: nothing changes. */
static void marker_breakpoint_busy(struct kunit *test)
{
	const char *name = "marker_test_basic";
	struct marker_test_site site;
	u32 slot;
	void *code;

	KUNIT_ASSERT_EQ(test, marker_get_sites(name, &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	marker_test_break_slot(&site, true, &slot);
	KUNIT_EXPECT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), -EBUSY);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_test_break_slot(&site, false, &slot);
	marker_test_expect_off(test, &site);
	marker_test_fire_basic(1);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 0);
}

/* The task whose sleeps marker_test_msleep_handler() counts. */
static struct task_struct *marker_test_sleeper;
static atomic_t marker_test_sleeps;

static int marker_test_msleep_handler(struct kprobe *p, struct pt_regs *regs)
{
	if (current == READ_ONCE(marker_test_sleeper))
		atomic_inc(&marker_test_sleeps);
	return 0;
}

/* A removal of marker_test_p1's fast probe from marker_test_basic. */
struct marker_test_remover {
	int ret;
	struct completion done;
};

static int marker_test_remover_fn(void *data)
{
	struct marker_test_remover *r = data;

	r->ret = marker_probe_unregister_fast("marker_test_basic", marker_test_fast_count,
					      &marker_test_p1);
	complete(&r->done);
	return 0;
}

/*
 * Runs @task, not woken yet, a removal that ends in @done, with somebody
 * else's breakpoint on the recorded call @call of marker @name: the
 * removal must sleep and try again, @name's probe still connected, until
 * the breakpoint goes, and then end. @ret is what it returned, for the
 * message. False, with @task stopped unrun, if the kprobe that counts its
 * sleeps cannot be had.
 */
static bool marker_test_remove_under_breakpoint(struct kunit *test, const char *name,
						void *call, struct task_struct *task,
						struct completion *done, const int *ret)
{
	struct kprobe kp = {
		.symbol_name = "msleep",
		.pre_handler = marker_test_msleep_handler,
	};
	u32 held;
	int err;

	atomic_set(&marker_test_sleeps, 0);
	WRITE_ONCE(marker_test_sleeper, task);
	err = register_kprobe(&kp);
	if (err) {
		/* Not woken yet: it exits without running. */
		kthread_stop(task);
		KUNIT_FAIL(test, "kprobe on msleep: %d", err);
		return false;
	}

	/* Nothing runs the site while it holds the breakpoint. */
	marker_test_break_call(call, true, &held);
	wake_up_process(task);
	/* It meets the breakpoint, sleeps, tries again and sleeps again. */
	while (atomic_read(&marker_test_sleeps) < 2 && !completion_done(done))
		usleep_range(100, 200);
	KUNIT_EXPECT_FALSE_MSG(test, completion_done(done),
			       "the removal returned %d under the breakpoint", *ret);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	marker_test_break_call(call, false, &held);
	wait_for_completion(done);
	WRITE_ONCE(marker_test_sleeper, NULL);
	unregister_kprobe(&kp);
	return true;
}

/*
 * A removal does not fail. While somebody else's breakpoint (a debugger's)
 * is on a call that goes straight to the probe, the removal sleeps, holding
 * nothing, and tries again, the probe still connected: the call must not
 * go on to a probe whose data its owner may free next. Once the breakpoint
 * goes, the call goes back to the iterator, and the site calls nothing.
 */
static void marker_breakpoint_on_call(struct kunit *test)
{
	const char *name = "marker_test_basic";
	struct marker_test_remover r = { .ret = 1 };
	struct task_struct *task;
	void *call;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES");
	KUNIT_ASSERT_EQ(test, marker_get_calls(name, &call, 1), 1);
	KUNIT_ASSERT_EQ(test, marker_probe_register_fast(name, "%d", marker_test_fast_count,
							 &marker_test_p1), 0);
	if (!marker_test_expect_calls(test, name, marker_test_fast_count))
		return;
	init_completion(&r.done);
	task = kthread_create(marker_test_remover_fn, &r, "marker_remover");
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(task), "kthread_create: %ld", PTR_ERR(task));
	if (!marker_test_remove_under_breakpoint(test, name, call, task, &r.done, &r.ret))
		return;

	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_synchronize_unregister();
	marker_test_fire_expect(test, 2, 0, 0);
}

#ifdef CONFIG_MARKER_EVENTS
/* The removal of an instance in which a marker event is enabled. */
struct marker_test_instance_remover {
	struct trace_array *tr;
	int ret;
	struct completion done;
};

static int marker_test_instance_remover_fn(void *data)
{
	struct marker_test_instance_remover *r = data;

	trace_array_put(r->tr);
	r->ret = trace_array_destroy(r->tr);
	complete(&r->done);
	return 0;
}

/*
 * A record of a marker event whose fields leave a hole for alignment (a
 * char, then a u64) has zeros in it, not what the buffer held there: the
 * instance's buffer first takes a record of the same size from another
 * event, whose u64 covers the hole, and is reset; the next record of the
 * same CPU lands where that one was.
 */
static void marker_event_record_holes(struct kunit *test)
{
	const char *dirty = "m:markers/marker_kunit_dirty marker_test_max u=$arg3 l=$arg2";
	const char *holes = "m:markers/marker_kunit_holes marker_test_max c=$arg6 u=$arg3";
	const unsigned int c_at = sizeof(struct trace_entry), u_at = ALIGN(c_at + 1, 8);
	const u64 u = 0xfedcba9876543210ULL;
	struct ring_buffer_event *event;
	struct trace_buffer *buffer;
	struct trace_array *tr;
	unsigned int i;
	u8 *rec;
	int cpu;

	KUNIT_ASSERT_EQ_MSG(test, trace_marker_command(dirty), 0, "%s", dirty);
	if (trace_marker_command(holes)) {
		KUNIT_FAIL(test, "%s: not made", holes);
		goto out_dirty;
	}
	tr = trace_array_get_by_name("marker_kunit_holes", NULL);
	if (IS_ERR_OR_NULL(tr)) {
		KUNIT_FAIL(test, "instance marker_kunit_holes: %ld", PTR_ERR(tr));
		goto out_holes;
	}
	buffer = tr->array_buffer.buffer;

	migrate_disable();
	cpu = raw_smp_processor_id();
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, "markers", "marker_kunit_dirty", true),
			0);
	marker_test_fire_max(-42, LONG_MIN, u, "hello", NULL, 'z', 1, 2);
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, "markers", "marker_kunit_dirty", false),
			0);
	KUNIT_EXPECT_EQ(test, ring_buffer_entries_cpu(buffer, cpu), 1);
	ring_buffer_reset(buffer);
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, "markers", "marker_kunit_holes", true),
			0);
	marker_test_fire_max(-42, LONG_MIN, u, "hello", NULL, 'z', 1, 2);
	KUNIT_EXPECT_EQ(test, trace_array_set_clr_event(tr, "markers", "marker_kunit_holes", false),
			0);
	migrate_enable();

	event = ring_buffer_consume(buffer, cpu, NULL, NULL);
	if (!event) {
		KUNIT_FAIL(test, "no record of marker_kunit_holes on CPU %d", cpu);
		goto out_instance;
	}
	rec = ring_buffer_event_data(event);
	KUNIT_EXPECT_GE(test, ring_buffer_event_length(event), u_at + sizeof(u));
	KUNIT_EXPECT_EQ(test, rec[c_at], 'z');
	for (i = c_at + 1; i < u_at; i++)
		KUNIT_EXPECT_EQ_MSG(test, rec[i], 0, "byte %u of the record, between c and u", i);
	KUNIT_EXPECT_EQ(test, get_unaligned((u64 *)(rec + u_at)), u);
	KUNIT_EXPECT_NULL(test, ring_buffer_consume(buffer, cpu, NULL, NULL));

out_instance:
	trace_array_put(tr);
	KUNIT_EXPECT_EQ(test, trace_array_destroy(tr), 0);
out_holes:
	KUNIT_EXPECT_EQ(test, trace_marker_command("-:markers/marker_kunit_holes"), 0);
out_dirty:
	KUNIT_EXPECT_EQ(test, trace_marker_command("-:markers/marker_kunit_dirty"), 0);
}

/*
 * A marker event enabled in an instance alone: its probe's call goes
 * straight to it. Removing the instance under somebody else's breakpoint
 * on that call waits, holding the tracing locks, for the breakpoint to go;
 * then the instance and its file are gone, the marker is off, and a hit
 * reads nothing that went (KASAN in the debug kernel).
 */
static void marker_event_instance_under_breakpoint(struct kunit *test)
{
	const char *name = "marker_test_basic";
	struct marker_test_instance_remover r = { .ret = 1 };
	struct task_struct *task;
	void *call;
	int ret;

	KUNIT_ASSERT_EQ(test, marker_get_calls(name, &call, 1), 1);
	KUNIT_ASSERT_EQ(test, trace_marker_command("m:markers/marker_kunit_ev marker_test_basic"),
			0);
	r.tr = trace_array_get_by_name("marker_kunit", NULL);
	if (IS_ERR_OR_NULL(r.tr)) {
		KUNIT_FAIL(test, "instance marker_kunit: %ld", PTR_ERR(r.tr));
		goto out_event;
	}
	ret = trace_array_set_clr_event(r.tr, "markers", "marker_kunit_ev", true);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 1);
	marker_test_fire_basic(1);
	marker_test_fire_basic(2);
	marker_test_fire_basic(3);
	KUNIT_EXPECT_EQ(test, ring_buffer_entries(r.tr->array_buffer.buffer), 3);

	init_completion(&r.done);
	task = kthread_create(marker_test_instance_remover_fn, &r, "marker_rmdir");
	if (IS_ERR(task)) {
		KUNIT_FAIL(test, "kthread_create: %ld", PTR_ERR(task));
		goto out_instance;
	}
	if (!marker_test_remove_under_breakpoint(test, name, call, task, &r.done, &r.ret))
		goto out_instance;

	KUNIT_EXPECT_EQ(test, r.ret, 0);
	KUNIT_EXPECT_EQ(test, marker_test_nr_probes(test, name), 0);
	marker_test_expect_calls(test, name, marker_probe_iterate);
	marker_synchronize_unregister();
	marker_test_fire_basic(4);
	goto out_event;

out_instance:
	trace_array_put(r.tr);
	trace_array_destroy(r.tr);
out_event:
	KUNIT_EXPECT_EQ(test, trace_marker_command("-:markers/marker_kunit_ev"), 0);
}
#endif

#define MARKER_HOTPLUG_ROUNDS	8

static long marker_test_fire_1024_here(void *unused)
{
	marker_fire_1024();
	return 0;
}

/*
 * CPUs go offline and come back while a kthread switches the 1024 sites
 * of marker_test_many on and off: each switch stays one batch of three
 * sync rounds (one on arm64), among the CPUs online at the time, and every CPU, those
 * that came back too, then runs all 1024 sites on, and none off.
 */
static void marker_cpu_hotplug_switching(struct kunit *test)
{
	unsigned int rounds = kunit_stress_volume(MARKER_HOTPLUG_ROUNDS), i, cpu, cpus = 0;
	struct kunit_poke_counts before, after;
	struct task_struct *switcher;
	unsigned long switches = 0;
	int ret = 0;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2)
		kunit_skip(test, "needs CONFIG_HOTPLUG_CPU and 2 online CPUs");
	kunit_watch_pokes(test);
	before = kunit_poke_counts();
	switcher = kthread_run(marker_test_switcher, &switches, "marker_switcher");
	KUNIT_ASSERT_FALSE(test, IS_ERR(switcher));
	/* The switcher uses this stack frame: no assertion until it stops. */
	for (i = 0; i < rounds && !ret; i++) {
		/* Every CPU but the first, in turn. */
		cpu = 1 + i % (num_online_cpus() - 1);
		ret = remove_cpu(cpu);
		if (!ret)
			ret = add_cpu(cpu);
	}
	kthread_stop(switcher);
	after = kunit_poke_counts();

	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "CPU %u, round %u", cpu, i);
	KUNIT_EXPECT_GT(test, switches, 0);
	KUNIT_EXPECT_EQ(test, after.batches - before.batches, 2 * switches);
	KUNIT_EXPECT_EQ(test, after.sync_rounds - before.sync_rounds,
			KUNIT_SYNC_ROUNDS_PER_BATCH * (after.batches - before.batches));

	KUNIT_ASSERT_EQ(test, marker_probe_register("marker_test_many", "%d",
						    marker_test_count, &marker_test_p1), 0);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, work_on_cpu(cpu, marker_test_fire_1024_here, NULL), 0);
		cpus++;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1024 * cpus);
	KUNIT_ASSERT_EQ(test, marker_probe_unregister("marker_test_many", marker_test_count,
						      &marker_test_p1), 0);
	marker_synchronize_unregister();
	for_each_online_cpu(cpu)
		work_on_cpu(cpu, marker_test_fire_1024_here, NULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 1024 * cpus);
	kunit_info(test, "%u offline/online rounds, %lu switches (%lu batches, %lu sync rounds)\n",
		   rounds, switches, after.batches - before.batches,
		   after.sync_rounds - before.sync_rounds);
}

#ifdef CONFIG_DYNAMIC_FTRACE
static atomic_long_t marker_test_ftrace_hits;

static void notrace marker_test_ftrace_fn(unsigned long ip, unsigned long parent_ip,
					  struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	atomic_long_inc(&marker_test_ftrace_hits);
}

/*
 * A hook of the function tracer. Static, so that switching it is quick (a
 * dynamic ftrace_ops waits for RCU tasks grace periods when it goes); its
 * filter is set again by each run and never freed, since an ftrace_ops
 * cannot take a filter again after ftrace_free_filter().
 */
static struct ftrace_ops marker_test_ftrace_ops = {
	.func = marker_test_ftrace_fn,
};

/* Switches the hook on and off until stopped; counts the rounds. */
static int marker_test_ftrace_toggler(void *data)
{
	unsigned long *toggles = data;

	while (!kthread_should_stop()) {
		if (!register_ftrace_function(&marker_test_ftrace_ops) &&
		    !unregister_ftrace_function(&marker_test_ftrace_ops))
			WRITE_ONCE(*toggles, *toggles + 1);
		cond_resched();
	}
	return 0;
}

#define MARKER_FTRACE_SWITCHES	50
#define MARKER_FTRACE_TOGGLES	20
/* One switch in 10 also switches the 1024 sites of marker_test_many. */
#define MARKER_FTRACE_MANY	10

/*
 * marker_test_basic on, one call, off, one call; with @many, the 1024
 * sites of marker_test_many on, one call of marker_fire_1024(), off, in
 * between.
 */
static int marker_test_switch_both(struct kunit *test, const struct marker_test_site *site,
				   int value, bool many)
{
	int ret;

	ret = marker_probe_register("marker_test_basic", "%d", marker_test_count,
				    &marker_test_p1);
	if (ret)
		return ret;
	marker_test_expect_on(test, site);
	marker_test_fire_basic(value);
	if (many) {
		ret = marker_probe_register("marker_test_many", "%d", marker_test_count,
					    &marker_test_p2);
		marker_fire_1024();
		if (!ret)
			ret = marker_probe_unregister("marker_test_many", marker_test_count,
						      &marker_test_p2);
	}
	if (!ret)
		ret = marker_probe_unregister("marker_test_basic", marker_test_count,
					      &marker_test_p1);
	marker_test_expect_off(test, site);
	marker_test_fire_basic(value);
	return ret;
}

/*
 * Two users of text patching at once: a kthread switches a function
 * tracer hook on marker_test_fire_basic() and marker_fire_1024() on and
 * off while this one switches the markers in them (the 1024 sites one time
 * in ten), at least 50 times and until the hook has switched 20 times,
 * with exact calls and the bytes of the site checked at every step. Then
 * both are on, and each counts every call.
 */
static void marker_ftrace_while_switching(struct kunit *test)
{
	unsigned int switches = kunit_stress_volume(MARKER_FTRACE_SWITCHES);
	unsigned int toggles_min = kunit_stress_volume(MARKER_FTRACE_TOGGLES), i;
	unsigned long toggles = 0, ips[2];
	struct marker_test_site site;
	struct task_struct *toggler;
	void *code;
	int ret = 0;

	ips[0] = ftrace_location((unsigned long)marker_test_fire_basic);
	ips[1] = ftrace_location((unsigned long)marker_fire_1024);
	KUNIT_ASSERT_NE_MSG(test, ips[0], 0, "marker_test_fire_basic() is not traceable");
	KUNIT_ASSERT_NE_MSG(test, ips[1], 0, "marker_fire_1024() is not traceable");
	KUNIT_ASSERT_EQ(test, marker_get_sites("marker_test_basic", &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	KUNIT_ASSERT_EQ(test, ftrace_set_filter_ips(&marker_test_ftrace_ops, ips, 2, 0, 1), 0);

	toggler = kthread_run(marker_test_ftrace_toggler, &toggles, "marker_ftrace");
	if (IS_ERR(toggler))
		ret = PTR_ERR(toggler);
	/* The toggler uses this stack frame: no assertion until it stops. */
	for (i = 0; (i < switches || READ_ONCE(toggles) < toggles_min) && !ret; i++)
		ret = marker_test_switch_both(test, &site, i, !(i % MARKER_FTRACE_MANY));
	if (!IS_ERR(toggler))
		kthread_stop(toggler);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_GE(test, toggles, toggles_min);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), i);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p2.calls),
			1024 * DIV_ROUND_UP(i, MARKER_FTRACE_MANY));
	switches = i;

	/* Both on: the hook and the probe see every call. */
	atomic_long_set(&marker_test_ftrace_hits, 0);
	ret = register_ftrace_function(&marker_test_ftrace_ops);
	KUNIT_EXPECT_EQ(test, ret, 0);
	if (!ret) {
		KUNIT_EXPECT_EQ(test, marker_test_switch_both(test, &site, 7, true), 0);
		KUNIT_EXPECT_EQ(test, unregister_ftrace_function(&marker_test_ftrace_ops), 0);
	}
	/* marker_test_fire_basic() twice, marker_fire_1024() once. */
	KUNIT_EXPECT_EQ(test, atomic_long_read(&marker_test_ftrace_hits), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), switches + 1);
	KUNIT_EXPECT_EQ(test, marker_test_p1.last, 7);
	kunit_info(test, "%u marker switches while the hook switched %lu times\n",
		   switches, toggles);
}
#endif /* CONFIG_DYNAMIC_FTRACE */

#if defined(CONFIG_OPTPROBES) && defined(CONFIG_X86_POKE_SITES)
static int marker_test_sinks[32];

/* Four stores, each an instruction an optprobe may copy. */
static __always_inline void marker_test_sink4(unsigned int i, int value)
{
	WRITE_ONCE(marker_test_sinks[i], value + i);
	WRITE_ONCE(marker_test_sinks[i + 1], value + i + 1);
	WRITE_ONCE(marker_test_sinks[i + 2], value + i + 2);
	WRITE_ONCE(marker_test_sinks[i + 3], value + i + 3);
}

/*
 * A one-byte instruction right before the site, and more than 127 bytes
 * of code after it, so that the probe block is out of the reach of a rel8
 * jump: the slot is a 2-byte NOP when on, and the 5 bytes from the NOP on
 * are instructions an optprobe could copy, were it not for the site.
 */
static noinline void marker_test_fire_optprobed(int value)
{
	asm volatile("nop");
	MARK(marker_test_optprobed, "%d", value);
	marker_test_sink4(0, value);
	marker_test_sink4(4, value);
	marker_test_sink4(8, value);
	marker_test_sink4(12, value);
	marker_test_sink4(16, value);
	marker_test_sink4(20, value);
	marker_test_sink4(24, value);
	marker_test_sink4(28, value);
}

/* Whether @insn transfers control: an optprobe copies no such instruction. */
static bool marker_test_insn_branches(const struct insn *insn)
{
	u8 op = insn->opcode.bytes[0];

	return op == CALL_INSN_OPCODE || op == JMP32_INSN_OPCODE || op == JMP8_INSN_OPCODE ||
	       (op >= 0x70 && op <= 0x7f) || op == RET_INSN_OPCODE || op == INT3_INSN_OPCODE ||
	       op == 0xff || (op == 0x0f && (insn->opcode.bytes[1] & 0xf0) == 0x80);
}

/*
 * The first instruction from @from on whose first 5 bytes an optprobe could
 * copy: instructions that do not transfer control. Past the site comes the
 * lockdep check of MARK() (a call and a branch), under CONFIG_LOCKDEP.
 */
static void *marker_test_optimizable_from(struct kunit *test, u8 *from)
{
	unsigned int first = 0;
	u8 *addr, *p;
	struct insn insn;

	for (addr = from; addr < from + 64; addr += first) {
		for (p = addr, first = 0; p < addr + JMP32_INSN_SIZE; p += insn.length) {
			KUNIT_ASSERT_EQ(test, insn_decode_kernel(&insn, p), 0);
			if (!first)
				first = insn.length;
			if (marker_test_insn_branches(&insn))
				break;
		}
		if (p >= addr + JMP32_INSN_SIZE)
			return addr;
	}
	KUNIT_FAIL_AND_ABORT(test, "no instruction an optprobe could take after %pS", from);
	return NULL;
}

/*
 * An optprobe would replace the 5 bytes from its address with a jump. On
 * the instruction right before a site, those bytes are the site's: the
 * kprobe stays an int3, the site switches as before and every call hits
 * the kprobe. A kprobe a few instructions further, in the same function,
 * is optimized meanwhile: the optimizer ran.
 */
static void marker_optprobe_next_to_site(struct kunit *test)
{
	struct kprobe near = { .pre_handler = marker_test_kprobe_count };
	struct kprobe far = { .pre_handler = marker_test_kprobe_count };
	const char *name = "marker_test_optprobed";
	u8 near_byte, far_byte, before[12];
	struct marker_test_site site;
	void *code;
	int ret;

	KUNIT_ASSERT_EQ(test, marker_get_sites(name, &code, 1), 1);
	marker_test_decode_site(test, code, &site);
	near.addr = marker_test_insn_before(test, marker_test_fire_optprobed, code);
	KUNIT_ASSERT_LT_MSG(test, (u8 *)code - (u8 *)near.addr, JMP32_INSN_SIZE,
			    "%pS: the jump of an optprobe there would not reach the site",
			    near.addr);
	far.addr = marker_test_optimizable_from(test, site.code + site.size);

	/* On, with a NOP in the slot: the bytes an optprobe would copy decode. */
	KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
						    &marker_test_p1), 0);
	KUNIT_ASSERT_EQ_MSG(test, site.code[0], 0x66, "the probe block is within rel8 reach");
	memcpy(before, site.code, site.size);
	atomic_set(&marker_test_kprobe_hits, 0);
	KUNIT_ASSERT_EQ_MSG(test, register_kprobe(&near), 0, "kprobe at %pS", near.addr);
	ret = register_kprobe(&far);
	if (ret)
		unregister_kprobe(&near);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "kprobe at %pS", far.addr);
	wait_for_kprobe_optimizer();
	near_byte = *(u8 *)near.addr;
	far_byte = *(u8 *)far.addr;

	KUNIT_EXPECT_MEMEQ(test, site.code, before, site.size);
	marker_test_fire_optprobed(1);
	marker_test_fire_optprobed(2);
	ret = marker_probe_unregister(name, marker_test_count, &marker_test_p1);
	marker_test_fire_optprobed(3);
	unregister_kprobe(&near);
	unregister_kprobe(&far);

	KUNIT_EXPECT_EQ(test, ret, 0);
	marker_test_expect_off(test, &site);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_kprobe_hits), 6);
	KUNIT_EXPECT_EQ_MSG(test, near_byte, INT3_INSN_OPCODE,
			    "the kprobe at %pS, next to the site, was optimized", near.addr);
	KUNIT_EXPECT_EQ_MSG(test, far_byte, JMP32_INSN_OPCODE,
			    "the kprobe at %pS was not optimized: the optimizer did not run",
			    far.addr);
	kunit_info(test, "kprobe next to the site: %02x, further on: %02x\n",
		   near_byte, far_byte);
}
#endif /* CONFIG_OPTPROBES && CONFIG_X86_POKE_SITES */

/* A site whose probe block the compiler puts right after the return. */
static noinline void marker_test_fire_block(int value)
{
	MARK(marker_test_block, "%d", value);
}

#ifdef CONFIG_X86_64
/*
 * The addresses a kprobe at the entry of a probe block is tried from: the
 * instruction boundaries of @fn from 7 bytes (a near site's length) before
 * @block up to @block, decoding @fn from its start; INT3 padding, which
 * never runs, left out. Returns how many, in @addr.
 */
static unsigned int marker_test_block_probes(struct kunit *test, u8 *fn, u8 *block,
					     u8 **addr, unsigned int max)
{
	unsigned int n = 0;
	struct insn insn;
	u8 *p;

	for (p = fn; p <= block; p += insn.length) {
		KUNIT_ASSERT_EQ_MSG(test, insn_decode_kernel(&insn, p), 0,
				    "cannot decode %pS", p);
		if (p < block - 7 || insn.opcode.bytes[0] == INT3_INSN_OPCODE)
			continue;
		KUNIT_ASSERT_LT(test, n, max);
		addr[n++] = p;
	}
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_PTR_EQ_MSG(test, addr[n - 1], block,
				"the probe block at %pS is no instruction boundary", block);
	return n;
}

/*
 * Whether a kprobe at @addr, as it stands, reaches from before @block into
 * it: an optimized one (a jmp rel32) does from the 4 bytes before.
 */
static bool marker_test_kprobe_straddles(const u8 *addr, const u8 *block)
{
	return *addr == JMP32_INSN_OPCODE && addr < block &&
	       addr + JMP32_INSN_SIZE > block;
}

/* Whether a kprobe at @addr runs once per call of the probe block at @block. */
static bool marker_test_block_runs(const u8 *addr, const u8 *block)
{
	return addr == block;
}
#else
/* The first instructions of the probe block at @block, up to its call. */
static unsigned int marker_test_block_probes(struct kunit *test, u8 *fn, u8 *block,
					     u8 **addr, unsigned int max)
{
	unsigned int n;

	for (n = 0; n < max; n++) {
		addr[n] = block + n * AARCH64_INSN_SIZE;
		if (aarch64_insn_is_bl(marker_test_insn(addr[n])))
			return n + 1;
	}
	return n;
}

/* arm64 has no optimized kprobes: a kprobe is one BRK. */
static bool marker_test_kprobe_straddles(const u8 *addr, const u8 *block)
{
	return false;
}

/* Every instruction of a probe block up to its call runs once per call. */
static bool marker_test_block_runs(const u8 *addr, const u8 *block)
{
	return !aarch64_insn_is_bl(marker_test_insn(addr));
}
#endif

/*
 * Whether @addr is a byte of @site or of the recorded call of its probe
 * block, where kprobes are refused.
 */
static bool marker_test_block_site_byte(const struct marker_test_site *site, const u8 *addr)
{
	void *call;

	if (addr >= site->code && addr < site->code + site->size)
		return true;
	return marker_get_calls("marker_test_block", &call, 1) == 1 &&
	       addr >= (u8 *)call && addr < (u8 *)call + MARKER_CALL_LEN;
}

/*
 * A kprobe at @addr, armed while the marker of @site is off (@on false) or
 * on, then three calls of the site while it is on and one while it is off:
 * each site call reaches the probe, an instruction of the block that runs
 * hits the kprobe once per call on, and no kprobe, as it stands once the
 * optimizer has run, reaches from before the block into it. A kprobe on
 * the site or on the block's recorded call is refused (-EINVAL); any other
 * is taken.
 */
static void marker_test_block_kprobe(struct kunit *test, const struct marker_test_site *site,
				     u8 *addr, bool on)
{
	struct kprobe kp = { .addr = (void *)addr, .pre_handler = marker_test_kprobe_count };
	const char *name = "marker_test_block";
	u8 *block = site->probe_block;
	bool straddles;
	int ret;

	atomic_set(&marker_test_kprobe_hits, 0);
	atomic_set(&marker_test_p1.calls, 0);
	if (on)
		KUNIT_ASSERT_EQ(test, marker_probe_register(name, "%d", marker_test_count,
							    &marker_test_p1), 0);
	ret = register_kprobe(&kp);
	if (ret) {
		if (on)
			marker_probe_unregister(name, marker_test_count, &marker_test_p1);
		KUNIT_EXPECT_EQ_MSG(test, ret, -EINVAL, "kprobe at %pS", addr);
		KUNIT_EXPECT_TRUE_MSG(test, marker_test_block_site_byte(site, addr),
				      "kprobe at %pS refused (%d)", addr, ret);
		return;
	}
#ifdef CONFIG_OPTPROBES
	wait_for_kprobe_optimizer();
#endif
	straddles = marker_test_kprobe_straddles(addr, block);
	kunit_info(test, "kprobe at %pS (block %+ld), armed %s: %02x\n", addr,
		   (long)(addr - block), on ? "on" : "off", *addr);
	if (!on)
		ret = marker_probe_register(name, "%d", marker_test_count, &marker_test_p1);
	if (!ret && !straddles) {
		marker_test_fire_block(1);
		marker_test_fire_block(2);
		marker_test_fire_block(3);
		ret = marker_probe_unregister(name, marker_test_count, &marker_test_p1);
		marker_test_fire_block(4);
	} else if (!ret) {
		marker_probe_unregister(name, marker_test_count, &marker_test_p1);
	}
	unregister_kprobe(&kp);

	KUNIT_EXPECT_FALSE_MSG(test, straddles,
			       "the optprobe at %pS reaches into the probe block at %pS",
			       addr, block);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&marker_test_p1.calls), straddles ? 0 : 3);
	if (marker_test_block_runs(addr, block))
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&marker_test_kprobe_hits),
				    straddles ? 0 : 3, "kprobe at %pS", addr);
}

/*
 * Nothing may reach from before the entry of a site's probe block into it:
 * the site's branch would land inside. A near site that is off is one NOP
 * to the decoder of kprobes, which then cannot see that branch;
 * marker_text_reserved() refuses every such range, whatever the site's
 * state, and leaves the entry itself, and what ends before it, to kprobes.
 * Then kprobes on the addresses before the entry and at it (x86-64: each
 * instruction boundary from 7 bytes before; optimized where kprobes can),
 * or on the block's first instructions (arm64: plain kprobes), armed with
 * the marker off, then on.
 */
static void marker_block_entry_reserved(struct kunit *test)
{
	struct marker_test_site site;
	unsigned int i, k, n;
	u8 *addr[8], *block;
	void *code;

	if (!IS_ENABLED(CONFIG_KPROBES))
		kunit_skip(test, "needs CONFIG_KPROBES");
	KUNIT_ASSERT_EQ(test, marker_get_sites("marker_test_block", &code, 1), 1);
	marker_test_decode_site(test, code, &site);
#ifdef CONFIG_X86_64
	KUNIT_ASSERT_TRUE_MSG(test, site.near, "the site at %pS is far", code);
#endif
	block = site.probe_block;
	KUNIT_ASSERT_TRUE(test, block >= site.code + site.size || block + 8 <= site.code);

	for (k = 1; k <= 4; k++)
		KUNIT_EXPECT_EQ_MSG(test, marker_text_reserved(block - k, block + 4 - k), 1,
				    "[%pS, %pS] reaches into the block", block - k,
				    block + 4 - k);
	KUNIT_EXPECT_EQ(test, marker_text_reserved(block - 1, block), 1);
	KUNIT_EXPECT_EQ(test, marker_text_reserved(block, block), 0);
	KUNIT_EXPECT_EQ(test, marker_text_reserved(block - 1, block - 1), 0);

	n = marker_test_block_probes(test, (u8 *)marker_test_fire_block, block, addr,
				     ARRAY_SIZE(addr));
	for (i = 0; i < n; i++) {
		marker_test_block_kprobe(test, &site, addr[i], false);
		marker_test_block_kprobe(test, &site, addr[i], true);
	}
	marker_test_expect_off(test, &site);
}

#endif /* CONFIG_MARKER_SITES */

/*
 * A format and the fields marker_format_parse() makes of it, as "type name
 * conversion" joined by '|', or its refusal as "!errno offset: why".
 */
struct marker_test_format {
	const char *format;
	const char *fields;
};

static const struct marker_test_format marker_test_formats[] = {
	{ "pid %d from %d to %d", "int pid %d|int from %d|int to %d" },
	{ "prev_comm=%s prev_pid=%d", "str prev_comm %s|int prev_pid %d" },
	{ "%d:%d", "int arg0 %d|int arg1 %d" },
	{ "pid %d pid %d", "int pid %d|int arg1 %d" },
	{ "common_pid %d __x %d", "int arg0 %d|int arg1 %d" },
	{ "a_very_long_name_of_thirty_two_c %d", "int arg0 %d" },
	{ "a %u b %x c %X d %o e %i", "uint a %u|uint b %x|uint c %X|uint d %o|int e %i" },
	{ "l %ld ul %lu lx %lx z %zu zd %zd",
	  "long l %ld|ulong ul %lu|ulong lx %lx|ulong z %zu|long zd %zd" },
	{ "ll %lld ull %llu llx %llx", "s64 ll %lld|u64 ull %llu|u64 llx %llx" },
	{ "p %p px %px ps %pS psr %pSR pk %pK pb %pB",
	  "ptr p %p|ptr px %px|ptr ps %pS|ptr psr %pSR|ptr pk %pK|ptr pb %pB" },
	{ "c %c s %s", "char c %c|str s %s" },
	{ "w %-8lx q %.16s z %08x", "ulong w %-8lx|str q %.16s|uint z %08x" },
	{ "100%% done %d", "int done %d" },
	{ "h %hd hh %hhu", "int h %hd|uint hh %hhu" },
	{ MARK_NOARGS, "" },
	{ "a %d b %d c %d d %d e %d f %d g %d h %d",
	  "int a %d|int b %d|int c %d|int d %d|int e %d|int f %d|int g %d|int h %d" },
	{ "a %d b %d c %d d %d e %d f %d g %d h %d i %d",
	  "!-7 42: more conversions than MARKER_MAX_ARGS" },
	{ "w %*d", "!-22 2: '*' width or precision" },
	{ "w %.*s", "!-22 2: '*' width or precision" },
	{ "f %f", "!-22 2: conversion not supported" },
	{ "n %n", "!-22 2: conversion not supported" },
	{ "end %", "!-22 4: conversion not supported" },
	{ "j %jd", "!-22 2: length modifier not supported" },
	{ "lc %lc", "!-22 3: length modifier on %c, %s or %p" },
	{ "ip %pI4", "!-22 3: %p extension reads what the pointer points to" },
	{ "arg1 %d %d", "!-22 8: field names clash" },
	{ "w %012345678901234d", "!-22 2: conversion too long" },
};

static const char *const marker_test_types[] = {
	[MARKER_FIELD_INT] = "int", [MARKER_FIELD_UINT] = "uint",
	[MARKER_FIELD_LONG] = "long", [MARKER_FIELD_ULONG] = "ulong",
	[MARKER_FIELD_S64] = "s64", [MARKER_FIELD_U64] = "u64",
	[MARKER_FIELD_PTR] = "ptr", [MARKER_FIELD_CHAR] = "char",
	[MARKER_FIELD_STR] = "str",
};

static void marker_test_format_desc(const struct marker_test_format *t, char *desc)
{
	strscpy(desc, t->format, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(marker_test_format, marker_test_formats, marker_test_format_desc);

/* The fields of a format: types, names from the words, refusals and why. */
static void marker_format_fields(struct kunit *test)
{
	const struct marker_test_format *t = test->param_value;
	struct marker_format *mf;
	unsigned int i, len = 0;
	char *got;
	int ret;

	mf = kunit_kmalloc(test, sizeof(*mf), GFP_KERNEL);
	got = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mf);
	KUNIT_ASSERT_NOT_NULL(test, got);
	memset(mf, 0xa5, sizeof(*mf));
	ret = marker_format_parse(t->format, mf);
	if (ret) {
		KUNIT_EXPECT_EQ(test, mf->nr, 0);
		snprintf(got, PAGE_SIZE, "!%d %u: %s", ret, mf->error_pos, mf->error);
	}
	for (i = 0; !ret && i < mf->nr; i++) {
		const struct marker_field *f = &mf->field[i];

		len += scnprintf(got + len, PAGE_SIZE - len, "%s%s %s %.*s", i ? "|" : "",
				 marker_test_types[f->type], f->name, f->conv_len,
				 t->format + f->conv);
	}
	KUNIT_EXPECT_STREQ(test, got, t->fields);
}

static struct kunit_case marker_test_cases[] = {
	KUNIT_CASE(marker_disabled_calls_nothing),
#ifdef CONFIG_MARKER_SITES
	KUNIT_CASE(marker_sites_pass_entry_data),
#endif
	KUNIT_CASE(marker_probe_gets_arguments),
	KUNIT_CASE(marker_noargs_format),
	KUNIT_CASE(marker_fast_probe_gets_arguments),
	KUNIT_CASE(marker_fast_register_errors),
	KUNIT_CASE(marker_probe_transitions),
	KUNIT_CASE(marker_plain_site_calls),
	KUNIT_CASE(marker_enabled_guard),
	KUNIT_CASE(marker_register_errors),
	KUNIT_CASE(marker_register_nomem),
	KUNIT_CASE(marker_unregister_nomem),
	KUNIT_CASE_PARAM(marker_removal_nomem, marker_test_removal_gen_params),
	KUNIT_CASE(marker_module_init_fast_nomem),
	KUNIT_CASE(marker_module_sites),
	KUNIT_CASE(marker_init_text_sites),
	KUNIT_CASE(marker_module_init_text),
	KUNIT_CASE(marker_switch_off_fails),
	KUNIT_CASE(marker_fast_switch_off_fails),
	KUNIT_CASE(marker_synchronize_waits),
	KUNIT_CASE(marker_module_format_mismatch),
	KUNIT_CASE_SLOW(marker_module_orphans_nomem),
	KUNIT_CASE_SLOW(marker_probe_module_unload),
	KUNIT_CASE_PARAM(marker_format_fields, marker_test_format_gen_params),
#ifdef CONFIG_MARKER_SITES
	KUNIT_CASE(marker_site_layout),
#ifdef CONFIG_X86_POKE_SITES
	KUNIT_CASE(marker_switch_cpus_see_every_step),
#endif
	KUNIT_CASE(marker_direct_call),
	KUNIT_CASE(marker_regs_iterator),
	KUNIT_CASE(marker_reg_args_limit),
	KUNIT_CASE(marker_module_fast_probes),
	KUNIT_CASE(marker_probes_freed_after_gp),
	KUNIT_CASE(marker_batch_1024_sites),
#endif
	/*
	 * The races after the cases that assert one behaviour each: a slip
	 * that makes a racing CPU call through wrong data fails one of those
	 * first, with what it saw, where a race would oops the guest.
	 */
	KUNIT_CASE_SLOW(marker_concurrent_register),
	KUNIT_CASE_SLOW(marker_concurrent_pair),
	KUNIT_CASE_SLOW(marker_module_race),
#ifdef CONFIG_MARKER_SITES
	KUNIT_CASE(marker_kprobe_refused),
	KUNIT_CASE_SLOW(marker_kprobe_refused_while_switching),
	KUNIT_CASE_SLOW(marker_site_next_to_kprobe),
	KUNIT_CASE(marker_breakpoint_busy),
	KUNIT_CASE(marker_breakpoint_on_call),
#ifdef CONFIG_MARKER_EVENTS
	KUNIT_CASE(marker_event_record_holes),
	KUNIT_CASE_SLOW(marker_event_instance_under_breakpoint),
#endif
	KUNIT_CASE_SLOW(marker_cpu_hotplug_switching),
#ifdef CONFIG_DYNAMIC_FTRACE
	KUNIT_CASE_SLOW(marker_ftrace_while_switching),
#endif
#if defined(CONFIG_OPTPROBES) && defined(CONFIG_X86_POKE_SITES)
	KUNIT_CASE_SLOW(marker_optprobe_next_to_site),
#endif
	KUNIT_CASE_SLOW(marker_block_entry_reserved),
#endif
	{}
};

static struct kunit_suite marker_test_suite = {
	.name = "markers",
	.init = marker_test_init,
	.exit = marker_test_exit,
	.test_cases = marker_test_cases,
};

kunit_test_suite(marker_test_suite);

MODULE_DESCRIPTION("KUnit tests for kernel markers");
MODULE_LICENSE("GPL");
