// SPDX-License-Identifier: GPL-2.0
/*
 * Marker sites for the end-to-end tests of marker events
 * (guest/tests/13-markers-events.sh): each write to /proc/marker-events
 * fires sites a known number of times with known arguments.
 *
 *   hit N	N hits of mev_hit, i = 0 .. N-1:
 *		key i % 4, val -i, big i << 33, name "even"/"odd", tag 'a' + i % 3
 *   str	one hit of mev_str for each of: "short", NULL, an unmapped
 *		pointer, and a string of MEV_LONG characters
 *   strlen N	one hit of mev_str with a string of N characters (N <= MEV_LONG)
 *   noargs N	N hits of mev_noargs
 *   anon	one hit of mev_anon (fields without words: arg0, arg1)
 *   pad	one hit of mev_pad, whose fields need padding: c 'Z',
 *		big -(1 << 40) - 3, h -1234, s "pad", neg -5, and a "%%"
 *   refused	one hit of mev_refused, whose format makes no event
 *   guard	one hit of mev_guard, a marker_enabled() guard and nothing
 *		else: a marker without a format, which makes no event
 *   conv	one hit of each mev_conv_* marker, which together use every
 *		conversion, flag and length modifier marker_format_parse()
 *		takes; reading /proc/marker-events then gives, one line per
 *		marker, "NAME: " and what vsnprintf() makes of its format and
 *		arguments: what the trace must print of its record
 *   hold NAME FORMAT
 *		connects a probe that does nothing to marker NAME with
 *		FORMAT, whether NAME has sites or not: while it is there,
 *		the registry knows NAME and its format, and an event can be
 *		made on NAME before the module of its sites is loaded
 *		(guest/bench.sh, for markers_bench's bench_fp_mark); one
 *		at a time
 *   release	disconnects that probe (and so does the unload)
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define MEV_LONG	300

static char mev_long[MEV_LONG + 1];

/* What vsnprintf() printed of the formats of the last "conv". */
static char mev_conv_expected[2048];
static size_t mev_conv_len;

static __printf(1, 2) void mev_conv_expect(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	mev_conv_len += vscnprintf(mev_conv_expected + mev_conv_len,
				   sizeof(mev_conv_expected) - mev_conv_len, fmt, args);
	va_end(args);
}

/* A marker, and the line the trace must show of its hit. */
#define MEV_CONV(name, format, ...)					\
	do {								\
		MARK(name, format, __VA_ARGS__);			\
		mev_conv_expect(#name ": " format "\n", __VA_ARGS__);	\
	} while (0)

static noinline void mev_fire(unsigned int i)
{
	MARK(mev_hit, "key %u val %d big %lld name %s tag %c", i % 4, -(int)i,
	     (long long)i << 33, i % 2 ? "odd" : "even", 'a' + i % 3);
}

static noinline void mev_fire_str(const char *s)
{
	MARK(mev_str, "text %s", s);
}

static noinline void mev_fire_noargs(void)
{
	MARK(mev_noargs, MARK_NOARGS);
}

static noinline void mev_fire_anon(void)
{
	MARK(mev_anon, "%d:%d", 1, 2);
}

static noinline void mev_fire_pad(void)
{
	MARK(mev_pad, "c %c big %lld h %hd s %s neg %ld pct %% end", 'Z',
	     -(1LL << 40) - 3, (short)-1234, "pad", -5L);
}

/* A format that markers/list must escape to keep the marker on its row. */
static noinline void mev_fire_quoted(void)
{
	MARK(mev_quoted, "said \"%d\" \\ ok\n", 1);
}

static noinline void mev_fire_refused(void)
{
	static const u8 addr[4] = { 10, 0, 2, 15 };

	MARK(mev_refused, "addr %pI4", addr);
}

/* The hits of mev_guard while on: nothing can switch it on, it has no event. */
static unsigned int mev_guard_hits;
module_param(mev_guard_hits, uint, 0444);

static noinline void mev_fire_guard(void)
{
	if (marker_enabled(mev_guard))
		mev_guard_hits++;
}

/* The marker that "hold" holds a probe on, empty when none. */
static char mev_held[MARKER_NAME_MAX + 1];

static notrace void mev_hold_probe(void *probe_private, void *call_private,
				   const struct marker *marker, ...)
{
}

static void mev_release(void)
{
	marker_probe_unregister_fast(mev_held, mev_hold_probe, NULL);
	marker_synchronize_unregister();
	mev_held[0] = '\0';
}

/* "hold NAME FORMAT", @arg past "hold ". */
static int mev_hold(char *arg)
{
	char *format = strchr(arg, ' ');
	int ret;

	if (!format || mev_held[0])
		return -EINVAL;
	*format++ = '\0';
	if (strlen(arg) > MARKER_NAME_MAX)
		return -EINVAL;
	ret = marker_probe_register_fast(arg, format, mev_hold_probe, NULL);
	if (ret)
		return ret;
	strscpy(mev_held, arg);
	return 0;
}

static noinline void mev_fire_conv(void)
{
	void *fn = mev_fire_conv;

	mev_conv_len = 0;
	/* An int travels whole: %hd and %hhu narrow it when printed. */
	MEV_CONV(mev_conv_int, "d %d i %i u %u x %x X %X o %o hd %hd hhu %hhu",
		 -42, 7, 4000000000U, 0xbeef, 0xbeef, 0755, 70000, 0x1ff);
	MEV_CONV(mev_conv_long, "ld %ld lu %lu lx %lx zu %zu zd %zd lld %lld llu %llu llx %llx",
		 -5000000000L, ULONG_MAX, 0xdeadbeefcafeUL, (size_t)12345,
		 (ssize_t)-12345, LLONG_MIN, ULLONG_MAX, 0x123456789abcdefULL);
	MEV_CONV(mev_conv_flags, "w [%-8lx] q [%.3s] z [%08x] p [%+d] s [% d] a [%#x] o [%#o] c [%3c]",
		 0xabcUL, "abcdef", 0x1f, 5, 6, 0xff, 8, 'q');
	MEV_CONV(mev_conv_ptr, "p %p px %px pS %pS pSR %pSR ps %ps pK %pK pB %pB",
		 fn, fn, fn, fn, fn, fn, fn);
	/* Each h and hh conversion, from values that printing must narrow. */
	MEV_CONV(mev_conv_short, "hi %hi hu %hu hx %hx hX %hX ho %ho hhi %hhi hhx %hhx hhX %hhX",
		 70000, -1, 0x12345, 0xabcde, 0x10009, 200, 0x1ab, 0x1cd);
	/* The other conversions of each length, a precision on an integer,
	 * widths on %s and %p.
	 */
	MEV_CONV(mev_conv_rest, "li %li lX %lX lo %lo lli %lli llX %llX zi %zi ws [%8s] wp [%-20p]",
		 -7L, 0xabcdefUL, 8UL, -9LL, 0xfedcba9876ULL, (ssize_t)-3, "ab", fn);
	MEV_CONV(mev_conv_more, "hho %hho llo %llo zx %zx zX %zX zo %zo prec [%.5d] sp [%-6.2s]",
		 0x109, 64ULL, (size_t)0xabc, (size_t)0xdef, (size_t)9, 42, "xyz");
	/*
	 * Formats of at most three scalars, which a hit stores by the event's
	 * copy plan: one int and one word (the plan's shortcut), each size of
	 * field, a u64 after a char (padded), and four scalars, one too many
	 * for a plan, which walk the fields.
	 */
	MEV_CONV(mev_plan_int, "n %d", -7);
	MEV_CONV(mev_plan_word, "w %lx", 0x123456789abcUL);
	MEV_CONV(mev_plan_char, "c %c", 'Q');
	MEV_CONV(mev_plan_mixed, "c %c big %lld n %d", 'R', -(1LL << 40) - 7, -9);
	MEV_CONV(mev_plan_words, "u %u x %lx l %ld", 4000000001U, 0xfedcba987654UL, -3L);
	MEV_CONV(mev_plan_four, "a %d b %c c %llx d %u", -1, 'S', 0x123456789aULL, 77U);
}

static ssize_t mev_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	return simple_read_from_buffer(ubuf, count, ppos, mev_conv_expected, mev_conv_len);
}

