// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/proc/registry's hold on file models: a child of this
 * test, read from /proc, opens this test binary's model; once the child
 * exits and is forgotten the model is closed, unless a forked process it
 * passed its mappings to is still known, or a view holds it
 * (procs__hold_file()) until it lets go.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc/registry.h"
#include "tests/unit/check.h"
#include "tests/unit/fd_links.h"

static char exe[PATH_MAX];

/* How many of our fds point at this test binary. */
static int fds_to_exe(void)
{
	return fds_to(exe);
}

/* A child that waits to be killed, read into @r. Return: its pid, or -1. */
static pid_t seen_child(struct proc_registry *r)
{
	pid_t child = fork();

	if (child == 0) {
		for (;;)
			pause();
	}
	if (child < 0)
		return -1;
	CHECK_EQ_U64(procs__see(r, child, procs_now()), 0);
	return child;
}

/* @pid is killed (if a real child) and its exit forgotten. */
static void forget(struct proc_registry *r, pid_t pid, bool real)
{
	uint64_t ts;

	if (real) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	ts = procs_now();
	procs__exit(r, pid, ts);
	CHECK_EQ_U64(procs__forget_gone(r, ts + 1, NULL, NULL), 0);
}

/* The model goes with the last process that maps it. */
static void test_forget_closes(void)
{
	struct proc_registry *r = procs__new();
	pid_t child = seen_child(r);

	CHECK_EQ_U64(fds_to_exe(), 1);
	forget(r, child, true);
	CHECK_EQ_U64(fds_to_exe(), 0);
	procs__free(r);
}

/* A fork's child starts with its parent's mappings: the file stays while it is known. */
static void test_fork_holds(void)
{
	struct proc_registry *r = procs__new();
	pid_t child = seen_child(r), fake = 2000000011;

	procs__fork(r, child, fake, procs_now());
	forget(r, child, true);
	CHECK_EQ_U64(fds_to_exe(), 1);
	forget(r, fake, false);
	CHECK_EQ_U64(fds_to_exe(), 0);
	procs__free(r);
}

/* A view's hold keeps the model past the forget, until its put. */
static void test_view_holds(void)
{
	struct proc_registry *r = procs__new();
	pid_t child = seen_child(r);
	struct proc_loc loc = {};

	CHECK_EQ_U64(procs__resolve(r, child, procs_now(), (uintptr_t)test_view_holds, &loc), 0);
	CHECK(loc.file != NULL);
	procs__hold_file(r, loc.file);
	forget(r, child, true);
	CHECK_EQ_U64(fds_to_exe(), 1);
	procs__put_file(r, loc.file);
	CHECK_EQ_U64(fds_to_exe(), 0);
	procs__free(r);
}

int main(void)
{
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0) {
		CHECK_SKIP("registry files", "no /proc/self/exe");
		return CHECK_DONE();
	}
	exe[len] = '\0';
	test_forget_closes();
	test_fork_holds();
	test_view_holds();
	return CHECK_DONE();
}
