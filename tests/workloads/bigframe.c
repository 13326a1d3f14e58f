// SPDX-License-Identifier: GPL-2.0
/*
 * bigframe N [GO_FIFO]: main -> outer -> big -> leaf, N times, where big keeps
 * BIG bytes of locals (40,000 unless built with -DBIG=...): its CFA offset is
 * beyond the 16 bits an unwind row holds in bytes (libdw has a function with
 * 149 KiB). Built without frame pointers (and with SFrame) by
 * tests/workloads/unwind.mk, so only the table can walk past big.
 */
#include "golib.h"

#ifndef BIG
#define BIG 40000
#endif

__attribute__((noinline)) static void leaf(volatile char *buf)
{
	buf[0] += (char)workload_getppid();
}

__attribute__((noinline)) static void big(int i)
{
	volatile char buf[BIG];

	/* Every page touched: a copy of the stack that may not fault reads them all. */
	for (int k = 0; k < BIG; k += 4096)
		buf[k] = (char)i;
	buf[BIG - 1] = (char)i;
	leaf(buf);
	buf[BIG / 2] = buf[0];
}

__attribute__((noinline)) static void outer(int i)
{
	big(i);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (int i = 0; i < n; i++)
		outer(i);
	return 0;
}
