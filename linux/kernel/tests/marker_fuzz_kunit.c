// SPDX-License-Identifier: GPL-2.0
/*
 * A seeded fuzz of the marker registry, checked against a model.
 *
 * Random register, unregister, unregister-by-data and lookup calls, on
 * names that look like marker names (a marker with a site, names that
 * only have probes, generated names, and a few malformed ones), with
 * formats that match or do not, until at least MARKER_FUZZ_OPS calls have
 * reached the registry. A model of the registry predicts the return value
 * of every call; after each step the suite compares the model with what
 * the registry reports (marker_walk() and marker_get_private_data() for
 * every name of the pool), with the bytes of the site (on or off), and
 * with the exact number of calls each probe has had from the site.
 *
 * The seed is printed; marker_fuzz_kunit.seed=N on the command line (or
 * seed=N to modprobe, the suite being a module), or
 * /sys/module/marker_fuzz_kunit/parameters/seed, replays a run. The suite
 * uses only the exported marker API: it may be built as a module.
 */

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/marker.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/random.h>
#include <linux/string.h>

static unsigned long long seed;
module_param(seed, ullong, 0644);
MODULE_PARM_DESC(seed, "seed of the next run of the fuzz, 0 for a random one");

#define MARKER_FUZZ_OPS		10000
#define MARKER_FUZZ_SITE	"marker_fuzz_site"
#define MARKER_FUZZ_FORMAT	"%d"	/* the format of its MARK() */
#define MARKER_FUZZ_NAMES	14
#define MARKER_FUZZ_PRIVATES	4
#define MARKER_FUZZ_CONNS	(2 * MARKER_FUZZ_PRIVATES)
/* The bytes of a site that switch: the jump slot and the immediate. */
#define MARKER_FUZZ_SITE_BYTES	4

static noinline void marker_fuzz_fire(int value)
{
	MARK(marker_fuzz_site, "%d", value);
}

/* What each connection (probe, data) got from the site. */
struct marker_fuzz_calls {
	unsigned long calls;
	int last;
};

static struct marker_fuzz_calls marker_fuzz_seen[MARKER_FUZZ_CONNS];

static void marker_fuzz_probe_a(void *probe_private, void *call_private,
				const char *fmt, va_list *args)
{
	struct marker_fuzz_calls *c = probe_private;

	c->calls++;
	c->last = va_arg(*args, int);
}

static void marker_fuzz_probe_b(void *probe_private, void *call_private,
				const char *fmt, va_list *args)
{
	marker_fuzz_probe_a(probe_private, call_private, fmt, args);
}

/* Connection i: probe i / MARKER_FUZZ_PRIVATES, data i % MARKER_FUZZ_PRIVATES. */
static marker_probe_func *marker_fuzz_func(unsigned int conn)
{
	return conn < MARKER_FUZZ_PRIVATES ? marker_fuzz_probe_a : marker_fuzz_probe_b;
}

static void *marker_fuzz_private(unsigned int conn)
{
	return &marker_fuzz_seen[conn];
}

/* The model of one name of the pool. */
struct marker_fuzz_name {
	char name[MARKER_NAME_MAX + 2];
	bool valid;
	bool has_site;
	const char *format;		/* as the registry knows it, or NULL */
	unsigned int nr;
	u8 conn[MARKER_FUZZ_CONNS];	/* in registration order */
};

/* What marker_walk() reports of a name. */
struct marker_fuzz_row {
	unsigned int rows;
	struct marker_info info;
};

struct marker_fuzz {
	struct kunit *test;
	struct rnd_state rnd;
	u64 seed;
	unsigned long step;
	unsigned long registry_ops;
	struct marker_fuzz_name names[MARKER_FUZZ_NAMES];
	struct marker_fuzz_row row[MARKER_FUZZ_NAMES];
	unsigned long expect_calls[MARKER_FUZZ_CONNS];
	int expect_last[MARKER_FUZZ_CONNS];
	u8 *code;
	u8 off[MARKER_FUZZ_SITE_BYTES];
	u8 on[MARKER_FUZZ_SITE_BYTES];
	bool on_known;
	char op[128];
};

