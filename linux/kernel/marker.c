// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel markers: the registry of marker names, their probes, and the
 * switching of their sites in the kernel and in modules.
 *
 * Every MARK() has a static struct marker; its sites, the copies of it in
 * the code, are recorded in __marker_sites. The registry has one
 * marker_entry per name: its format, its probes, whether its sites are
 * armed, and how many sites it has. A probe array is never changed once
 * published (but for the stub of marker_probes_remove()): a copy replaces
 * it, and the old one is freed after an RCU grace period, which is what
 * marker_synchronize_unregister() waits for.
 *
 * Switching a marker changes the immediate value @enabled of each of its
 * struct markers, which its patched sites hold in their mov, and the jump
 * slots of those sites, all in one batch of the architecture
 * (arch_marker_switch(), built on imv_update_batch_pokes()):
 *
 *	0 -> N probes:	arm the sites, then publish the probes;
 *	N -> M probes:	publish the new probes;
 *	N -> 0 probes:	publish NULL, then disarm the sites.
 *
 * An armed site without probes calls marker_probe_iterate(), which finds
 * none.
 * So a failure to arm changes nothing, and a failure to disarm leaves the
 * sites armed, which is a state like any other: the next switch goes on
 * from there. Invariant, under markers_mutex: an entry with probes is
 * armed, and every live site of an entry is in the state @armed says.
 *
 * The probe block of a patched site makes a recorded call
 * (MARKER_ENTRY_CALL), which goes straight to the marker's probe while it
 * has one probe and that one is fast; to marker_probe_pair() while it has
 * two fast probes and the site passes at most MARKER_REG_ARGS arguments;
 * to marker_probe_iterate_regs() while the site is armed for more probes
 * that are all fast and passes at most MARKER_REG_ARGS arguments; and to
 * marker_probe_iterate(), which it was built to call, otherwise. The last
 * two are "the iterator" below: both call every probe, and neither reads
 * @data. The call passes @data of its struct marker first: the probe's
 * @probe_private, or the struct marker_probes that marker_probe_pair()
 * calls. So @data and the call's target must agree for a site that reads
 * one and then makes the other: @data only changes while the calls go to
 * the iterator, and the calls only go straight a grace period after @data
 * last changed (as tracepoints do with their static calls). The calls go
 * back to the iterator in the batch that removes a probe they go straight
 * to, so that a site whose task was preempted between its jump slot and
 * its call finds no probe once marker_synchronize_unregister() has
 * returned:
 *
 *	0 -> 1 or 2 fast:	@data, wait, arm the sites with the calls direct;
 *	1 or 2 fast -> N:	calls to the iterator, then publish the probes;
 *	N -> 1 or 2 fast:	publish, @data, wait, calls direct;
 *	1 fast -> 0:		disarm with the calls to the iterator, then
 *				publish NULL.
 *
 * N is any other set of probes, 1 or 2 fast with other data included: the
 * calls pass through the iterator from one direct target to the next.
 *
 * Which iterator only matters for speed: marker_probe_iterate_regs() gets
 * the calls after the probes that are all fast are published, and gives
 * them back before a va_list probe is.
 *
 * Removing a probe cannot fail for want of memory: a smaller probe array
 * that cannot be allocated becomes a stub in place (marker_probes_remove()),
 * and when the batch that sends the calls back to the iterator cannot be
 * allocated, marker_entry_retreat_calls() sends them without allocating,
 * before anything is published or freed. Sites that cannot be disarmed stay
 * armed without probes. The one error left is a breakpoint of somebody else
 * (a debugger's; kprobes refuse sites) on a call that goes straight to the
 * probe: then the probe stays connected, and nothing is freed.
 *
 * The sites are kept in site tables (<linux/site_table.h>): sites in init
 * text are forgotten before that text is freed.
 *
 * Lock order: cpus_read_lock() -> markers_mutex -> imv_mutex -> text_mutex.
 */

#define pr_fmt(fmt) "marker: " fmt

#include <kunit/static_stub.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/immediate.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include <asm/sections.h>

/**
 * struct marker_entry - a marker name in the registry
 * @hlist: in marker_names
 * @format: a copy of the format of its sites; NULL while unknown
 * @probes: the published probes, NULL while none
 * @nr_sites: its attached sites, in the kernel and in modules
 * @count: scratch counter of marker_report_table()
 * @armed: its patched sites are in MARKER_SITE_ON
 * @direct: what its recorded calls go straight to, reading @data: its only
 *	probe, a fast one, or marker_probe_pair() for its two fast probes;
 *	NULL while they go to an iterator; set only while @armed
 * @regs: its recorded calls go to marker_probe_iterate_regs() where they
 *	can: its probes are all fast, and not @direct; only while @armed
 * @data: the @data of its struct markers
 * @data_gp: the RCU state when @data last changed
 * @name: the name
 */
struct marker_entry {
	struct hlist_node hlist;
	char *format;
	struct marker_probes *probes;
	unsigned int nr_sites;
	unsigned int count;
	bool armed;
	bool regs;
	marker_fast_probe_func *direct;
	void *data;
	struct rcu_gp_oldstate data_gp;
	char name[];
};

static DEFINE_MUTEX(markers_mutex);
static DEFINE_HASHTABLE(marker_names, 6);
/* marker_init() failed: markers stay off, every registration fails. */
static bool markers_disabled;

static void marker_module_entries(struct module *mod, struct site_entry **start,
				  struct site_entry **stop);

static struct site_tables marker_tables =
	SITE_TABLES_INIT(marker_tables, &markers_mutex, false, marker_module_entries,
			 marker_alloc);

static inline struct marker_entry *marker_site_entry(const struct site_entry *site)
{
	return marker_site_marker(site)->entry;
}

/**
 * marker_alloc() - allocate zeroed memory for the markers core
 * @size: how much
 *
 * Every allocation of the markers core and of the architecture's marker code
 * goes through here, so that the KUnit suite can make any one of them fail
 * (kunit_activate_static_stub()). Free with kvfree().
 *
 * Context: process context, may sleep.
 * Return: the memory, or NULL.
 */
void *marker_alloc(size_t size)
{
	KUNIT_STATIC_STUB_REDIRECT(marker_alloc, size);
	return kvzalloc(size, GFP_KERNEL);
}

static char *marker_strdup(const char *s)
{
	size_t len = strlen(s) + 1;
	char *copy = marker_alloc(len);

	if (copy)
		memcpy(copy, s, len);
	return copy;
}

/* --- the registry ------------------------------------------------------- */

static u32 marker_hash(const char *name)
{
	return jhash(name, strlen(name), 0);
}

static struct marker_entry *marker_entry_find(const char *name)
{
	struct marker_entry *e;

	hash_for_each_possible(marker_names, e, hlist, marker_hash(name))
		if (!strcmp(e->name, name))
			return e;
	return NULL;
}

static struct marker_entry *marker_entry_get(const char *name)
{
	struct marker_entry *e = marker_entry_find(name);
	size_t len;

	if (e)
		return e;
	len = strlen(name) + 1;
	e = marker_alloc(struct_size(e, name, len));
	if (!e)
		return NULL;
	memcpy(e->name, name, len);
	get_completed_synchronize_rcu_full(&e->data_gp);
	hash_add(marker_names, &e->hlist, marker_hash(name));
	return e;
}

/* Frees @e once it has neither sites nor probes. */
static void marker_entry_put(struct marker_entry *e)
{
	if (e->nr_sites || e->probes)
		return;
	hash_del(&e->hlist);
	kvfree(e->format);
	kvfree(e);
}

/*
 * A character of a C identifier. The kernel's isalnum() also takes the
 * Latin-1 letters (0xc0 to 0xff), which are not characters of one.
 */
static bool marker_ident_char(char c)
{
	return isascii(c) && (isalnum(c) || c == '_');
}

/**
 * marker_name_valid() - check a marker name
 * @name: the name
 *
 * Return: true if @name is a C identifier of at most MARKER_NAME_MAX
 * characters, as every marker name is.
 */
bool marker_name_valid(const char *name)
{
	size_t i, len = strnlen(name, MARKER_NAME_MAX + 1);

	if (!len || len > MARKER_NAME_MAX || isdigit(name[0]))
		return false;
	for (i = 0; i < len; i++)
		if (!marker_ident_char(name[i]))
			return false;
	return true;
}

/* Whether @name is taken by one of the first @nr fields of @mf. */
static bool marker_field_taken(const struct marker_format *mf, unsigned int nr,
			       const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(mf->field[i].name, name))
			return true;
	return false;
}

