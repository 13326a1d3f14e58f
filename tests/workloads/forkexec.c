// SPDX-License-Identifier: GPL-2.0
/*
 * forkexec N PROG [GO_FIFO]: once released, main -> spawn_all -> spawn_one
 * forks N children one after the other; each child calls execv(PROG) at
 * once from spawn_one (its stack at execve is its parent's code) and the
 * parent waits for it.
 */
#include <sys/wait.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

NOINLINE int spawn_one(const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		execv(prog, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return 0;
}

NOINLINE int spawn_all(int n, const char *prog)
{
	int i, bad = 0;

	for (i = 0; i < n; i++)
		bad += spawn_one(prog) != 0;
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: forkexec N PROG [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 3 ? argv[3] : NULL);
	return spawn_all(atoi(argv[1]), argv[2]) ? 1 : 0;
}
