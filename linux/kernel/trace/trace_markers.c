// SPDX-License-Identifier: GPL-2.0
/*
 * Marker events: trace events on markers, made on request, and markers in
 * tracefs for a root shell.
 *
 * A marker event is a dynamic event, made and removed through
 * dynamic_events as kprobe and eprobe events are:
 *
 *   m[:[GROUP/]EVENT] MARKER [NAME=$argN[:TYPE] ...]
 *   -:[GROUP/]EVENT [MARKER [NAME=$argN[:TYPE] ...]]
 *
 * GROUP is "markers" unless given, EVENT the marker's name. Without fields
 * the event records every argument of the marker's format, each as a field
 * named and typed from its conversion (marker_format_parse()); with them,
 * exactly those, in that order, named NAME, the Nth argument from 1, with
 * a TYPE of the same size if given. dynamic_events shows every event with
 * all its fields written out, so that a saved list makes the same events
 * again whatever the formats' words become. The event records the format
 * the marker had when the event was made: a marker whose format changes
 * (a module loaded again, rebuilt) stays off for it, and its new sites for
 * every tracer, while a probe holds the old format (see
 * marker_probe_register()); they take the new one once it has gone.
 *
 * An event has the usual files under events/GROUP/EVENT/ (enable, filter,
 * trigger, format, id, hist), works with perf's tracepoint PMU and takes
 * BPF programs of type tracepoint. It owns a tracepoint, which its users
 * register to as they would to any other: a file of each instance it is
 * enabled in, and perf. While the tracepoint has a probe, the event's one
 * probe is connected to the marker, and calls them: a hit takes the
 * arguments once, each user writes its record from them.
 *
 * When the marker's module goes, the event stays, and its probe with it:
 * the marker's sites are switched on again when the module comes back
 * (kernel/marker.c). An event is removed only by its user, and not while
 * it is enabled, open in perf or referenced (eprobes, enable_event
 * triggers): -EBUSY then, as for every dynamic event.
 *
 * The kernel command line makes and enables events at boot:
 * marker_event="CMD;CMD", a command of dynamic_events each with ','
 * for ' ', given once or more.
 *
 * /sys/kernel/tracing/markers/:
 *
 *   list	every marker: name, state, probes, sites, module and format
 *   enable	write NAME to enable the event markers/NAME in the top
 *		instance, making it first if there is none, !NAME to disable
 *		it; read it to see the marker events enabled there
 *   sites	every patched site: its marker, where it is, its bytes now
 *   events	every marker event: its name, marker, id, records cut,
 *		bytes and fields
 *
 * No read changes anything. The files are root's and refuse to open under
 * lockdown (LOCKDOWN_TRACEFS). See Documentation/markers.txt.
 */

#define pr_fmt(fmt) "trace_markers: " fmt

#include <kunit/visibility.h>
#include <linux/cleanup.h>
#include <linux/ctype.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_helpers.h>
#include <linux/trace_events.h>
#include <linux/tracefs.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include <asm/setup.h>

#include "../marker_internal.h"
#include "trace.h"
#include "trace_dynevent.h"

#define MARKER_EVENT_SYSTEM	"markers"

/* The most bytes a string argument takes in a record, its NUL included. */
#define MARKER_EVENT_STR_MAX	256

/* The longest line the enable file takes: "!", a name, "\n". */
#define MARKER_CMD_MAX		(MARKER_NAME_MAX + 2)

/*
 * The read side under which the users of an event's tracepoint are called,
 * which tracepoint_synchronize_unregister() waits for: the one of the
 * kernel's tracepoints. In the scope of the caller.
 */
#define trace_marker_funcs_guard()	guard(srcu_fast_notrace)(&tracepoint_srcu)

/**
 * struct marker_event_field - a field of a marker event
 * @f: its name, its type, and the conversion of its argument in the format
 * @arg: its argument, from 0
 * @offset: where it is in a record
 * @size: its size in a record
 */
struct marker_event_field {
	struct marker_field f;
	unsigned char arg;
	unsigned short offset;
	unsigned short size;
};

/**
 * struct trace_marker - a marker event
 * @devent: in dynamic_events
 * @call: the event
 * @class: its class, of its own: the fields differ from event to event
 * @tp: its tracepoint, to which its users register (trace_marker_reg())
 * @name: the event's name
 * @marker: the marker's name
 * @format: the marker's format when the event was made
 * @size: the fixed part of a record: the header and the fields; strings
 *	follow it
 * @cut_offset: where the mask of cut strings is, 0 without strings
 * @cut: the hits in which a string was cut
 * @bytes: what it allocated beyond what every event allocates (its fields
 *	and files), the data a TRACE_EVENT has in its object instead
 * @users: the probes of @tp; under event_mutex
 * @recorded: the arguments that a field records, a bit each
 * @identity: the fields are the arguments, in order and of their own
 *	types: a record prints with the marker's format
 * @holes: the fields leave bytes between them for alignment
 * @nr_args: the number of arguments of @format
 * @arg: the arguments of @format, as marker_format_parse() gives them
 * @nr_fields: the number of fields
 * @field: the fields, in the order of a record
 */
struct trace_marker {
	struct dyn_event devent;
	struct trace_event_call call;
	struct trace_event_class class;
	struct tracepoint tp;
	char *name;
	char *marker;
	char *format;
	unsigned int size;
	unsigned int cut_offset;
	atomic_long_t cut;
	size_t bytes;
	unsigned int users;
	unsigned int recorded;
	bool identity;
	bool holes;
	unsigned int nr_args;
	struct marker_field arg[MARKER_MAX_ARGS];
	unsigned int nr_fields;
	struct marker_event_field field[] __counted_by(nr_fields);
};

/*
 * The arguments of one hit, taken once for every user of the event. The
 * probe leaves them and its va_list __uninitialized, which
 * CONFIG_INIT_STACK_ALL_ZERO would zero at every hit: marker_event_fetch()
 * writes all that marker_event_fill() reads.
 */
struct marker_event_args {
	u64 value[MARKER_MAX_ARGS];
	unsigned short len[MARKER_MAX_ARGS];
	unsigned int strings;
	u8 cut;
};

/* What a user of an event's tracepoint is: it writes a record of @a. */
typedef void (*trace_marker_func)(void *data, struct trace_marker *tm,
				  const struct marker_event_args *a);

static struct dyn_event_operations trace_marker_ops;

static const char marker_event_null[] = "(null)";
static const char marker_event_fault[] = "(fault)";

