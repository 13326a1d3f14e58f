// SPDX-License-Identifier: GPL-2.0
/*
 * minidebug N [GO_FIFO]: main -> md_outer -> md_inner -> md_leaf (one
 * getppid), N times. Built by tests/workloads/names.mk, then stripped the way
 * Fedora ships binaries (tests/workloads/make-minidebug.sh): the exported
 * md_leaf stays in .dynsym, the static md_outer and md_inner are named only
 * by the MiniDebugInfo in .gnu_debugdata (tests/unit/test_minidebug.c).
 */
#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void md_leaf(void)
{
	sink += workload_getppid();
}

NOINLINE static void md_inner(void)
{
	md_leaf();
	sink++;
}

NOINLINE static void md_outer(void)
{
	md_inner();
	sink++;
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc < 2) {
		fprintf(stderr, "usage: minidebug N [GO_FIFO]\n");
		return 2;
	}
	n = atol(argv[1]);
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		md_outer();
	return 0;
}
