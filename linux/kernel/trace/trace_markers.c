// SPDX-License-Identifier: GPL-2.0
/*
 * Markers as trace events, and markers in tracefs for a root shell.
 *
 * Every marker with sites and a format is an event, markers:<name>, with
 * the usual files under events/markers/<name>/ (enable, filter, trigger,
 * format, id) and in available_events. Its fields come from the format
 * (marker_format_parse()): "pid %d from %d" records an int pid and an int
 * from. A hit copies the arguments into the ring buffer as those fields,
 * strings bounded and read with the nofault helpers; the trace shows them
 * with the marker's own format when it is read. The events work with
 * perf's tracepoint PMU and take BPF programs of type tracepoint. An event
 * comes with its marker's first sites (at boot, or with a module) and goes
 * when its marker has no sites left and nothing uses the event.
 *
 * What refers to an event keeps it: it is a dynamic event
 * (TRACE_EVENT_FL_DYNAMIC), whose references eprobes, enable_event
 * triggers and perf take, and it is not removed while it has one, nor
 * while it is enabled in an instance or open in perf. A module whose
 * marker's event is held in this way may still go: the event stays,
 * without sites, until the last reference goes (it is then removed at the
 * next module load or unload, probe removal, or read of markers/events),
 * and takes the sites of the marker again if they come back meanwhile.
 * When an event goes, the buffers of the instances it was enabled in are
 * reset, as for module and dynamic events: no record of it is left to be
 * read with the layout of an event that takes its type id.
 *
 * /sys/kernel/tracing/markers/:
 *
 *   list	every marker: name, state, probes, sites, module and format
 *   enable	write NAME to enable the event of a marker in the top
 *		instance, !NAME to disable it; read it to see those enabled
 *   sites	every patched site: its marker, where it is, its bytes now
 *   events	every marker event: its name, id, records cut, bytes and
 *		fields; and every marker refused an event, with why
 *
 * The files are root's and refuse to open under lockdown
 * (LOCKDOWN_TRACEFS). See Documentation/markers.txt.
 */

#define pr_fmt(fmt) "trace_markers: " fmt

#include <linux/list.h>
#include <linux/marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "trace.h"

#define MARKER_EVENT_SYSTEM	"markers"

/* The most bytes a string argument takes in a record, its NUL included. */
#define MARKER_EVENT_STR_MAX	256

/* The longest line the enable file takes: "!", a name, "\n". */
#define MARKER_CMD_MAX		(MARKER_NAME_MAX + 2)

/*
 * The copy plan of an event whose fields are all scalars, at most
 * MARKER_EVENT_PLAN_MAX of them: MARKER_EVENT_PLAN_BITS a field, the first
 * field in the lowest bits, each saying how big the field is in the record
 * and so how its argument travels (marker_event_store()). The fields follow
 * one another, each aligned to its size (marker_event_layout()), so the plan
 * gives their offsets too. A zero ends it.
 */
#define MARKER_EVENT_PLAN_U8	1
#define MARKER_EVENT_PLAN_U32	2
#define MARKER_EVENT_PLAN_U64	3
#define MARKER_EVENT_PLAN_BITS	2
#define MARKER_EVENT_PLAN_MASK	GENMASK(MARKER_EVENT_PLAN_BITS - 1, 0)
#define MARKER_EVENT_PLAN_MAX	3

/**
 * struct marker_event_field - a field of a marker event
 * @f: its name, type and conversion in the format
 * @offset: where it is in a record
 * @size: its size in a record
 */
struct marker_event_field {
	struct marker_field f;
	unsigned short offset;
	unsigned short size;
};

/**
 * struct marker_event - the trace event of a marker
 * @list: in trace_marker_events, under trace_markers_mutex
 * @call: the event
 * @class: its class, of its own: the fields differ from event to event
 * @tp: gives the event its name; never registered, as @class has its own
 *	reg(), but TRACE_EVENT_FL_TRACEPOINT lets BPF tracepoint programs in
 * @name: the marker's name
 * @format: the marker's format
 * @size: the fixed part of a record: the header and the fields; strings
 *	follow it
 * @cut_offset: where the mask of cut strings is, 0 without strings
 * @cut: the records in which a string was cut
 * @bytes: what it allocated beyond what every event allocates (its fields
 *	and files), the data a TRACE_EVENT has in its object instead
 * @plan: how a hit stores the arguments of an event of at most
 *	MARKER_EVENT_PLAN_MAX scalar fields, 0 for any other event
 * @seen: the marker had sites at the last trace_markers_sync()
 * @nr_fields: the number of fields
 * @field: the fields, in the order of the format
 */
