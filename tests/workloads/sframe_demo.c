// SPDX-License-Identifier: GPL-2.0
/* Built by tests/workloads/sframe.mk: gcc -O1 -fomit-frame-pointer -Wa,--gsframe. */
/*
 * Functions with different frame shapes, each noinline so it keeps its own SFrame FDE:
 * a leaf (no frame), small and big locals (the big one's CFA offset does not fit 16 bits),
 * alloca (CFA moves to rbp), recursion, and calls through the PLT (the PCMASK FDE).
 * Usage: sframe_demo [ROUNDS]; prints one checksum line.
 */
#include <alloca.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

NOINLINE int sd_leaf(int x)
{
	return x * 3 + 1;
}

NOINLINE int sd_small_locals(int n)
{
	volatile int buf[64];

	buf[n & 63] = sd_leaf(n);
	return buf[n & 63];
}

/* 70000 bytes: beyond the row's 16-bit CFA offset, so SFrame says sp+70032. */
NOINLINE int sd_big_locals(int n)
{
	volatile char buf[70000];

	buf[n] = 1;
	buf[n + 1] = (char)sd_small_locals(n);
	return buf[n] + buf[n + 1];
}

NOINLINE int sd_alloca(int n)
{
	char *p = alloca((size_t)n);

	memset(p, 1, (size_t)n);
	return sd_leaf(p[n - 1]) + sd_big_locals(n & 7);
}

NOINLINE int sd_recurse(int n)
{
	if (n <= 0)
		return sd_leaf(n);
	return sd_recurse(n - 1) + sd_alloca(n + 8);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? strtol(argv[1], NULL, 0) : 1;
	long i, sum = 0;

	for (i = 0; i < rounds; i++)
		sum += sd_recurse(4);
	printf("sframe_demo %ld\n", sum);
	return 0;
}
