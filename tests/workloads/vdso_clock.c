// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_clock N [GO_FIFO]: main -> tick -> clock_gettime(CLOCK_PROCESS_CPUTIME_ID),
 * N times. glibc calls the vDSO's clock_gettime, which has no fast path for
 * that clock and makes the system call itself: a syscall tracepoint then
 * sees a user stack whose innermost frame is in the vDSO.
 */
#include <time.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void tick(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	sink += ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc < 2) {
		fprintf(stderr, "usage: vdso_clock N [GO_FIFO]\n");
		return 2;
	}
	n = atol(argv[1]);
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		tick();
	return 0;
}
