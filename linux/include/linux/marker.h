/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_MARKER_H
#define _LINUX_MARKER_H

/*
 * Kernel markers: instrumentation sites left in production kernels. A
 * disabled marker costs about what a disabled static branch costs (on
 * x86-64 one NOP at a near site, a NOP, a compare and a branch not taken
 * at a far one); a tracer switches it on at run time by connecting a
 * probe, which patches the site live. See Documentation/markers.txt.
 *
 *	MARK(sched_wakeup, "pid %d prio %d", p->pid, p->prio);
 *
 * The arguments are evaluated only when a probe is connected. Names are
 * global identifiers of the form subsystem_event; every site of a name must
 * use the same format, which is checked against the arguments at compile
 * time. A site takes at most MARKER_MAX_ARGS arguments. Probes receive the
 * arguments as variadic arguments (marker_fast_probe_func) or as a va_list
 * (marker_probe_func).
 *
 * Site layout on x86-64 (CONFIG_MARKER_SITES=y), emitted by one asm goto so that
 * the compiler knows every edge (see <asm/marker.h>):
 *
 *	slot:	66 90			2-byte NOP as built
 *	guard:	83 fc 00 / 83 fc ff	cmpl $0/$-1, %esp: the immediate, ff when on
 *	jb:	72 <rel8>		or 0f 82 <rel32>: the out-of-line probe block
 *
 * The guard sets the carry flag only when its immediate is ff: %esp is
 * never below 0, and always below 0xffffffff (the stack is aligned). It
 * reads no register but %esp, and writes none: the site clobbers the flags
 * only. As built the site is correct but not yet in its state: it runs the
 * pattern with the immediate 0. marker_init() rewrites every kernel site at
 * boot, and the module notifier every module site before it runs. A near
 * site (a short jb whose probe block a jmp rel8 from the slot reaches)
 * only ever has its slot written; a far site only its immediate:
 *
 *	near, off:	0f 1f 83 fc 00 72 xx	one NOP, "nopl disp32(%rbx)" (0F 1F /0)
 *	near, on:	eb <rel8> ...			straight to the probe block
 *	far, off:	66 90 83 fc 00 0f 82 ...	the pattern, not taken
 *	far, on:	66 90 83 fc ff 0f 82 ...	the pattern, taken
 *
 * kprobes may not touch any byte from the slot to the end of jb.
 *
 * The probe block of a site calls marker_probe_iterate(), and records the
 * call, which goes straight to the marker's probe while it has exactly one
 * and that one is fast; to marker_probe_va_one() while its one probe takes
 * a va_list; to marker_probe_pair() or marker_probe_triple() while it has
 * two or three fast probes; and to marker_probe_iterate_regs() while the
 * site is on for more probes that are all fast. The last three only for
 * sites of at most MARKER_REG_ARGS arguments:
 *
 *	call:	e8 <rel32>		marker_probe_iterate() as built,
 *					marker_probe_va_one(),
 *					marker_probe_pair(),
 *					marker_probe_triple(),
 *					marker_probe_iterate_regs(), or the probe
 *
 * On arm64 a site is its slot alone, as an arm64 jump label is: no
 * instruction names the probe block while it is off, so its entry records
 * the block (&struct site_entry's @target). Only the slot and the call are
 * rewritten, each from one branch instruction to another:
 *
 *	slot:	nop			as built, and off
 *		b	block		on: straight to the probe block
 *	call:	bl	<fn>		in the probe block, as on x86-64
 */

#include <linux/args.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/site_table.h>
#include <linux/stdarg.h>
#include <linux/stringify.h>
#include <linux/types.h>

struct module;
struct marker;
struct marker_entry;

/* Marker names are identifiers: [a-z_][a-z0-9_]*, at most this long. */
#define MARKER_NAME_MAX		64

/* The format of a marker without arguments. */
#define MARK_NOARGS		" "

/* The most arguments a MARK() takes. */
#define MARKER_MAX_ARGS		8

/*
 * What an entry of __marker_sites is (its @size): a site, or its call (of
 * MARKER_CALL_LEN bytes, given by <asm/marker.h>).
 */
#define MARKER_ENTRY_SITE	0
#define MARKER_ENTRY_CALL	1

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
 * typedef marker_fast_probe_func - a probe called with the site's arguments
 * @probe_private: the data given to marker_probe_register_fast()
 * @call_private: the data given by the site (MARK_PRIVATE()), or NULL
 * @marker: the site's marker; its @format gives the types of the arguments
 *	and its @name the marker's name
 * @...: the site's arguments, in the order and with the types of the format
 *
 * The probe type to prefer: it is called with the arguments as the site
 * passed them, without a va_list built for it. Fetch them with
 * va_start(args, marker) and va_arg(), or hand them on to a v*printf()
 * function with @marker->format. Runs with preemption disabled: it must
 * not sleep.
 */