/*
 * Each field type: its C type, size and sign for the format file, and its
 * name in a command. A field may take a type of its argument's size.
 */
static const struct {
	const char *ctype;
	const char *name;
	unsigned char size;
	bool is_signed;
} marker_field_types[] = {
	[MARKER_FIELD_INT] = { "int", "s32", sizeof(int), true },
	[MARKER_FIELD_UINT] = { "unsigned int", "u32", sizeof(int), false },
	[MARKER_FIELD_LONG] = { "long", "long", sizeof(long), true },
	[MARKER_FIELD_ULONG] = { "unsigned long", "ulong", sizeof(long), false },
	[MARKER_FIELD_S64] = { "s64", "s64", sizeof(s64), true },
	[MARKER_FIELD_U64] = { "u64", "u64", sizeof(u64), false },
	[MARKER_FIELD_PTR] = { "void *", "ptr", sizeof(void *), false },
	[MARKER_FIELD_CHAR] = { "char", "char", sizeof(char), true },
	[MARKER_FIELD_STR] = { "__data_loc char[]", "string", sizeof(u32), false },
};

static struct trace_marker *to_trace_marker(struct dyn_event *ev)
{
	return container_of(ev, struct trace_marker, devent);
}

/* The marker event that @pos of dynamic_events is, or NULL. */
static struct trace_marker *trace_marker_of(struct dyn_event *pos)
{
	return pos->ops == &trace_marker_ops ? to_trace_marker(pos) : NULL;
}

/*
 * The size a string takes in a record, its NUL included, and in *@s what to
 * copy: "(null)" for NULL, "(fault)" if it cannot be read. Reads at most
 * MARKER_EVENT_STR_MAX bytes, never across a page it has not checked: a
 * string whose NUL is not among them is cut (*@cut) to one byte less.
 */
static unsigned int marker_event_strsize(const char **s, bool *cut)
{
	unsigned int len = 0;
	char chunk[16];

	if (!*s) {
		*s = marker_event_null;
		return sizeof(marker_event_null);
	}
	while (len < MARKER_EVENT_STR_MAX) {
		unsigned long addr = (unsigned long)*s + len;
		unsigned int n = min3(sizeof(chunk), PAGE_SIZE - offset_in_page(addr),
				      (unsigned long)MARKER_EVENT_STR_MAX - len);
		const char *nul;

		if (copy_from_kernel_nofault(chunk, (const void *)addr, n)) {
			*s = marker_event_fault;
			return sizeof(marker_event_fault);
		}
		nul = memchr(chunk, '\0', n);
		if (nul)
			return len + (nul - chunk) + 1;
		len += n;
	}
	*cut = true;
	return MARKER_EVENT_STR_MAX;
}

/*
 * Takes the arguments of a hit off @args, in the order of the format: a
 * number as an int or as 64 bits, as its size says; a string that a field
 * records with its size in a record.
 */
static void marker_event_fetch(const struct trace_marker *tm,
			       struct marker_event_args *a, va_list args)
{
	unsigned int i;

	a->strings = 0;
	a->cut = 0;
	for (i = 0; i < tm->nr_args; i++) {
		const char *s;
		bool cut = false;

		if (tm->arg[i].type != MARKER_FIELD_STR) {
			if (marker_field_types[tm->arg[i].type].size == sizeof(u64))
				a->value[i] = va_arg(args, u64);
			else
				a->value[i] = va_arg(args, unsigned int);
			continue;
		}
		s = va_arg(args, const char *);
		if (!(tm->recorded & BIT(i)))
			continue;
		a->len[i] = marker_event_strsize(&s, &cut);
		a->value[i] = (unsigned long)s;
		a->strings += a->len[i];
		if (cut)
			a->cut |= BIT(i);
	}
}

/* Writes the record @rec of a hit whose arguments are @a. */
static void marker_event_fill(const struct trace_marker *tm,
			      const struct marker_event_args *a, void *rec)
{
	unsigned int i, data = tm->size;
	u8 cut = 0;

	/* What the buffer held there before must not show between fields. */
	if (tm->holes)
		memset(rec + sizeof(struct trace_entry), 0,
		       tm->size - sizeof(struct trace_entry));
	for (i = 0; i < tm->nr_fields; i++) {
		const struct marker_event_field *f = &tm->field[i];
		u64 value = a->value[f->arg];
		void *p = rec + f->offset;
		unsigned int len;
		long copied;

		if (f->f.type == MARKER_FIELD_STR) {
			len = a->len[f->arg];
			*(u32 *)p = data | len << 16;
			copied = strncpy_from_kernel_nofault(rec + data,
							     (const char *)(unsigned long)value,
							     len);
			/* Read once already: it changed or went away since. */
			if (copied < 0)
				strscpy_pad(rec + data, marker_event_fault, len);
			else
				memset(rec + data + copied, 0, len - copied);
			data += len;
			if (a->cut & BIT(f->arg))
				cut |= BIT(i);
			continue;
		}
		switch (f->size) {
		case 1:
			*(u8 *)p = value;
			break;
		case 4:
			*(u32 *)p = value;
			break;
		default:
			*(u64 *)p = value;
			break;
		}
	}
	if (tm->cut_offset)
		*(u8 *)(rec + tm->cut_offset) = cut;
}

/*
 * The probe of an event on its marker, connected while its tracepoint has
 * users: takes the arguments of the hit once and has each user write its
 * record.
 */
static void trace_marker_probe(void *probe_private, void *call_private,
			       const struct marker *marker, ...)
{
	struct trace_marker *tm = probe_private;
	struct marker_event_args a __uninitialized;
	va_list args __uninitialized;
	struct tracepoint_func *it;

	va_start(args, marker);
	marker_event_fetch(tm, &a, args);
	va_end(args);
	if (a.cut)
		atomic_long_inc(&tm->cut);

	trace_marker_funcs_guard();
	it = rcu_dereference_raw(tm->tp.funcs);
	if (!it)
		return;
	do {
		((trace_marker_func)it->func)(it->data, tm, &a);
	} while ((++it)->func);
}

/*
 * The user of an event that is enabled in an instance, @data its file.
 * @fbuffer is left uninitialized: trace_event_buffer_reserve() sets all of
 * it that trace_event_buffer_commit() reads, and it is not read if that
 * fails.
 */
