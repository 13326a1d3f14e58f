// SPDX-License-Identifier: GPL-2.0
/*
 * hostile MODE N [GO_FIFO]: an unprivileged process that turns the path of
 * its own executable against a tracer. Once released it calls main ->
 * hostile_a -> hostile_b -> getpriority() N times (a system call nothing else
 * on the machine makes, so a system-wide trace sees only these), then
 * replaces its executable's
 * path (readlink /proc/self/exe) by:
 *   fifo     a FIFO (a blocking open() of it never returns)
 *   symlink  a symbolic link to /etc/shadow (readable by root only)
 * and exits; MODE exec-fifo / exec-symlink exec /bin/true instead of exiting.
 */
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void hostile_b(void)
{
	long r;

	/* getpriority(PRIO_PROCESS, 0), the syscall instruction in this function. */
	__asm__ volatile("syscall" : "=a"(r) : "0"(140L), "D"(0L), "S"(0L) : "rcx", "r11", "memory");
	sink += r;
}

NOINLINE void hostile_a(int n)
{
	int i;

	for (i = 0; i < n; i++)
		hostile_b();
	sink++;
}

static int replace_exe(const char *mode)
{
	char path[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);

	if (len <= 0)
		return -1;
	path[len] = '\0';
	if (unlink(path))
		return -1;
	if (strstr(mode, "fifo"))
		return mkfifo(path, 0666);
	return symlink("/etc/shadow", path);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: hostile fifo|symlink|exec-fifo|exec-symlink N [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 3 ? argv[3] : NULL);
	hostile_a(atoi(argv[2]));
	if (replace_exe(argv[1])) {
		perror("hostile");
		return 1;
	}
	if (!strncmp(argv[1], "exec-", 5)) {
		execl("/bin/true", "true", (char *)NULL);
		perror("hostile: exec");
		return 1;
	}
	return 0;
}