typedef void marker_fast_probe_func(void *probe_private, void *call_private,
				    const struct marker *marker, ...);

/**
 * struct marker_probe - a connected probe
 * @func: the probe, if it takes a va_list; NULL otherwise
 * @fast: the probe, if it takes variadic arguments; NULL otherwise
 * @probe_private: its data
 *
 * Exactly one of @func and @fast is set, and which one never changes.
 */
struct marker_probe {
	marker_probe_func *func;
	marker_fast_probe_func *fast;
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
 * @entry: private to the markers core (kernel/marker*.c)
 * @enabled: 1 while the sites are on: what patched sites hold as the
 *	immediate of their guard where they read one (see <asm/marker.h>),
 *	what the sites of _MARK() load; only the markers core changes it
 * @nr_args: the number of arguments its sites pass
 * @planned: private to the markers core: set while the switch being
 *	planned holds the update of @enabled
 * @data: what its sites pass as the first argument of their call: the
 *	@probe_private of the probe their recorded calls go straight to;
 *	only the markers core changes it
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
	u8 nr_args;
	u8 planned;
	void *data;
};

static inline struct marker *marker_site_marker(const struct site_entry *site)
{
	return site_entry_key(site);
}

/* Whether an entry of __marker_sites is the call of a probe block. */
static inline bool marker_entry_is_call(const struct site_entry *site)
{
	return site->size == MARKER_ENTRY_CALL;
}

/**
 * enum marker_site_state - what a patched site does
 * @MARKER_SITE_BUILT: as the compiler emitted it: runs the pattern, immediate 0
 * @MARKER_SITE_OFF: goes on past the site without calling the probes
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

/* The longest field name of a marker's event, its NUL included. */
#define MARKER_FIELD_NAME_MAX	32

/* The longest conversion of a format with a field ("%-20llx"), with its NUL. */
#define MARKER_CONV_MAX		16

/**
 * enum marker_field_type - the type of one argument, from its conversion
 * @MARKER_FIELD_INT: %d %i (and %hd %hhd, which travel as ints)
 * @MARKER_FIELD_UINT: %u %x %X %o (and %hu %hhx ...)
 * @MARKER_FIELD_LONG: %ld %li %zd %zi
 * @MARKER_FIELD_ULONG: %lu %lx %lX %lo %zu %zx %zX
 * @MARKER_FIELD_S64: %lld %lli
 * @MARKER_FIELD_U64: %llu %llx %llX %llo
 * @MARKER_FIELD_PTR: %p, and %px %pK %pS %ps %pSR %pB, which only print the
 *	pointer's value or the symbol at it
 * @MARKER_FIELD_CHAR: %c
 * @MARKER_FIELD_STR: %s
 */
enum marker_field_type {
	MARKER_FIELD_INT,
	MARKER_FIELD_UINT,
	MARKER_FIELD_LONG,
	MARKER_FIELD_ULONG,
	MARKER_FIELD_S64,
	MARKER_FIELD_U64,
	MARKER_FIELD_PTR,
	MARKER_FIELD_CHAR,
	MARKER_FIELD_STR,
};

/**
 * struct marker_field - one argument of a marker's format
 * @name: its name: the last word of the text before its conversion
 *	("pid %d" and "pid=%d" give "pid"), or "argN" for the Nth argument
 *	(from 0) when that word is missing, clashes with an earlier name, is
 *	too long, or starts with "common_" or "__"
 * @type: its type, from its conversion
 * @conv: the offset of its conversion (the '%') in the format
 * @conv_len: the length of its conversion
 */
struct marker_field {
	char name[MARKER_FIELD_NAME_MAX];
	enum marker_field_type type;
	unsigned short conv;
	unsigned short conv_len;
};

/**
 * struct marker_format - the arguments of a format, see marker_format_parse()
 * @nr: the number of arguments
 * @field: the arguments, in order
 * @error: why the format has no fields, when marker_format_parse() fails
 * @error_pos: the offset in the format of what @error is about
 */
