// SPDX-License-Identifier: GPL-2.0
/*
 * The silicon mode of the markers benchmark: times, on the host's own CPU,
 * the functions of lib/markers_bench/real.c as the kernel runs them.
 * tools/wb/silicon.py links the benchmark module's object, as kbuild and
 * objtool made it for the benchmark kernel, the markers core's iterators
 * (kernel/marker.o, arch/x86/kernel/marker_pair.o) and setup.c, all built
 * by kbuild's commands, with this file and a stub for every kernel symbol
 * they name (a stub that runs traps). Before timing, this file does to
 * that code what the kernel does to its text at boot, as on a CPU whose
 * mitigations need no thunk (eIBRS):
 *
 *  - the returns (.return_sites) become "ret";
 *  - the calls and jumps through retpoline thunks (.retpoline_sites)
 *    become indirect calls and jumps;
 *  - the calls of __fentry__ (__mcount_loc) become 5-byte NOPs, as ftrace
 *    makes them;
 *  - static branches stay as objtool left them: NOPs, keys off.
 *
 * Then it puts the sites in each state asked for on the command line, in
 * turn, and times every variant of every function of real.c in each:
 *
 *  - NAME:CLASS=HEX,... the first bytes of every marker site of CLASS:
 *    "near" (7 bytes, a short jb, a probe block that a jmp rel8 from the
 *    slot reaches: <asm/marker.h>), "far" (any other), or a length ("7",
 *    "11"); the workbench gives the bytes arch/x86/kernel/marker.c writes;
 *  - NAME:on=STATE,tp=N: the markers of real.c on, with the probes and
 *    call target of STATE (setup.c), their sites as the kernel puts them
 *    (a near slot jumps to the probe block, a far guard's immediate is
 *    ff), and
 *    the tracepoint of real.c with N probes: its static key on, its
 *    static calls to its probe (N = 1) or its iterator.
 *
 * Usage: harness ROUNDS CALLS STATE...
 *
 * Prints the bytes of every marker site in each state ("site STATE CLASS
 * LEN BYTES"), then one line per timed run: "run ROUND FN VARIANT@STATE
 * TICKS", TSC ticks for CALLS calls of function FN of real.c built with
 * VARIANT, in STATE. In each round the states come in turn, in a new
 * order, and in each state the variants of a function run one after
 * another, in a new order.
 */

#define _GNU_SOURCE
#include <asm/prctl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

/* <linux/site_table.h>: struct site_entry. */
struct site_entry {
	int32_t code;
	int32_t key;
	uint8_t len;
	uint8_t size;
	uint8_t pad[2];
};

/* <linux/marker.h>: what an entry of __marker_sites is. */
#define MARKER_ENTRY_SITE	0
#define MARKER_ENTRY_CALL	1

/* <asm/jump_label.h>, CONFIG_HAVE_ARCH_JUMP_LABEL_RELATIVE: struct jump_entry. */
struct jump_entry {
	int32_t code;
	int32_t target;
	long key;
};

/* <linux/static_call_types.h>: struct static_call_site. */
struct static_call_site {
	int32_t addr;
	int32_t key;
};

#define STATIC_CALL_SITE_TAIL	1L
#define STATIC_CALL_SITE_FLAGS	3L

/* lib/markers_bench/bench.h: struct bench_real. */
struct bench_real {
	const char *fn;
	const char *variant;
	void (*call)(int v);
};

const struct bench_real *bench_real_fns(unsigned int *nr);

/* setup.c, built as the kernel is. */
struct wb_on {
	void *target;
	void *data;
};

void wb_setup_cpu(void);
const char *wb_state_name(unsigned int i);
int wb_marker_on(void *marker, unsigned int state, struct wb_on *on);
void wb_marker_off(void *marker);
void wb_tracepoint_on(unsigned int nr, struct wb_on *on, void **key);

/* stubs.S: the retpoline thunks the objects call, each with its register. */
struct wb_thunk {
	void *addr;
	long reg;
};

