// SPDX-License-Identifier: GPL-2.0
/*
 * reexec N [GO_FIFO]: once released, main -> hop execs this program again
 * with N-1, until N is 0: N execve calls, each from a process that is
 * itself the product of an exec, so its stack at execve is the image the
 * call replaces.
 */
#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

NOINLINE int hop(int n)
{
	char arg[16];
	char *argv[] = { "reexec", arg, NULL };

	snprintf(arg, sizeof(arg), "%d", n);
	execv("/proc/self/exe", argv);
	perror("reexec: execv");
	return 127;
}

int main(int argc, char **argv)
{
	int n;

	if (argc < 2) {
		fprintf(stderr, "usage: reexec N [GO_FIFO]\n");
		return 2;
	}
	n = atoi(argv[1]);
	if (argc > 2)
		workload_ready_go(argv[2]);
	return n > 0 ? hop(n - 1) : 0;
}
