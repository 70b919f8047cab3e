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
 *   refused	one hit of mev_refused, whose format has no event
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#define MEV_LONG	300

static char mev_long[MEV_LONG + 1];

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

static noinline void mev_fire_refused(void)
{
	static const u8 addr[4] = { 10, 0, 2, 15 };

	MARK(mev_refused, "addr %pI4", addr);
}

static ssize_t mev_write(struct file *file, const char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	char buf[32], *arg;
	unsigned int i, n = 0;

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
	} else if (!strcmp(arg, "refused")) {
		mev_fire_refused();
	} else {
		return -EINVAL;
	}
	return count;
}

static const struct proc_ops mev_proc_ops = {
	.proc_write = mev_write,
};

static int __init mev_init(void)
{
	memset(mev_long, 'x', MEV_LONG);
	if (!proc_create("marker-events", 0200, NULL, &mev_proc_ops))
		return -ENOMEM;
	return 0;
}

static void __exit mev_exit(void)
{
	remove_proc_entry("marker-events", NULL);
}

module_init(mev_init);
module_exit(mev_exit);
MODULE_DESCRIPTION("Marker sites for the tests of marker events");
MODULE_LICENSE("GPL");
