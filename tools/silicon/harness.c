// SPDX-License-Identifier: GPL-2.0
/*
 * The silicon mode of the markers benchmark: times, on the host's own CPU,
 * the functions of lib/markers_bench/real.c as the kernel runs them.
 * tools/wb/silicon.py links the benchmark module's object, as kbuild and
 * objtool made it for the benchmark kernel, with this file and a stub for
 * every kernel symbol it names (a stub that runs traps). Before timing,
 * this file does to that code what the kernel does to its text at boot:
 *
 *  - the returns (.return_sites, renamed wb_return_sites) become "ret",
 *    as on a CPU that needs no return thunk;
 *  - the calls of __fentry__ (__mcount_loc) become 5-byte NOPs, as ftrace
 *    makes them at boot;
 *  - static branches stay as objtool left them: NOPs, keys off;
 *  - marker sites (__marker_sites) go from their bytes as built to each
 *    state asked for on the command line, whose bytes the workbench gives
 *    (tools/wb/silicon.py): those that arch/x86/kernel/marker.c writes.
 *
 * Usage: harness ROUNDS CALLS [NAME:CLASS=HEX,...]...
 *
 * Prints the bytes of every marker site in each state ("site STATE CLASS
 * LEN BYTES"), then one line per timed run: "run ROUND FN VARIANT TICKS",
 * TSC ticks for CALLS calls of function FN of real.c built with VARIANT,
 * a marker's as "mark@STATE". Every run of a round is timed once, in a new
 * order each round.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* lib/markers_bench/bench.h: struct bench_real. */
struct bench_real {
	const char *fn;
	const char *variant;
	void (*call)(int v);
};

const struct bench_real *bench_real_fns(unsigned int *nr);

extern struct site_entry __start___marker_sites[], __stop___marker_sites[];
extern int32_t __start_wb_return_sites[], __stop_wb_return_sites[];
extern uintptr_t __start___mcount_loc[], __stop___mcount_loc[];

static void fail(const char *what)
{
	fprintf(stderr, "harness: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Makes the program's own text writable (it has no other executable mapping). */
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
		if (mprotect((void *)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC))
			fail("mprotect");
	}
	fclose(maps);
}

static void *rel(const int32_t *field)
{
	return (char *)field + *field;
}

/* "jmp __x86_return_thunk" (5 bytes) -> "ret; int3; int3; int3; int3". */
static void apply_returns(void)
{
	static const uint8_t ret[5] = { 0xc3, 0xcc, 0xcc, 0xcc, 0xcc };
	int32_t *s;

	for (s = __start_wb_return_sites; s < __stop_wb_return_sites; s++) {
		uint8_t *insn = rel(s);

		if (insn[0] != 0xe9) {
			fprintf(stderr, "harness: return site %p is %02x\n", (void *)insn, insn[0]);
			exit(2);
		}
		memcpy(insn, ret, sizeof(ret));
	}
}

/* Every "call __fentry__" (5 bytes) -> the 5-byte NOP, as ftrace at boot. */
static void apply_mcount(void)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uintptr_t *s;

	for (s = __start___mcount_loc; s < __stop___mcount_loc; s++) {
		uint8_t *insn = (uint8_t *)*s;

		if (insn[0] != 0xe8) {
			fprintf(stderr, "harness: mcount site %p is %02x\n", (void *)insn, insn[0]);
			exit(2);
		}
		memcpy(insn, nop5, sizeof(nop5));
	}
}

