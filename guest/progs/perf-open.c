// SPDX-License-Identifier: GPL-2.0
/*
 * perf-open ID UID [hold]: opens a counting perf event of the trace event
 * of id ID on this task, as UID (root drops to it first, and with it every
 * capability), as perf_event_paranoid 2 lets a user: its own task, the
 * kernel excluded. Prints "opened" or the error's name (EPERM), and exits
 * 0 either way; 2 on bad arguments or if it cannot become UID. With
 * "hold", it keeps the event open until its standard input ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	unsigned long id, uid;
	bool hold = false;
	char *end, c;
	int fd;

	if (argc < 3 || argc > 4)
		goto usage;
	id = strtoul(argv[1], &end, 10);
	if (*end || !*argv[1])
		goto usage;
	uid = strtoul(argv[2], &end, 10);
	if (*end || !*argv[2])
		goto usage;
	if (argc == 4) {
		if (strcmp(argv[3], "hold"))
			goto usage;
		hold = true;
	}
	if (uid != (unsigned long)getuid() &&
	    (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))) {
		fprintf(stderr, "perf-open: cannot become uid %lu: %s\n", uid, strerror(errno));
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("%s\n", strerrorname_np(errno));
		return 0;
	}
	printf("opened\n");
	fflush(stdout);
	while (hold && read(STDIN_FILENO, &c, 1) > 0)
		;
	close(fd);
	return 0;

usage:
	fprintf(stderr, "usage: perf-open ID UID [hold]\n");
	return 2;
}
