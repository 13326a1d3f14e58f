/* SPDX-License-Identifier: GPL-2.0 */
/* How many of this process's fds point at a file: what a test of closing files counts. */
#ifndef ST_TEST_FD_LINKS_H
#define ST_TEST_FD_LINKS_H

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Fds of ours whose link reads @path (a deleted file's reads "PATH (deleted)"). */
static inline int fds_to(const char *path)
{
	char link[64], target[PATH_MAX + 16];
	int fd, n = 0;
	ssize_t len;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += !strcmp(target, path);
	}
	return n;
}

#endif