static const char * const marker_fuzz_formats[] = {
	NULL, MARKER_FUZZ_FORMAT, "%s", "value %d", "%d %d", "",
};

static u32 marker_fuzz_below(struct marker_fuzz *f, u32 n)
{
	return prandom_u32_state(&f->rnd) % n;
}

/* Characters that no C identifier has, a marker name neither. */
static const char marker_fuzz_wrong[] = "-. !/:\n\t\x7f\x80\xc0\xe9\xff";
/*
 * Latin-1 letters: the kernel's ctype counts them as alphanumeric, a C
 * compiler does not take them in an identifier.
 */
static const char marker_fuzz_latin1[] = "\xc0\xe9\xff";

/*
 * Writes a name of @len characters to @name, drawn from the characters of
 * C identifiers (a letter or '_' first); with @wrong, one of them is then
 * replaced by one of @wrong.
 *
 * The model knows whether a name is valid from how it was made (see
 * marker_fuzz_init_names()), never by checking it again the way the
 * registry does: a model that repeats the code cannot find its bug.
 */
static void marker_fuzz_gen_name(struct marker_fuzz *f, char *name, unsigned int len,
				 const char *wrong)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
	static const char any[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";
	unsigned int i;

	for (i = 0; i < len; i++)
		name[i] = i ? any[marker_fuzz_below(f, sizeof(any) - 1)] :
			      first[marker_fuzz_below(f, sizeof(first) - 1)];
	name[len] = '\0';
	if (wrong && len)
		name[marker_fuzz_below(f, len)] = wrong[marker_fuzz_below(f, strlen(wrong))];
}

static bool marker_fuzz_name_taken(const struct marker_fuzz *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f->names[i].name, f->names[n].name))
			return true;
	return false;
}

static void marker_fuzz_init_names(struct marker_fuzz *f)
{
	static const char * const fixed[] = {
		MARKER_FUZZ_SITE, "marker_fuzz_a", "marker_fuzz_b", "marker_fuzz_c",
	};
	const unsigned int longest = ARRAY_SIZE(fixed), too_long = longest + 1;
	const unsigned int empty = longest + 2, digit = longest + 3;
	struct marker_fuzz_name *n;
	const char *wrong;
	unsigned int i, gen, len;

	for (i = 0; i < MARKER_FUZZ_NAMES; i++) {
		n = &f->names[i];
		if (i < ARRAY_SIZE(fixed)) {
			strscpy(n->name, fixed[i], sizeof(n->name));
			n->valid = true;
		} else if (i == longest || i == too_long) {
			/* The longest name there may be, and one more. */
			marker_fuzz_gen_name(f, n->name, MARKER_NAME_MAX + (i == too_long),
					     NULL);
			n->valid = i == longest;
		} else if (i == empty) {
			n->name[0] = '\0';
			n->valid = false;
		} else if (i == digit) {
			/* An identifier but for its first character, a digit. */
			n->name[0] = '0' + marker_fuzz_below(f, 10);
			marker_fuzz_gen_name(f, n->name + 1, 1 + marker_fuzz_below(f, 20),
					     NULL);
			n->valid = false;
		} else {
			/*
			 * "mfz_" keeps them apart from every real marker;
			 * one in three is malformed, the first of them with
			 * a Latin-1 letter.
			 */
			gen = i - (digit + 1);
			if (gen % 3 != 1)
				wrong = NULL;
			else
				wrong = gen == 1 ? marker_fuzz_latin1 : marker_fuzz_wrong;
			do {
				len = 1 + marker_fuzz_below(f, 20);
				memcpy(n->name, "mfz_", 4);
				marker_fuzz_gen_name(f, n->name + 4, len, wrong);
			} while (marker_fuzz_name_taken(f, i));
			n->valid = !wrong;
		}
		n->has_site = i == 0;
		n->format = n->has_site ? MARKER_FUZZ_FORMAT : NULL;
	}
}

