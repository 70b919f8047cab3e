// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of the macro benchmark that busybox and perf do not have,
 * and a timer for all of them:
 *
 *	macro-bench time CMD [ARG]...	runs CMD, its output thrown away;
 *					prints the nanoseconds of
 *					CLOCK_MONOTONIC it took (under QEMU
 *					-icount shift=0, guest instructions)
 *	macro-bench pingpong unix|udp N	N round trips of one byte between two
 *					processes, over a socket pair or UDP
 *					on the loopback
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int run_timed(char **argv)
{
	long long start = now_ns();
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		/* The workload's own report would hide the time. */
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execvp(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		return 1;
	}
	printf("%lld\n", now_ns() - start);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* Sends one byte and waits for one back, @n times (or the other way). */
static int bounce(int fd, long n, int first)
{
	char c = 'x';
	long i;

	for (i = 0; i < n; i++) {
		if (first && send(fd, &c, 1, 0) != 1)
			return 1;
		if (recv(fd, &c, 1, 0) != 1)
			return 1;
		if (!first && send(fd, &c, 1, 0) != 1)
			return 1;
	}
	return 0;
}

/* Two UDP sockets on the loopback, connected to each other. */
static int udp_pair(int sv[2])
{
	struct sockaddr_in a[2];
	socklen_t len = sizeof(a[0]);
	int i;

	for (i = 0; i < 2; i++) {
		sv[i] = socket(AF_INET, SOCK_DGRAM, 0);
		memset(&a[i], 0, sizeof(a[i]));
		a[i].sin_family = AF_INET;
		a[i].sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (sv[i] < 0 || bind(sv[i], (struct sockaddr *)&a[i], sizeof(a[i])) ||
		    getsockname(sv[i], (struct sockaddr *)&a[i], &len))
			return -1;
	}
	for (i = 0; i < 2; i++)
		if (connect(sv[i], (struct sockaddr *)&a[!i], sizeof(a[!i])))
			return -1;
	return 0;
}

static int pingpong(const char *kind, long n)
{
	int sv[2], status, ret;
	pid_t pid;

	if (!strcmp(kind, "unix"))
		ret = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	else if (!strcmp(kind, "udp"))
		ret = udp_pair(sv);
	else
		ret = -1;
	if (ret) {
		perror(kind);
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid)
		_exit(bounce(sv[1], n, 0));
	ret = bounce(sv[0], n, 1);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		ret = 1;
	return ret;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return run_timed(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "pingpong"))
		return pingpong(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: %s time CMD [ARG]... | pingpong unix|udp N\n", argv[0]);
	return 2;
}
