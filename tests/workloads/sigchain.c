// SPDX-License-Identifier: GPL-2.0
/*
 * Signal handlers with known chains, for walks through the signal frame.
 *
 *   sigchain alarm N [GO_FIFO]     N SIGALRMs interrupt main -> s1 -> s2 -> spin;
 *                                  each runs on_alarm -> h1 -> h2, one getppid() in h2
 *   sigchain busy N [GO_FIFO [HOLD_FILE]]
 *                                  the same, h2 burning about 2 ms of CPU instead;
 *                                  with HOLD_FILE, after the N-th it holds
 *                                  (golib.h: workload_hold) before it prints
 *                                  "handled N" and exits, so a profiler can stop
 *                                  first (a sample in exit() or in the teardown of
 *                                  the address space is no chain through main)
 *   sigchain altstack N [GO_FIFO]  as alarm, in a thread (thread_main -> s1 -> ...)
 *                                  whose handler runs on a sigaltstack mapped before
 *                                  the thread's stack, so above it: the walk goes back
 *                                  down to the interrupted stack
 *
 * spin() arms the timer and loops until N handlers ran, so every signal
 * interrupts spin's loop; a signal after the N-th does nothing. Prints
 * "ready PID TID" (the thread that takes the signals) and waits on GO_FIFO.
 * Built by tests/workloads/signal.mk with frame pointers, without, with SFrame.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))
#define ALTSTACK_SIZE (64 * 1024)

static volatile long sink;
static volatile int handled, target, busy;
static void *altstack;
static const char *go_fifo;
static volatile char *hold;

NOINLINE void h2(void)
{
	long i;

	if (!busy) {
		sink += workload_getppid();
		return;
	}
	for (i = 0; i < 2000000; i++)
		sink += i;
}

NOINLINE void h1(void) { h2(); sink++; }

NOINLINE void on_alarm(int sig)
{
	if (handled >= target)
		return;
	h1();
	handled++;
}

/* Every 2 ms (4 ms when busy, so the interrupted loop gets time too). */
static void arm(long us)
{
	struct itimerval it = { { 0, us }, { 0, us } };

	setitimer(ITIMER_REAL, &it, NULL);
}

NOINLINE void spin(void)
{
	arm(busy ? 4000 : 2000);
	while (handled < target)
		sink++;
	arm(0);
}

NOINLINE void s2(void) { spin(); sink++; }
NOINLINE void s1(void) { s2(); sink++; }

static void on_signal(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART | flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
}

/* The altstack thread: SIGALRM is blocked everywhere else, so it lands here. */
NOINLINE void *thread_main(void *arg)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = ALTSTACK_SIZE };
	sigset_t set;

	if (sigaltstack(&ss, NULL))
		perror("sigaltstack");
	printf("ready %d %ld\n", getpid(), (long)syscall(SYS_gettid));
	fflush(stdout);
	workload_wait(go_fifo);
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	s1();
	return arg;
}

static int run_altstack(void)
{
	pthread_t t;
	sigset_t set;

	/* Mapped now, before the thread's stack: above it in the address space. */
	altstack = mmap(NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (altstack == MAP_FAILED)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	on_signal(SA_ONSTACK);
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sigchain alarm|busy|altstack N [GO_FIFO [HOLD_FILE]]\n");
		return 2;
	}
	target = atoi(argv[2]);
	go_fifo = argc > 3 ? argv[3] : NULL;
	hold = workload_hold_map(argc > 4 ? argv[4] : NULL);
	busy = !strcmp(argv[1], "busy");
	if (!strcmp(argv[1], "altstack"))
		return run_altstack();
	on_signal(0);
	printf("ready %d %d\n", getpid(), getpid());
	fflush(stdout);
	workload_wait(go_fifo);
	s1();
	workload_hold(hold);
	printf("handled %d\n", handled);
	fflush(stdout);
	return 0;
}
