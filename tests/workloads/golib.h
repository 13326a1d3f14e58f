/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the BPF-test workloads: announce "ready PID", then wait for a byte on a fifo. */
#ifndef ST_WORKLOAD_GO_H
#define ST_WORKLOAD_GO_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Blocks until a byte arrives on @fifo; NULL @fifo means go now. */
static inline void workload_wait(const char *fifo)
{
	char byte;
	int fd;

	if (!fifo)
		return;
	fd = open(fifo, O_RDONLY);
	if (fd < 0 || read(fd, &byte, 1) < 0) {
		perror(fifo);
		exit(1);
	}
	close(fd);
}

/* The tracer attaches between "ready" and the byte; NULL @fifo means go now. */
static inline void workload_ready_go(const char *fifo)
{
	printf("ready %d\n", getpid());
	fflush(stdout);
	workload_wait(fifo);
}

/*
 * One getppid() with an inline syscall instruction: the caller is the
 * innermost user frame. A macro, not an inline function, so DWARF has no
 * inlined frame for it either: stacks read the same with and without inline
 * frames (tests/workloads/inline.c is the workload that has them).
 */
#define workload_getppid()                                                                  \
	({                                                                                  \
		long r_;                                                                    \
		__asm__ volatile("syscall"                                                  \
				 : "=a"(r_)                                                 \
				 : "0"(110L) /* SYS_getppid */                              \
				 : "rcx", "r11", "memory");                                 \
		r_;                                                                         \
	})

#endif
