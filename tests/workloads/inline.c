// SPDX-License-Identifier: GPL-2.0
/*
 * inline N [GO_FIFO]: a chain with inlined frames, N times:
 *
 *   main -> in_a -> [in_b -> in_b2, both inlined into in_a] -> in_c -> in_leaf
 *
 * in_b and in_b2 are static and always inlined, so the return address in
 * in_a's code lies in in_b2's inlined body: DWARF names it in_b2, inlined
 * into in_b at in_b's call line, inlined into in_a at in_a's call line.
 * Built with -O2 -g by tests/workloads/names.mk; tests/unit/test_dwarf_inline.c
 * checks the exact chain and lines, and compares with eu-addr2line -f -i.
 * Keep the line numbers of the IN_* markers in step with that test.
 */
#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))
#define INLINE static inline __attribute__((always_inline))

static volatile long sink;

NOINLINE void in_leaf(void)
{
	sink += workload_getppid();
}

NOINLINE void in_c(long v)
{
	in_leaf();
	sink += v;
}

INLINE void in_b2(long v)
{
	sink++;
	in_c(v * 3); /* IN_B2_CALL: line 35 */
	sink--;
}

INLINE void in_b(long v)
{
	sink += 2;
	in_b2(v + 1); /* IN_B_CALL: line 42 */
	sink -= 2;
}

NOINLINE void in_a(long v)
{
	sink += 4;
	in_b(v); /* IN_A_CALL: line 49 */
	sink -= 4;
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc < 2) {
		fprintf(stderr, "usage: inline N [GO_FIFO]\n");
		return 2;
	}
	n = atol(argv[1]);
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		in_a(i); /* MAIN_CALL: line 64 */
	return 0;
}