static int marker_fuzz_find_conn(const struct marker_fuzz_name *n, unsigned int conn)
{
	unsigned int i;

	for (i = 0; i < n->nr; i++)
		if (n->conn[i] == conn)
			return i;
	return -1;
}

static void marker_fuzz_drop_conn(struct marker_fuzz_name *n, int i)
{
	memmove(&n->conn[i], &n->conn[i + 1], n->nr - i - 1);
	n->nr--;
	/* A name without sites is forgotten with its last probe. */
	if (!n->nr && !n->has_site)
		n->format = NULL;
}

/* Biased towards the marker with a site and the names with probes. */
static struct marker_fuzz_name *marker_fuzz_pick_name(struct marker_fuzz *f)
{
	u32 r = marker_fuzz_below(f, 10);

	if (r < 4)
		return &f->names[0];
	if (r < 7)
		return &f->names[1 + marker_fuzz_below(f, 3)];
	return &f->names[marker_fuzz_below(f, MARKER_FUZZ_NAMES)];
}

static const char *marker_fuzz_pick_format(struct marker_fuzz *f,
					   const struct marker_fuzz_name *n)
{
	u32 r = marker_fuzz_below(f, 10);

	if (r < 4)
		return NULL;
	if (r < 8 && n->format)
		return n->format;
	return marker_fuzz_formats[marker_fuzz_below(f, ARRAY_SIZE(marker_fuzz_formats))];
}

/* Fails the case, naming the seed, the step and its operation. */
static __printf(2, 3) bool marker_fuzz_fail(struct marker_fuzz *f, const char *fmt, ...)
{
	char msg[192];
	va_list args;

	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	KUNIT_FAIL(f->test, "seed %llu step %lu, %s: %s", f->seed, f->step, f->op, msg);
	return false;
}

static bool marker_fuzz_expect_ret(struct marker_fuzz *f, int ret, int expected)
{
	if (ret == expected)
		return true;
	return marker_fuzz_fail(f, "returned %d, the model says %d", ret, expected);
}

static bool marker_fuzz_register(struct marker_fuzz *f)
{
	struct marker_fuzz_name *n = marker_fuzz_pick_name(f);
	const char *format = marker_fuzz_pick_format(f, n);
	unsigned int conn = marker_fuzz_below(f, MARKER_FUZZ_CONNS);
	int expected = 0;

	snprintf(f->op, sizeof(f->op), "register(\"%.40s\", \"%s\", conn %u)",
		 n->name, format ?: "(null)", conn);
	if (!n->valid)
		expected = -EINVAL;
	else if (format && n->format && strcmp(format, n->format))
		expected = -EPERM;
	else if (marker_fuzz_find_conn(n, conn) >= 0)
		expected = -EBUSY;
	if (n->valid)
		f->registry_ops++;
	if (!marker_fuzz_expect_ret(f, marker_probe_register(n->name, format,
							     marker_fuzz_func(conn),
							     marker_fuzz_private(conn)),
				    expected))
		return false;
	if (!expected) {
		n->conn[n->nr++] = conn;
		if (format && !n->format)
			n->format = format;
	}
	return true;
}

static bool marker_fuzz_unregister(struct marker_fuzz *f)
{
	struct marker_fuzz_name *n = marker_fuzz_pick_name(f);
	unsigned int conn;
	int i;

	/* Mostly a connection that is there. */
	if (n->nr && marker_fuzz_below(f, 4))
		conn = n->conn[marker_fuzz_below(f, n->nr)];
	else
		conn = marker_fuzz_below(f, MARKER_FUZZ_CONNS);
	i = marker_fuzz_find_conn(n, conn);
	snprintf(f->op, sizeof(f->op), "unregister(\"%.40s\", conn %u)", n->name, conn);
	f->registry_ops++;
	if (!marker_fuzz_expect_ret(f, marker_probe_unregister(n->name,
							       marker_fuzz_func(conn),
							       marker_fuzz_private(conn)),
				    i >= 0 ? 0 : -ENOENT))
		return false;
	if (i >= 0)
		marker_fuzz_drop_conn(n, i);
	return true;
}

