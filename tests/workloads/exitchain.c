// SPDX-License-Identifier: GPL-2.0
/*
 * exitchain [GO_FIFO]: main -> leave_a -> leave_b, which ends the process
 * with an exit_group system call of its own (the innermost user frame is
 * leave_b). Built as a PIE without frame pointers, and stripped of .symtab
 * (tests/workloads/model.mk): its frames have no names, only offsets.
 */
#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

/* Not marked noreturn: the syscall is not the function's last instruction, so the
 * address after it (the innermost frame's pc) is still leave_b's. */
NOINLINE void leave_b(int code)
{
	__asm__ volatile("syscall" : : "a"(231L) /* SYS_exit_group */, "D"((long)code) : "memory");
	sink++;
}

NOINLINE void leave_a(int code)
{
	leave_b(code + 1);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		workload_ready_go(argv[1]);
	leave_a(-1);
	return 1;
}
