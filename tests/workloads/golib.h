/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the BPF-test workloads: announce "ready PID", then wait for a byte on a fifo. */
#ifndef ST_WORKLOAD_GO_H
#define ST_WORKLOAD_GO_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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

/*
 * A hold for a workload that a profiler must stop before (samples of its exit
 * have no user stack left to unwind). HOLD_FILE holds two bytes, '0' '0',
 * mapped shared before the profile starts. At the end the workload stores '1'
 * in the first and spins until the test, having stopped the profiler, writes
 * '1' into the second. No syscall between the two: a sample taken inside one
 * would wait in the kernel for its user stack until the return to user space,
 * which a hold in a syscall puts after the profiler's end (marked lost).
 */
static inline volatile char *workload_hold_map(const char *hold_file)
{
	void *page = MAP_FAILED;
	int fd;

	if (!hold_file)
		return NULL;
	fd = open(hold_file, O_RDWR);
	if (fd >= 0)
		page = mmap(NULL, 2, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (page == MAP_FAILED) {
		perror(hold_file);
		exit(1);
	}
	close(fd);
	return (volatile char *)page;
}

/* Marks the work done and spins, in user space only, until released; NULL @page: go on. */
static inline void workload_hold(volatile char *page)
{
	if (!page)
		return;
	page[0] = '1';
	while (page[1] != '1')
		__builtin_ia32_pause();
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
