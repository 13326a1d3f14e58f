// SPDX-License-Identifier: GPL-2.0
/*
 * Blocking workloads with known chains, for the offcpu and deferred tests.
 * System calls are made with an inline `syscall` instruction so the chain's
 * innermost function is the innermost user frame (libc's wrappers have no
 * frame pointer). Each mode prints "ready PID TID" (TID: the thread that
 * blocks), waits for a byte from GO_FIFO so a tracer can attach, then runs.
 *
 *   offcpu sleep N MS [MS2] GO_FIFO
 *       main -> s1 -> s2 -> s3 -> nap: N nanosleeps of MS ms (with MS2,
 *       alternately MS and MS2 ms); prints "slept_ns T", T the sum of each
 *       nanosleep's own measured duration, and with MS2 "slept_ns_a" and
 *       "slept_ns_b", the sums of the MS and of the MS2 sleeps; "slept_ns_ge20"
 *       and "slept_ns_lt20" split the sleeps by their measured duration at
 *       20 ms instead (a loaded machine may wake a short nap very late).
 *   offcpu alt N MS MS2 GO_FIFO
 *       as sleep with MS2, but the MS2 naps block under another chain,
 *       main -> t1 -> t2 -> nap: a task whose every block has a stack other
 *       than its last one's.
 *   offcpu pipe N GO_FIFO
 *       writer thread: pw1 -> pw2 -> push: N write() calls of 1 MiB each
 *       into a pipe that a reader thread drains 16 KiB every 500 us, so
 *       each write() blocks many times; prints "writes N", "switches V", V
 *       the writer's voluntary context switches during the writes,
 *       "writer_all_switches" with the involuntary ones, and "all_switches",
 *       every context switch of both threads.
 *   offcpu cold N GO_FIFO
 *       a thread whose stack is a shared memfd mapping: cold1 -> cold2 ->
 *       cold3 -> cold4 (frames 8 KiB apart) drops every page of its stack
 *       (MADV_DONTNEED: the contents stay in the memfd, the page table
 *       entries go), then makes one getppid(), drops them again and naps 1 ms;
 *       N times. The outer frames sit on pages that are not present: a walk
 *       that cannot fault stops there.
 *
 * Built by tests/workloads/deferred.mk (frame pointers).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noipa))
#define MIB (1 << 20)
#define COLD_STACK (256 << 10)

static volatile long sink;
static const char *go_fifo;
static long iterations;

/*
 * A macro, not a function the compiler inlines: DWARF then has no inlined
 * frame for it, and the chain's innermost frame is its caller with and
 * without inline frames.
 */
#define sys3(nr, a, b, c)                                                                   \
	({                                                                                  \
		long ret_;                                                                  \
		__asm__ volatile("syscall"                                                  \
				 : "=a"(ret_)                                               \
				 : "0"((long)(nr)), "D"((long)(a)), "S"((long)(b)),         \
				   "d"((long)(c))                                           \
				 : "rcx", "r11", "memory");                                 \
		ret_;                                                                       \
	})

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static void say_ready(void)
{
	printf("ready %d %ld\n", getpid(), syscall(SYS_gettid));
	fflush(stdout);
}

static void wait_go(void)
{
	char byte;
	int fd;

	fd = open(go_fifo, O_RDONLY);
	if (fd < 0 || read(fd, &byte, 1) < 0) {
		perror(go_fifo);
		exit(1);
	}
	close(fd);
}

static void ready_and_wait(void)
{
	say_ready();
	wait_go();
}

/* --- sleep -------------------------------------------------------------- */

NOINLINE long nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };
	long long t0 = now_ns();

	sys3(SYS_nanosleep, (long)&ts, 0, 0);
	return now_ns() - t0;
}

NOINLINE long s3(long ms) { long t = nap(ms); sink++; return t; }
NOINLINE long s2(long ms) { long t = s3(ms); sink++; return t; }
NOINLINE long s1(long ms) { long t = s2(ms); sink++; return t; }
NOINLINE long t2(long ms) { long t = nap(ms); sink++; return t; }
NOINLINE long t1(long ms) { long t = t2(ms); sink++; return t; }

static int alt_chain; /* alt: the MS2 naps through t1 */

static long switches(int all);

/*
 * Also prints "sleep_blocks B": the naps that really blocked (voluntary
 * switches). On a loaded machine a nap preempted past its end never sleeps.
 */
static int run_sleep(long ms, long ms2)
{
	long long total[2] = { 0, 0 }, by_length[2] = { 0, 0 };
	long i, before, t;

	ready_and_wait();
	before = switches(0);
	for (i = 0; i < iterations; i++) {
		if (ms2 && (i & 1))
			t = alt_chain ? t1(ms2) : s1(ms2);
		else
			t = s1(ms);
		total[ms2 && (i & 1)] += t;
		by_length[t >= 20000000] += t;
	}
	printf("sleep_blocks %ld\n", switches(0) - before);
	printf("slept_ns %lld\n", total[0] + total[1]);
	if (ms2)
		printf("slept_ns_a %lld\nslept_ns_b %lld\n", total[0], total[1]);
	printf("slept_ns_lt20 %lld\nslept_ns_ge20 %lld\n", by_length[0], by_length[1]);
	return 0;
}

/* --- pipe --------------------------------------------------------------- */

