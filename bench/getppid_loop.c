// SPDX-License-Identifier: GPL-2.0
/*
 * The per-event cost workload of bench/bench_count.sh: a tight loop of raw
 * getppid() syscalls that times itself.
 *
 *   getppid_loop [-d DEPTH] [-s getpgrp] [-a] N [GO_FIFO]
 *
 * With -d the loop runs DEPTH recursive calls deep, so every event carries a
 * user stack of DEPTH + 4 frames (bench/bench_unwind.sh). With -s getpgrp
 * it calls getpgrp() instead: a tracepoint other benchmarks running at the
 * same time do not fire, so its BPF programs run for this loop only. With -a
 * the syscall is reached through via_a() and via_b() in turn, two callers
 * alike but for their return addresses: the registers at the syscall are
 * the same every time and the stack is not, so an exact walk cache
 * (bpf/ucache.bpf.h) never hits; the stack is one frame deeper.
 * Prints "ready PID" and flushes, then (with GO_FIFO) blocks until a byte can
 * be read from it, so a tracer can attach first; then issues N getppid()
 * syscalls and prints "ns/call X" (CLOCK_MONOTONIC around the loop only),
 * "cpu_ns/call X" (its own user+system CPU time, from getrusage) and the
 * context switches it took: wall minus CPU is the time it spent off the CPU,
 * e.g. preempted by a tracer's consumer woken on its CPU.
 * The syscall is an inline `syscall` instruction in a function with a frame,
 * so a frame-pointer walk sees loop_once -> run -> main like any caller.
 * Built by bench/bench_count.sh with -O1 -fno-omit-frame-pointer.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../tests/workloads/golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;
static long loop_nr = SYS_getppid;
static int alternate;

NOINLINE void loop_once(void)
{
	/* The volatile local gives loop_once a frame, so the fp walk keeps run. */
	volatile long nr = loop_nr;
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "0"(nr) : "rcx", "r11", "memory");
	sink += r;
}

NOINLINE void via_a(void)
{
	loop_once();
	sink += 1; /* not a tail call */
}

NOINLINE void via_b(void)
{
	loop_once();
	sink += 2;
}

NOINLINE void run(long n)
{
	long i;

	for (i = 0; i < n; i++) {
		if (!alternate)
			loop_once();
		else if (i & 1)
			via_b();
		else
			via_a();
	}
}

/* DEPTH frames of recursion above run(); not a tail call, so every level stays. */
NOINLINE void descend(int depth, long n)
{
	if (depth > 0)
		descend(depth - 1, n);
	else
		run(n);
	sink++;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static long long tv_ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000ll + tv.tv_usec * 1000ll;
}

int main(int argc, char **argv)
{
	struct rusage r0, r1;
	long long t0, t1, cpu;
	int depth = 0;
	long n;

	while (argc > 1 && !strcmp(argv[1], "-a")) {
		alternate = 1;
		argc--;
		argv++;
	}
	while (argc > 2 && (!strcmp(argv[1], "-d") || !strcmp(argv[1], "-s"))) {
		if (!strcmp(argv[1], "-d"))
			depth = atoi(argv[2]);
		else if (!strcmp(argv[2], "getpgrp"))
			loop_nr = SYS_getpgrp;
		else
			argc = 0;
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || (n = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: getppid_loop [-a] [-d DEPTH] [-s getpgrp] N [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	descend(depth, n);
	t1 = now_ns();
	getrusage(RUSAGE_SELF, &r1);
	cpu = tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime) + tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime);
	printf("calls %ld\nns/call %.1f\ncpu_ns/call %.1f\n", n, (double)(t1 - t0) / n,
	       (double)cpu / n);
	printf("ctxsw involuntary %ld voluntary %ld\n", r1.ru_nivcsw - r0.ru_nivcsw,
	       r1.ru_nvcsw - r0.ru_nvcsw);
	return 0;
}