/*
 * Names the field @nr of @mf after the last word of [@start, @end), the
 * text before its conversion, or "argN". Returns false on a clash of names
 * that even "argN" cannot avoid.
 */
static bool marker_field_name(struct marker_format *mf, unsigned int nr,
			      const char *start, const char *end)
{
	struct marker_field *f = &mf->field[nr];
	const char *word;
	size_t len;

	while (end > start && !marker_ident_char(end[-1]))
		end--;
	for (word = end; word > start && marker_ident_char(word[-1]); word--)
		;
	len = end - word;
	if (len && len < MARKER_FIELD_NAME_MAX && !isdigit(*word) &&
	    strncmp(word, "common_", 7) && strncmp(word, "__", 2)) {
		memcpy(f->name, word, len);
		f->name[len] = '\0';
		if (!marker_field_taken(mf, nr, f->name))
			return true;
	}
	snprintf(f->name, sizeof(f->name), "arg%u", nr);
	return !marker_field_taken(mf, nr, f->name);
}

/* The type of the conversion at @p (past flags, width and precision). */
static int marker_conv_type(const char **p, const char **error)
{
	const char *c = *p;
	int type = MARKER_FIELD_INT;

	if (c[0] == 'l' && c[1] == 'l') {
		c += 2;
		type = MARKER_FIELD_S64;
	} else if (c[0] == 'l' || c[0] == 'z') {
		c++;
		type = MARKER_FIELD_LONG;
	} else if (c[0] == 'h') {
		/* A short or a char travels as an int: printing narrows it. */
		c += c[1] == 'h' ? 2 : 1;
	} else if (c[0] && strchr("jtLq", c[0])) {
		*error = "length modifier not supported";
		return -EINVAL;
	}
	switch (*c) {
	case 'd':
	case 'i':
		break;
	case 'u':
	case 'x':
	case 'X':
	case 'o':
		/* The unsigned type follows each signed one. */
		type++;
		break;
	case 'c':
	case 's':
	case 'p':
		if (c != *p) {
			*error = "length modifier on %c, %s or %p";
			return -EINVAL;
		}
		if (*c == 'c')
			type = MARKER_FIELD_CHAR;
		else if (*c == 's')
			type = MARKER_FIELD_STR;
		else
			type = MARKER_FIELD_PTR;
		break;
	default:
		*error = "conversion not supported";
		return -EINVAL;
	}
	c++;
	if (type == MARKER_FIELD_PTR && marker_ident_char(*c)) {
		/* Only extensions that print the value, never what it points to. */
		if (!strchr("SsBxK", *c)) {
			*error = "%p extension reads what the pointer points to";
			return -EINVAL;
		}
		c += *c == 'S' && c[1] == 'R' ? 2 : 1;
	}
	*p = c;
	return type;
}

/**
 * marker_format_parse() - the typed arguments of a marker's format
 * @format: the format
 * @mf: where to store them
 *
 * Turns each conversion of @format into a field: a type from the
 * conversion (see &enum marker_field_type) and a name from the word before
 * it (see &struct marker_field). Flags, a width and a precision are taken
 * ("%-8lx", "%.16s"); "%%" is text; %hd and %hhu are ints. Refused, with
 * @mf->error and @mf->error_pos set: '*' as a width or precision, the
 * length modifiers j, t, L and q, %n and floating point, and the %p
 * extensions that read memory through the pointer (%pI4, %pM, %pd, ...),
 * which would read it when the trace is read rather than when the site ran.
 *
 * Return: 0; -EINVAL for a refused format; -E2BIG for more than
 * MARKER_MAX_ARGS conversions.
 */