static void trace_marker_file(void *data, struct trace_marker *tm,
			      const struct marker_event_args *a)
{
	struct trace_event_file *file = data;
	struct trace_event_buffer fbuffer __uninitialized;
	void *rec;

	if (trace_trigger_soft_disabled(file))
		return;
	rec = trace_event_buffer_reserve(&fbuffer, file, tm->size + a->strings);
	if (!rec)
		return;
	marker_event_fill(tm, a, rec);
	trace_event_buffer_commit(&fbuffer);
}

#ifdef CONFIG_PERF_EVENTS
/* The user of an event that perf has open: perf events and BPF programs. */
static void trace_marker_perf(void *data, struct trace_marker *tm,
			      const struct marker_event_args *a)
{
	struct trace_event_call *call = &tm->call;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	struct pt_regs *regs;
	int size, rctx;
	void *rec;

	if (!bpf_prog_array_valid(call) && hlist_empty(head))
		return;
	/* As perf_trace_##call(): a u32 size precedes the record in the sample. */
	size = ALIGN(tm->size + a->strings + sizeof(u32), sizeof(u64)) - sizeof(u32);
	rec = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!rec)
		return;
	perf_fetch_caller_regs(regs);
	marker_event_fill(tm, a, rec);
	perf_trace_run_bpf_submit(rec, size, rctx, call, 1, regs, head, NULL);
}
#endif

/*
 * Registers @func with @data to the tracepoint of @tm; the first user
 * connects the event's probe to the marker, which switches it on.
 */
static int trace_marker_connect(struct trace_marker *tm, trace_marker_func func,
				void *data)
{
	int ret;

	lockdep_assert_held(&event_mutex);
	ret = tracepoint_probe_register(&tm->tp, func, data);
	if (ret || tm->users++)
		return ret;
	ret = marker_probe_register_fast(tm->marker, tm->format, trace_marker_probe, tm);
	if (ret) {
		tm->users--;
		tracepoint_probe_unregister(&tm->tp, func, data);
		/*
		 * A probe of an earlier connection may still be running on
		 * another CPU, and may have seen @func: the caller frees
		 * what @data holds once this fails (perf's buffers).
		 */
		tracepoint_synchronize_unregister();
	}
	return ret;
}

/*
 * Unregisters @func with @data; the last user disconnects the event's
 * probe, which switches the marker off if it has no other. Neither fails:
 * a removal of a tracepoint's probe that cannot have memory leaves a stub
 * in its place. Whatever @data is may go once
 * tracepoint_synchronize_unregister() has returned, as for any tracepoint.
 */
static void trace_marker_disconnect(struct trace_marker *tm, trace_marker_func func,
				    void *data)
{
	lockdep_assert_held(&event_mutex);
	tracepoint_probe_unregister(&tm->tp, func, data);
	if (!--tm->users)
		marker_probe_unregister_fast(tm->marker, trace_marker_probe, tm);
}

/* The users of an event come and go here, under event_mutex. */
static int trace_marker_reg(struct trace_event_call *call, enum trace_reg type,
			    void *data)
{
	struct trace_marker *tm = call->data;

	switch (type) {
	case TRACE_REG_REGISTER:
		return trace_marker_connect(tm, trace_marker_file, data);
	case TRACE_REG_UNREGISTER:
		trace_marker_disconnect(tm, trace_marker_file, data);
		return 0;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return trace_marker_connect(tm, trace_marker_perf, call);
	case TRACE_REG_PERF_UNREGISTER:
		trace_marker_disconnect(tm, trace_marker_perf, call);
		return 0;
	case TRACE_REG_PERF_OPEN:
	case TRACE_REG_PERF_CLOSE:
	case TRACE_REG_PERF_ADD:
	case TRACE_REG_PERF_DEL:
		return 0;
#endif
	}
	return 0;
}

#ifdef CONFIG_PERF_EVENTS
/*
 * A perf event of a marker event, counting alone, switches the marker on:
 * it writes kernel text and waits for a grace period and IPIs. It needs
 * what reading a tracepoint's raw data needs, whatever it samples. Events
 * inherited by a child were allowed with their parent.
 */
static int marker_event_perf_perm(struct trace_event_call *call,
				  struct perf_event *p_event)
{
	return p_event->parent ? 0 : perf_allow_tracepoint();
}
#endif

static int marker_event_define_fields(struct trace_event_call *call)
{
	struct trace_marker *tm = call->data;
	unsigned int i;
	int ret;

	for (i = 0; i < tm->nr_fields; i++) {
		const struct marker_event_field *f = &tm->field[i];

		ret = trace_define_field(call, marker_field_types[f->f.type].ctype,
					 f->f.name, f->offset, f->size,
					 marker_field_types[f->f.type].is_signed,
					 FILTER_OTHER);
		if (ret)
			return ret;
	}
	if (tm->cut_offset)
		return trace_define_field(call, "unsigned char", "__cut", tm->cut_offset,
					  1, false, FILTER_OTHER);
	return 0;
}

static struct trace_event_fields marker_event_fields_array[] = {
	{ .type = TRACE_FUNCTION_TYPE, .define_fields = marker_event_define_fields },
	{}
};

/* Text of the format from @from to @to, with "%%" printed as "%". */
static void marker_event_print_text(struct trace_seq *s, const char *from, const char *to)
{
	while (from < to) {
		const char *pct = memchr(from, '%', to - from);

		if (!pct) {
			trace_seq_putmem(s, from, to - from);
			return;
		}
		trace_seq_putmem(s, from, pct - from + 1);
		from = pct + 2;
	}
}

/* What a field prints with when the marker's format does not: its type's. */
static const char * const marker_field_convs[] = {
	[MARKER_FIELD_INT] = "%d",
	[MARKER_FIELD_UINT] = "%u",
	[MARKER_FIELD_LONG] = "%ld",
	[MARKER_FIELD_ULONG] = "%lu",
	[MARKER_FIELD_S64] = "%lld",
	[MARKER_FIELD_U64] = "%llu",
	[MARKER_FIELD_PTR] = "%p",
	[MARKER_FIELD_CHAR] = "%c",
	[MARKER_FIELD_STR] = "%s",
};

/*
 * One field of @rec: with the conversion of its argument in the format if
 * the fields are the arguments, else with its type's.
 */
