// SPDX-License-Identifier: GPL-2.0
/*
 * coro N [GO_FIFO]: main -> run -> swapcontext() into a makecontext()
 * coroutine on a stack of its own (mmap), coro_entry -> coro_mid ->
 * coro_leaf, which makes one getppid() and swaps back; N times. The
 * coroutine's stack ends at glibc's __start_context, its return address.
 * Built without frame pointers by tests/workloads/signal.mk.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))
#define CORO_STACK (64 * 1024)

static volatile long sink;
static ucontext_t main_ctx, coro_ctx;
static int rounds;

NOINLINE void coro_leaf(void)
{
	sink += workload_getppid();
	swapcontext(&coro_ctx, &main_ctx);
}

NOINLINE void coro_mid(void) { coro_leaf(); sink++; }

NOINLINE void coro_entry(void)
{
	int i;

	for (i = 0; i < rounds; i++)
		coro_mid();
}

NOINLINE void run(void)
{
	int i;

	for (i = 0; i < rounds; i++)
		swapcontext(&main_ctx, &coro_ctx);
}

int main(int argc, char **argv)
{
	void *stack;

	if (argc < 2) {
		fprintf(stderr, "usage: coro N [GO_FIFO]\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	stack = mmap(NULL, CORO_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED || getcontext(&coro_ctx))
		return 1;
	coro_ctx.uc_stack.ss_sp = stack;
	coro_ctx.uc_stack.ss_size = CORO_STACK;
	coro_ctx.uc_link = &main_ctx;
	makecontext(&coro_ctx, coro_entry, 0);
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	run();
	return 0;
}