static int pipe_fds[2];
static long writer_switches, writer_all;
/*
 * The writer is traced by tid, from its "ready" on: it waits for the go
 * spinning (sched_yield leaves it runnable, which --state S,D,I,T leaves
 * out), never blocking on the fifo, so every switch-out of it the tracer
 * sees is inside a write(). The main thread reads the fifo.
 */
static volatile int writer_go;

static long reader_switches;

/* This thread's context switches: voluntary only, or all. */
static long switches(int all)
{
	char path[64], line[256];
	long v = 0, n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", syscall(SYS_gettid));
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			v += n;
		else if (all && sscanf(line, "nonvoluntary_ctxt_switches: %ld", &n) == 1)
			v += n;
	}
	if (f)
		fclose(f);
	return v;
}

NOINLINE long push(const char *buf)
{
	/* The volatile local gives this leaf a stack frame, so a frame-pointer walk keeps pw2. */
	volatile long ret = sys3(SYS_write, pipe_fds[1], (long)buf, MIB);

	return ret;
}

NOINLINE long pw2(const char *buf) { long r = push(buf); sink++; return r; }
NOINLINE long pw1(const char *buf) { long r = pw2(buf); sink++; return r; }

static void *writer(void *arg __attribute__((unused)))
{
	char *buf = calloc(1, MIB);
	long i, before, all_before;

	say_ready();
	while (!writer_go)
		sched_yield();
	before = switches(0);
	all_before = switches(1);
	for (i = 0; i < iterations; i++)
		if (pw1(buf) != MIB)
			exit(1);
	writer_switches = switches(0) - before;
	writer_all = switches(1) - all_before;
	close(pipe_fds[1]);
	free(buf);
	return NULL;
}

static void *reader(void *arg __attribute__((unused)))
{
	static char buf[16 << 10];
	struct timespec pause = { 0, 500000 };
	long before = switches(1);

	while (read(pipe_fds[0], buf, sizeof(buf)) > 0)
		nanosleep(&pause, NULL);
	reader_switches = switches(1) - before;
	return NULL;
}

static int run_pipe(void)
{
	pthread_t w, r;

	if (pipe(pipe_fds) || pthread_create(&r, NULL, reader, NULL) ||
	    pthread_create(&w, NULL, writer, NULL))
		return 1;
	wait_go();
	writer_go = 1;
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	printf("writes %ld\nswitches %ld\nwriter_all_switches %ld\nall_switches %ld\n", iterations,
	       writer_switches, writer_all, writer_all + reader_switches);
	return 0;
}

/* --- cold --------------------------------------------------------------- */

static char *cold_stack;
static const struct timespec cold_nap = { .tv_nsec = 1000000 };

NOINLINE void cold4(void)
{
	volatile char pad[8192];

	pad[0] = 1;
	/* Every page of this thread's stack leaves the page table; the memfd keeps them. */
	sys3(SYS_madvise, (long)cold_stack, COLD_STACK, MADV_DONTNEED);
	sys3(SYS_getppid, 0, 0, 0);
	/*
	 * Again, then a nap: offcpu's switch-out meets the stack absent too
	 * (a deferred walk at getppid's return faulted it back in).
	 */
	sys3(SYS_madvise, (long)cold_stack, COLD_STACK, MADV_DONTNEED);
	sys3(SYS_nanosleep, (long)&cold_nap, 0, 0);
	sink += pad[0];
}

NOINLINE void cold3(void) { volatile char pad[8192]; pad[0] = 1; cold4(); sink += pad[0]; }
NOINLINE void cold2(void) { volatile char pad[8192]; pad[0] = 1; cold3(); sink += pad[0]; }
NOINLINE void cold1(void) { volatile char pad[8192]; pad[0] = 1; cold2(); sink += pad[0]; }

static void *cold_thread(void *arg __attribute__((unused)))
{
	long i;

	ready_and_wait();
	for (i = 0; i < iterations; i++)
		cold1();
	return NULL;
}

static int run_cold(void)
{
	int fd = memfd_create("offcpu-cold-stack", 0);
	pthread_attr_t attr;
	pthread_t t;

	if (fd < 0 || ftruncate(fd, COLD_STACK))
		return 1;
	cold_stack = mmap(NULL, COLD_STACK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (cold_stack == MAP_FAILED || pthread_attr_init(&attr) ||
	    pthread_attr_setstack(&attr, cold_stack, COLD_STACK) ||
	    pthread_create(&t, &attr, cold_thread, NULL))
		return 1;
	pthread_join(t, NULL);
	printf("calls %ld\n", iterations);
	return 0;
}

int main(int argc, char **argv)
{
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "sleep")) {
		iterations = atol(argv[2]);
		go_fifo = argv[argc - 1];
		return run_sleep(atol(argv[3]), argc == 6 ? atol(argv[4]) : 0);
	}
	if (argc == 6 && !strcmp(argv[1], "alt")) {
		iterations = atol(argv[2]);
		go_fifo = argv[5];
		alt_chain = 1;
		return run_sleep(atol(argv[3]), atol(argv[4]));
	}
	if (argc == 4 && (!strcmp(argv[1], "pipe") || !strcmp(argv[1], "cold"))) {
		iterations = atol(argv[2]);
		go_fifo = argv[3];
		return argv[1][0] == 'p' ? run_pipe() : run_cold();
	}
	fprintf(stderr, "usage: offcpu sleep N MS [MS2] GO_FIFO | alt N MS MS2 GO_FIFO | pipe N GO_FIFO | "
			"cold N GO_FIFO\n");
	return 2;
}
