// SPDX-License-Identifier: GPL-2.0
/* Where one process's perf map is, and how to open it without being steered elsewhere. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/proc/source.h"
#include "lib/sym/perf_map_src.h"

/* The process's effective uid and its pid in its own namespace, from /proc/PID/status. */
static int src__status(struct perf_map_src *s)
{
	char path[64], line[256];
	unsigned uid[2];
	bool has_uid = false;
	FILE *f;
	char *p;

	if (proc_pid_gone(s->pid))
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/status", s->pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	s->nspid = s->pid;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u %u", &uid[0], &uid[1]) == 2) {
			s->uid = uid[1];
			has_uid = true;
		} else if (!strncmp(line, "NSpid:", 6)) {
			/* One pid per namespace level, outermost first: the last is its own. */
			p = strrchr(line, '\t');
			s->nspid = p ? atoi(p + 1) : s->pid;
		}
	}
	fclose(f);
	return has_uid && s->nspid > 0 ? 0 : -EINVAL;
}

int perf_map_src__init(struct perf_map_src *s, int pid, bool open_root)
{
	char path[64];
	int err;

	s->pid = pid;
	s->root_fd = -1;
	err = src__status(s);
	if (err || !open_root)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/root", pid);
	s->root_fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

int perf_map_src__open(const struct perf_map_src *s, bool exited, char *name, size_t len)
{
	struct open_how how = {
		.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char rel[64];
	int fd;

	snprintf(rel, sizeof(rel), "tmp/perf-%d.map", s->nspid);
	snprintf(name, len, "/proc/%d/root/%s", s->pid, rel);
	if (s->root_fd >= 0) {
		fd = (int)syscall(SYS_openat2, s->root_fd, rel, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		return openat(s->root_fd, rel, (int)how.flags);
	}
	if (exited) {
		errno = ESRCH; /* the path would name whoever has the pid now */
		return -1;
	}
	return open(name, (int)how.flags);
}

bool perf_map_src__unchanged(const struct stat *now, const struct stat *last)
{
	return now->st_ino == last->st_ino && now->st_size == last->st_size &&
	       now->st_mtim.tv_sec == last->st_mtim.tv_sec &&
	       now->st_mtim.tv_nsec == last->st_mtim.tv_nsec;
}

void perf_map_src__close_root(struct perf_map_src *s)
{
	if (s->root_fd >= 0)
		close(s->root_fd);
	s->root_fd = -1;
}
