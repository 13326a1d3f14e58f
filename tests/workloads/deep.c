// SPDX-License-Identifier: GPL-2.0
/*
 * deep DEPTH N [GO_FIFO]: main -> descend(DEPTH) -> ... -> descend(1) -> bottom,
 * N times; bottom makes one getppid(). Built without frame pointers
 * (tests/workloads/unwind4.mk), so only unwind tables reach main.
 */
#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void bottom(void)
{
	sink += workload_getppid();
}

NOINLINE void descend(int depth)
{
	if (depth > 1)
		descend(depth - 1);
	else
		bottom();
	sink++; /* not a tail call: every level keeps its frame */
}

int main(int argc, char **argv)
{
	int depth, n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: deep DEPTH N [GO_FIFO]\n");
		return 2;
	}
	depth = atoi(argv[1]);
	n = atoi(argv[2]);
	workload_ready_go(argc > 3 ? argv[3] : NULL);
	for (i = 0; i < n; i++)
		descend(depth);
	return 0;
}
