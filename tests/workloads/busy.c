// SPDX-License-Identifier: GPL-2.0
/*
 * A CPU-bound workload with a known chain: main -> b1 -> b2 -> b3 -> spin.
 *
 *   busy SECONDS [GO_FIFO]
 *
 * Prints "ready PID" and, with GO_FIFO, waits for a byte from it so a
 * profiler can attach first; then spins for SECONDS of its own CPU time
 * (CLOCK_THREAD_CPUTIME_ID, so time spent preempted does not count) and
 * prints "cpu_ns N" and "calls C" (C / N is its work rate, which a tracer's
 * interrupts and callbacks, charged to its CPU time, lower), then
 * "stat_ticks T" and "clk_tck H": utime + stime of its whole life so far
 * from /proc/self/stat, in 1/H s (what a profiler's -p samples). Built by
 * tests/workloads/deferred.mk with frame pointers, without them (.eh_frame
 * only) and with SFrame.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile unsigned long sink;

static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* About a millisecond of work per call, so almost every sample lands here. */
NOINLINE void spin(void)
{
	unsigned long i;

	for (i = 0; i < 1000000; i++)
		sink += i;
}

/* utime + stime (fields 14 and 15) of /proc/self/stat, in clock ticks; -1 on error. */
static long long stat_ticks(void)
{
	unsigned long long ut, st;
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the comm may hold spaces */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut,
			 &st) != 2)
		return -1;
	return (long long)(ut + st);
}

NOINLINE void b3(void) { spin(); sink++; }
NOINLINE void b2(void) { b3(); sink++; }
NOINLINE void b1(void) { b2(); sink++; }

int main(int argc, char **argv)
{
	long long start, end, calls = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: busy SECONDS [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	start = cpu_ns();
	end = start + (long long)(atof(argv[1]) * 1e9);
	while (cpu_ns() < end) {
		b1();
		calls++;
	}
	printf("cpu_ns %lld\ncalls %lld\n", cpu_ns() - start, calls);
	printf("stat_ticks %lld\nclk_tck %ld\n", stat_ticks(), sysconf(_SC_CLK_TCK));
	return 0;
}