struct marker_event {
	struct list_head list;
	struct trace_event_call call;
	struct trace_event_class class;
	struct tracepoint tp;
	char *name;
	char *format;
	unsigned int size;
	unsigned int cut_offset;
	atomic_long_t cut;
	size_t bytes;
	unsigned int plan;
	bool seen;
	unsigned int nr_fields;
	struct marker_event_field field[] __counted_by(nr_fields);
};

/*
 * The arguments of one hit, fetched before the record is reserved. The
 * probes leave it and their va_list __uninitialized, which
 * CONFIG_INIT_STACK_ALL_ZERO would zero at every hit: @strings is set
 * first, and marker_event_fetch() writes all that marker_event_fill() reads.
 */
struct marker_event_args {
	u64 value[MARKER_MAX_ARGS];
	unsigned short len[MARKER_MAX_ARGS];
	unsigned int strings;
	u8 cut;
};

static DEFINE_MUTEX(trace_markers_mutex);
static LIST_HEAD(trace_marker_events);	/* under trace_markers_mutex */

static const char marker_event_null[] = "(null)";
static const char marker_event_fault[] = "(fault)";

/* The C type, size and sign of each field type, for the format file. */
static const struct {
	const char *ctype;
	unsigned char size;
	bool is_signed;
} marker_field_types[] = {
	[MARKER_FIELD_INT] = { "int", sizeof(int), true },
	[MARKER_FIELD_UINT] = { "unsigned int", sizeof(int), false },
	[MARKER_FIELD_LONG] = { "long", sizeof(long), true },
	[MARKER_FIELD_ULONG] = { "unsigned long", sizeof(long), false },
	[MARKER_FIELD_S64] = { "s64", sizeof(s64), true },
	[MARKER_FIELD_U64] = { "u64", sizeof(u64), false },
	[MARKER_FIELD_PTR] = { "void *", sizeof(void *), false },
	[MARKER_FIELD_CHAR] = { "char", sizeof(char), true },
	[MARKER_FIELD_STR] = { "__data_loc char[]", sizeof(u32), false },
};

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
 * How a field of @size bytes travels and is stored: what is 4 bytes or
 * less as an int, the rest as 64 bits (a long is 64 or 32 bits, as its
 * field).
 */
static __always_inline unsigned int marker_event_plan_how(unsigned int size)
{
	switch (size) {
	case sizeof(u8):
		return MARKER_EVENT_PLAN_U8;
	case sizeof(u32):
		return MARKER_EVENT_PLAN_U32;
	default:
		return MARKER_EVENT_PLAN_U64;
	}
}

/*
 * Stores the next argument off @args as the field that @how of a plan
 * gives, at @offset in @rec or past it as its alignment wants; returns
 * where the next field may start.
 */
static __always_inline unsigned int marker_event_plan_store(void *rec, unsigned int offset,
							    unsigned int how, va_list *args)
{
	switch (how) {
	case MARKER_EVENT_PLAN_U64:
		offset = ALIGN(offset, sizeof(u64));
		*(u64 *)(rec + offset) = va_arg(*args, u64);
		return offset + sizeof(u64);
	case MARKER_EVENT_PLAN_U32:
		offset = ALIGN(offset, sizeof(u32));
		*(u32 *)(rec + offset) = va_arg(*args, unsigned int);
		return offset + sizeof(u32);
	default:
		*(u8 *)(rec + offset) = va_arg(*args, unsigned int);
		return offset + sizeof(u8);
	}
}

/*
 * Takes the arguments of a hit off @args straight into the record @rec of
 * an event without strings, whose size is known before the hit, walking
 * its fields.
 */
static __always_inline void marker_event_store(const struct marker_event *ev, void *rec,
					       va_list *args)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++)
		marker_event_plan_store(rec, ev->field[i].offset,
					marker_event_plan_how(ev->field[i].size), args);
}