/* Whether the registry has connection @conn on @name. */
static bool marker_fuzz_has(const char *name, unsigned int conn)
{
	void *data;
	int num;

	for (num = 0; ; num++) {
		data = marker_get_private_data(name, marker_fuzz_func(conn), num);
		if (IS_ERR(data))
			return false;
		if (data == marker_fuzz_private(conn))
			return true;
	}
}

/*
 * Removes the first connection found, whatever the marker: when several
 * names have it, the registry picks one, and the model follows.
 */
static bool marker_fuzz_unregister_data(struct marker_fuzz *f)
{
	unsigned int conn = marker_fuzz_below(f, MARKER_FUZZ_CONNS);
	unsigned int i, candidates = 0, gone = 0;
	struct marker_fuzz_name *n;
	int ret, pos, found = -1;

	snprintf(f->op, sizeof(f->op), "unregister_private_data(conn %u)", conn);
	for (i = 0; i < MARKER_FUZZ_NAMES; i++)
		candidates += marker_fuzz_find_conn(&f->names[i], conn) >= 0;
	f->registry_ops++;
	ret = marker_probe_unregister_private_data(marker_fuzz_func(conn),
						   marker_fuzz_private(conn));
	if (!marker_fuzz_expect_ret(f, ret, candidates ? 0 : -ENOENT))
		return false;
	for (i = 0; i < MARKER_FUZZ_NAMES; i++) {
		n = &f->names[i];
		if (marker_fuzz_find_conn(n, conn) < 0 || marker_fuzz_has(n->name, conn))
			continue;
		gone++;
		found = i;
	}
	if (gone != !!candidates)
		return marker_fuzz_fail(f, "removed %u connections of %u", gone, candidates);
	if (found >= 0) {
		n = &f->names[found];
		pos = marker_fuzz_find_conn(n, conn);
		marker_fuzz_drop_conn(n, pos);
	}
	return true;
}

/* marker_get_private_data(), with a @num that may be past the end. */
static bool marker_fuzz_lookup(struct marker_fuzz *f)
{
	struct marker_fuzz_name *n = marker_fuzz_pick_name(f);
	unsigned int func = marker_fuzz_below(f, 2), i;
	int num = (int)marker_fuzz_below(f, MARKER_FUZZ_PRIVATES + 2) - 1;
	void *expected = ERR_PTR(-ENOENT), *data;
	int left = num;

	for (i = 0; i < n->nr && num >= 0; i++) {
		if (n->conn[i] / MARKER_FUZZ_PRIVATES != func || left--)
			continue;
		expected = marker_fuzz_private(n->conn[i]);
		break;
	}
	snprintf(f->op, sizeof(f->op), "get_private_data(\"%.40s\", probe %u, %d)",
		 n->name, func, num);
	f->registry_ops++;
	data = marker_get_private_data(n->name, marker_fuzz_func(func * MARKER_FUZZ_PRIVATES),
				       num);
	if (data == expected)
		return true;
	return marker_fuzz_fail(f, "returned %p, the model says %p", data, expected);
}

static void marker_fuzz_fire_site(struct marker_fuzz *f)
{
	struct marker_fuzz_name *n = &f->names[0];
	int value = (int)prandom_u32_state(&f->rnd);
	unsigned int times = 1 + marker_fuzz_below(f, 3), i;

	snprintf(f->op, sizeof(f->op), "fire %u times with %d", times, value);
	for (i = 0; i < times; i++)
		marker_fuzz_fire(value);
	for (i = 0; i < n->nr; i++) {
		f->expect_calls[n->conn[i]] += times;
		f->expect_last[n->conn[i]] = value;
	}
}