int marker_format_parse(const char *format, struct marker_format *mf)
{
	const char *p = format, *text = format;

	memset(mf, 0, sizeof(*mf));
	while ((p = strchr(p, '%'))) {
		const char *conv = p++;
		struct marker_field *f;
		int type;

		if (*p == '%') {
			p++;
			continue;
		}
		p += strspn(p, "-+ #0");
		p += strspn(p, "0123456789");
		if (*p == '.')
			p += 1 + strspn(p + 1, "0123456789");
		if (*p == '*') {
			mf->error = "'*' width or precision";
			goto refuse;
		}
		type = marker_conv_type(&p, &mf->error);
		if (type < 0)
			goto refuse;
		if (mf->nr == MARKER_MAX_ARGS) {
			mf->error = "more conversions than MARKER_MAX_ARGS";
			mf->error_pos = conv - format;
			mf->nr = 0;
			return -E2BIG;
		}
		if (p - conv >= MARKER_CONV_MAX) {
			mf->error = "conversion too long";
			goto refuse;
		}
		f = &mf->field[mf->nr];
		f->type = type;
		f->conv = conv - format;
		f->conv_len = p - conv;
		if (!marker_field_name(mf, mf->nr, text, conv)) {
			mf->error = "field names clash";
			goto refuse;
		}
		mf->nr++;
		text = p;
		continue;
refuse:
		mf->error_pos = conv - format;
		mf->nr = 0;
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(marker_format_parse);

/*
 * Attaches the sites [@start, @stop) to the entries of their names. A site
 * whose format differs from its name's is left out, off for good. On error
 * *@stopped is the first site not attached.
 */
static int marker_sites_attach(struct site_entry *start, struct site_entry *stop,
			       struct site_entry **stopped)
{
	struct site_entry *site;

	for (site = start; site < stop; site++) {
		struct marker *m = marker_site_marker(site);
		struct marker_entry *e = m->entry;

		/* A call belongs to the site whose probe block it is in. */
		if (marker_entry_is_call(site))
			continue;
		if (!e) {
			e = marker_entry_get(m->name);
			if (!e)
				goto out_nomem;
			if (m->format && !e->format) {
				e->format = marker_strdup(m->format);
				if (!e->format) {
					marker_entry_put(e);
					goto out_nomem;
				}
			} else if (m->format && strcmp(m->format, e->format)) {
				pr_warn("%s: site %pS has format \"%s\", not \"%s\": left off\n",
					m->name, site_entry_code(site), m->format, e->format);
				marker_entry_put(e);
				continue;
			}
			m->entry = e;
			m->data = e->data;
		}
		e->nr_sites++;
	}
	return 0;

out_nomem:
	*stopped = site;
	return -ENOMEM;
}

/* Undoes marker_sites_attach() of [@start, @stop). */
static void marker_sites_detach(struct site_entry *start, struct site_entry *stop)
{
	struct marker_entry *e;
	struct site_entry *site;
	struct hlist_node *tmp;
	int bkt;

	for (site = start; site < stop; site++) {
		e = marker_site_entry(site);
		if (e && !marker_entry_is_call(site))
			e->nr_sites--;
	}
	for (site = start; site < stop; site++)
		marker_site_marker(site)->entry = NULL;
	hash_for_each_safe(marker_names, bkt, tmp, e, hlist)
		marker_entry_put(e);
}

/* --- probe arrays -------------------------------------------------------- */

/*
 * Left in place of a probe removed when no smaller array could be
 * allocated: a probe of each type keeps its type.
 */
static void marker_probe_stub(void *probe_private, void *call_private,
			      const char *fmt, va_list *args)
{
}

static void marker_fast_probe_stub(void *probe_private, void *call_private,
				   const struct marker *marker, ...)
{
}

static bool marker_probe_is_stub(const struct marker_probe *p)
{
	return p->func == marker_probe_stub || p->fast == marker_fast_probe_stub;
}

static unsigned int marker_probes_count(const struct marker_probes *probes)
{
	unsigned int i, n = 0;

	for (i = 0; probes && i < probes->nr; i++)
		n += !marker_probe_is_stub(&probes->probe[i]);
	return n;
}

static bool marker_probe_match(const struct marker_probe *p,
			       const struct marker_probe *probe)
{
	return p->func == probe->func && p->fast == probe->fast &&
	       p->probe_private == probe->probe_private;
}

/* The probe, whatever its type, for messages. */
static void *marker_probe_fn(const struct marker_probe *probe)
{
	return probe->func ? (void *)probe->func : (void *)probe->fast;
}

/* A copy of @old, without stubs and without @skip, with room for @extra more. */
static struct marker_probes *marker_probes_copy(const struct marker_probes *old,
						const struct marker_probe *skip,
						unsigned int extra)
{
	unsigned int i, n = marker_probes_count(old) - (skip ? 1 : 0);
	struct marker_probes *new;

	new = marker_alloc(struct_size(new, probe, n + extra));
	if (!new)
		return NULL;
	new->nr = 0;
	for (i = 0; old && i < old->nr; i++)
		if (&old->probe[i] != skip && !marker_probe_is_stub(&old->probe[i]))
			new->probe[new->nr++] = old->probe[i];
	return new;
}

/* A copy of @old with @probe added: ERR_PTR(-EBUSY) if it is there. */
static struct marker_probes *marker_probes_add(const struct marker_probes *old,
					       const struct marker_probe *probe)
{
	struct marker_probes *new;
	unsigned int i;

	for (i = 0; old && i < old->nr; i++)
		if (marker_probe_match(&old->probe[i], probe))
			return ERR_PTR(-EBUSY);
	new = marker_probes_copy(old, NULL, 1);
	if (!new)
		return ERR_PTR(-ENOMEM);
	new->probe[new->nr++] = *probe;
	return new;
}

/*
 * A copy of @old without the probe: NULL when it was the last one,
 * ERR_PTR(-ENOENT) when it is not there. Removal cannot fail for want of
 * memory: the probe is then stubbed out in place, and @old is returned.
 */
static struct marker_probes *marker_probes_remove(struct marker_probes *old,
						  const struct marker_probe *probe)
{
	struct marker_probes *new;
	unsigned int i;

	for (i = 0; old && i < old->nr; i++)
		if (marker_probe_match(&old->probe[i], probe))
			break;
	if (!old || i == old->nr)
		return ERR_PTR(-ENOENT);
	if (marker_probes_count(old) == 1)
		return NULL;
	new = marker_probes_copy(old, &old->probe[i], 0);
	if (new)
		return new;
	/* A concurrent marker_probe_iterate() sees the old or the stub function. */
	if (probe->fast)
		WRITE_ONCE(old->probe[i].fast, marker_fast_probe_stub);
	else
		WRITE_ONCE(old->probe[i].func, marker_probe_stub);
	return old;
}

/* --- switching ----------------------------------------------------------- */

/*
 * A switch of sites: those of one entry (@e) from @from to @on, their calls
 * from the target that @e's state gives to that of @regs and @direct; or,
 * with @e NULL, those of a table that comes, from MARKER_SITE_BUILT (calls
 * to marker_probe_iterate()) to the state of their entries.
 */
struct marker_switch {
	const struct marker_entry *e;
	enum marker_site_state from;
	bool on;
	bool regs;
	marker_fast_probe_func *direct;
};

/*
 * What the recorded calls of the sites of @m go to: @direct, the only probe
 * if it is a fast one, or marker_probe_pair() for two fast probes if @m
 * passes its arguments in registers; otherwise, while they are @armed for
 * probes that are all fast (@regs) and pass their arguments in registers,
 * marker_probe_iterate_regs(); otherwise the function they were built to
 * call, which is cheaper for va_list probes.
 */
static void *marker_call_target(const struct marker *m, bool armed, bool regs,
				marker_fast_probe_func *direct)
{
	/* Only an architecture with recorded calls has marker_probe_pair(). */
	if (IS_ENABLED(CONFIG_MARKER_SITES) && direct == marker_probe_pair &&
	    m->nr_args > MARKER_REG_ARGS)
		return marker_probe_iterate;
	if (direct)
		return direct;
	if (armed && regs && m->nr_args <= MARKER_REG_ARGS)
		return marker_probe_iterate_regs;
	return marker_probe_iterate;
}

/* Whether @sw switches the sites of @m, and whether it switches them on. */
static bool marker_switch_wants(const struct marker_switch *sw,
				const struct marker *m, bool *on)
{
	if (sw->e) {
		*on = sw->on;
		return m->entry == sw->e;
	}
	*on = m->entry && m->entry->armed;
	return true;
}

/* A live site that @data switches. */
static unsigned int marker_collect_switched(const struct site_table *t,
					    const struct site_entry *site,
					    void *out, void *data)
{
	const struct site_entry **switched = out;
	bool on;

	if (!marker_switch_wants(data, marker_site_marker(site), &on))
		return 0;
	if (switched)
		*switched = site;
	return 1;
}

static int marker_update_cmp(const void *a, const void *b)
{
	const struct imv_update *x = a, *y = b;

	if (x->var != y->var)
		return x->var < y->var ? -1 : 1;
	return 0;
}

/* A marker with several sites was collected once per site: keep one. */
static unsigned int marker_updates_unique(struct imv_update *updates, unsigned int n)
{
	unsigned int i, k = 0;

	sort(updates, n, sizeof(*updates), marker_update_cmp, NULL);
	for (i = 0; i < n; i++)
		if (!k || updates[k - 1].var != updates[i].var)
			updates[k++] = updates[i];
	return k;
}

/* The arrays of one switch, each as long as the entries collected. */
struct marker_switch_plan {
	struct marker_site_change *changes;
	struct imv_update *updates;
	struct marker_call_change *calls;
	unsigned int nr_changes;
	unsigned int nr_updates;
	unsigned int nr_calls;
};

/* Adds the change of the call @site to @plan, if it changes. */
static void marker_plan_call(const struct marker_switch *sw, const struct site_entry *site,
			     struct marker_switch_plan *plan)
{
	const struct marker *m = marker_site_marker(site);
	struct marker_entry *e = marker_site_entry(site);
	void *from, *to;

	if (sw->e) {
		from = marker_call_target(m, sw->e->armed, sw->e->regs, sw->e->direct);
		to = marker_call_target(m, sw->on, sw->regs, sw->direct);
	} else {
		/* A site that is left off keeps the call it was built with. */
		from = marker_call_target(m, false, false, NULL);
		to = e ? marker_call_target(m, e->armed, e->regs, e->direct) : from;
	}
	if (from != to)
		plan->calls[plan->nr_calls++] = (struct marker_call_change) {
			.site = site,
			.from = from,
			.to = to,
		};
}

/*
 * The changes of the patched sites and calls among @sites, and the new
 * @enabled of their markers (once each), as @sw switches them.
 */
static void marker_switch_plan(const struct marker_switch *sw,
			       const struct site_entry **sites, unsigned int n,
			       struct marker_switch_plan *plan)
{
	struct marker_site_change *changes = plan->changes;
	struct imv_update *updates = plan->updates;
	unsigned int *nr_changes = &plan->nr_changes;
	unsigned int *nr_updates = &plan->nr_updates;
	unsigned int i;
	bool on;

	*nr_changes = 0;
	*nr_updates = 0;
	plan->nr_calls = 0;
	for (i = 0; i < n; i++) {
		struct marker *m = marker_site_marker(sites[i]);

		if (marker_entry_is_call(sites[i])) {
			marker_plan_call(sw, sites[i], plan);
			continue;
		}
		marker_switch_wants(sw, m, &on);
		if (site_entry_code(sites[i]))
			changes[(*nr_changes)++] = (struct marker_site_change) {
				.site = sites[i],
				.from = sw->from,
				.to = on ? MARKER_SITE_ON : MARKER_SITE_OFF,
			};
		if (m->enabled != on)
			updates[(*nr_updates)++] = (struct imv_update) {
				.var = &m->enabled,
				.value = on,
				.size = sizeof(m->enabled),
			};
	}
	*nr_updates = marker_updates_unique(updates, *nr_updates);
}

/*
 * Switches the sites and markers that @sw names, in table @only or in all,
 * in one batch; nothing changes on error.
 */
static int marker_switch_apply(const struct marker_switch *sw,
			       const struct site_table *only)
{
	struct marker_switch_plan plan;
	const struct site_entry **sites;
	int ret = -ENOMEM;
	unsigned int n;

	lockdep_assert_held(&markers_mutex);
	sites = site_tables_collect(&marker_tables, only, marker_collect_switched,
				    (void *)sw, sizeof(*sites), &n);
	if (IS_ERR(sites))
		return PTR_ERR(sites);
	if (!n)
		return 0;
	plan.changes = marker_alloc(array_size(n, sizeof(*plan.changes)));
	plan.updates = marker_alloc(array_size(n, sizeof(*plan.updates)));
	plan.calls = marker_alloc(array_size(n, sizeof(*plan.calls)));
	if (plan.changes && plan.updates && plan.calls) {
		marker_switch_plan(sw, sites, n, &plan);
		ret = arch_marker_switch(plan.updates, plan.nr_updates, plan.changes,
					 plan.nr_changes, plan.calls, plan.nr_calls);
	}
	kvfree(plan.calls);
	kvfree(plan.updates);
	kvfree(plan.changes);
	kvfree(sites);
	return ret;
}

/*
 * Arms (@on) or disarms every live site of @e and points their calls at
 * @direct or, without one, at the iterator that @regs chooses, in one
 * batch.
 */
static int marker_entry_switch(struct marker_entry *e, bool on, bool regs,
			       marker_fast_probe_func *direct)
{
	struct marker_switch sw = {
		.e = e,
		.from = e->armed ? MARKER_SITE_ON : MARKER_SITE_OFF,
		.on = on,
		.regs = regs,
		.direct = direct,
	};
	int ret;

	ret = marker_switch_apply(&sw, NULL);
	if (!ret) {
		e->armed = on;
		e->regs = regs;
		e->direct = direct;
	}
	return ret;
}

/* How many calls marker_entry_retreat_calls() sends back per batch. */
#define MARKER_RETREAT_CHUNK	8

/*
 * Sends the calls of @e back to the iterator without allocating, a few per
 * batch: for when the batch that should have done it could not be
 * allocated. A call that is back already is left alone (it does not hold
 * what arch_marker_switch() expects), so after an error a second try takes
 * up where the first stopped; meanwhile the calls that went back call every
 * published probe, as the others do.
 */
static int marker_entry_retreat_calls(struct marker_entry *e)
{
	struct marker_call_change calls[MARKER_RETREAT_CHUNK];
	unsigned int n = 0;
	struct site_entry *site;
	struct site_table *t;
	int ret;

	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t)) {
		for (site = t->start; site < t->stop; site++) {
			const struct marker *m = marker_site_marker(site);

			if (!marker_entry_is_call(site) || marker_site_entry(site) != e ||
			    !site_entry_live(t, site))
				continue;
			calls[n] = (struct marker_call_change) {
				.site = site,
				.from = marker_call_target(m, e->armed, e->regs, e->direct),
				.to = marker_call_target(m, e->armed, false, NULL),
			};
			if (calls[n].from != calls[n].to)
				n++;
			if (n < ARRAY_SIZE(calls))
				continue;
			ret = arch_marker_switch(NULL, 0, NULL, 0, calls, n);
			if (ret)
				return ret;
			n = 0;
		}
	}
	ret = n ? arch_marker_switch(NULL, 0, NULL, 0, calls, n) : 0;
	if (!ret) {
		e->regs = false;
		e->direct = NULL;
	}
	return ret;
}

