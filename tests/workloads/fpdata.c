// SPDX-License-Identifier: GPL-2.0
/*
 * A function that keeps data in rbp, as code built without frame pointers
 * does: a frame-pointer walk from it reads a word of data where a return
 * address would be, another at each call.
 *
 *   fpdata N [GO_FIFO]
 *
 * Prints "ready PID", waits for a byte on GO_FIFO, then calls main ->
 * fpdata_call N times; each call makes one getppid() with rbp pointing at a
 * pair of words on its stack: 0 (the chain's end), then 16 * (call + 1), a
 * small number no code is mapped at. Built by tests/workloads/fpdata.mk,
 * with an unwind table (fpdata: CFA from rsp, exact) and without one
 * (fpdata_nocfi: walked by frame pointers).
 */
#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void fpdata_call(long i)
{
	/* What a frame-pointer walk takes for the saved rbp and the return address. */
	volatile unsigned long pair[2] = { 0, 16 * ((unsigned long)i + 1) };
	long r;

	/* rbp kept in r12 around the call: the asm touches no stack (no red zone lost). */
	__asm__ volatile("mov %%rbp, %%r12\n\t"
			 "mov %2, %%rbp\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rbp"
			 : "=a"(r)
			 : "0"(110L) /* SYS_getppid */, "r"(pair)
			 : "rcx", "r11", "r12", "memory");
	sink += r;
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc < 2 || (n = atol(argv[1])) < 0) {
		fprintf(stderr, "usage: fpdata N [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		fpdata_call(i);
	return 0;
}