static ssize_t mev_write(struct file *file, const char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	char buf[MARKER_NAME_MAX + 64], *arg;
	unsigned int i, n = 0;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	arg = strim(buf);
	if (!strncmp(arg, "hit ", 4) && !kstrtouint(arg + 4, 0, &n)) {
		for (i = 0; i < n; i++)
			mev_fire(i);
	} else if (!strcmp(arg, "str")) {
		mev_fire_str("short");
		mev_fire_str(NULL);
		mev_fire_str((const char *)ERR_PTR(-EFAULT));
		mev_fire_str(mev_long);
	} else if (!strncmp(arg, "strlen ", 7) && !kstrtouint(arg + 7, 0, &n) &&
		   n <= MEV_LONG) {
		mev_fire_str(mev_long + MEV_LONG - n);
	} else if (!strncmp(arg, "noargs ", 7) && !kstrtouint(arg + 7, 0, &n)) {
		for (i = 0; i < n; i++)
			mev_fire_noargs();
	} else if (!strcmp(arg, "anon")) {
		mev_fire_anon();
	} else if (!strcmp(arg, "pad")) {
		mev_fire_pad();
	} else if (!strcmp(arg, "quoted")) {
		mev_fire_quoted();
	} else if (!strcmp(arg, "refused")) {
		mev_fire_refused();
	} else if (!strcmp(arg, "guard")) {
		mev_fire_guard();
	} else if (!strcmp(arg, "conv")) {
		mev_fire_conv();
	} else if (!strncmp(arg, "hold ", 5)) {
		ret = mev_hold(arg + 5);
		if (ret)
			return ret;
	} else if (!strcmp(arg, "release")) {
		if (!mev_held[0])
			return -ENOENT;
		mev_release();
	} else {
		return -EINVAL;
	}
	return count;
}

static const struct proc_ops mev_proc_ops = {
	.proc_read = mev_read,
	.proc_write = mev_write,
};

static int __init mev_init(void)
{
	memset(mev_long, 'x', MEV_LONG);
	if (!proc_create("marker-events", 0600, NULL, &mev_proc_ops))
		return -ENOMEM;
	return 0;
}

static void __exit mev_exit(void)
{
	remove_proc_entry("marker-events", NULL);
	if (mev_held[0])
		mev_release();
}

module_init(mev_init);
module_exit(mev_exit);
MODULE_DESCRIPTION("Marker sites for the tests of marker events");
MODULE_LICENSE("GPL");