struct marker_format {
	unsigned int nr;
	struct marker_field field[MARKER_MAX_ARGS];
	const char *error;
	unsigned int error_pos;
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

/* A site passes at most MARKER_MAX_ARGS arguments. */
#define __marker_check_nr_args(args...)					\
	BUILD_BUG_ON(COUNT_ARGS(args) > MARKER_MAX_ARGS)

#ifdef CONFIG_MARKERS

/* The kernel's sites. */
extern struct site_entry __start___marker_sites[], __stop___marker_sites[];

/* A site that tests a plain variable: records itself (no code), then loads. */
static __always_inline bool __marker_plain_site(struct marker *marker)
{
	asm volatile(SITE_ENTRY_ASM("__marker_sites, \"a\"", ".", SITE_ENTRY_SYMBOL(0), "0",
				    __stringify(MARKER_ENTRY_SITE))
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

/**
 * struct marker_call_change - one recorded call to retarget
 * @site: its entry (MARKER_ENTRY_CALL)
 * @from: the function it calls now
 * @to: the function to call
 */
struct marker_call_change {
	const struct site_entry *site;
	void *from;
	void *to;
};

struct imv_update;

void marker_probe_iterate(void *data, void *call_private,
			  const struct marker *marker, ...);
void marker_probe_va_one(void *data, void *call_private,
			 const struct marker *marker, ...);

/* The arguments of a site that marker_probe_iterate_regs() passes on. */
#define MARKER_REG_ARGS		3

void marker_probe_iterate_regs(void *data, void *call_private,
			       const struct marker *marker,
			       unsigned long a0, unsigned long a1, unsigned long a2);

/**
 * marker_probe_pair() - call the two fast probes of a marker
 * @data: the marker's &struct marker_probes, of two fast probes
 * @call_private: the site's data for the probes
 * @marker: the site's marker
 * @...: the site's arguments, at most MARKER_REG_ARGS
 *
 * No site calls this function by name: the registry points the recorded
 * calls of a marker's sites here while it has two fast probes, and gives
 * them @data. Written in assembly by each architecture with
 * CONFIG_MARKER_SITES: it keeps the argument registers across the call of
 * the first probe and jumps to the second with them, which no C function
 * of this prototype can do without copying them around; only a site whose
 * arguments all travel in registers may call it.
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
void marker_probe_pair(void *data, void *call_private, const struct marker *marker, ...);

/**
 * marker_probe_triple() - call the three fast probes of a marker
 * @data: the marker's &struct marker_probes, of three fast probes
 * @call_private: the site's data for the probes
 * @marker: the site's marker
 * @...: the site's arguments, at most MARKER_REG_ARGS
 *
 * What marker_probe_pair() is for two probes: the registry points the
 * recorded calls of a marker's sites here while it has three fast probes.
 * It keeps the argument registers across the calls of the first two
 * probes and jumps to the third with them. More probes go through
 * marker_probe_iterate_regs().
 *
 * Context: called with preemption disabled, which is the RCU read side
 * that marker_synchronize_unregister() waits for.
 */
void marker_probe_triple(void *data, void *call_private, const struct marker *marker, ...);

/*
 * The architecture provides arch_marker_site(), the patched site,
 * arch_marker_record_call(), which records the call a site's probe block
 * has just made, and for kernel/marker_switch.c arch_marker_switch(): it
 * switches the sites @changes and retargets the calls @calls, all in one
 * batch, then stores @updates (the @enabled of markers, plain variables),
 * all or nothing (the caller holds cpus_read_lock()); arch_marker_site_block(),
 * the entry of a site's probe block, read from the site's branch (NULL if
 * the site does not hold one), in any context where the site's text is
 * there; and marker_probe_pair() and marker_probe_triple().
 */
#ifdef CONFIG_MARKER_SITES
#include <asm/marker.h>
#define __marker_site(marker)	arch_marker_site(marker)
#define __marker_record_call(marker)	arch_marker_record_call(marker)
int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
		       const struct marker_site_change *changes, unsigned int nr_changes,
		       const struct marker_call_change *calls, unsigned int nr_calls);
void *arch_marker_site_block(const struct site_entry *site);
#else
#include <linux/immediate.h>
#define __marker_site(marker)	__marker_plain_site(marker)
#define __marker_record_call(marker)	__marker_no_record(marker)
/* Without CONFIG_MARKER_SITES there are no patched sites: only the values. */
static inline int arch_marker_switch(const struct imv_update *updates, unsigned int nr,
				     const struct marker_site_change *changes,
				     unsigned int nr_changes,
				     const struct marker_call_change *calls,
				     unsigned int nr_calls)
{
	return nr_changes || nr_calls ? -EINVAL : imv_update_batch(updates, nr);
}
#endif

/* The static struct marker of one MARK(), with its strings. */
#define __MARKER_DEFINE(_name, _format, _nr_args)			\
	static const char __mstrtab_##_name[]				\
	__section("__markers_strings") = #_name "\0" _format;		\
	static struct marker __marker_##_name				\
	__section("__markers") __aligned(8) __used = {			\
		.name = __mstrtab_##_name,				\
		.format = &__mstrtab_##_name[sizeof(#_name)],		\
		.nr_args = _nr_args,					\
	}

/* A site whose call is never rewritten: _MARK(). */
static __always_inline void __marker_no_record(struct marker *marker)
{
}

/*
 * Whether the call of a site of @nr_args arguments can be recorded. Clang
 * pops the arguments a call passed on the stack (on x86-64, those after
 * the first MARKER_REG_ARGS) right after it, before the asm that records
 * it, which then does not follow the call: such a site records none, and
 * calls marker_probe_iterate() whatever its probes. GCC pops them later.
 */
#define __marker_call_recordable(nr_args)				\
	(!IS_ENABLED(CONFIG_CC_IS_CLANG) || (nr_args) <= MARKER_REG_ARGS)

/*
 * One marker site: @site_fn decides whether the probes are called, and
 * @record_fn records the call. They run with preemption disabled, which is
 * the RCU read side marker_synchronize_unregister() waits for. The call
 * passes @data first, which only the probe it may go straight to reads; a
 * plain load (data_race()), as kernel/marker_switch.c only changes it
 * while no call can take it to a probe, lets the compiler place it best.
 *
 * Under lockdep every pass over a site checks that RCU is watching, after
 * the site as a tracepoint does, so that a site where a probe could not run
 * safely is reported while the marker is still off; the code right before
 * a site stays the caller's.
 */
#define __MARK(site_fn, record_fn, name, call_private, format, args...)	\
	do {								\
		__MARKER_DEFINE(name, format, COUNT_ARGS(args));	\
		__marker_check_name(name);				\
		__marker_check_nr_args(args);				\
		if (0)							\
			__marker_check_format(format, ## args);		\
		if (site_fn(&__marker_##name)) {			\
			preempt_disable_notrace();			\
			/* data_race(): @data, see above */		\
			marker_probe_iterate(data_race(__marker_##name.data), \
					     call_private, &__marker_##name, \
					     ## args);			\
			if (__marker_call_recordable(COUNT_ARGS(args)))	\
				record_fn(&__marker_##name);		\
			preempt_enable_notrace();			\
		}							\
		if (IS_ENABLED(CONFIG_LOCKDEP))				\
			WARN_ONCE(!rcu_is_watching(),			\
				  "RCU not watching for marker %s\n", #name); \
	} while (0)

/**
 * MARK() - a marker site
 * @name: the marker's name, an identifier of the form subsystem_event
 * @format: a string literal: the printf-style format of @args, or
 *	MARK_NOARGS
 * @args: the arguments, at most MARKER_MAX_ARGS; evaluated only when a
 *	probe is connected
 *
 * Costs what a static branch costs while no probe is connected (on
 * x86-64 one NOP, or a not-taken pattern: see the top of this file). Must
 * not be used in noinstr, entry or NMI code, nor where RCU is not watching
 * (a kernel with lockdep warns at the site, on or off); in __init and
 * __exit code use _MARK().
 * @args are evaluated with preemption disabled: they must not sleep.
 */
#define MARK(name, format, args...)					\
	__MARK(__marker_site, __marker_record_call, name, NULL, format, ## args)

/**
 * MARK_PRIVATE() - a marker site that passes data of its own to the probes
 * @name: the marker's name
 * @call_private: a pointer the probes receive as @call_private
 * @format: the format of @args
 * @args: the arguments
 */
#define MARK_PRIVATE(name, call_private, format, args...)		\
	__MARK(__marker_site, __marker_record_call, name, call_private, format, ## args)

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
	__MARK(__marker_plain_site, __marker_no_record, name, NULL, format, ## args)

/**
 * marker_enabled() - whether a marker is on
 * @_name: the marker's name
 *
 * A site of its own, which costs what MARK() costs while off: use it to skip
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
int marker_probe_register_fast(const char *name, const char *format,
			       marker_fast_probe_func *probe, void *probe_private);
int marker_probe_unregister_fast(const char *name, marker_fast_probe_func *probe,
				 void *probe_private);
int marker_probe_unregister_private_data(__printf(3, 0) marker_probe_func *probe,
					 void *probe_private);
void *marker_get_private_data(const char *name, __printf(3, 0) marker_probe_func *probe,
			      int num);
int marker_walk(int (*fn)(const struct marker_info *info, void *data), void *data);
int marker_format_parse(const char *format, struct marker_format *mf);
int marker_get_sites(const char *name, void **code, unsigned int max);
int marker_get_calls(const char *name, void **code, unsigned int max);
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
		__marker_check_nr_args(args);				\
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

static inline int marker_probe_register_fast(const char *name, const char *format,
					     marker_fast_probe_func *probe,
					     void *probe_private)
{
	return -EOPNOTSUPP;
}

static inline int marker_probe_unregister_fast(const char *name,
					       marker_fast_probe_func *probe,
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

static inline int marker_get_calls(const char *name, void **code,
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

static inline int marker_format_parse(const char *format, struct marker_format *mf)
{
	return -EOPNOTSUPP;
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
