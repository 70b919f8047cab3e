/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of the markers core share: the registry's entries and
 * lock, the site tables, and the steps of a switch. Not an API: tracers
 * use <linux/marker.h>.
 */
#ifndef _KERNEL_MARKER_INTERNAL_H
#define _KERNEL_MARKER_INTERNAL_H

#include <linux/ctype.h>
#include <linux/hashtable.h>
#include <linux/marker.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/site_table.h>

/*
 * struct marker_gp_state: the full state of RCU grace periods that the
 * *_synchronize_rcu_full() functions take.
 */
#define marker_gp_state		rcu_gp_seq

/*
 * The kernel checks the type hash of indirect calls (kCFI, and FineIBT,
 * which checks it in the callee), which the calls that assembly makes to
 * probes do not carry.
 */
#define MARKER_KCFI		IS_ENABLED(CONFIG_CFI)

/**
 * struct marker_entry - a marker name in the registry
 * @hlist: in marker_names
 * @format: a copy of the format of its sites; NULL while unknown
 * @probes: the published probes, NULL while none
 * @nr_sites: its attached sites, in the kernel and in modules
 * @nr_orphans: sites of its name left off for another format than @format;
 *	they attach when the entry goes
 * @count: scratch counter of marker_report_table()
 * @listed: scratch flag of marker_walk(): a site table reported it
 * @armed: its patched sites are in MARKER_SITE_ON
 * @direct: what its recorded calls go straight to, reading @data: its only
 *	probe, a fast one, marker_probe_va_one() for its only probe, a
 *	va_list one, or marker_probe_pair() or marker_probe_triple() for its
 *	two or three fast probes;
 *	NULL while they go to an iterator; set only while @armed
 * @regs: its recorded calls go to marker_probe_iterate_regs() where they
 *	can: its probes are all fast, and not @direct; only while @armed
 * @data: the @data of its struct markers
 * @data_gp: the RCU state when @data last changed
 * @va_one: the probe that marker_probe_va_one() calls, with @va_one as
 *	@data; kept from one registration to the next
 * @va_one_gp: the RCU state when the calls last went to
 *	marker_probe_va_one(); @va_one changes only after it
 * @name: the name
 */
struct marker_entry {
	struct hlist_node hlist;
	char *format;
	struct marker_probes *probes;
	unsigned int nr_sites;
	unsigned int nr_orphans;
	unsigned int count;
	bool listed;
	bool armed;
	bool regs;
	marker_fast_probe_func *direct;
	void *data;
	struct marker_gp_state data_gp;
	struct marker_probe va_one;
	struct marker_gp_state va_one_gp;
	char name[];
};

#define MARKER_NAMES_BITS	6

/* The registry (kernel/marker.c): everything below is under markers_mutex. */
extern struct mutex markers_mutex;
extern DECLARE_HASHTABLE(marker_names, MARKER_NAMES_BITS);
extern struct site_tables marker_tables;

static inline struct marker_entry *marker_site_entry(const struct site_entry *site)
{
	return marker_site_marker(site)->entry;
}

/*
 * A character of a C identifier. The kernel's isalnum() also takes the
 * Latin-1 letters (0xc0 to 0xff), which are not characters of one.
 */
static inline bool marker_ident_char(char c)
{
	return isascii(c) && (isalnum(c) || c == '_');
}

struct marker_entry *marker_entry_find(const char *name);
unsigned int marker_probes_count(const struct marker_probes *probes);
bool marker_probe_is_stub(const struct marker_probe *p);
bool marker_probe_match(const struct marker_probe *p, const struct marker_probe *probe);

/* Switching sites and calls (kernel/marker_switch.c). */
int marker_entry_set_probes(struct marker_entry *e, struct marker_probes *new,
			    bool removing);
int marker_entry_clear_probes(struct marker_entry *e);
int marker_table_prepare(struct site_table *t);

#if IS_ENABLED(CONFIG_KUNIT) && IS_ENABLED(CONFIG_MARKER_EVENTS)
/* Marker events (kernel/trace/trace_markers.c), for the KUnit suites. */
int trace_marker_command(const char *cmd);
#endif

#endif /* _KERNEL_MARKER_INTERNAL_H */