/*
 * marker_event_store() by the event's @plan: the same stores, without a
 * walk of the fields. Written out field by field, so that each va_arg()
 * takes its argument from where the compiler knows it is, and each field's
 * offset is a constant in each branch.
 */
static __always_inline void marker_event_plan_write(unsigned int plan, void *rec,
						    va_list *args)
{
	unsigned int offset = sizeof(struct trace_entry);

	BUILD_BUG_ON(MARKER_EVENT_PLAN_MAX != 3);
	/* One int or one word, told by the whole plan with one compare. */
	switch (plan) {
	case MARKER_EVENT_PLAN_U32:
		marker_event_plan_store(rec, offset, MARKER_EVENT_PLAN_U32, args);
		return;
	case MARKER_EVENT_PLAN_U64:
		marker_event_plan_store(rec, offset, MARKER_EVENT_PLAN_U64, args);
		return;
	}
	offset = marker_event_plan_store(rec, offset, plan & MARKER_EVENT_PLAN_MASK, args);
	plan >>= MARKER_EVENT_PLAN_BITS;
	if (!plan)
		return;
	offset = marker_event_plan_store(rec, offset, plan & MARKER_EVENT_PLAN_MASK, args);
	plan >>= MARKER_EVENT_PLAN_BITS;
	if (!plan)
		return;
	marker_event_plan_store(rec, offset, plan, args);
}

/* Takes the arguments of a hit off @args, in the order of the fields. */
static void marker_event_fetch(const struct marker_event *ev,
			       struct marker_event_args *a, va_list args)
{
	unsigned int i;

	a->strings = 0;
	a->cut = 0;
	for (i = 0; i < ev->nr_fields; i++) {
		const struct marker_event_field *f = &ev->field[i];
		const char *s;
		bool cut = false;

		if (f->f.type != MARKER_FIELD_STR) {
			/* As marker_event_store() */
			if (f->size == sizeof(u64))
				a->value[i] = va_arg(args, u64);
			else
				a->value[i] = va_arg(args, unsigned int);
			continue;
		}
		s = va_arg(args, const char *);
		a->len[i] = marker_event_strsize(&s, &cut);
		a->value[i] = (unsigned long)s;
		a->strings += a->len[i];
		if (cut)
			a->cut |= BIT(i);
	}
}

/* Writes the record @rec of a hit whose arguments are @a. */
static void marker_event_fill(const struct marker_event *ev,
			      const struct marker_event_args *a, void *rec)
{
	unsigned int i, data = ev->size;

	for (i = 0; i < ev->nr_fields; i++) {
		const struct marker_event_field *f = &ev->field[i];
		void *p = rec + f->offset;
		long len;

		if (f->f.type == MARKER_FIELD_STR) {
			*(u32 *)p = data | a->len[i] << 16;
			len = strncpy_from_kernel_nofault(rec + data,
							  (const char *)(unsigned long)a->value[i],
							  a->len[i]);
			/* Read once already: it changed or went away since. */
			if (len < 0)
				strscpy_pad(rec + data, marker_event_fault, a->len[i]);
			else
				memset(rec + data + len, 0, a->len[i] - len);
			data += a->len[i];
			continue;
		}
		switch (f->size) {
		case 1:
			*(u8 *)p = a->value[i];
			break;
		case 4:
			*(u32 *)p = a->value[i];
			break;
		default:
			*(u64 *)p = a->value[i];
			break;
		}
	}
	if (ev->cut_offset)
		*(u8 *)(rec + ev->cut_offset) = a->cut;
}

/*
 * Writes the record @rec of a hit: straight from @args for an event without
 * strings, by its plan if it has one, else from @a, which
 * marker_event_fetch() took off them.
 */
static __always_inline void marker_event_write(struct marker_event *ev,
					       const struct marker_event_args *a,
					       void *rec, va_list *args)
{
	if (ev->plan) {
		marker_event_plan_write(ev->plan, rec, args);
		return;
	}
	if (!ev->cut_offset) {
		marker_event_store(ev, rec, args);
		return;
	}
	marker_event_fill(ev, a, rec);
	if (a->cut)
		atomic_long_inc(&ev->cut);
}

/*
 * The probe of each instance in which the event is enabled. @fbuffer is
 * left uninitialized: trace_event_buffer_reserve() sets all of it that
 * trace_event_buffer_commit() reads, and it is not read if that fails.
 */
