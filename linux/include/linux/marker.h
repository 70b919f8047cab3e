/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_MARKER_H
#define _LINUX_MARKER_H

/*
 * Kernel markers: instrumentation sites left in production kernels. A
 * disabled marker costs one jump; a tracer switches it on at run time by
 * connecting a probe, which patches the site live. See Documentation/markers.txt.
 *
 *	MARK(sched_wakeup, "pid %d prio %d", p->pid, p->prio);
 *
 * The arguments are evaluated only when a probe is connected. Names are
 * global identifiers of the form subsystem_event; every site of a name must
 * use the same format, which is checked against the arguments at compile
 * time. Probes receive the arguments as a va_list.
 *
 * Site layout on x86-64 (CONFIG_IMMEDIATE=y), emitted by one asm goto so that
 * the compiler knows every edge (see <asm/marker.h>):
 *
 *	slot:	66 90			2-byte NOP as built
 *		eb 06 (or eb 0a)	off: jump over the pattern
 *		eb <rel8> or 66 90	on: jump to the probe block, or fall in
 *	mov:	b0 00 / b0 01		movb $0/$1, %al: the immediate value
 *					marker->enabled, 1 when on
 *	test:	84 c0			testb %al, %al
 *	jne:	75 <rel8>		or 0f 85 <rel32>: the out-of-line probe block
 *
 * As built the site is correct but not yet fast: it runs the pattern with
 * the immediate 0. marker_init() rewrites every kernel site to "off" at
 * boot, and the module notifier every module site before it runs. The
 * mov is an immediate-value site (<linux/immediate.h>); kprobes may not
 * touch any byte from the slot to the end of jne.
 */

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/rcupdate.h>
#include <linux/site_table.h>
#include <linux/stdarg.h>
#include <linux/types.h>

struct module;
struct marker_entry;

/* Marker names are identifiers: [a-z_][a-z0-9_]*, at most this long. */
#define MARKER_NAME_MAX		64

/* The format of a marker without arguments. */
#define MARK_NOARGS		" "

/**
 * typedef marker_probe_func - a probe connected to a marker
 * @probe_private: the data given to marker_probe_register()
 * @call_private: the data given by the site (MARK_PRIVATE()), or NULL
 * @fmt: the marker's format
 * @args: the site's arguments, to fetch with va_arg(*@args, type) in the
 *	order and with the types that @fmt gives
 *
 * Runs with preemption disabled: it must not sleep.
 */
typedef void marker_probe_func(void *probe_private, void *call_private,
			       const char *fmt, va_list *args);

/**
 * struct marker_probe - a connected probe
 * @func: the probe
 * @probe_private: its data
 */
struct marker_probe {
	marker_probe_func *func;
	void *probe_private;
};

/**
 * struct marker_probes - the probes of a marker, replaced on every change
 * @rcu: frees the array once no site can be calling through it
 * @nr: the number of probes
 * @probe: the probes
 */
struct marker_probes {
	struct rcu_head rcu;
	unsigned int nr;
	struct marker_probe probe[];
};

/**
 * struct marker - one MARK() of the source, in section __markers
 * @name: the marker's name
 * @format: the format of its arguments; NULL for a marker_enabled() guard
 * @probes: what its sites call, published under RCU; NULL while off
 * @entry: private to kernel/marker.c
 * @enabled: an immediate value: 1 while the sites are on. The sites test
 *	it (patched sites as the immediate of their mov, see <asm/marker.h>);
 *	only kernel/marker.c changes it, through the immediate-values API.
 *
 * The sites of a MARK() are entries of __marker_sites (&struct site_entry,
 * whose key is the &struct marker). One MARK() may have several sites: the
 * compiler copies inline code.
 */
struct marker {
	const char *name;
	const char *format;
	struct marker_probes __rcu *probes;
	struct marker_entry *entry;
	u8 enabled;
};

static inline struct marker *marker_site_marker(const struct site_entry *site)
{
	return site_entry_key(site);
}

/**
 * enum marker_site_state - what a patched site does
 * @MARKER_SITE_BUILT: as the compiler emitted it: runs the pattern, immediate 0
 * @MARKER_SITE_OFF: jumps over the pattern
 * @MARKER_SITE_ON: calls the probes
 */
enum marker_site_state {
	MARKER_SITE_BUILT,
	MARKER_SITE_OFF,
	MARKER_SITE_ON,
};