extern struct wb_thunk __start_wb_thunks[], __stop_wb_thunks[];

/* stubs.S: the size of the per-CPU area, whose offsets per-CPU variables are. */
extern char wb_percpu_size[];

extern struct site_entry __start___marker_sites[], __stop___marker_sites[];
extern struct jump_entry __start___jump_table[], __stop___jump_table[];
extern struct static_call_site __start_wb_static_call_sites[], __stop_wb_static_call_sites[];
extern int32_t __start_wb_return_sites[], __stop_wb_return_sites[];
extern int32_t __start_wb_retpoline_sites[], __stop_wb_retpoline_sites[];
extern uintptr_t __start___mcount_loc[], __stop___mcount_loc[];

/* The marker of the sites of real.c. */
#define REAL_MARKER	"bench_real"

static void fail(const char *what)
{
	fprintf(stderr, "harness: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void die(const char *what, const void *addr)
{
	fprintf(stderr, "harness: %s at %p: %02x\n", what, addr, *(const uint8_t *)addr);
	exit(2);
}

/* The program's text (its only executable mapping): made writable, kept. */
static uint8_t *text_start, *text_end, *text_copy;

static void text_writable(void)
{
	unsigned long start, end;
	char perms[8], line[256];
	FILE *maps = fopen("/proc/self/maps", "r");

	if (!maps)
		fail("/proc/self/maps");
	while (fgets(line, sizeof(line), maps)) {
		if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3 || perms[2] != 'x' ||
		    strstr(line, "[v"))
			continue;
		if (text_start) {
			fprintf(stderr, "harness: two executable mappings\n");
			exit(2);
		}
		if (mprotect((void *)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC))
			fail("mprotect");
		text_start = (uint8_t *)start;
		text_end = (uint8_t *)end;
	}
	fclose(maps);
}

/* Saves the text as the boot fixups left it; puts it back. */
static void text_save(void)
{
	text_copy = malloc(text_end - text_start);
	if (!text_copy)
		fail("malloc");
	memcpy(text_copy, text_start, text_end - text_start);
}

static void text_restore(void)
{
	memcpy(text_start, text_copy, text_end - text_start);
}

/*
 * This CPU's per-CPU area, as %gs points at it in the kernel: per-CPU
 * variables are offsets into it, and its byte 0x28 the stack protector's
 * canary.
 */
static void percpu_setup(void)
{
	void *area = mmap(NULL, (size_t)wb_percpu_size, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (area == MAP_FAILED)
		fail("mmap");
	if (syscall(SYS_arch_prctl, ARCH_SET_GS, area))
		fail("arch_prctl(ARCH_SET_GS)");
}

static void *rel(const int32_t *field)
{
	return (char *)field + *field;
}

/* Writes "jmp rel8" or "jmp rel32" (@len 2 or 5) at @insn to @to. */
static void write_jump(uint8_t *insn, unsigned int len, const void *to)
{
	long d = (const uint8_t *)to - (insn + len);

	if (len == 2) {
		if (d < -128 || d > 127)
			die("jump out of reach", insn);
		insn[0] = 0xeb;
		insn[1] = d;
		return;
	}
	insn[0] = 0xe9;
	memcpy(insn + 1, &(int32_t){ d }, 4);
}

/* Writes "call rel32" (or with @tail "jmp rel32") at @insn to @to. */
static void write_call(uint8_t *insn, const void *to, bool tail)
{
	int32_t d = (const uint8_t *)to - (insn + 5);

	insn[0] = tail ? 0xe9 : 0xe8;
	memcpy(insn + 1, &d, 4);
}

/* "jmp __x86_return_thunk" (5 bytes) -> "ret; int3; int3; int3; int3". */
static void apply_returns(void)
{
	static const uint8_t ret[5] = { 0xc3, 0xcc, 0xcc, 0xcc, 0xcc };
	int32_t *s;

	for (s = __start_wb_return_sites; s < __stop_wb_return_sites; s++) {
		uint8_t *insn = rel(s);

		if (insn[0] != 0xe9)
			die("unexpected return site", insn);
		memcpy(insn, ret, sizeof(ret));
	}
}

/*
 * "[cs] call/jmp __x86_indirect_thunk_REG" -> "call/jmp *%REG", padded
 * with NOPs, as the kernel's apply_retpolines() does without retpolines.
 */
static void apply_retpolines(void)
{
	static const uint8_t nops[][4] = { {}, { 0x90 }, { 0x66, 0x90 }, { 0x0f, 0x1f, 0x00 },
					  { 0x0f, 0x1f, 0x40, 0x00 } };
	int32_t *s;

	for (s = __start_wb_retpoline_sites; s < __stop_wb_retpoline_sites; s++) {
		uint8_t *insn = rel(s), *op = insn + (insn[0] == 0x2e);
		unsigned int len = op - insn + 5, n = 0;
		struct wb_thunk *t;
		uint8_t new[6];
		int32_t d;

		if (op[0] != 0xe8 && op[0] != 0xe9)
			die("unexpected retpoline site", insn);
		memcpy(&d, op + 1, 4);
		for (t = __start_wb_thunks; t < __stop_wb_thunks; t++)
			if (t->addr == op + 5 + d)
				break;
		if (t == __stop_wb_thunks)
			die("retpoline site to no thunk", insn);
		if (t->reg >= 8)
			new[n++] = 0x41;
		new[n++] = 0xff;
		new[n++] = (op[0] == 0xe8 ? 0xd0 : 0xe0) | (t->reg & 7);
		memcpy(new + n, nops[len - n], len - n);
		memcpy(insn, new, len);
	}
}

/* Every "call __fentry__" (5 bytes) -> the 5-byte NOP, as ftrace at boot. */
static void apply_mcount(void)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uintptr_t *s;

	for (s = __start___mcount_loc; s < __stop___mcount_loc; s++) {
		uint8_t *insn = (uint8_t *)*s;

		if (insn[0] != 0xe8)
			die("unexpected mcount site", insn);
		memcpy(insn, nop5, sizeof(nop5));
	}
}

/*
 * A state of the sites, as given on the command line: site rules (CLASS
 * and the first bytes), or a state of setup.c for the markers of real.c
 * and a number of probes for its tracepoint.
 */
struct site_rule {
	char class[8];
	uint8_t bytes[16];
	unsigned int nr;
};

struct site_state {
	char name[32];
	struct site_rule rule[4];
	unsigned int nr;
	char on[16];		/* a state of setup.c, or "" */
	unsigned int on_index;	/* its index there */
	unsigned int tp;	/* probes of the tracepoint */
};

static int parse_rule(const char *arg, size_t len, struct site_rule *r)
{
	const char *eq = memchr(arg, '=', len);
	unsigned int i;

	if (!eq || eq == arg || eq - arg >= (long)sizeof(r->class))
		return -1;
	memcpy(r->class, arg, eq - arg);
	r->class[eq - arg] = 0;
	len -= eq + 1 - arg;
	arg = eq + 1;
	if (!len || len % 2 || len / 2 > sizeof(r->bytes))
		return -1;
	for (i = 0; i < len / 2; i++) {
		char hex[3] = { arg[2 * i], arg[2 * i + 1], 0 }, *end;

		r->bytes[i] = strtoul(hex, &end, 16);
		if (*end)
			return -1;
	}
	r->nr = len / 2;
	return 0;
}

static int parse_state(const char *arg, struct site_state *st)
{
	const char *colon = strchr(arg, ':'), *p;

	memset(st, 0, sizeof(*st));
	if (!colon || colon == arg || colon - arg >= (long)sizeof(st->name))
		return -1;
	memcpy(st->name, arg, colon - arg);
	if (sscanf(colon + 1, "on=%15[a-z0-9_],tp=%u", st->on, &st->tp) == 2) {
		const char *name;

		for (st->on_index = 0; (name = wb_state_name(st->on_index)); st->on_index++)
			if (!strcmp(name, st->on))
				return 0;
		return -1;
	}
	for (p = colon + 1; *p; ) {
		size_t len = strcspn(p, ",");

		if (st->nr == 4 || parse_rule(p, len, &st->rule[st->nr++]))
			return -1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* Where the jb of a site goes, as <asm/marker.h> lays a site out. */
static uint8_t *site_block(const uint8_t *code, unsigned int len)
{
	if (len == 7 && code[5] == 0x72)
		return (uint8_t *)code + 7 + (int8_t)code[6];
	if (len == 11 && code[5] == 0x0f && code[6] == 0x82)
		return (uint8_t *)code + 11 + *(int32_t *)(code + 7);
	return NULL;
}

static bool site_near(const uint8_t *code, unsigned int len)
{
	uint8_t *block = site_block(code, len);
	long d = block - (code + 2);

	return block && len == 7 && d >= -128 && d <= 127;
}

/* The name of a marker: the first field of struct marker. */
static bool real_marker(const struct site_entry *e)
{
	return !strcmp(*(const char **)rel(&e->key), REAL_MARKER);
}

/* A site or call of the marker of real.c on, as the kernel switches it. */
static void marker_entry_on(const struct site_entry *e, const struct wb_on *on)
{
	uint8_t *code = rel(&e->code);

	if (e->size == MARKER_ENTRY_CALL) {
		if (code[0] != 0xe8)
			die("unexpected recorded call", code);
		write_call(code, on->target, false);
	} else if (site_near(code, e->len)) {
		write_jump(code, 2, site_block(code, e->len));
	} else {
		code[4] = 0xff;
	}
}

/*
 * The markers of real.c on in state @name of setup.c, each site and call
 * as the kernel writes them; the tracepoint of real.c with @tp probes.
 */
static void apply_on(unsigned int state, unsigned int tp)
{
	struct static_call_site *sc;
	struct site_entry *e;
	struct jump_entry *j;
	struct wb_on on;
	void *key;

	for (e = __start___marker_sites; e < __stop___marker_sites; e++) {
		if (!e->code || !real_marker(e))
			continue;
		if (wb_marker_on(rel(&e->key), state, &on)) {
			fprintf(stderr, "harness: no state %u in setup.c\n", state);
			exit(2);
		}
		marker_entry_on(e, &on);
	}
	wb_tracepoint_on(tp, &on, &key);
	if (!tp)
		return;
	for (j = __start___jump_table; j < __stop___jump_table; j++) {
		uint8_t *code = rel(&j->code);

		if ((void *)(((long)&j->key + j->key) & ~3L) != key)
			continue;
		write_jump(code, code[0] == 0x66 ? 2 : 5, rel(&j->target));
	}
	for (sc = __start_wb_static_call_sites; sc < __stop_wb_static_call_sites; sc++) {
		long k = (long)&sc->key + sc->key;

		if ((void *)(k & ~STATIC_CALL_SITE_FLAGS) == on.data)
			write_call(rel(&sc->addr), on.target, k & STATIC_CALL_SITE_TAIL);
	}
}

/* Every marker of real.c and the tracepoint of real.c off, as at boot. */
static void all_off(void)
{
	struct site_entry *e;
	struct wb_on on;
	void *key;

	for (e = __start___marker_sites; e < __stop___marker_sites; e++)
		if (e->code && real_marker(e))
			wb_marker_off(rel(&e->key));
	wb_tracepoint_on(0, &on, &key);
}

/*
 * Puts the text back as the boot fixups left it, then puts every site in
 * state @st (NULL: as built); with @show, prints each marker site.
 */
static void apply_state(const struct site_state *st, bool show)
{
	struct site_entry *e;
	unsigned int i, k;

	text_restore();
	all_off();
	if (st && st->on[0])
		apply_on(st->on_index, st->tp);
	for (e = __start___marker_sites; e < __stop___marker_sites; e++) {
		const char *class;
		uint8_t *code;
		char len[4];

		if (e->size != MARKER_ENTRY_SITE || !e->code)
			continue;
		code = rel(&e->code);
		class = site_near(code, e->len) ? "near" : "far";
		snprintf(len, sizeof(len), "%u", e->len);
		for (i = 0; st && i < st->nr; i++) {
			if (!strcmp(st->rule[i].class, class) || !strcmp(st->rule[i].class, len)) {
				memcpy(code, st->rule[i].bytes, st->rule[i].nr);
				break;
			}
		}
		if (!show)
			continue;
		printf("site %s %s %s", st ? st->name : "built", class, len);
		for (k = 0; k < e->len; k++)
			printf(" %02x", code[k]);
		printf("\n");
	}
}

static uint64_t time_calls(void (*call)(int v), unsigned int calls)
{
	uint64_t t0, t1;
	unsigned int i;

	_mm_lfence();
	t0 = __rdtsc();
	_mm_lfence();
	for (i = 0; i < calls; i++)
		call(i);
	_mm_lfence();
	t1 = __rdtsc();
	return t1 - t0;
}

/* Times every variant of @fns once, each function's variants in a new order. */
static void time_round(const struct bench_real *fns, unsigned int nr, unsigned int *order,
		       unsigned int round, const char *state, unsigned int calls)
{
	unsigned int i, k, j;

	for (i = 0; i < nr; i = k) {
		for (k = i + 1; k < nr && !strcmp(fns[k].fn, fns[i].fn); k++)
			;
		for (j = k - 1; j > i; j--) {
			unsigned int m = i + rand() % (j - i + 1), t = order[j];

			order[j] = order[m];
			order[m] = t;
		}
		for (j = i; j < k; j++) {
			const struct bench_real *f = &fns[order[j]];

			printf("run %u %s %s@%s %llu\n", round, f->fn, f->variant, state,
			       (unsigned long long)time_calls(f->call, calls));
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int rounds, calls, nr, nr_states = 0, r, i, k;
	struct site_state states[32];
	const struct bench_real *fns;
	unsigned int *order;

	if (argc < 4) {
		fprintf(stderr, "usage: %s ROUNDS CALLS STATE...\n", argv[0]);
		return 2;
	}
	rounds = strtoul(argv[1], NULL, 10);
	calls = strtoul(argv[2], NULL, 10);
	/* The kernel's code runs once its text is as at boot, no earlier. */
	text_writable();
	apply_returns();
	apply_retpolines();
	apply_mcount();
	text_save();
	percpu_setup();
	wb_setup_cpu();
	for (i = 3; i < (unsigned int)argc; i++) {
		if (nr_states == 32 || parse_state(argv[i], &states[nr_states++])) {
			fprintf(stderr, "harness: bad site state %s\n", argv[i]);
			return 2;
		}
	}
	apply_state(NULL, true);
	for (i = 0; i < nr_states; i++)
		apply_state(&states[i], true);

	fns = bench_real_fns(&nr);
	order = calloc(nr, sizeof(*order));
	if (!order)
		fail("calloc");
	for (i = 0; i < nr; i++)
		order[i] = i;
	/*
	 * Each round puts the sites in each state in turn, in a new order
	 * (what ran before moves the branch predictors), runs every variant
	 * to warm up, then times each: text is only written between the
	 * timed runs of two states, and what a variant adds is measured
	 * against runs close in time, in the same state.
	 */
	srand(1);
	for (r = 0; r < rounds; r++) {
		for (i = nr_states - 1; i > 0; i--) {
			unsigned int j = rand() % (i + 1);
			struct site_state t = states[i];

			states[i] = states[j];
			states[j] = t;
		}
		for (i = 0; i < nr_states; i++) {
			apply_state(&states[i], false);
			for (k = 0; k < nr; k++)
				time_calls(fns[k].call, calls / 4);
			time_round(fns, nr, order, r, states[i].name, calls);
		}
	}
	return 0;
}