static void marker_event_probe(void *probe_private, void *call_private,
			       const struct marker *marker, ...)
{
	struct trace_event_file *file = probe_private;
	struct marker_event *ev = file->event_call->data;
	struct marker_event_args a __uninitialized;
	va_list args __uninitialized;
	struct trace_event_buffer fbuffer __uninitialized;
	void *rec;

	if (trace_trigger_soft_disabled(file))
		return;
	va_start(args, marker);
	a.strings = 0;
	if (ev->cut_offset)
		marker_event_fetch(ev, &a, args);
	rec = trace_event_buffer_reserve(&fbuffer, file, ev->size + a.strings);
	if (rec) {
		marker_event_write(ev, &a, rec, &args);
		trace_event_buffer_commit(&fbuffer);
	}
	va_end(args);
}

/*
 * marker_event_probe() for an event with a plan: the same record, without
 * the walk of the fields and the tests of strings, to which its va_list
 * would escape.
 */
static void marker_event_probe_plan(void *probe_private, void *call_private,
				    const struct marker *marker, ...)
{
	struct trace_event_file *file = probe_private;
	const struct marker_event *ev = file->event_call->data;
	va_list args __uninitialized;
	struct trace_event_buffer fbuffer __uninitialized;
	void *rec;

	if (trace_trigger_soft_disabled(file))
		return;
	rec = trace_event_buffer_reserve(&fbuffer, file, ev->size);
	if (!rec)
		return;
	va_start(args, marker);
	marker_event_plan_write(ev->plan, rec, &args);
	va_end(args);
	trace_event_buffer_commit(&fbuffer);
}

/* The probe that the event registers for each instance it is enabled in. */
static marker_fast_probe_func *marker_event_instance_probe(const struct marker_event *ev)
{
	return ev->plan ? marker_event_probe_plan : marker_event_probe;
}

#ifdef CONFIG_PERF_EVENTS
/* The probe of the event while perf uses it: perf events and BPF programs. */
static void marker_event_perf_probe(void *probe_private, void *call_private,
				    const struct marker *marker, ...)
{
	struct marker_event *ev = probe_private;
	struct trace_event_call *call = &ev->call;
	struct hlist_head *head = this_cpu_ptr(call->perf_events);
	struct marker_event_args a __uninitialized;
	va_list args __uninitialized;
	struct pt_regs *regs;
	int size, rctx;
	void *rec;

	if (!bpf_prog_array_valid(call) && hlist_empty(head))
		return;
	va_start(args, marker);
	a.strings = 0;
	if (ev->cut_offset)
		marker_event_fetch(ev, &a, args);
	/* As perf_trace_##call(): a u32 size precedes the record in the sample. */
	size = ALIGN(ev->size + a.strings + sizeof(u32), sizeof(u64)) - sizeof(u32);
	rec = perf_trace_buf_alloc(size, &regs, &rctx);
	if (!rec) {
		va_end(args);
		return;
	}
	perf_fetch_caller_regs(regs);
	marker_event_write(ev, &a, rec, &args);
	va_end(args);
	perf_trace_run_bpf_submit(rec, size, rctx, call, 1, regs, head, NULL);
}
#endif

static void trace_markers_sync_fn(struct work_struct *work);
static DECLARE_WORK(trace_markers_sync_work, trace_markers_sync_fn);

/*
 * Connects a probe for each instance the event is enabled in, and one for
 * perf. Called under event_mutex.
 */