/* What marker_walk() reports of the names of the pool. */
static int marker_fuzz_walk_fn(const struct marker_info *info, void *data)
{
	struct marker_fuzz *f = data;
	unsigned int i;

	for (i = 0; i < MARKER_FUZZ_NAMES; i++) {
		if (strcmp(info->name, f->names[i].name))
			continue;
		f->row[i].rows++;
		f->row[i].info = *info;
	}
	return 0;
}

/* The data of @func's connections to @n, in order: their number. */
static unsigned int marker_fuzz_expected_data(const struct marker_fuzz_name *n,
					      unsigned int func, void **data)
{
	unsigned int i, nr = 0;

	for (i = 0; i < n->nr; i++)
		if (n->conn[i] / MARKER_FUZZ_PRIVATES == func)
			data[nr++] = marker_fuzz_private(n->conn[i]);
	return nr;
}

static bool marker_fuzz_check_name(struct marker_fuzz *f, unsigned int i)
{
	const struct marker_fuzz_name *n = &f->names[i];
	const struct marker_fuzz_row *row = &f->row[i];
	const struct marker_info *info = &row->info;
	void *data[MARKER_FUZZ_CONNS], *got;
	unsigned int func, nr, num;
	marker_probe_func *probe;

	if (row->rows != (n->has_site || n->nr))
		return marker_fuzz_fail(f, "\"%s\" in %u rows, the model has %u probes",
					n->name, row->rows, n->nr);
	if (row->rows && (info->nr_probes != n->nr || info->enabled != !!n->nr ||
			  info->has_sites != n->has_site ||
			  !info->format != !n->format ||
			  (n->format && strcmp(info->format, n->format)))) {
		return marker_fuzz_fail(f, "%s: %u probes, on %d, format %s; the model: %u, %s",
					n->name, info->nr_probes, info->enabled,
					info->format ?: "(null)", n->nr, n->format ?: "(null)");
	}
	/* Each probe's connections, in order, with their data, and no more. */
	for (func = 0; func < 2; func++) {
		nr = marker_fuzz_expected_data(n, func, data);
		probe = marker_fuzz_func(func * MARKER_FUZZ_PRIVATES);
		for (num = 0; num <= nr; num++) {
			got = marker_get_private_data(n->name, probe, num);
			if (got != (num < nr ? data[num] : ERR_PTR(-ENOENT)))
				return marker_fuzz_fail(f, "%s: probe %u data %u is %p, of %u",
							n->name, func, num, got, nr);
		}
	}
	return true;
}

static bool marker_fuzz_check(struct marker_fuzz *f)
{
	unsigned int i;

	memset(f->row, 0, sizeof(f->row));
	KUNIT_EXPECT_EQ(f->test, marker_walk(marker_fuzz_walk_fn, f), 0);
	for (i = 0; i < MARKER_FUZZ_NAMES; i++)
		if (!marker_fuzz_check_name(f, i))
			return false;

	for (i = 0; i < MARKER_FUZZ_CONNS; i++) {
		if (marker_fuzz_seen[i].calls == f->expect_calls[i] &&
		    (!f->expect_calls[i] || marker_fuzz_seen[i].last == f->expect_last[i]))
			continue;
		return marker_fuzz_fail(f, "conn %u: %lu calls, last %d; the model: %lu, %d", i,
					marker_fuzz_seen[i].calls, marker_fuzz_seen[i].last,
					f->expect_calls[i], f->expect_last[i]);
	}

	if (!f->code)
		return true;
	if (f->names[0].nr && !f->on_known) {
		memcpy(f->on, f->code, sizeof(f->on));
		f->on_known = true;
		/* On is not off: at least the immediate differs. */
		if (!memcmp(f->on, f->off, sizeof(f->on))) {
			return marker_fuzz_fail(f, "the site is on with the bytes of off: %*ph",
						(int)sizeof(f->on), f->on);
		}
	}
	if (!memcmp(f->code, f->names[0].nr ? f->on : f->off, sizeof(f->on)))
		return true;
	return marker_fuzz_fail(f, "site bytes %*ph with %u probes (off: %*ph)",
				MARKER_FUZZ_SITE_BYTES, f->code, f->names[0].nr,
				(int)sizeof(f->off), f->off);
}

