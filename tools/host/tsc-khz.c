// SPDX-License-Identifier: GPL-2.0
/*
 * Prints the rate of the host's time stamp counter in kHz, measured
 * against CLOCK_MONOTONIC_RAW over a tenth of a second: the rate at which
 * a TCG guest's TSC counts, since QEMU's TCG reads the host's TSC for the
 * guest's rdtsc. The guests of make ftracetest get it as tsc_early_khz=
 * (see tools/wb/qemu.py, host_tsc_khz()).
 */
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
	struct timespec tenth = { .tv_nsec = 100000000 };
	uint64_t t0, c0, t1, c1;

	t0 = ns();
	c0 = __rdtsc();
	nanosleep(&tenth, NULL);
	t1 = ns();
	c1 = __rdtsc();
	if (t1 <= t0 || c1 <= c0)
		return 1;
	printf("%llu\n", (unsigned long long)((c1 - c0) * 1000000 / (t1 - t0)));
	return 0;
}