/*
 * Gives the struct markers of @e the @data their calls pass, and waits
 * until no site can still be on its way to a call with the @data of before.
 */
static void marker_entry_set_data(struct marker_entry *e, void *data)
{
	struct site_entry *site;
	struct site_table *t;

	lockdep_assert_held(&markers_mutex);
	if (e->data != data) {
		/* Only the iterator, which ignores it, reads @data meanwhile. */
		WARN_ON_ONCE(e->direct);
		for (t = site_tables_first(&marker_tables); t;
		     t = site_tables_next(&marker_tables, t))
			for (site = t->start; site < t->stop; site++)
				if (marker_site_entry(site) == e)
					WRITE_ONCE(marker_site_marker(site)->data, data);
		e->data = data;
		get_state_synchronize_rcu_full(&e->data_gp);
	}
	cond_synchronize_rcu_full(&e->data_gp);
}

/* Makes every site of @e call through its current probes. */
static void marker_entry_publish(struct marker_entry *e)
{
	struct site_table *t;
	struct site_entry *site;

	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t))
		for (site = t->start; site < t->stop; site++)
			if (marker_site_entry(site) == e)
				rcu_assign_pointer(marker_site_marker(site)->probes, e->probes);
}

/*
 * What the calls of @probes' sites can go straight to, with the @data it
 * reads: the only probe, if it is a fast one, with its @probe_private; or
 * marker_probe_pair() with @probes, if they are two fast probes.
 */
