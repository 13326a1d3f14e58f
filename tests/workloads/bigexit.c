// SPDX-License-Identifier: GPL-2.0
/*
 * bigexit MIB [GO_FIFO]: touches MIB MiB of memory, then (after the go byte)
 * returns from main. The kernel frees that memory in exit_mmap(), after the
 * task's mm is detached: samples there have a kernel stack and no user
 * context, which a profiler must report as a lost user stack, not as an
 * empty one.
 */
#include <string.h>

#include "golib.h"

int main(int argc, char **argv)
{
	size_t bytes;
	char *p;

	if (argc < 2)
		return 2;
	bytes = (size_t)atoi(argv[1]) << 20;
	p = malloc(bytes);
	if (!p)
		return 1;
	memset(p, 1, bytes);
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	/* Read it back, so the compiler keeps the memory and its touching. */
	return p[bytes / 2] != 1;
}