/**
 * struct marker_info - a marker as marker_walk() reports it
 * @name: its name
 * @format: its format, NULL while no site or probe has given one
 * @enabled: its sites call the probes
 * @nr_probes: the number of connected probes
 * @nr_sites: the number of its sites in @module
 * @module: where those sites are: NULL for the kernel
 * @has_sites: false for a marker that only has probes, waiting for a module
 *
 * A marker with sites in the kernel and in modules is reported once per
 * place.
 */
struct marker_info {
	const char *name;
	const char *format;
	bool enabled;
	unsigned int nr_probes;
	unsigned int nr_sites;
	struct module *module;
	bool has_sites;
};

/**
 * typedef marker_site_fn - what marker_walk_sites() calls for each site
 * @name: the site's marker
 * @code: the site's jump slot
 * @size: the length of its pattern, in bytes (kprobes may not touch them)
 * @mod: the module it is in, or NULL for the kernel
 * @data: the data given to marker_walk_sites()
 *
 * Return: 0 to go on; anything else stops the walk and is returned.
 */
typedef int marker_site_fn(const char *name, void *code, unsigned int size,
			   struct module *mod, void *data);

/* Checks the arguments against the format at compile time; never called. */
static inline __printf(1, 2) void __marker_check_format(const char *fmt, ...)
{
}

/* A marker's name is an identifier (or this does not build) of bounded length. */
#define __marker_check_name(name)					\
	BUILD_BUG_ON(sizeof(#name) > MARKER_NAME_MAX + 1)

#ifdef CONFIG_MARKERS

/* The kernel's sites. */
extern struct site_entry __start___marker_sites[], __stop___marker_sites[];

/* A site that tests a plain variable: records itself (no code), then loads. */
static __always_inline bool __marker_plain_site(struct marker *marker)
{
	asm volatile(SITE_ENTRY_ASM("__marker_sites, \"a\"", ".", "%c0", "0", "0")
		     : : "i" (marker));
	return unlikely(READ_ONCE(marker->enabled));
}

/**
 * struct marker_site_change - one site to switch, see arch_marker_switch()
 * @site: the site
 * @from: the state it is in
 * @to: the state to put it in
 */
struct marker_site_change {
	const struct site_entry *site;
	enum marker_site_state from;
	enum marker_site_state to;
};

struct imv_update;

/*
 * The architecture provides arch_marker_site(), the patched site, and for
 * kernel/marker.c arch_marker_switch(): it changes the immediate values
 * @updates (the @enabled of markers) and switches the sites @changes, all
 * in one batch, all or nothing.
 *
 * Context: the caller holds cpus_read_lock().
 */
#ifdef CONFIG_IMMEDIATE
#include <asm/marker.h>
#define __marker_site(marker)	arch_marker_site(marker)
int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
		       const struct marker_site_change *changes, unsigned int nr_changes);
#else
#include <linux/immediate.h>
#define __marker_site(marker)	__marker_plain_site(marker)
/* Without CONFIG_IMMEDIATE there are no patched sites: only the values. */
static inline int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
				     const struct marker_site_change *changes,
				     unsigned int nr_changes)
{
	return nr_changes ? -EINVAL : imv_update_batch(updates, nr);
}
#endif

void marker_probe_cb(const struct marker *marker, void *call_private, ...);

/* The static struct marker of one MARK(), with its strings. */
#define __MARKER_DEFINE(_name, _format)					\
	static const char __mstrtab_##_name[]				\
	__section("__markers_strings") = #_name "\0" _format;		\
	static struct marker __marker_##_name				\
	__section("__markers") __aligned(8) __used = {			\
		.name = __mstrtab_##_name,				\
		.format = &__mstrtab_##_name[sizeof(#_name)],		\
	}

