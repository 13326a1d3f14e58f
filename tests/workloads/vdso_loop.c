// SPDX-License-Identifier: GPL-2.0
/*
 * A tight clock_gettime() loop: main -> spin -> clock_gettime (libc) ->
 * __vdso_clock_gettime (the vDSO), so samples land in the vDSO at every
 * instruction, its first and its epilogue included.
 *
 *   vdso_loop SECONDS [GO_FIFO [HOLD_FILE]]
 *   vdso_loop -s N [GO_FIFO]
 *
 * Prints "ready PID" and, with GO_FIFO, waits for a byte from it so a
 * profiler can attach first; then calls clock_gettime(CLOCK_MONOTONIC) until
 * it has used SECONDS of CPU time (so a profile gets as many samples however
 * loaded the machine is), and prints "calls N" and "cpu_ns N". The CPU time
 * comes from getrusage, so no clock_gettime call is left outside the chain.
 * With HOLD_FILE it holds before it prints (golib.h: workload_hold), so a
 * profiler can stop first: samples of the exit itself (do_exit, the address
 * space already torn down) have no user stack left to unwind.
 * With -s it makes
 * N calls for CLOCK_PROCESS_CPUTIME_ID instead, which the vDSO cannot answer:
 * it makes the clock_gettime syscall itself, so each call is one
 * sys_enter_clock_gettime event with its pc inside the vDSO. Built without
 * frame pointers by tests/workloads/layouts.mk.
 */
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static clockid_t clock_id = CLOCK_MONOTONIC;

NOINLINE long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(clock_id, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static long long cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000ll +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ll;
}

/* For @ns nanoseconds of CPU time, or @n calls when @ns is 0. */
NOINLINE long long spin(long long ns, long long n)
{
	long long calls = 0;

	if (!ns) {
		for (; calls < n; calls++)
			now_ns();
		return calls;
	}
	/* getrusage is a syscall: ask every 4096 calls only. */
	while ((calls & 4095) || cpu_ns() < ns) {
		now_ns();
		calls++;
	}
	return calls;
}

int main(int argc, char **argv)
{
	int syscalls = argc > 1 && !strcmp(argv[1], "-s");
	volatile char *hold;
	long long calls, used;

	if (argc < 2 + syscalls) {
		fprintf(stderr, "usage: vdso_loop SECONDS [GO_FIFO [HOLD_FILE]] | -s N [GO_FIFO]\n");
		return 2;
	}
	hold = workload_hold_map(!syscalls && argc > 3 ? argv[3] : NULL);
	workload_ready_go(argc > 2 + syscalls ? argv[2 + syscalls] : NULL);
	if (syscalls) {
		clock_id = CLOCK_PROCESS_CPUTIME_ID;
		calls = spin(0, atoll(argv[2]));
	} else {
		calls = spin((long long)(atof(argv[1]) * 1e9), 0);
	}
	used = cpu_ns(); /* the loop's, not the hold's */
	workload_hold(hold);
	printf("calls %lld\ncpu_ns %lld\n", calls, used);
	fflush(stdout);
	return 0;
}