static void marker_event_print_field(struct trace_seq *s, const struct trace_marker *tm,
				     const struct marker_event_field *f, const void *rec)
{
	const void *p = rec + f->offset;
	char conv[MARKER_CONV_MAX];

	if (tm->identity) {
		memcpy(conv, tm->format + f->f.conv, f->f.conv_len);
		conv[f->f.conv_len] = '\0';
	} else {
		strscpy(conv, marker_field_convs[f->f.type]);
	}
	switch (f->f.type) {
	case MARKER_FIELD_INT:
	case MARKER_FIELD_UINT:
		trace_seq_printf(s, conv, *(const u32 *)p);
		break;
	case MARKER_FIELD_CHAR:
		trace_seq_printf(s, conv, *(const char *)p);
		break;
	case MARKER_FIELD_LONG:
	case MARKER_FIELD_ULONG:
		trace_seq_printf(s, conv, *(const unsigned long *)p);
		break;
	case MARKER_FIELD_S64:
	case MARKER_FIELD_U64:
		trace_seq_printf(s, conv, *(const u64 *)p);
		break;
	case MARKER_FIELD_PTR:
		trace_seq_printf(s, conv, *(void * const *)p);
		break;
	case MARKER_FIELD_STR:
		trace_seq_printf(s, conv, (const char *)rec + (*(const u32 *)p & 0xffff));
		break;
	}
}

/*
 * A record as the trace shows it: the event's name, then the marker's
 * format if the fields are its arguments, else NAME=VALUE for each field.
 */
static enum print_line_t marker_event_print(struct trace_iterator *iter, int flags,
					    struct trace_event *event)
{
	struct trace_marker *tm = container_of(event, struct trace_marker, call.event);
	const char *text = tm->format;
	struct trace_seq *s = &iter->seq;
	unsigned int i;

