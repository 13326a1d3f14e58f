// SPDX-License-Identifier: GPL-2.0
/*
 * walkcache [-w] N [GO_FIFO]: N getppid() calls from leaf(), called by via_a()
 * for two rounds in three and by via_b() for the third (a a b a a b ...);
 * with -w by via_w() instead of via_b(), whose frame is 64 bytes larger: the
 * two chains then reach the system call at different sps, and a walk that
 * takes the outer frames from the walk before (a splice) must move its log
 * to the new sp.
 * via_a and via_b have the same frame and are called from the same depth of
 * main, so leaf's system call finds the same registers (ip, sp, rbp) every
 * time: only the return addresses on the stack tell the two chains apart.
 * The exact walk cache (bpf/ucache.bpf.h) must see that: a walk after one
 * of the same chain is a hit, any other is walked again
 * (tests/integration/test_walk_cache.sh). main also changes a stack word no
 * walk reads every round, which must not cost the hits.
 * Built with and without frame pointers (tests/workloads/walkcache.mk).
 */
#include <string.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void leaf(void)
{
	volatile long r = workload_getppid(); /* on the stack: leaf has a frame in the fp build */

	sink += r;
}

NOINLINE void via_a(void)
{
	leaf();
	sink += 1; /* not a tail call */
}

NOINLINE void via_b(void)
{
	leaf();
	sink += 2;
}

NOINLINE void via_w(void)
{
	volatile long pad[8]; /* a larger frame: leaf's sp differs from via_a's chain */

	pad[0] = 3;
	leaf();
	sink += pad[0];
}

int main(int argc, char **argv)
{
	volatile long round = 0; /* on the stack: a word that changes and is never read */
	void (*via_other)(void) = via_b;
	int n, i;

	if (argc > 1 && !strcmp(argv[1], "-w")) {
		via_other = via_w;
		argc--;
		argv++;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: walkcache [-w] N [GO_FIFO]\n");
		return 2;
	}
	n = atoi(argv[1]);
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++) {
		round = i;
		if (i % 3 < 2)
			via_a();
		else
			via_other();
	}
	return (int)(round & 0);
}