/* Disconnects what the model says is connected. */
static void marker_fuzz_cleanup(struct marker_fuzz *f)
{
	struct marker_fuzz_name *n;
	unsigned int i;

	for (i = 0; i < MARKER_FUZZ_NAMES; i++) {
		n = &f->names[i];
		while (n->nr) {
			unsigned int conn = n->conn[n->nr - 1];

			int ret = marker_probe_unregister(n->name, marker_fuzz_func(conn),
							  marker_fuzz_private(conn));

			KUNIT_EXPECT_EQ(f->test, ret, 0);
			n->nr--;
		}
	}
	/* What a failed run may have left, the model notwithstanding. */
	for (i = 0; i < MARKER_FUZZ_CONNS; i++)
		while (!marker_probe_unregister_private_data(marker_fuzz_func(i),
							     marker_fuzz_private(i)))
			KUNIT_FAIL(f->test, "conn %u was left connected", i);
	marker_synchronize_unregister();
}

static void marker_registry_fuzz(struct kunit *test)
{
	unsigned long counts[5] = {};
	struct marker_fuzz *f;
	void *code = NULL;
	bool ok = true;
	u32 r;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->seed = READ_ONCE(seed) ?: get_random_u64() ?: 1;
	prandom_seed_state(&f->rnd, f->seed);
	kunit_info(test, "seed %llu (marker_fuzz_kunit.seed=%llu replays it)\n",
		   f->seed, f->seed);
	memset(marker_fuzz_seen, 0, sizeof(marker_fuzz_seen));
	marker_fuzz_init_names(f);

	/* The site, off; without CONFIG_MARKER_SITES it tests a variable. */
	if (marker_get_sites(MARKER_FUZZ_SITE, &code, 1) == 1) {
		f->code = code;
		memcpy(f->off, code, sizeof(f->off));
	}
	KUNIT_ASSERT_TRUE(test, marker_fuzz_check(f));

	for (f->step = 1; ok && f->registry_ops < MARKER_FUZZ_OPS; f->step++) {
		r = marker_fuzz_below(f, 100);
		if (r < 40) {
			ok = marker_fuzz_register(f);
			counts[0]++;
		} else if (r < 70) {
			ok = marker_fuzz_unregister(f);
			counts[1]++;
		} else if (r < 78) {
			ok = marker_fuzz_unregister_data(f);
			counts[2]++;
		} else if (r < 88) {
			ok = marker_fuzz_lookup(f);
			counts[3]++;
		} else {
			marker_fuzz_fire_site(f);
			counts[4]++;
		}
		if (ok)
			ok = marker_fuzz_check(f);
		if (!(f->step % 256))
			cond_resched();
	}
	marker_fuzz_cleanup(f);
	KUNIT_EXPECT_TRUE(test, f->on_known || !f->code);
	kunit_info(test, "seed %llu: %lu steps, %lu reached the registry: %lu register, %lu unregister, %lu by data, %lu lookups, %lu fires\n",
		   f->seed, f->step - 1, f->registry_ops, counts[0], counts[1], counts[2],
		   counts[3], counts[4]);
	/* The next run draws a seed of its own, unless one is given again. */
}

static struct kunit_case marker_fuzz_cases[] = {
	KUNIT_CASE_SLOW(marker_registry_fuzz),
	{}
};

static struct kunit_suite marker_fuzz_suite = {
	.name = "marker_fuzz",
	.test_cases = marker_fuzz_cases,
};

kunit_test_suite(marker_fuzz_suite);

MODULE_DESCRIPTION("KUnit fuzz of the marker registry against a model");
MODULE_LICENSE("GPL");