static int marker_event_reg(struct trace_event_call *call, enum trace_reg type,
			    void *data)
{
	struct marker_event *ev = call->data;

	switch (type) {
	case TRACE_REG_REGISTER:
		return marker_probe_register_fast(ev->name, ev->format,
						  marker_event_instance_probe(ev), data);
	case TRACE_REG_UNREGISTER:
		/* Cannot fail but for a debugger's breakpoint on a call. */
		WARN_ON_ONCE(marker_probe_unregister_fast(ev->name,
							  marker_event_instance_probe(ev), data));
		/* The event may have lost its marker's sites meanwhile. */
		schedule_work(&trace_markers_sync_work);
		return 0;
#ifdef CONFIG_PERF_EVENTS
	case TRACE_REG_PERF_REGISTER:
		return marker_probe_register_fast(ev->name, ev->format,
						  marker_event_perf_probe, ev);
	case TRACE_REG_PERF_UNREGISTER:
		WARN_ON_ONCE(marker_probe_unregister_fast(ev->name, marker_event_perf_probe, ev));
		schedule_work(&trace_markers_sync_work);
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
	struct marker_event *ev = call->data;
	unsigned int i;
	int ret;

	for (i = 0; i < ev->nr_fields; i++) {
		const struct marker_event_field *f = &ev->field[i];

		ret = trace_define_field(call, marker_field_types[f->f.type].ctype,
					 f->f.name, f->offset, f->size,
					 marker_field_types[f->f.type].is_signed,
					 FILTER_OTHER);
		if (ret)
			return ret;
	}
	if (ev->cut_offset)
		return trace_define_field(call, "unsigned char", "__cut", ev->cut_offset,
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

/* One field of @rec with its conversion of the format. */
static void marker_event_print_field(struct trace_seq *s, const struct marker_event *ev,
				     const struct marker_event_field *f, const void *rec)
{
	const void *p = rec + f->offset;
	char conv[MARKER_CONV_MAX];

	memcpy(conv, ev->format + f->f.conv, f->f.conv_len);
	conv[f->f.conv_len] = '\0';
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

/* A record as the trace shows it: the marker's name, then its format. */
static enum print_line_t marker_event_print(struct trace_iterator *iter, int flags,
					    struct trace_event *event)
{
	struct marker_event *ev = container_of(event, struct marker_event, call.event);
	const char *text = ev->format;
	struct trace_seq *s = &iter->seq;
	unsigned int i;

	trace_seq_printf(s, "%s: ", ev->name);
	for (i = 0; i < ev->nr_fields; i++) {
		const struct marker_event_field *f = &ev->field[i];

		marker_event_print_text(s, text, ev->format + f->f.conv);
		marker_event_print_field(s, ev, f, iter->ent);
		text = ev->format + f->f.conv + f->f.conv_len;
	}
	marker_event_print_text(s, text, text + strlen(text));
	trace_seq_putc(s, '\n');
	return trace_handle_return(s);
}

static struct trace_event_functions marker_event_funcs = {
	.trace = marker_event_print,
};

/* Whether the character at @pos of the format ends a %c conversion. */
static bool marker_event_char_conv(const struct marker_event *ev, unsigned int pos)
{
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++) {
		const struct marker_field *f = &ev->field[i].f;

		if (f->type == MARKER_FIELD_CHAR && pos == f->conv + f->conv_len - 1)
			return true;
	}
	return false;
}

/*
 * The print fmt of the format file, which perf and trace-cmd read: the
 * marker's format as a C string, then its fields. libtraceevent prints
 * no %c (it shows ">c<"): a char goes to it as %d, its number.
 */
static char *marker_event_print_fmt(const struct marker_event *ev, size_t *allocated)
{
	struct seq_buf sb;
	unsigned int i;
	const char *c;
	size_t size;
	char *buf;

	/* Each character escaped at worst, and each field with its name. */
	size = 2 * strlen(ev->format) + 3 +
	       ev->nr_fields * (MARKER_FIELD_NAME_MAX + sizeof(", __get_str()"));
	buf = kmalloc(size, GFP_KERNEL);
	if (!buf)
		return NULL;
	*allocated = size;
	seq_buf_init(&sb, buf, size);
	seq_buf_putc(&sb, '"');
	for (c = ev->format; *c; c++) {
		if (*c == '"' || *c == '\\')
			seq_buf_printf(&sb, "\\%c", *c);
		else if (*c == '\n')
			seq_buf_puts(&sb, "\\n");
		else if (*c == '\t')
			seq_buf_puts(&sb, "\\t");
		else if (marker_event_char_conv(ev, c - ev->format))
			seq_buf_putc(&sb, 'd');
		else
			seq_buf_putc(&sb, *c);
	}
	seq_buf_putc(&sb, '"');
	for (i = 0; i < ev->nr_fields; i++) {
		const struct marker_field *f = &ev->field[i].f;

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

static void marker_event_free(struct marker_event *ev)
{
	kfree(ev->call.print_fmt);
	kfree(ev->format);
	kfree(ev->name);
	kfree(ev);
}

/*
 * Lays the fields of @mf out in a record, after the common header, and
 * writes the plan of an event of at most MARKER_EVENT_PLAN_MAX scalars.
 */
static void marker_event_layout(struct marker_event *ev, const struct marker_format *mf)
{
	unsigned int i, plan = 0, offset = sizeof(struct trace_entry);
	bool strings = false;

	BUILD_BUG_ON(MARKER_MAX_ARGS * MARKER_EVENT_PLAN_BITS > BITS_PER_TYPE(plan));
	for (i = 0; i < mf->nr; i++) {
		struct marker_event_field *f = &ev->field[i];

		f->f = mf->field[i];
		f->size = marker_field_types[f->f.type].size;
		offset = ALIGN(offset, f->size);
		f->offset = offset;
		offset += f->size;
		strings |= f->f.type == MARKER_FIELD_STR;
		plan |= marker_event_plan_how(f->size) << (i * MARKER_EVENT_PLAN_BITS);
	}
	if (strings)
		ev->cut_offset = offset++;
	ev->size = offset;
	if (!strings && mf->nr <= MARKER_EVENT_PLAN_MAX)
		ev->plan = plan;
}

/*
 * Creates and adds the event of the marker @name whose format is @format,
 * under event_mutex.
 * A format that cannot be turned into fields gets a message and no event:
 * -EINVAL or -E2BIG, with why in *@error and where in *@error_pos.
 */
static struct marker_event *marker_event_create(const char *name, const char *format,
						const char **error, unsigned int *error_pos)
{
	struct marker_format *mf;
	struct marker_event *ev;
	int ret;

	lockdep_assert_held(&event_mutex);
	mf = kmalloc_obj(*mf);
	if (!mf)
		return ERR_PTR(-ENOMEM);
	ret = marker_format_parse(format, mf);
	if (ret) {
		pr_warn("marker %s: format \"%s\", at offset %u: %s; no event\n",
			name, format, mf->error_pos, mf->error);
		*error = mf->error;
		*error_pos = mf->error_pos;
		goto out;
	}
	ret = -ENOMEM;
	ev = kzalloc_flex(*ev, field, mf->nr);
	if (!ev)
		goto out;
	ev->nr_fields = mf->nr;
	ev->name = kstrdup(name, GFP_KERNEL);
	ev->format = kstrdup(format, GFP_KERNEL);
	if (!ev->name || !ev->format)
		goto out_free;
	marker_event_layout(ev, mf);
	ev->call.print_fmt = marker_event_print_fmt(ev, &ev->bytes);
	if (!ev->call.print_fmt)
		goto out_free;
	ev->bytes += struct_size(ev, field, ev->nr_fields) + strlen(name) + strlen(format) + 2;

	INIT_LIST_HEAD(&ev->class.fields);
	ev->class.system = MARKER_EVENT_SYSTEM;
	ev->class.fields_array = marker_event_fields_array;
	ev->class.reg = marker_event_reg;
	ev->call.class = &ev->class;
	ev->call.event.funcs = &marker_event_funcs;
	ev->call.data = ev;
#ifdef CONFIG_PERF_EVENTS
	ev->call.perf_perm = marker_event_perf_perm;
#endif
	/*
	 * BPF checks a tracepoint program's reads against the end of the
	 * last field (trace_event_get_offsets()): an event without fields
	 * takes none.
	 */
	if (ev->nr_fields) {
		ev->tp.name = ev->name;
		ev->call.tp = &ev->tp;
		ev->call.flags = TRACE_EVENT_FL_TRACEPOINT;
	} else {
		ev->call.name = ev->name;
	}
	/* References (trace_event_try_get_ref()) count, and keep it. */
	ev->call.flags |= TRACE_EVENT_FL_DYNAMIC;
	ret = -ENODEV;
	if (!register_trace_event(&ev->call.event))
		goto out_free;
	ret = trace_add_event_call(&ev->call);
	if (ret) {
		unregister_trace_event(&ev->call.event);
		goto out_free;
	}
	kfree(mf);
	return ev;

out_free:
	marker_event_free(ev);
out:
	kfree(mf);
	return ERR_PTR(ret);
}

static struct marker_event *marker_event_find(const char *name)
{
	struct marker_event *ev;

	lockdep_assert_held(&trace_markers_mutex);
	list_for_each_entry(ev, &trace_marker_events, list)
		if (!strcmp(ev->name, name))
			return ev;
	return NULL;
}

/*
 * A marker with sites, as trace_markers_sync() collects them; kept in
 * trace_markers_refused while its format cannot be turned into fields,
 * with why, so that it is refused once and the events file can say why.
 */
struct trace_marker_seen {
	struct list_head list;
	char *name;
	char *format;
	const char *error;
	unsigned int error_pos;
	bool seen;
};

static LIST_HEAD(trace_markers_refused);	/* under trace_markers_mutex */

static void trace_marker_seen_free(struct list_head *seen)
{
	struct trace_marker_seen *m, *tmp;

	list_for_each_entry_safe(m, tmp, seen, list) {
		kfree(m->format);
		kfree(m->name);
		kfree(m);
	}
}

static int trace_marker_collect(const struct marker_info *info, void *data)
{
	struct trace_marker_seen *m;

	/* A marker_enabled() guard has no format: it is not an event. */
	if (!info->has_sites || !info->format)
		return 0;
	m = kzalloc_obj(*m);
	if (!m)
		return -ENOMEM;
	m->name = kstrdup(info->name, GFP_KERNEL);
	m->format = kstrdup(info->format, GFP_KERNEL);
	list_add_tail(&m->list, data);
	return m->name && m->format ? 0 : -ENOMEM;
}

static struct trace_marker_seen *trace_marker_refused(const char *name)
{
	struct trace_marker_seen *m;

	list_for_each_entry(m, &trace_markers_refused, list)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/*
 * Makes the events follow the markers: an event for every marker that has
 * sites, none for a marker without, unless the event is in use or held by
 * a reference (then it goes once it is not: its unregistration runs this
 * again, as do module loads and unloads and reads of markers/events). An
 * event that goes resets the buffers it was enabled in. The markers are
 * collected first, as events cannot be added under markers_mutex:
 * event_mutex comes first (see marker_event_reg()).
 */
static void trace_markers_sync(void)
{
	struct trace_marker_seen *m, *next, *refused;
	struct marker_event *ev, *tmp;
	LIST_HEAD(removed);
	LIST_HEAD(seen);
	int ret;

	guard(mutex)(&trace_markers_mutex);
	ret = marker_walk(trace_marker_collect, &seen);
	if (ret) {
		pr_warn("cannot list the markers (%d); events unchanged\n", ret);
		goto out;
	}
	list_for_each_entry(ev, &trace_marker_events, list)
		ev->seen = false;
	list_for_each_entry(m, &trace_markers_refused, list)
		m->seen = false;

	mutex_lock(&event_mutex);
	list_for_each_entry_safe(m, next, &seen, list) {
		ev = marker_event_find(m->name);
		if (ev) {
			ev->seen = true;
			continue;
		}
		refused = trace_marker_refused(m->name);
		if (refused) {
			refused->seen = true;
			continue;
		}
		ev = marker_event_create(m->name, m->format, &m->error, &m->error_pos);
		if (!IS_ERR(ev)) {
			ev->seen = true;
			list_add_tail(&ev->list, &trace_marker_events);
		} else if (PTR_ERR(ev) == -EINVAL || PTR_ERR(ev) == -E2BIG) {
			m->seen = true;
			list_move_tail(&m->list, &trace_markers_refused);
		} else {
			pr_warn("no event for marker %s (%ld)\n", m->name, PTR_ERR(ev));
		}
	}
	/*
	 * An event held by a reference, or in use (-EBUSY), stays. No record
	 * of a removed event may be read as one of an event that takes its
	 * id: its removal flags the instances it was enabled in for a reset,
	 * and the reset comes at once, as a later removal that meets an
	 * enabled event clears every instance's flag.
	 */
	list_for_each_entry_safe(ev, tmp, &trace_marker_events, list) {
		if (ev->seen || trace_event_dyn_busy(&ev->call) ||
		    trace_remove_event_call(&ev->call))
			continue;
		tracing_reset_all_online_cpus();
		list_move(&ev->list, &removed);
	}
	mutex_unlock(&event_mutex);

	list_for_each_entry_safe(m, next, &trace_markers_refused, list)
		if (!m->seen)
			list_move(&m->list, &seen);
	if (!list_empty(&removed)) {
		/* A probe unregistered when an event was last used may still run. */
		marker_synchronize_unregister();
		list_for_each_entry_safe(ev, tmp, &removed, list)
			marker_event_free(ev);
	}
out:
	trace_marker_seen_free(&seen);
}

static void trace_markers_sync_fn(struct work_struct *work)
{
	trace_markers_sync();
}

/*
 * Switches the event of marker @name on or off in the top instance: the
 * enable file. -ENOENT for no such event, or off when it is off; -EBUSY
 * when it is on already.
 */
static int trace_marker_switch(const char *name, bool on)
{
	struct trace_event_file *file;

	guard(mutex)(&event_mutex);
	file = find_event_file(top_trace_array(), MARKER_EVENT_SYSTEM, name);
	if (!file)
		return -ENOENT;
	if (!!(file->flags & EVENT_FILE_FL_ENABLED) == on)
		return on ? -EBUSY : -ENOENT;
	return trace_event_enable_disable(file, on, 0);
}

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
	seq_printf(m, "%-32s %-3s %6u %6u %-24s \"%s\"\n", info->name,
		   info->enabled ? "on" : "off", info->nr_probes, info->nr_sites,
		   where, info->format ?: "");
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
	struct trace_marker_seen *r;
	struct marker_event *ev;
	unsigned int i;

	/* Drops the events that nothing holds any more, first. */
	trace_markers_sync();
	seq_printf(m, "%-32s %6s %8s %6s %s\n", "# name", "id", "cut", "bytes", "fields");
	guard(mutex)(&trace_markers_mutex);
	list_for_each_entry(ev, &trace_marker_events, list) {
		seq_printf(m, "%-32s %6d %8ld %6zu ", ev->name, ev->call.event.type,
			   atomic_long_read(&ev->cut), ev->bytes);
		for (i = 0; i < ev->nr_fields; i++)
			seq_printf(m, "%s%s %s", i ? ", " : "",
				   marker_field_types[ev->field[i].f.type].ctype,
				   ev->field[i].f.name);
		seq_putc(m, '\n');
	}
	list_for_each_entry(r, &trace_markers_refused, list)
		seq_printf(m, "%-32s %6s %8s %6s no event: format \"%s\", at offset %u: %s\n",
			   r->name, "-", "-", "-", r->format, r->error_pos, r->error);
	return 0;
}

static int trace_markers_enable_show(struct seq_file *m, void *v)
{
	struct trace_event_file *file;
	struct marker_event *ev;

	guard(mutex)(&trace_markers_mutex);
	guard(mutex)(&event_mutex);
	list_for_each_entry(ev, &trace_marker_events, list) {
		file = find_event_file(top_trace_array(), MARKER_EVENT_SYSTEM, ev->name);
		if (file && (file->flags & EVENT_FILE_FL_ENABLED))
			seq_printf(m, "%s\n", ev->name);
	}
	return 0;
}

/*
 * One command per write: "NAME" or "!NAME", surrounded by blanks at most.
 * Malformed input is -EINVAL, a marker without an event -ENOENT, an event
 * already on -EBUSY; nothing changes on error.
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

#ifdef CONFIG_MODULES
/*
 * After kernel/marker.c has taken a module's sites in, forgotten those of
 * its init text, or let them all go.
 */
static int trace_markers_module_notify(struct notifier_block *self, unsigned long val,
				       void *data)
{
	if (val != MODULE_STATE_UNFORMED)
		trace_markers_sync();
	return NOTIFY_OK;
}

static struct notifier_block trace_markers_module_nb = {
	.notifier_call = trace_markers_module_notify,
	.priority = -1,	/* after kernel/marker.c's */
};
#endif

/*
 * The events of the kernel's markers, added before tracefs is: as for the
 * events of tracepoints, __trace_early_add_event_dirs() gives each its
 * directory when tracefs comes. Added any later, an event can fall between
 * that and the moment trace_add_event_call() starts making directories
 * itself (eventdir_initialized, set by a work item of tracer_init_tracefs()
 * after a sleep): it would have none, and events/markers would not be there.
 */
static __init int trace_markers_init_events(void)
{
	trace_markers_sync();
#ifdef CONFIG_MODULES
	register_module_notifier(&trace_markers_module_nb);
#endif
	return 0;
}
core_initcall(trace_markers_init_events);

static __init int trace_markers_init(void)
{
	struct dentry *dir;

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
