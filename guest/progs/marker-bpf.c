// SPDX-License-Identifier: GPL-2.0
/*
 * marker-bpf: counts the hits of a trace event per value of one of its
 * fields, with a BPF program of type tracepoint, through Debian's libbpf.
 * Built on the host by the workbench, run in the guest by
 * guest/tests/13-markers-events.sh:
 *
 *	marker-bpf ID OFFSET NKEYS COMMAND
 *
 * loads a program that reads the u32 field at OFFSET of each record of the
 * event ID and counts it in an array of NKEYS counters, attaches it through
 * perf_event_open() and PERF_EVENT_IOC_SET_BPF, runs COMMAND with sh -c,
 * detaches and prints "KEY COUNT" for each key. The program is written as
 * instructions, so that no BPF compiler is needed.
 */

#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#define INSN(c, d, s, o, i) \
	((struct bpf_insn) { .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static int usage(void)
{
	fprintf(stderr, "usage: marker-bpf ID OFFSET NKEYS COMMAND\n");
	return 2;
}

static int perf_open(unsigned long id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = id,
		.sample_period = 1,
		.wakeup_events = 1,
	};

	return syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

int main(int argc, char **argv)
{
	unsigned long id, offset, nkeys;
	int map, prog, event, status;
	char log[4096] = "";
	__u32 key;

	if (argc != 5)
		return usage();
	id = strtoul(argv[1], NULL, 0);
	offset = strtoul(argv[2], NULL, 0);
	nkeys = strtoul(argv[3], NULL, 0);
	if (!nkeys || offset > 4096)
		return usage();

	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "marker_counts", sizeof(__u32),
			     sizeof(__u64), nkeys, NULL);
	if (map < 0) {
		fprintf(stderr, "bpf_map_create: %s\n", strerror(-map));
		return 1;
	}

	struct bpf_insn insns[] = {
		/* r2 = the field; *(u32 *)(r10 - 4) = r2 */
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, offset, 0),
		INSN(BPF_STX | BPF_MEM | BPF_W, BPF_REG_10, BPF_REG_2, -4, 0),
		/* r0 = bpf_map_lookup_elem(map, r10 - 4) */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		/* if (r0) atomically *(u64 *)r0 += 1 */
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		/* return 0 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);

	prog = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "marker_count", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
	if (prog < 0) {
		fprintf(stderr, "bpf_prog_load: %s\n%s", strerror(-prog), log);
		return 1;
	}
	event = perf_open(id);
	if (event < 0) {
		perror("perf_event_open");
		return 1;
	}
	if (ioctl(event, PERF_EVENT_IOC_SET_BPF, prog) ||
	    ioctl(event, PERF_EVENT_IOC_ENABLE, 0)) {
		perror("PERF_EVENT_IOC_SET_BPF");
		return 1;
	}
	status = system(argv[4]);
	close(event);
	if (status) {
		fprintf(stderr, "%s: status %d\n", argv[4], status);
		return 1;
	}
	for (key = 0; key < nkeys; key++) {
		__u64 count = 0;

		if (bpf_map_lookup_elem(map, &key, &count)) {
			perror("bpf_map_lookup_elem");
			return 1;
		}
		printf("%u %llu\n", key, (unsigned long long)count);
	}
	return 0;
}
