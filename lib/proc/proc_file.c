// SPDX-License-Identifier: GPL-2.0
/* The one helper that opens a file a traced process maps. */
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/proc_file.h"

static bool path__deleted(const char *path)
{
	static const char deleted[] = " (deleted)";
	size_t plen = strlen(path), dlen = sizeof(deleted) - 1;

	return plen >= dlen && !strcmp(path + plen - dlen, deleted);
}

/* Keeps the most telling reason: anything says more than "nothing there". */
static void why__keep(enum safe_open_why *best, enum safe_open_why why)
{
	if (*best == SAFE_OPEN_MISSING || *best == SAFE_OPEN_OK)
		*best = why;
}

/* PATH inside the process's root: a container's or a chroot's own files. */
static int proc_file__in_root(int pid, const char *path, const struct safe_open_id *id,
			      enum safe_open_why *why)
{
	char root[64];
	int rfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0) {
		*why = SAFE_OPEN_MISSING;
		return -1;
	}
	fd = safe_open(rfd, path + 1, SAFE_OPEN_IN_ROOT, id, why);
	close(rfd);
	return fd;
}

int proc_file__open(int pid, const struct proc_map *m, enum safe_open_why *why)
{
	const struct safe_open_id id = { .dev_major = m->dev_major, .dev_minor = m->dev_minor,
					 .ino = m->inode };
	enum safe_open_why w, best = SAFE_OPEN_MISSING;
	char buf[96];
	int fd;

	/* The kernel's own link to the mapped file: following it is the point. */
	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->end);
	fd = safe_open(AT_FDCWD, buf, SAFE_OPEN_FOLLOW, &id, &w);
	if (fd >= 0)
		return fd;
	why__keep(&best, w == SAFE_OPEN_CHANGED ? SAFE_OPEN_MISSING : w);
	if (m->path[0] != '/' || path__deleted(m->path)) {
		*why = best;
		return -1;
	}
	fd = proc_file__in_root(pid, m->path, &id, &w);
	if (fd >= 0)
		return fd;
	why__keep(&best, w);
	fd = safe_open(AT_FDCWD, m->path, 0, &id, &w);
	if (fd >= 0)
		return fd;
	why__keep(&best, w);
	*why = best;
	return -1;
}