	trace_seq_printf(s, "%s: ", tm->name);
	for (i = 0; i < tm->nr_fields; i++) {
		const struct marker_event_field *f = &tm->field[i];

		if (tm->identity) {
			marker_event_print_text(s, text, tm->format + f->f.conv);
			text = tm->format + f->f.conv + f->f.conv_len;
		} else {
			trace_seq_printf(s, "%s%s=", i ? " " : "", f->f.name);
		}
		marker_event_print_field(s, tm, f, iter->ent);
	}
	if (tm->identity)
		marker_event_print_text(s, text, text + strlen(text));
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions marker_event_funcs = {
	.trace = marker_event_print,
};

/* Whether the character at @pos of the format ends a %c conversion. */
static bool marker_event_char_conv(const struct trace_marker *tm, unsigned int pos)
{
	unsigned int i;

	for (i = 0; i < tm->nr_args; i++) {
		const struct marker_field *f = &tm->arg[i];

		if (f->type == MARKER_FIELD_CHAR && pos == f->conv + f->conv_len - 1)
			return true;
	}
	return false;
}

/*
 * The print fmt of the format file, which perf and trace-cmd read: the
 * marker's format as a C string, or NAME=conversion for each field, then
 * the fields. libtraceevent prints no %c (it shows ">c<"): a char goes to
 * it as %d, its number.
 */
static char *marker_event_print_fmt(const struct trace_marker *tm, size_t *allocated)
{
	struct seq_buf sb;
	unsigned int i;
	const char *c;
	size_t size;
	char *buf;

	/* Each character escaped at worst, and each field with its name, twice. */
	size = 2 * strlen(tm->format) + 3 +
	       tm->nr_fields * (2 * MARKER_FIELD_NAME_MAX + sizeof(", __get_str()") + 8);
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return NULL;
	*allocated = size;
	seq_buf_init(&sb, buf, size);
	seq_buf_putc(&sb, '"');
	for (c = tm->format; tm->identity && *c; c++) {
		if (*c == '"' || *c == '\\')
			seq_buf_printf(&sb, "\\%c", *c);
		else if (*c == '\n')
			seq_buf_puts(&sb, "\\n");
		else if (*c == '\t')
			seq_buf_puts(&sb, "\\t");
		else if (marker_event_char_conv(tm, c - tm->format))
			seq_buf_putc(&sb, 'd');
		else
			seq_buf_putc(&sb, *c);
	}
	for (i = 0; !tm->identity && i < tm->nr_fields; i++) {
		const struct marker_event_field *f = &tm->field[i];

		seq_buf_printf(&sb, "%s%s=%s", i ? " " : "", f->f.name,
			       f->f.type == MARKER_FIELD_CHAR ? "%d" :
			       marker_field_convs[f->f.type]);
	}
	seq_buf_putc(&sb, '"');
	for (i = 0; i < tm->nr_fields; i++) {
		const struct marker_field *f = &tm->field[i].f;

		if (f->type == MARKER_FIELD_STR)
			seq_buf_printf(&sb, ", __get_str(%s)", f->name);
		else
			seq_buf_printf(&sb, ", REC->%s", f->name);
	}
	seq_buf_str(&sb);
	if (WARN_ON_ONCE(seq_buf_has_overflowed(&sb))) {
		kfree(buf);
		return NULL;
	}
	return buf;
}

static void trace_marker_free(struct trace_marker *tm)
{
	kfree(tm->call.print_fmt);
	kfree(tm->class.system);
	kfree(tm->format);
	kfree(tm->marker);
	kfree(tm->name);
	kfree(tm);
}

/* Lays the fields out in a record, after the common header. */
static void marker_event_layout(struct trace_marker *tm)
{
	unsigned int i, offset = sizeof(struct trace_entry);
	bool strings = false;

	tm->identity = tm->nr_fields == tm->nr_args;
	for (i = 0; i < tm->nr_fields; i++) {
		struct marker_event_field *f = &tm->field[i];

		f->size = marker_field_types[f->f.type].size;
		tm->holes |= offset != ALIGN(offset, f->size);
		offset = ALIGN(offset, f->size);
		f->offset = offset;
		offset += f->size;
		strings |= f->f.type == MARKER_FIELD_STR;
		tm->recorded |= BIT(f->arg);
		tm->identity &= f->arg == i && f->f.type == tm->arg[i].type;
	}
	if (strings)
		tm->cut_offset = offset++;
	tm->size = offset;
}

/* The errors of a command of dynamic_events, for tracing's error_log. */
enum {
	TRACE_MARKER_ERR_BAD_EVENT_NAME,
	TRACE_MARKER_ERR_BAD_MARKER_NAME,
	TRACE_MARKER_ERR_NO_MARKER,
	TRACE_MARKER_ERR_NO_FORMAT,
	TRACE_MARKER_ERR_BAD_FORMAT,
	TRACE_MARKER_ERR_BAD_FIELD,
	TRACE_MARKER_ERR_BAD_FIELD_NAME,
	TRACE_MARKER_ERR_DUP_FIELD_NAME,
	TRACE_MARKER_ERR_BAD_ARG,
	TRACE_MARKER_ERR_DUP_ARG,
	TRACE_MARKER_ERR_BAD_TYPE,
	TRACE_MARKER_ERR_EVENT_EXISTS,
};

static const char * const trace_marker_errors[] = {
	[TRACE_MARKER_ERR_BAD_EVENT_NAME] =
		"Group or event name is no C identifier of at most 64 characters",
	[TRACE_MARKER_ERR_BAD_MARKER_NAME] = "Marker name is missing or no C identifier",
	[TRACE_MARKER_ERR_NO_MARKER] = "No such marker: unknown, or its module is not loaded",
	[TRACE_MARKER_ERR_NO_FORMAT] = "The marker has no format: it is a marker_enabled() guard",
	[TRACE_MARKER_ERR_BAD_FORMAT] = "The marker's format cannot be turned into fields",
	[TRACE_MARKER_ERR_BAD_FIELD] = "A field is NAME=$argN or NAME=$argN:TYPE",
	[TRACE_MARKER_ERR_BAD_FIELD_NAME] = "Field name is no identifier, too long, or reserved",
	[TRACE_MARKER_ERR_DUP_FIELD_NAME] = "Another field has this name",
	[TRACE_MARKER_ERR_BAD_ARG] = "The marker has no such argument",
	[TRACE_MARKER_ERR_DUP_ARG] = "Another field records this argument",
	[TRACE_MARKER_ERR_BAD_TYPE] = "Unknown type, or not of the argument's size",
	[TRACE_MARKER_ERR_EVENT_EXISTS] = "An event of this group and name exists",
};

/* No word of a command to point at: the error is the command's. */
#define TRACE_MARKER_WHOLE	(-1)

/*
 * Logs error @err of command @cmd in error_log, its caret @offset bytes
 * into word @word of @cmd (from 0, as argv_split() counts them), or under
 * the command's start for TRACE_MARKER_WHOLE.
 */
static void trace_marker_log_err(const char *cmd, int word, unsigned int offset,
				 unsigned int err)
{
	const char *at = skip_spaces(cmd);

	if (word == TRACE_MARKER_WHOLE)
		offset = 0;
	while (word-- > 0) {
		while (*at && !isspace(*at))
			at++;
		at = skip_spaces(at);
	}
	/* The error log only reads the array. */
	tracing_log_err(NULL, "trace_markers", cmd, (const char **)trace_marker_errors, err,
			at - cmd + offset);
}

/* The search of marker_walk() for the format of one marker. */
struct trace_marker_lookup {
	const char *name;
	char *format;
	int ret;
};

static int trace_marker_lookup_fn(const struct marker_info *info, void *data)
{
	struct trace_marker_lookup *l = data;

	if (strcmp(info->name, l->name))
		return 0;
	if (!info->format) {
		l->ret = -EINVAL;
		return 1;
	}
	l->format = kstrdup(info->format, GFP_KERNEL);
	l->ret = l->format ? 0 : -ENOMEM;
	return 1;
}

/* A field name: an identifier, shorter than MARKER_FIELD_NAME_MAX, not reserved. */
static bool trace_marker_field_name_valid(const char *name)
{
	return marker_name_valid(name) && strlen(name) < MARKER_FIELD_NAME_MAX &&
	       !str_has_prefix(name, "common_") && !str_has_prefix(name, "__");
}

/* Whether a field of type @t may record an argument of type @of. */
static bool trace_marker_type_fits(unsigned int t, enum marker_field_type of)
{
	if (t == MARKER_FIELD_STR || of == MARKER_FIELD_STR)
		return t == of;
	return marker_field_types[t].size == marker_field_types[of].size;
}

/*
 * Field @i of @tm from @token, NAME=$argN[:TYPE], word @word of command
 * @cmd.
 */
static int trace_marker_parse_field(const char *cmd, int word, struct trace_marker *tm,
				    unsigned int i, char *token)
{
	struct marker_event_field *f = &tm->field[i];
	char *eq = strchr(token, '='), *num, *colon;
	unsigned int arg, j, t;

	if (!eq || !str_has_prefix(eq + 1, "$arg")) {
		trace_marker_log_err(cmd, word, 0, TRACE_MARKER_ERR_BAD_FIELD);
		return -EINVAL;
	}
	*eq = '\0';
	if (!trace_marker_field_name_valid(token)) {
		trace_marker_log_err(cmd, word, 0, TRACE_MARKER_ERR_BAD_FIELD_NAME);
		return -EINVAL;
	}
	num = eq + 1 + strlen("$arg");
	colon = strchr(num, ':');
	if (colon)
		*colon = '\0';
	if (kstrtouint(num, 10, &arg) || !arg || arg > tm->nr_args) {
		trace_marker_log_err(cmd, word, num - token, TRACE_MARKER_ERR_BAD_ARG);
		return -EINVAL;
	}
	arg--;
	for (j = 0; j < i; j++) {
		if (!strcmp(tm->field[j].f.name, token)) {
			trace_marker_log_err(cmd, word, 0, TRACE_MARKER_ERR_DUP_FIELD_NAME);
			return -EINVAL;
		}
		if (tm->field[j].arg == arg) {
			trace_marker_log_err(cmd, word, num - token, TRACE_MARKER_ERR_DUP_ARG);
			return -EINVAL;
		}
	}
	f->f = tm->arg[arg];
	strscpy(f->f.name, token);
	f->arg = arg;
	if (!colon)
		return 0;
	for (t = 0; t < ARRAY_SIZE(marker_field_types); t++)
		if (marker_field_types[t].name && !strcmp(colon + 1, marker_field_types[t].name))
			break;
	if (t == ARRAY_SIZE(marker_field_types) || !trace_marker_type_fits(t, f->f.type)) {
		trace_marker_log_err(cmd, word, colon + 1 - token, TRACE_MARKER_ERR_BAD_TYPE);
		return -EINVAL;
	}
	f->f.type = t;
	return 0;
}

/* Whether an event of @system named @name exists. */
static bool trace_marker_event_exists(const char *system, const char *name)
{
	struct trace_event_call *call;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry(call, &ftrace_events, list)
		if (call->class->system && !strcmp(call->class->system, system) &&
		    !strcmp(trace_event_name(call), name))
			return true;
	return false;
}

/* Gives @tm its event, and adds it to tracing and to dynamic_events. */
static int trace_marker_register(const char *cmd, struct trace_marker *tm)
{
	int ret;

	INIT_LIST_HEAD(&tm->class.fields);
	tm->class.fields_array = marker_event_fields_array;
	tm->class.reg = trace_marker_reg;
	tm->call.class = &tm->class;
	tm->call.event.funcs = &marker_event_funcs;
	tm->call.data = tm;
#ifdef CONFIG_PERF_EVENTS
	tm->call.perf_perm = marker_event_perf_perm;
#endif
	tm->tp.name = tm->name;
	/*
	 * BPF checks a tracepoint program's reads against the end of the
	 * last field (trace_event_get_offsets()): an event without fields
	 * takes none.
	 */
	if (tm->nr_fields) {
		tm->call.tp = &tm->tp;
		tm->call.flags = TRACE_EVENT_FL_TRACEPOINT;
	} else {
		tm->call.name = tm->name;
	}
	dyn_event_init(&tm->devent, &trace_marker_ops);

	guard(mutex)(&event_mutex);
	if (trace_marker_event_exists(tm->class.system, tm->name)) {
		trace_marker_log_err(cmd, 0, 0, TRACE_MARKER_ERR_EVENT_EXISTS);
		return -EEXIST;
	}
	if (!register_trace_event(&tm->call.event))
		return -ENODEV;
	ret = trace_add_event_call(&tm->call);
	if (ret) {
		unregister_trace_event(&tm->call.event);
		return ret;
	}
	return dyn_event_add(&tm->devent, &tm->call);
}

/*
 * Makes the event of command @cmd, split in @argc words @argv: "m" or
 * "m:[GROUP/]EVENT", the marker, then the fields if any.
 */
static int __trace_marker_create(const char *cmd, int argc, char **argv)
{
	struct trace_marker_lookup lookup = { .ret = -ENOENT };
	struct marker_format *mf __free(kfree) = NULL;
	const char *group = MARKER_EVENT_SYSTEM;
	struct trace_marker *tm;
	char *event = NULL;
	unsigned int i, nr;
	int ret;

	if (argv[0][1] == ':') {
		char *slash;

		event = argv[0] + 2;
		slash = strchr(event, '/');
		if (slash) {
			*slash = '\0';
			group = event;
			event = slash + 1;
		}
		if (!marker_name_valid(group) || (*event && !marker_name_valid(event))) {
			trace_marker_log_err(cmd, 0, 2, TRACE_MARKER_ERR_BAD_EVENT_NAME);
			return -EINVAL;
		}
	}
	if (argc < 2 || !marker_name_valid(argv[1])) {
		trace_marker_log_err(cmd, argc < 2 ? TRACE_MARKER_WHOLE : 1, 0,
				     TRACE_MARKER_ERR_BAD_MARKER_NAME);
		return -EINVAL;
	}
	lookup.name = argv[1];
	if (!event || !*event)
		event = argv[1];
	ret = marker_walk(trace_marker_lookup_fn, &lookup);
	if (ret < 0) {
		kfree(lookup.format);
		return ret;
	}
	if (lookup.ret) {
		if (lookup.ret != -ENOMEM)
			trace_marker_log_err(cmd, 1, 0, lookup.ret == -ENOENT ?
					     TRACE_MARKER_ERR_NO_MARKER :
					     TRACE_MARKER_ERR_NO_FORMAT);
		return lookup.ret;
	}
	mf = kmalloc_obj(*mf);
	if (!mf) {
		kfree(lookup.format);
		return -ENOMEM;
	}
	ret = marker_format_parse(lookup.format, mf);
	if (ret) {
		pr_warn("marker %s: format \"%s\", at offset %u: %s\n", argv[1],
			lookup.format, mf->error_pos, mf->error);
		trace_marker_log_err(cmd, 1, 0, TRACE_MARKER_ERR_BAD_FORMAT);
		kfree(lookup.format);
		return ret;
	}

	nr = argc > 2 ? argc - 2 : mf->nr;
	tm = kzalloc_flex(*tm, field, nr);
	if (!tm) {
		kfree(lookup.format);
		return -ENOMEM;
	}
	tm->nr_fields = nr;
	tm->format = lookup.format;
	tm->nr_args = mf->nr;
	memcpy(tm->arg, mf->field, mf->nr * sizeof(*mf->field));
	for (i = 0; i < nr; i++) {
		if (argc == 2) {
			tm->field[i].f = tm->arg[i];
			tm->field[i].arg = i;
			continue;
		}
		ret = trace_marker_parse_field(cmd, i + 2, tm, i, argv[i + 2]);
		if (ret)
			goto out_free;
	}
	ret = -ENOMEM;
	tm->name = kstrdup(event, GFP_KERNEL);
	tm->marker = kstrdup(argv[1], GFP_KERNEL);
	tm->class.system = kstrdup(group, GFP_KERNEL);
	if (!tm->name || !tm->marker || !tm->class.system)
		goto out_free;
	marker_event_layout(tm);
	tm->call.print_fmt = marker_event_print_fmt(tm, &tm->bytes);
	if (!tm->call.print_fmt)
		goto out_free;
	tm->bytes += struct_size(tm, field, tm->nr_fields) + strlen(tm->name) +
		     strlen(tm->marker) + strlen(tm->format) + strlen(group) + 4;
	ret = trace_marker_register(cmd, tm);
	if (!ret)
		return 0;
out_free:
	trace_marker_free(tm);
	return ret;
}

/* The create() of dynamic_events: commands that start with "m" or "m:". */
static int trace_marker_create(const char *raw_command)
{
	char **argv;
	int argc, ret;

	if (raw_command[0] != 'm' ||
	    (raw_command[1] != ':' && raw_command[1] != '\0' && !isspace(raw_command[1])))
		return -ECANCELED;
	argv = argv_split(GFP_KERNEL, raw_command, &argc);
	if (!argv)
		return -ENOMEM;
	ret = __trace_marker_create(raw_command, argc, argv);
	argv_free(argv);
	return ret;
}

/*
 * Runs @cmd, a command of dynamic_events for marker events: "-:..." removes
 * one, anything else makes one. For the enable file, the command line and
 * the KUnit suites, which have no file to write it to.
 */
VISIBLE_IF_KUNIT int trace_marker_command(const char *cmd)
{
	if (cmd[0] == '-')
		return dyn_event_release(cmd, &trace_marker_ops);
	return dyn_event_create(cmd, &trace_marker_ops);
}

/* A command that makes the event again, with every field written out. */
static int trace_marker_show(struct seq_file *m, struct dyn_event *ev)
{
	struct trace_marker *tm = to_trace_marker(ev);
	unsigned int i;

	seq_printf(m, "m:%s/%s %s", tm->class.system, tm->name, tm->marker);
	for (i = 0; i < tm->nr_fields; i++)
		seq_printf(m, " %s=$arg%u:%s", tm->field[i].f.name, tm->field[i].arg + 1,
			   marker_field_types[tm->field[i].f.type].name);
	seq_putc(m, '\n');
	return 0;
}

/*
 * In use: enabled in an instance, open in perf, or referenced. The users
 * count here although trace_remove_event_call() refuses an enabled event
 * too: its refusal drops the buffer resets that the removals before it in
 * the same command asked for, so none may get that far.
 */
static bool trace_marker_is_busy(struct dyn_event *ev)
{
	struct trace_marker *tm = to_trace_marker(ev);

	lockdep_assert_held(&event_mutex);
	return tm->users || trace_event_dyn_busy(&tm->call);
}

/*
 * Removes an event that is not in use (-EBUSY otherwise): nothing calls
 * its probe then, nor will once the grace periods of markers and of
 * tracepoints have passed.
 */
static int trace_marker_release(struct dyn_event *ev)
{
	struct trace_marker *tm = to_trace_marker(ev);
	int ret;

	if (trace_marker_is_busy(ev))
		return -EBUSY;
	ret = trace_remove_event_call(&tm->call);
	if (ret)
		return ret;
	dyn_event_remove(&tm->devent);
	marker_synchronize_unregister();
	tracepoint_synchronize_unregister();
	trace_marker_free(tm);
	return 0;
}

/*
 * Whether "-:[@system/]@event" and @argv name @ev: a removal may give the
 * marker and the fields, as dynamic_events shows them (a field's type may
 * be left out).
 */
static bool trace_marker_match(const char *system, const char *event, int argc,
			       const char **argv, struct dyn_event *ev)
{
	struct trace_marker *tm = to_trace_marker(ev);
	char token[MARKER_FIELD_NAME_MAX + 16];
	unsigned int i;

	if (strcmp(tm->name, event) || (system && strcmp(tm->class.system, system)))
		return false;
	if (!argc)
		return true;
	if (strcmp(argv[0], tm->marker))
		return false;
	if (argc == 1)
		return true;
	if (argc - 1 != tm->nr_fields)
		return false;
	for (i = 0; i < tm->nr_fields; i++) {
		const struct marker_event_field *f = &tm->field[i];
		const char *rest;
		int len;

		len = snprintf(token, sizeof(token), "%s=$arg%u", f->f.name, f->arg + 1);
		if (strncmp(argv[i + 1], token, len))
			return false;
		rest = argv[i + 1] + len;
		if (*rest && (*rest != ':' ||
			      strcmp(rest + 1, marker_field_types[f->f.type].name)))
			return false;
	}
	return true;
}

static struct dyn_event_operations trace_marker_ops = {
	.create = trace_marker_create,
	.show = trace_marker_show,
	.is_busy = trace_marker_is_busy,
	.free = trace_marker_release,
	.match = trace_marker_match,
};

/*
 * Opens a file of the directory: its show function is the inode's data.
 * tracing_check_open_get_tr() refuses under lockdown (LOCKDOWN_TRACEFS).
 */
static int trace_markers_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	return ret ? ret : single_open(file, inode->i_private, NULL);
}