static marker_fast_probe_func *marker_probes_direct(const struct marker_probes *probes,
						    void **data)
{
	const struct marker_probe *p = NULL;
	unsigned int i, n = marker_probes_count(probes);

	/* Without recorded calls, nothing to go straight: no grace period. */
	if (!IS_ENABLED(CONFIG_MARKER_SITES))
		return NULL;
	/*
	 * marker_probe_pair() calls the probes from assembly, without the
	 * type hash that kCFI (and FineIBT, which checks it in the callee)
	 * wants: with CONFIG_CFI_CLANG the iterators call them.
	 */
	if (!IS_ENABLED(CONFIG_CFI_CLANG) && n == 2 && probes->nr == 2 &&
	    probes->probe[0].fast && probes->probe[1].fast) {
		*data = (void *)probes;
		return marker_probe_pair;
	}
	if (n != 1)
		return NULL;
	for (i = 0; i < probes->nr; i++)
		if (!marker_probe_is_stub(&probes->probe[i]))
			p = &probes->probe[i];
	*data = p->probe_private;
	return p->fast;
}

/* Whether @probes are all fast, for marker_probe_iterate_regs(). */
static bool marker_probes_all_fast(const struct marker_probes *probes)
{
	unsigned int i;

	if (!probes)
		return false;
	for (i = 0; i < probes->nr; i++)
		if (!probes->probe[i].fast)
			return false;
	return true;
}

/*
 * Sends the calls of @e to the iterator, for probes that their straight
 * target or marker_probe_iterate_regs() would not all call, before those
 * probes are published. For a removal (@removing), a batch that cannot be
 * allocated is no failure: marker_entry_retreat_calls() does it then.
 */
static int marker_entry_calls_to_iterator(struct marker_entry *e, bool regs, bool removing)
{
	int ret = marker_entry_switch(e, true, regs, NULL);

	if (ret && removing)
		ret = marker_entry_retreat_calls(e);
	return ret;
}

/*
 * Makes @new the probes of @e; frees the old ones after a grace period.
 * Fails, changing nothing, when arming the sites fails, or sending their
 * calls to an iterator for all of @new before it is published; for a
 * removal (@removing), only when somebody else's breakpoint is on a call.
 * A failure to send the calls straight to the only probe left, or to
 * marker_probe_pair() or the iterator of fast probes, leaves them with an
 * iterator that calls them too.
 */
static int marker_entry_set_probes(struct marker_entry *e, struct marker_probes *new,
				   bool removing)
{
	struct marker_probes *old = e->probes;
	marker_fast_probe_func *direct;
	void *data = NULL;
	bool regs;
	int ret;

	lockdep_assert_held(&markers_mutex);
	direct = marker_probes_direct(new, &data);
	regs = !direct && marker_probes_all_fast(new);
	/* Straight calls to come: @data early, while only iterators run */
	if (direct && !e->direct)
		marker_entry_set_data(e, data);

	if (!e->armed) {
		/* 0 -> N: arm, then publish */
		ret = marker_entry_switch(e, true, regs, direct);
		if (ret)
			return ret;
	} else if ((e->direct && (direct != e->direct || data != e->data)) ||
		   (e->regs && !marker_probes_all_fast(new))) {
		/*
		 * Leaving straight calls (which read @data), or fast -> with a
		 * va_list probe: the iterator for the new probes, then publish
		 */
		ret = marker_entry_calls_to_iterator(e, regs, removing);
		if (ret)
			return ret;
	}
	e->probes = new;
	marker_entry_publish(e);
	if (old)
		kfree_rcu(old, rcu);
	/* -> 1 fast, 2 fast or all fast: published, @data, then the calls */
	if (direct != e->direct || regs != e->regs) {
		if (direct)
			marker_entry_set_data(e, data);
		marker_entry_switch(e, true, regs, direct);
	}
	return 0;
}

/*
 * Removes the last probe of @e. Calls that go straight to it read no probe
 * array: they go back to the iterator, with the sites disarmed, before the
 * probes are unpublished; other sites are disarmed after. Sites that cannot
 * be disarmed stay armed without probes, which is harmless: the next switch
 * goes on from there. Fails, changing nothing, only when somebody else's
 * breakpoint is on a call that goes straight to the probe.
 */
static int marker_entry_clear_probes(struct marker_entry *e)
{
	struct marker_probes *old = e->probes;
	int ret = 0;

	lockdep_assert_held(&markers_mutex);
	if (e->direct) {
		ret = marker_entry_switch(e, false, false, NULL);
		if (ret && marker_entry_retreat_calls(e)) {
			pr_err("%s: a call to %ps cannot be undone; the probe stays\n",
			       e->name, e->direct);
			return -EBUSY;
		}
	}
	e->probes = NULL;
	marker_entry_publish(e);
	kfree_rcu(old, rcu);
	if (!ret && e->armed)
		ret = marker_entry_switch(e, false, false, NULL);
	if (ret)
		pr_warn("%s: cannot switch the sites off (%d): they stay on, without probes\n",
			e->name, ret);
	return 0;
}

static int marker_entry_remove_probe(struct marker_entry *e,
				     const struct marker_probe *probe)
{
	struct marker_probes *new;
	int ret = 0;

	new = marker_probes_remove(e->probes, probe);
	if (IS_ERR(new))
		return PTR_ERR(new);
	/*
	 * NULL: @probe was the last one. The array of @e itself: no memory for
	 * a copy, a stub took the place of @probe there, published already.
	 */
	if (!new)
		ret = marker_entry_clear_probes(e);
	else if (new != e->probes)
		ret = marker_entry_set_probes(e, new, true);
	if (ret) {
		/* Still connected: somebody else's breakpoint on a call */
		kvfree(new);
		return ret;
	}
	marker_entry_put(e);
	return 0;
}

/* --- the API ------------------------------------------------------------- */

/* Connects @probe to @name; see marker_probe_register(). */
static int marker_probe_connect(const char *name, const char *format,
				const struct marker_probe *probe)
{
	struct marker_probes *new;
	struct marker_entry *e;
	char *fmt = NULL;
	int ret;

	if (!name || !marker_probe_fn(probe) || !marker_name_valid(name))
		return -EINVAL;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	if (markers_disabled) {
		ret = -ENODEV;
		goto out_unlock;
	}
	e = marker_entry_get(name);
	if (!e) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	if (format && e->format && strcmp(format, e->format)) {
		pr_err("probe %ps: format \"%s\" differs from marker %s's \"%s\"\n",
		       marker_probe_fn(probe), format, name, e->format);
		ret = -EPERM;
		goto out_put;
	}
	if (format && !e->format) {
		fmt = marker_strdup(format);
		if (!fmt) {
			ret = -ENOMEM;
			goto out_put;
		}
	}
	new = marker_probes_add(e->probes, probe);
	if (IS_ERR(new)) {
		ret = PTR_ERR(new);
		goto out_free_fmt;
	}
	ret = marker_entry_set_probes(e, new, false);
	if (ret) {
		kvfree(new);
		goto out_free_fmt;
	}
	if (fmt)
		e->format = fmt;
	goto out_unlock;

out_free_fmt:
	kvfree(fmt);
out_put:
	marker_entry_put(e);
out_unlock:
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
	return ret;
}

/* Disconnects @probe from @name; see marker_probe_unregister(). */
static int marker_probe_disconnect(const char *name, const struct marker_probe *probe)
{
	struct marker_entry *e;
	int ret = -ENOENT;

	if (!name || !marker_probe_fn(probe))
		return -EINVAL;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	e = marker_entry_find(name);
	if (e)
		ret = marker_entry_remove_probe(e, probe);
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
	return ret;
}

