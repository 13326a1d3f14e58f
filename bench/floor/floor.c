// SPDX-License-Identifier: GPL-2.0
/*
 * Loader of the floor program (floor.bpf.c) for bench/bench_count.sh and
 * bench/bench_offcpu.sh.
 *
 *   floor [-k | -u] PID
 *   floor [-k | -u] -s
 *
 * Attaches to syscalls:sys_enter_getppid for process PID, or (-s) to every
 * sched_switch of the machine (kernel and user stack; -k kernel only, -u
 * user only), prints "Tracing" on stderr once attached, and on SIGINT or
 * SIGTERM prints "events N kernel_empty K user_empty U" on stdout: every
 * event the program saw and how many of them got an empty kernel or user
 * stack (a kernel thread's user stack is empty).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <bpf/bpf.h>

#include "floor.skel.h"

static volatile sig_atomic_t floor_stop;

static void floor_on_signal(int sig)
{
	floor_stop = 1;
}

/* Sums per-CPU counter @idx of the floor_counts map. */
static unsigned long long floor_sum(struct floor_bpf *skel, __u32 idx)
{
	int ncpu = libbpf_num_possible_cpus();
	unsigned long long sum = 0;
	__u64 *vals;
	int i;

	if (ncpu <= 0 || !(vals = calloc(ncpu, sizeof(*vals))))
		return 0;
	if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.floor_counts), &idx, vals))
		for (i = 0; i < ncpu; i++)
			sum += vals[i];
	free(vals);
	return sum;
}

/* Only the program of the event asked for is loaded: -s, every switch; else PID's getppid. */
static int floor_choose(struct floor_bpf *skel, long pid)
{
	int err = bpf_program__set_autoload(skel->progs.floor_switch, !pid);

	return err ? err : bpf_program__set_autoload(skel->progs.floor_getppid, pid != 0);
}

int main(int argc, char **argv)
{
	struct floor_bpf *skel;
	int kernel = 1, user = 1, err;
	long pid = -1;

	if (argc == 3 && !strcmp(argv[1], "-k"))
		user = 0, argv++, argc--;
	else if (argc == 3 && !strcmp(argv[1], "-u"))
		kernel = 0, argv++, argc--;
	if (argc == 2)
		pid = !strcmp(argv[1], "-s") ? 0 : strtol(argv[1], NULL, 10);
	if (pid < 0 || (pid == 0 && strcmp(argv[1], "-s"))) {
		fprintf(stderr, "usage: floor [-k | -u] PID | floor [-k | -u] -s\n");
		return 2;
	}
	skel = floor_bpf__open();
	if (!skel) {
		fprintf(stderr, "floor: cannot open the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->floor_tgid = pid;
	skel->rodata->floor_kernel = kernel;
	skel->rodata->floor_user = user;
	err = floor_choose(skel, pid);
	if (!err)
		err = floor_bpf__load(skel);
	if (!err)
		err = floor_bpf__attach(skel);
	if (err) {
		fprintf(stderr, "floor: cannot load or attach: %s\n", strerror(-err));
		floor_bpf__destroy(skel);
		return 1;
	}
	signal(SIGINT, floor_on_signal);
	signal(SIGTERM, floor_on_signal);
	if (pid)
		fprintf(stderr, "Tracing syscalls:sys_enter_getppid of %ld", pid);
	else
		fprintf(stderr, "Tracing sched_switch");
	fprintf(stderr, " (%s%s)\n", kernel ? "kernel" : "", user ? (kernel ? "+user" : "user") : "");
	while (!floor_stop)
		pause();
	printf("events %llu kernel_empty %llu user_empty %llu\n", floor_sum(skel, 0),
	       floor_sum(skel, 1), floor_sum(skel, 2));
	floor_bpf__destroy(skel);
	return 0;
}