/* list, sites and events */
static const struct file_operations trace_markers_read_fops = {
	.open = trace_markers_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int trace_markers_list_row(const struct marker_info *info, void *data)
{
	struct seq_file *m = data;
	const char *where = "-";

	if (info->has_sites)
		where = info->module ? module_name(info->module) : "vmlinux";
	seq_printf(m, "%-32s %-3s %6u %6u %-24s \"", info->name,
		   info->enabled ? "on" : "off", info->nr_probes, info->nr_sites, where);
	/* As a C string literal: a row stays one line, its quotes its own. */
	if (info->format)
		seq_escape_str(m, info->format, ESCAPE_SPACE | ESCAPE_SPECIAL | ESCAPE_NP |
			       ESCAPE_OCTAL | ESCAPE_APPEND, "\"\\");
	seq_puts(m, "\"\n");
	return 0;
}

static int trace_markers_list_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%-32s %-3s %6s %6s %-24s %s\n", "# name", "state", "probes",
		   "sites", "module", "format");
	return marker_walk(trace_markers_list_row, m);
}

static int trace_markers_sites_row(const char *name, void *code, unsigned int size,
				   struct module *mod, void *data)
{
	seq_printf(data, "%-32s %-48pS %*ph\n", name, code, size, code);
	return 0;
}

