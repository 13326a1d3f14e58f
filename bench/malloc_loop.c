// SPDX-License-Identifier: GPL-2.0
/*
 * The malloc-heavy workload of bench/bench_malloc.sh.
 *
 *   malloc_loop [-t THREADS] SECONDS [GO_FIFO]
 *
 * Prints "ready PID" and, with GO_FIFO, waits for a byte on it; then THREADS
 * threads (default 2) each call malloc() and free() through
 * main -> malloc_worker -> malloc_churn -> malloc for SECONDS seconds, and it prints
 * "calls N" (every malloc() call the threads made) and "calls/s X". A tracer
 * that counts u:c:malloc stacks containing malloc_churn should count N. With
 * GO_FIFO it then waits for a second byte before it exits, its threads
 * included: bcc and bpftrace read a thread's symbols through /proc/TID when
 * they print, so the threads must still be alive.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../tests/workloads/golib.h"

#define NOINLINE __attribute__((noinline, noipa))
#define MAX_THREADS 64

static double seconds;
/* Workers wait at @loops_done when their time is up and at @may_exit until main says so. */
static pthread_barrier_t loops_done, may_exit;
static volatile long sink;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* 1024 malloc/free pairs of varied small sizes; returns the calls made. */
NOINLINE long malloc_churn(unsigned seed)
{
	long i;

	for (i = 0; i < 1024; i++) {
		char *p = malloc(16 + (seed + i * 37) % 512);

		if (!p)
			abort();
		p[0] = (char)i;
		sink += p[0];
		free(p);
	}
	return i;
}

NOINLINE void *malloc_worker(void *arg)
{
	double end = now_s() + seconds;
	long *calls = arg;

	while (now_s() < end)
		*calls += malloc_churn((unsigned)*calls);
	pthread_barrier_wait(&loops_done);
	pthread_barrier_wait(&may_exit);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tid[MAX_THREADS];
	long calls[MAX_THREADS] = { 0 }, total = 0;
	int threads = 2, i;
	double t0;

	if (argc > 2 && !strcmp(argv[1], "-t")) {
		threads = atoi(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc < 2 || (seconds = atof(argv[1])) <= 0 || threads < 1 || threads > MAX_THREADS) {
		fprintf(stderr, "usage: malloc_loop [-t THREADS] SECONDS [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	pthread_barrier_init(&loops_done, NULL, threads + 1);
	pthread_barrier_init(&may_exit, NULL, threads + 1);
	t0 = now_s();
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, malloc_worker, &calls[i])) {
			fprintf(stderr, "malloc_loop: pthread_create failed\n");
			return 1;
		}
	pthread_barrier_wait(&loops_done);
	for (i = 0; i < threads; i++)
		total += calls[i];
	printf("calls %ld\ncalls/s %.0f\n", total, total / (now_s() - t0));
	fflush(stdout);
	if (argc > 2)
		workload_ready_go(argv[2]);
	pthread_barrier_wait(&may_exit);
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	return 0;
}