/*
 * A state of marker sites, as given on the command line: NAME:RULE,...
 * where each RULE is CLASS=HEX, the first bytes of every site of CLASS
 * in that state: "near" (8 bytes, a short jne, a probe block that a jmp
 * rel8 from the slot reaches: <asm/marker.h>), "far" (any other), or a
 * length ("8", "12"). A site that no rule names keeps its bytes as built.
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
	for (p = colon + 1; *p; ) {
		size_t len = strcspn(p, ",");

		if (st->nr == 4 || parse_rule(p, len, &st->rule[st->nr++]))
			return -1;
		p += len + (p[len] == ',');
	}
	return 0;
}

/* Where the jne of a site goes, as <asm/marker.h> lays a site out. */
static uint8_t *site_block(const uint8_t *code, unsigned int len)
{
	if (len == 8 && code[6] == 0x75)
		return (uint8_t *)code + 8 + (int8_t)code[7];
	if (len == 12 && code[6] == 0x0f && code[7] == 0x85)
		return (uint8_t *)code + 12 + *(int32_t *)(code + 8);
	return NULL;
}

static const char *site_class(const uint8_t *code, unsigned int len)
{
	uint8_t *block = site_block(code, len);
	long rel = block - (code + 2);

	return block && len == 8 && rel >= -128 && rel <= 127 ? "near" : "far";
}

/* The bytes of every marker site as built, to put back between states. */
static uint8_t *built;

static void save_sites(void)
{
	size_t n = __stop___marker_sites - __start___marker_sites;
	struct site_entry *e;

	built = calloc(n, 16);
	if (!built)
		fail("calloc");
	for (e = __start___marker_sites; e < __stop___marker_sites; e++)
		if (e->code && e->size == MARKER_ENTRY_SITE)
			memcpy(built + 16 * (e - __start___marker_sites), rel(&e->code), e->len);
}

/*
 * Puts every marker site in state @st (NULL: as built); with @show, prints
 * each site's class and bytes.
 */
static void apply_state(const struct site_state *st, int show)
{
	struct site_entry *e;
	unsigned int i, k;

	for (e = __start___marker_sites; e < __stop___marker_sites; e++) {
		uint8_t *code;
		const char *class;
		char len[4];

		if (e->size != MARKER_ENTRY_SITE || !e->code)
			continue;
		code = rel(&e->code);
		memcpy(code, built + 16 * (e - __start___marker_sites), e->len);
		class = site_class(code, e->len);
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

			printf("run %u %s %s%s%s %llu\n", round, f->fn, f->variant,
			       state ? "@" : "", state ? state : "",
			       (unsigned long long)time_calls(f->call, calls));
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int rounds, calls, nr, nr_states = 0, r, i;
	struct site_state states[8];
	const struct bench_real *fns;
	unsigned int *order;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ROUNDS CALLS [NAME:CLASS=HEX,...]...\n", argv[0]);
		return 2;
	}
	rounds = strtoul(argv[1], NULL, 10);
	calls = strtoul(argv[2], NULL, 10);
	for (i = 3; i < (unsigned int)argc; i++) {
		if (nr_states == 8 || parse_state(argv[i], &states[nr_states++])) {
			fprintf(stderr, "harness: bad site state %s\n", argv[i]);
			return 2;
		}
	}
	text_writable();
	apply_returns();
	apply_mcount();
	save_sites();
	apply_state(NULL, 1);
	for (i = 0; i < nr_states; i++)
		apply_state(&states[i], 1);

	fns = bench_real_fns(&nr);
	order = calloc(nr, sizeof(*order));
	if (!order)
		fail("calloc");
	for (i = 0; i < nr; i++)
		order[i] = i;
	/*
	 * Each round puts the sites in each state in turn, runs every
	 * variant once to warm up, then times each: text is only written
	 * between the timed runs of two states, and what a variant adds is
	 * measured against runs close in time, in the same state.
	 */
	srand(1);
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < (nr_states ? nr_states : 1); i++) {
			const struct site_state *st = nr_states ? &states[i] : NULL;
			unsigned int k;

			apply_state(st, 0);
			for (k = 0; k < nr; k++)
				time_calls(fns[k].call, calls / 4);
			time_round(fns, nr, order, r, st ? st->name : NULL, calls);
		}
	}
	return 0;
}