static int trace_markers_sites_show(struct seq_file *m, void *v)
{
	return marker_walk_sites(trace_markers_sites_row, m);
}

static int trace_markers_events_show(struct seq_file *m, void *v)
{
	char name[2 * MARKER_NAME_MAX + 2];
	struct trace_marker *tm;
	struct dyn_event *pos;
	unsigned int i;

	seq_printf(m, "%-40s %-32s %6s %8s %6s %s\n", "# event", "marker", "id", "cut",
		   "bytes", "fields");
	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		tm = trace_marker_of(pos);
		if (!tm)
			continue;
		snprintf(name, sizeof(name), "%s/%s", tm->class.system, tm->name);
		seq_printf(m, "%-40s %-32s %6d %8ld %6zu ", name, tm->marker,
			   tm->call.event.type, atomic_long_read(&tm->cut), tm->bytes);
		for (i = 0; i < tm->nr_fields; i++)
			seq_printf(m, "%s%s %s", i ? ", " : "",
				   marker_field_types[tm->field[i].f.type].ctype,
				   tm->field[i].f.name);
		seq_putc(m, '\n');
	}
	return 0;
}

/* The file of @tm in the top instance, if it is enabled there. */
static bool trace_marker_enabled_on_top(struct trace_marker *tm)
{
	struct trace_event_file *file;

	file = find_event_file(top_trace_array(), tm->class.system, tm->name);
	return file && (file->flags & EVENT_FILE_FL_ENABLED);
}

static int trace_markers_enable_show(struct seq_file *m, void *v)
{
	struct trace_marker *tm;
	struct dyn_event *pos;

	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		tm = trace_marker_of(pos);
		if (tm && !strcmp(tm->class.system, MARKER_EVENT_SYSTEM) &&
		    trace_marker_enabled_on_top(tm))
			seq_printf(m, "%s\n", tm->name);
	}
	return 0;
}