/**
 * marker_probe_register() - connect a probe that takes a va_list to a marker
 * @name: the marker's name
 * @format: the format the probe expects, or NULL to take the marker's
 * @probe: the probe
 * @probe_private: data passed to @probe
 *
 * The marker's sites call @probe from now on, including those of modules
 * loaded later: a marker may be registered before any of its sites exists.
 * Several probes may be connected to one marker, of either type (see
 * marker_probe_register_fast()): its sites call them in the order they
 * were registered.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 on success; -EINVAL for a NULL or malformed @name or a NULL
 * @probe; -EPERM if @format differs from the marker's; -EBUSY if @probe is
 * already connected with @probe_private; -ENOMEM; -ENODEV if markers could
 * not be set up at boot; or an error switching the sites. On error nothing
 * has changed.
 */
int marker_probe_register(const char *name, const char *format,
			  marker_probe_func *probe, void *probe_private)
{
	struct marker_probe p = { .func = probe, .probe_private = probe_private };

	return marker_probe_connect(name, format, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_register);

/**
 * marker_probe_unregister() - disconnect a probe that takes a va_list
 * @name: the marker's name
 * @probe: the probe
 * @probe_private: the data it was registered with
 *
 * The probe may still be running on other CPUs when this returns: call
 * marker_synchronize_unregister() before freeing what it uses. Removing a
 * probe needs no memory: when none can be had, the sites stay on without
 * probes until the next switch (a message says so).
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 once the probe is disconnected; -EINVAL for a NULL argument;
 * -ENOENT if the probe is not connected to @name; -EBUSY if somebody
 * else's breakpoint (a debugger's) sits on a call that goes straight to
 * the probe: it then stays connected, and nothing has changed.
 */
int marker_probe_unregister(const char *name, marker_probe_func *probe,
			    void *probe_private)
{
	struct marker_probe p = { .func = probe, .probe_private = probe_private };

	return marker_probe_disconnect(name, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_unregister);

/**
 * marker_probe_register_fast() - connect a probe that takes variadic arguments
 * @name: the marker's name
 * @format: the format the probe expects, or NULL to take the marker's
 * @probe: the probe
 * @probe_private: data passed to @probe
 *
 * As marker_probe_register(), for a probe of type marker_fast_probe_func,
 * which is called with the site's arguments themselves. The same function
 * registered with both calls is two probes.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: as marker_probe_register(). On error nothing has changed.
 */
int marker_probe_register_fast(const char *name, const char *format,
			       marker_fast_probe_func *probe, void *probe_private)
{
	struct marker_probe p = { .fast = probe, .probe_private = probe_private };

	return marker_probe_connect(name, format, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_register_fast);

/**
 * marker_probe_unregister_fast() - disconnect a probe that takes variadic arguments
 * @name: the marker's name
 * @probe: the probe
 * @probe_private: the data it was registered with
 *
 * As marker_probe_unregister(), for a probe registered with
 * marker_probe_register_fast().
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: as marker_probe_unregister().
 */
int marker_probe_unregister_fast(const char *name, marker_fast_probe_func *probe,
				 void *probe_private)
{
	struct marker_probe p = { .fast = probe, .probe_private = probe_private };

	return marker_probe_disconnect(name, &p);
}
EXPORT_SYMBOL_GPL(marker_probe_unregister_fast);

/**
 * marker_probe_unregister_private_data() - disconnect a probe by its data
 * @probe: the probe, which takes a va_list
 * @probe_private: the data it was registered with
 *
 * Disconnects the first connection of @probe with @probe_private found,
 * whatever the marker.
 *
 * Context: process context, may sleep; takes cpus_read_lock().
 * Return: 0 once the probe is disconnected; -EINVAL for a NULL @probe;
 * -ENOENT if there is no such connection; -EBUSY as for
 * marker_probe_unregister().
 */
int marker_probe_unregister_private_data(marker_probe_func *probe,
					 void *probe_private)
{
	struct marker_probe p = { .func = probe, .probe_private = probe_private };
	struct marker_entry *e;
	int bkt, ret = -ENOENT;
	unsigned int i;

	if (!probe)
		return -EINVAL;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	hash_for_each(marker_names, bkt, e, hlist) {
		for (i = 0; e->probes && i < e->probes->nr; i++)
			if (marker_probe_match(&e->probes->probe[i], &p))
				break;
		if (e->probes && i < e->probes->nr) {
			ret = marker_entry_remove_probe(e, &p);
			break;
		}
	}
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(marker_probe_unregister_private_data);

/**
 * marker_get_private_data() - the data a probe was registered with
 * @name: the marker's name
 * @probe: the probe, which takes a va_list
 * @num: which of @probe's connections to @name, from 0, in the order
 *	they were registered
 *
 * Context: process context; takes markers_mutex.
 * Return: the @probe_private of that connection, or ERR_PTR(-ENOENT).
 */
void *marker_get_private_data(const char *name, marker_probe_func *probe, int num)
{
	struct marker_entry *e;
	unsigned int i;

	if (!name || !probe || num < 0)
		return ERR_PTR(-ENOENT);

	guard(mutex)(&markers_mutex);
	e = marker_entry_find(name);
	for (i = 0; e && e->probes && i < e->probes->nr; i++)
		if (e->probes->probe[i].func == probe && !num--)
			return e->probes->probe[i].probe_private;
	return ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL_GPL(marker_get_private_data);

/*
 * The arguments of a site, for fast probes: on a 64-bit architecture every
 * argument a format can take (an int, a long, a long long, a pointer) is
 * passed in one word, and a word passed on gives the probe's va_arg() of
 * the argument's own type what the site passed. Fetches the @nr_args of
 * @marker, zeroes the rest of the @n words a call passes on.
 */
static void marker_fetch_args(const struct marker *marker, va_list *args,
			      unsigned long *a, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		a[i] = i < marker->nr_args ? va_arg(*args, unsigned long) : 0;
}

/*
 * The probes of a marker that has several, or a fast one the site does not
 * call straight: a fast probe with the arguments passed on (in registers
 * only when the site passes at most three), a va_list probe with its own
 * copy. Out of line, so that the path of one va_list probe saves no
 * registers for this loop.
 */
static noinline void marker_call_probes(const struct marker *marker,
					const struct marker_probes *probes,
					void *call_private, va_list *args)
{
	unsigned int i, n = marker->nr_args <= 3 ? 3 : MARKER_MAX_ARGS;
	unsigned long a[MARKER_MAX_ARGS];
	bool fetched = false;
	va_list copy;

	for (i = 0; i < probes->nr; i++) {
		const struct marker_probe *p = &probes->probe[i];
		/* The probe or, once removed in place, the stub of its type. */
		marker_fast_probe_func *fast = READ_ONCE(p->fast);
		marker_probe_func *func = READ_ONCE(p->func);

		if (!fast) {
			va_copy(copy, *args);
			func(p->probe_private, call_private, marker->format, &copy);
			va_end(copy);
			continue;
		}
		if (!fetched) {
			va_copy(copy, *args);
			marker_fetch_args(marker, &copy, a, n);
			va_end(copy);
			fetched = true;
		}
		if (n == 3)
			fast(p->probe_private, call_private, marker, a[0], a[1], a[2]);
		else
			fast(p->probe_private, call_private, marker, a[0], a[1], a[2], a[3],
			     a[4], a[5], a[6], a[7]);
	}
}

/**
 * marker_probe_iterate() - call the probes of a marker; called by enabled sites
 * @data: unused here: the site's data for a probe it calls directly
 * @call_private: the site's data for the probes
 * @marker: the site's marker
 * @...: the site's arguments, as its format gives them
 *
 * Calls every probe, in the order they were registered: a fast probe with
 * the arguments, a va_list probe with a copy of them each. One va_list
 * probe is called without walking the array.
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
void notrace marker_probe_iterate(void *data, void *call_private,
				  const struct marker *marker, ...)
{
	const struct marker_probes *probes;
	marker_probe_func *func;
	va_list args;

	probes = rcu_dereference_sched(marker->probes);
	if (unlikely(!probes))
		return;
	va_start(args, marker);
	func = READ_ONCE(probes->probe[0].func);
	if (likely(probes->nr == 1 && func))
		func(probes->probe[0].probe_private, call_private, marker->format, &args);
	else
		marker_call_probes(marker, probes, call_private, &args);
	va_end(args);
}
EXPORT_SYMBOL(marker_probe_iterate);

/* A va_list probe, given arguments passed on as words. */
static void notrace marker_call_va(marker_probe_func *func, void *probe_private,
				   void *call_private, const char *format, ...)
{
	va_list args;

	va_start(args, format);
	func(probe_private, call_private, format, &args);
	va_end(args);
}

/**
 * marker_probe_iterate_regs() - call the probes of a marker whose sites pass
 *	their arguments in registers
 * @data: unused here: the site's data for a probe it calls directly
 * @call_private: the site's data for the probes
 * @marker: the site's marker
 * @a0: its first argument, if it passes one
 * @a1: its second argument, if it passes two
 * @a2: its third argument, if it passes three
 *
 * No site calls this function by name: the registry points the recorded
 * call of an armed site here, rather than at marker_probe_iterate(), when
 * its probes are all fast, none is called straight and the site passes at
 * most MARKER_REG_ARGS arguments. On the architectures that record calls, a variadic call
 * passes those in the registers that this prototype names, so they reach
 * the probes without a va_list: a fast probe gets them as they came, a
 * va_list probe a va_list of them. An argument narrower than a word comes
 * with undefined upper bits, which the probes' va_arg() of its type does
 * not read; nor do they read the words beyond the site's arguments.
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
void notrace marker_probe_iterate_regs(void *data, void *call_private,
				       const struct marker *marker,
				       unsigned long a0, unsigned long a1, unsigned long a2)
{
	const struct marker_probes *probes;
	const struct marker_probe *p, *end;

	probes = rcu_dereference_sched(marker->probes);
	if (unlikely(!probes))
		return;
	for (p = probes->probe, end = p + probes->nr; p < end; p++) {
		/* The probe or, once removed in place, the stub of its type. */
		marker_fast_probe_func *fast = READ_ONCE(p->fast);

		/*
		 * A va_list probe is only met by a site that was on its way
		 * here when its calls went back to marker_probe_iterate(),
		 * and the probe was published right after.
		 */
		if (likely(fast))
			fast(p->probe_private, call_private, marker, a0, a1, a2);
		else
			marker_call_va(READ_ONCE(p->func), p->probe_private, call_private,
				       marker->format, a0, a1, a2);
	}
}
EXPORT_SYMBOL_GPL(marker_probe_iterate_regs);

/* Reports the markers of one table, one row per name, with their live sites. */
static int marker_report_table(struct site_table *t,
			       int (*fn)(const struct marker_info *info, void *data),
			       void *data)
{
	struct site_entry *site;
	struct marker_entry *e;
	int ret = 0;

	for (site = t->start; site < t->stop; site++) {
		e = marker_site_entry(site);
		if (e && site_entry_live(t, site) && !marker_entry_is_call(site))
			e->count++;
	}
	for (site = t->start; site < t->stop; site++) {
		struct marker_info info;

		e = marker_site_entry(site);
		if (!e || !e->count)
			continue;
		info = (struct marker_info) {
			.name = e->name,
			.format = e->format,
			.enabled = e->probes,
			.nr_probes = marker_probes_count(e->probes),
			.nr_sites = e->count,
			.module = t->mod,
			.has_sites = true,
		};
		/* Clear every count, even once @fn has asked to stop. */
		e->count = 0;
		if (!ret)
			ret = fn(&info, data);
	}
	return ret;
}

/**
 * marker_walk() - report every marker
 * @fn: called with each marker; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * Reports the markers with live sites in the kernel, then those of each
 * module, then the names that only have probes. @fn runs under
 * markers_mutex: it must not register or unregister probes.
 *
 * Context: process context; takes markers_mutex.
 * Return: 0, or what @fn returned to stop the walk.
 */
int marker_walk(int (*fn)(const struct marker_info *info, void *data), void *data)
{
	struct marker_entry *e;
	struct site_table *t;
	int bkt, ret = 0;

	guard(mutex)(&markers_mutex);
	for (t = site_tables_first(&marker_tables); t;
	     t = site_tables_next(&marker_tables, t)) {
		ret = marker_report_table(t, fn, data);
		if (ret)
			return ret;
	}
	hash_for_each(marker_names, bkt, e, hlist) {
		struct marker_info info = {
			.name = e->name,
			.format = e->format,
			.enabled = e->probes,
			.nr_probes = marker_probes_count(e->probes),
		};

		if (ret)
			break;
		if (!e->nr_sites)
			ret = fn(&info, data);
	}
	return ret;
}
EXPORT_SYMBOL_GPL(marker_walk);

/* A live patched site, or recorded call, with the module it is in. */
struct marker_site_ref {
	const struct site_entry *site;
	struct module *mod;
};

/* What marker_collect_site() collects: the sites or the calls of an entry. */
struct marker_site_query {
	const struct marker_entry *e;
	bool calls;
};

/* A live patched site or call of the entry of @data, or of any entry. */
static unsigned int marker_collect_site(const struct site_table *t,
					const struct site_entry *site, void *out,
					void *data)
{
	const struct marker_site_query *q = data;
	struct marker_entry *e = marker_site_entry(site);
	struct marker_site_ref *ref = out;

	if (!e || !site_entry_code(site) || (q->e && e != q->e) ||
	    marker_entry_is_call(site) != q->calls)
		return 0;
	if (ref) {
		ref->site = site;
		ref->mod = t->mod;
	}
	return 1;
}

/* The live patched sites (or calls) of @e or of every entry, in a new array. */
static struct marker_site_ref *marker_sites_of(struct marker_entry *e, bool calls,
					       unsigned int *nr)
{
	struct marker_site_query q = { .e = e, .calls = calls };

	return site_tables_collect(&marker_tables, NULL, marker_collect_site, &q,
				   sizeof(struct marker_site_ref), nr);
}

/**
 * marker_walk_sites() - report every patched site
 * @fn: called with each live site; a non-zero return stops the walk
 * @data: passed to @fn
 *
 * @fn runs under markers_mutex: it must not register or unregister probes.
 *
 * Context: process context; takes markers_mutex.
 * Return: 0, what @fn returned to stop the walk, or -ENOMEM.
 */
int marker_walk_sites(marker_site_fn *fn, void *data)
{
	struct marker_site_ref *refs;
	unsigned int i, n;
	int ret = 0;

	guard(mutex)(&markers_mutex);
	refs = marker_sites_of(NULL, false, &n);
	if (IS_ERR(refs))
		return PTR_ERR(refs);
	for (i = 0; i < n && !ret; i++)
		ret = fn(marker_site_entry(refs[i].site)->name,
			 site_entry_code(refs[i].site), refs[i].site->len,
			 refs[i].mod, data);
	kvfree(refs);
	return ret;
}
EXPORT_SYMBOL_GPL(marker_walk_sites);

/* The code of at most @max live sites or calls of @name, in @code. */
static int marker_get_code(const char *name, bool calls, void **code, unsigned int max)
{
	struct marker_site_ref *refs;
	struct marker_entry *e;
	unsigned int i, n;

	guard(mutex)(&markers_mutex);
	e = marker_entry_find(name);
	if (!e)
		return 0;
	refs = marker_sites_of(e, calls, &n);
	if (IS_ERR(refs))
		return PTR_ERR(refs);
	for (i = 0; i < n && i < max; i++)
		code[i] = site_entry_code(refs[i].site);
	kvfree(refs);
	return n;
}

/**
 * marker_get_sites() - list the patched sites of a marker
 * @name: the marker's name
 * @code: filled with the address of at most @max sites' jump slots
 * @max: the size of @code
 *
 * Context: process context; takes markers_mutex.
 * Return: the number of live patched sites, which may exceed @max; -ENOMEM.
 */
int marker_get_sites(const char *name, void **code, unsigned int max)
{
	return marker_get_code(name, false, code, max);
}
EXPORT_SYMBOL_GPL(marker_get_sites);

/**
 * marker_get_calls() - list the recorded calls of a marker's probe blocks
 * @name: the marker's name
 * @code: filled with the address of at most @max calls
 * @max: the size of @code
 *
 * A patched site has one: a 5-byte call that goes straight to the
 * marker's probe while it has exactly one and that one is fast, and to
 * marker_probe_iterate() otherwise.
 *
 * Context: process context; takes markers_mutex.
 * Return: the number of live recorded calls, which may exceed @max; -ENOMEM.
 */
int marker_get_calls(const char *name, void **code, unsigned int max)
{
	return marker_get_code(name, true, code, max);
}
EXPORT_SYMBOL_GPL(marker_get_calls);

/**
 * marker_text_reserved() - check whether an address range overlaps a site
 * @start: first byte of the range
 * @end: last byte of the range
 *
 * Code that writes kernel text (kprobes) must leave marker sites alone,
 * from the jump slot to the end of the jne. The sites are found by
 * address from the tables the kernel and modules carry, never from the
 * bytes at @start, which a switch may be rewriting; a module's sites are
 * reserved from the moment its text is, before it comes.
 *
 * Context: any context where modules can be looked up; takes no lock.
 * Return: 1 if the range overlaps a patched site, 0 otherwise.
 */
int marker_text_reserved(void *start, void *end)
{
	return site_tables_reserved(&marker_tables, start, end);
}

/*
 * Takes a table's sites from MARKER_SITE_BUILT to the state of their names,
 * and publishes their probes: for the kernel at boot, for a module before
 * any of its code runs.
 */
static int marker_table_prepare(struct site_table *t)
{
	struct marker_switch sw = { .from = MARKER_SITE_BUILT };
	struct site_entry *site;

	for (site = t->start; site < t->stop; site++) {
		struct marker_entry *e = marker_site_entry(site);

		if (e)
			rcu_assign_pointer(marker_site_marker(site)->probes, e->probes);
	}
	return marker_switch_apply(&sw, t);
}

/**
 * marker_init() - register the kernel's markers and switch their sites off
 *
 * Called by start_kernel() after imv_init(), while one CPU runs and kernel
 * text is writable, so the sites are written directly. Until then they run
 * the pattern with the immediate 0: correct, just not yet the one-jump fast
 * path. If that fails, markers are off for good: the sites stay as built
 * and never call a probe, and every registration fails with -ENODEV.
 */
void __init marker_init(void)
{
	struct site_entry *stopped;
	struct site_table *t;
	int ret;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	site_tables_init(&marker_tables, __start___marker_sites, __stop___marker_sites);
	t = &marker_tables.core;
	ret = marker_sites_attach(t->start, t->stop, &stopped);
	if (ret) {
		marker_sites_detach(t->start, stopped);
	} else {
		ret = marker_table_prepare(t);
		if (ret)
			marker_sites_detach(t->start, t->stop);
	}
	if (ret) {
		markers_disabled = true;
		pr_err("disabled: cannot prepare the kernel's sites: %d\n", ret);
	}
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
}

/**
 * marker_free_init_mem() - forget the sites in the kernel's init text
 *
 * Called before free_initmem(): no switch writes them from now on, and
 * neither the list nor the sites report them.
 */
void marker_free_init_mem(void)
{
	guard(mutex)(&markers_mutex);
	site_tables_forget_init(&marker_tables, NULL);
}

static void marker_module_entries(struct module *mod, struct site_entry **start,
				  struct site_entry **stop)
{
	*start = mod->marker_sites;
	*stop = mod->marker_sites + mod->num_marker_sites;
}

#ifdef CONFIG_MODULES

static int marker_module_coming(struct module *mod)
{
	struct site_entry *stopped;
	struct site_table *t;
	int ret;

	if (markers_disabled)
		return 0;
	t = site_tables_add_module(&marker_tables, mod);
	if (IS_ERR_OR_NULL(t))
		return PTR_ERR_OR_ZERO(t);
	ret = marker_sites_attach(t->start, t->stop, &stopped);
	if (ret)
		goto out_remove;
	ret = marker_table_prepare(t);
	if (ret) {
		stopped = t->stop;
		goto out_detach;
	}
	return 0;

out_detach:
	marker_sites_detach(t->start, stopped);
out_remove:
	site_tables_remove_module(&marker_tables, mod);
	return ret;
}

static void marker_module_going(struct module *mod)
{
	struct site_table *t = site_tables_find_module(&marker_tables, mod);

	if (!t)
		return;
	marker_sites_detach(t->start, t->stop);
	site_tables_remove_module(&marker_tables, mod);
}

static int marker_module_notify(struct notifier_block *self, unsigned long val,
				void *data)
{
	struct module *mod = data;
	int ret = 0;

	cpus_read_lock();
	mutex_lock(&markers_mutex);
	switch (val) {
	case MODULE_STATE_COMING:
		ret = marker_module_coming(mod);
		if (ret)
			pr_warn("%s: cannot prepare the module's markers: %d\n",
				mod->name, ret);
		break;
	case MODULE_STATE_LIVE:
		/* Its init function returned: its init text is about to go. */
		site_tables_forget_init(&marker_tables, mod);
		break;
	case MODULE_STATE_GOING:
		marker_module_going(mod);
		break;
	case MODULE_STATE_UNFORMED:
		break;
	}
	mutex_unlock(&markers_mutex);
	cpus_read_unlock();
	return notifier_from_errno(ret);
}

static struct notifier_block marker_module_nb = {
	.notifier_call = marker_module_notify,
	.priority = 0,	/* after immediate values, whose tables markers use */
};

static int __init marker_module_init(void)
{
	return register_module_notifier(&marker_module_nb);
}
early_initcall(marker_module_init);

#endif /* CONFIG_MODULES */