/* One marker site: @site_fn decides whether the probes are called. */
#define __MARK(site_fn, name, call_private, format, args...)		\
	do {								\
		__MARKER_DEFINE(name, format);				\
		__marker_check_name(name);				\
		if (0)							\
			__marker_check_format(format, ## args);		\
		if (site_fn(&__marker_##name))				\
			marker_probe_cb(&__marker_##name,		\
					call_private, ## args);		\
	} while (0)

/**
 * MARK() - a marker site
 * @name: the marker's name, an identifier of the form subsystem_event
 * @format: a string literal: the printf-style format of @args, or
 *	MARK_NOARGS
 * @args: the arguments; evaluated only when a probe is connected
 *
 * Costs one jump while no probe is connected. Must not be used in noinstr,
 * entry or NMI code, nor where RCU is not watching; in __init and __exit
 * code use _MARK().
 */
#define MARK(name, format, args...)					\
	__MARK(__marker_site, name, NULL, format, ## args)

/**
 * MARK_PRIVATE() - a marker site that passes data of its own to the probes
 * @name: the marker's name
 * @call_private: a pointer the probes receive as @call_private
 * @format: the format of @args
 * @args: the arguments
 */
#define MARK_PRIVATE(name, call_private, format, args...)		\
	__MARK(__marker_site, name, call_private, format, ## args)

/**
 * _MARK() - a marker site that tests a plain variable
 * @name: the marker's name
 * @format: the format of @args
 * @args: the arguments
 *
 * For __init and __exit code and code that must never be patched: costs a
 * load and a test instead of a jump, and is never rewritten.
 */
#define _MARK(name, format, args...)					\
	__MARK(__marker_plain_site, name, NULL, format, ## args)

/**
 * marker_enabled() - whether a marker is on
 * @_name: the marker's name
 *
 * A site of its own, which costs one jump while off: use it to skip
 * computing arguments that are only needed when the marker is on.
 */
#define marker_enabled(_name)						\
({									\
	static const char __mstrtab_##_name[]				\
	__section("__markers_strings") = #_name;			\
	static struct marker __marker_##_name				\
	__section("__markers") __aligned(8) __used = {			\
		.name = __mstrtab_##_name,				\
	};								\
	__marker_check_name(_name);					\
	__marker_site(&__marker_##_name);				\
})

/*
 * A probe's @fmt is a printf format. The attribute that says so is given on
 * these parameters rather than on the typedef, which kernel-doc could not
 * parse with it; a __printf(3, 0) probe then passes without a W=1 hint.
 */
int marker_probe_register(const char *name, const char *format,
			  __printf(3, 0) marker_probe_func *probe, void *probe_private);
int marker_probe_unregister(const char *name, __printf(3, 0) marker_probe_func *probe,
			    void *probe_private);
int marker_probe_unregister_private_data(__printf(3, 0) marker_probe_func *probe,
					 void *probe_private);
void *marker_get_private_data(const char *name, __printf(3, 0) marker_probe_func *probe,
			      int num);
int marker_walk(int (*fn)(const struct marker_info *info, void *data), void *data);
int marker_get_sites(const char *name, void **code, unsigned int max);
int marker_walk_sites(marker_site_fn *fn, void *data);
int marker_text_reserved(void *start, void *end);
void __init marker_init(void);
void marker_free_init_mem(void);
void *marker_alloc(size_t size);
bool marker_name_valid(const char *name);

/**
 * marker_synchronize_unregister() - wait until no probe runs on old data
 *
 * A probe unregistered before this call is never called after it returns:
 * call it before freeing the probe's data and before a module that
 * registered probes goes away.
 */
static inline void marker_synchronize_unregister(void)
{
	synchronize_rcu();
}

#else /* !CONFIG_MARKERS */

/*
 * No code and no data; the name, the format and the arguments are still
 * checked at compile time, and nothing is evaluated.
 */
#define MARK_PRIVATE(name, call_private, format, args...)		\
	do {								\
		__marker_check_name(name);				\
		if (0) {						\
			(void)(call_private);				\
			__marker_check_format(format, ## args);		\
		}							\
	} while (0)
#define MARK(name, format, args...)					\
	MARK_PRIVATE(name, NULL, format, ## args)
#define _MARK(name, format, args...)					\
	MARK_PRIVATE(name, NULL, format, ## args)
#define marker_enabled(name)						\
({									\
	__marker_check_name(name);					\
	false;								\
})

static inline int marker_probe_register(const char *name, const char *format,
					marker_probe_func *probe,
					void *probe_private)
{
	return -EOPNOTSUPP;
}

static inline int marker_probe_unregister(const char *name,
					  marker_probe_func *probe,
					  void *probe_private)
{
	return -EOPNOTSUPP;
}

static inline int marker_probe_unregister_private_data(marker_probe_func *probe,
						       void *probe_private)
{
	return -EOPNOTSUPP;
}

static inline void *marker_get_private_data(const char *name,
					    marker_probe_func *probe, int num)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline int marker_walk(int (*fn)(const struct marker_info *info, void *data),
			      void *data)
{
	return 0;
}

static inline int marker_get_sites(const char *name, void **code,
				   unsigned int max)
{
	return 0;
}

static inline int marker_walk_sites(marker_site_fn *fn, void *data)
{
	return 0;
}

static inline int marker_text_reserved(void *start, void *end)
{
	return 0;
}

static inline bool marker_name_valid(const char *name)
{
	return false;
}

static inline void marker_init(void)
{
}

static inline void marker_free_init_mem(void)
{
}

static inline void marker_synchronize_unregister(void)
{
}

#endif /* CONFIG_MARKERS */

#endif /* _LINUX_MARKER_H */