/*
 * Switches the event markers/@name on or off in the top instance: the
 * enable file. On makes the event first if there is none, as
 * "m:markers/@name @name" through dynamic_events would. -ENOENT for no
 * such marker, or off when it is off; -EINVAL for a marker whose format
 * makes no event (-E2BIG: more than MARKER_MAX_ARGS conversions);
 * -EBUSY when it is on already; -EEXIST when
 * markers/@name is an event of another kind.
 */
static int trace_marker_switch(const char *name, bool on)
{
	char cmd[sizeof("m:" MARKER_EVENT_SYSTEM "/ ") + 2 * MARKER_NAME_MAX];
	struct trace_event_file *file;
	bool made = false;
	int ret;

	if (on) {
		scoped_guard(mutex, &event_mutex)
			made = !trace_marker_event_exists(MARKER_EVENT_SYSTEM, name);
		if (made) {
			snprintf(cmd, sizeof(cmd), "m:%s/%s %s", MARKER_EVENT_SYSTEM, name, name);
			ret = trace_marker_command(cmd);
			/* Made by somebody else meanwhile: it switches theirs. */
			if (ret == -EEXIST)
				made = false;
			else if (ret)
				return ret;
		}
	}
	scoped_guard(mutex, &event_mutex) {
		file = find_event_file(top_trace_array(), MARKER_EVENT_SYSTEM, name);
		if (!file)
			ret = -ENOENT;
		else if (file->event_call->class->reg != trace_marker_reg)
			ret = -EEXIST;
		else if (!!(file->flags & EVENT_FILE_FL_ENABLED) == on)
			ret = on ? -EBUSY : -ENOENT;
		else
			ret = trace_event_enable_disable(file, on, 0);
	}
	/*
	 * Nothing changes on error: not the event it made either, unless
	 * somebody else has come to use it meanwhile (-EBUSY: it stays).
	 */
	if (ret && made) {
		snprintf(cmd, sizeof(cmd), "-:%s/%s", MARKER_EVENT_SYSTEM, name);
		trace_marker_command(cmd);
	}
	return ret;
}

/*
 * One command per write: "NAME" or "!NAME", surrounded by blanks at most.
 * Malformed input is -EINVAL; see trace_marker_switch() for the rest.
 */
static ssize_t trace_markers_enable_write(struct file *file, const char __user *ubuf,
					  size_t cnt, loff_t *ppos)
{
	char buf[MARKER_CMD_MAX + 1];
	bool off;
	char *name;
	int ret;

	if (!cnt || cnt > MARKER_CMD_MAX)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	if (strlen(buf) != cnt)
		return -EINVAL;
	name = strim(buf);
	off = *name == '!';
	if (off)
		name++;
	if (!marker_name_valid(name))
		return -EINVAL;

	ret = trace_marker_switch(name, !off);
	return ret ? ret : cnt;
}

static const struct file_operations trace_markers_enable_fops = {
	.open = trace_markers_open,
	.read = seq_read,
	.write = trace_markers_enable_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/*
 * The commands of marker_event=, separated by ';', a ',' for each blank.
 * Each marker_event= adds its own, as bootconfig gives one for each value
 * of an array (kernel.marker_event = "CMD", "CMD").
 */
static char trace_marker_boot_cmds[COMMAND_LINE_SIZE] __initdata;

static __init int trace_marker_boot_setup(char *str)
{
	size_t len = strlen(trace_marker_boot_cmds);

	if (len + 1 + strlen(str) >= sizeof(trace_marker_boot_cmds)) {
		pr_warn("marker_event: no room left, \"%s\" ignored\n", str);
		return 1;
	}
	if (len)
		trace_marker_boot_cmds[len++] = ';';
	strscpy(trace_marker_boot_cmds + len, str, sizeof(trace_marker_boot_cmds) - len);
	disable_tracing_selftest("running marker events");
	return 1;
}
__setup("marker_event=", trace_marker_boot_setup);

/*
 * Makes the events of marker_event=, before tracefs is: as for the events
 * of tracepoints, __trace_early_add_event_dirs() gives each its directory
 * when tracefs comes. Made any later, an event can fall between that and
 * the moment trace_add_event_call() starts making directories itself
 * (eventdir_initialized, set by a work item of tracer_init_tracefs() after
 * a sleep): it would have none.
 */
static __init int trace_markers_init_early(void)
{
	char *cmds = trace_marker_boot_cmds, *cmd;
	int ret;

	ret = dyn_event_register(&trace_marker_ops);
	if (ret)
		return ret;
	while ((cmd = strsep(&cmds, ";"))) {
		if (!*cmd)
			continue;
		strreplace(cmd, ',', ' ');
		ret = trace_marker_command(cmd);
		if (ret)
			pr_warn("marker_event: \"%s\": error %d\n", cmd, ret);
	}
	return 0;
}
core_initcall(trace_markers_init_early);

/* Enables the events of marker_event= in the top instance. */
static __init void trace_markers_enable_boot_events(void)
{
	struct trace_event_file *file;
	struct trace_marker *tm;
	struct dyn_event *pos;

	guard(mutex)(&event_mutex);
	for_each_dyn_event(pos) {
		tm = trace_marker_of(pos);
		if (!tm)
			continue;
		file = find_event_file(top_trace_array(), tm->class.system, tm->name);
		if (!file || trace_event_enable_disable(file, 1, 0))
			pr_warn("marker_event: cannot enable %s/%s\n", tm->class.system,
				tm->name);
	}
}

static __init int trace_markers_init(void)
{
	struct dentry *dir;

	trace_markers_enable_boot_events();
	if (tracing_init_dentry())
		return 0;
	dir = tracefs_create_dir("markers", NULL);
	if (!dir) {
		pr_warn("cannot create the markers directory\n");
		return 0;
	}
	trace_create_file("list", TRACE_MODE_READ, dir, trace_markers_list_show,
			  &trace_markers_read_fops);
	trace_create_file("enable", TRACE_MODE_WRITE, dir, trace_markers_enable_show,
			  &trace_markers_enable_fops);
	trace_create_file("sites", TRACE_MODE_READ, dir, trace_markers_sites_show,
			  &trace_markers_read_fops);
	trace_create_file("events", TRACE_MODE_READ, dir, trace_markers_events_show,
			  &trace_markers_read_fops);
	return 0;
}
fs_initcall(trace_markers_init);
