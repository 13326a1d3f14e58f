// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with a known call chain: main -> a -> b -> c -> leaf, and leaf
 * makes exactly one getppid() per call.
 *
 *   chain [-l] N [GO_FIFO]
 *
 * Prints "ready PID" and flushes, then (with GO_FIFO) blocks until a byte
 * can be read from it, so a tracer can attach first; then calls the chain N
 * times and exits. By default leaf issues the syscall with an inline
 * `syscall` instruction, so leaf itself is the innermost user frame. With -l
 * it calls libc's getppid() wrapper instead, which has no frame pointer: a
 * frame-pointer walk then loses leaf (the wrapper's caller), as bcc, bpftrace
 * and perf's fp mode all do. Built by tests/workloads/chain.mk.
 */
#include <string.h>
#include <sys/syscall.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static int use_libc;
static volatile long sink;

NOINLINE void leaf(void)
{
	/* The volatile local gives leaf a stack frame, so the fp walk keeps c. */
	volatile long ret = SYS_getppid;

	if (use_libc) {
		ret = getppid();
	} else {
		long r;

		__asm__ volatile("syscall" : "=a"(r) : "0"(ret) : "rcx", "r11", "memory");
		ret = r;
	}
	sink += ret;
}

NOINLINE void c(void) { leaf(); sink++; }
NOINLINE void b(void) { c(); sink++; }
NOINLINE void a(void) { b(); sink++; }

int main(int argc, char **argv)
{
	long n, i;
	int arg = 1;

	if (argc > 1 && !strcmp(argv[1], "-l")) {
		use_libc = 1;
		arg++;
	}
	if (argc <= arg) {
		fprintf(stderr, "usage: chain [-l] N [GO_FIFO]\n");
		return 2;
	}
	n = atol(argv[arg]);
	workload_ready_go(argc > arg + 1 ? argv[arg + 1] : NULL);
	for (i = 0; i < n; i++)
		a();
	return 0;
}
