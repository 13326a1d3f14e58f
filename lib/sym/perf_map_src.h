/* SPDX-License-Identifier: GPL-2.0 */
/* Where one process's perf map is, and how to open it without being steered elsewhere. */
#ifndef ST_SYM_PERF_MAP_SRC_H
#define ST_SYM_PERF_MAP_SRC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * A JIT writes /tmp/perf-PID.map inside its own mount namespace, PID being
 * its pid there. We read it through the process's root, kept open from the
 * moment we first see the process (an O_PATH fd of /proc/PID/root stays
 * valid after the process is gone, when the map is most complete), and trust
 * it only when its owner is the process's user or root, as perf does.
 */
struct perf_map_src {
	int pid;     /* in our namespace */
	int nspid;   /* in its own: the number in the file name */
	uid_t uid;   /* effective uid: who may own the map */
	int root_fd; /* O_PATH of /proc/PID/root, or -1 */
};

/**
 * perf_map_src__init() - learn @pid's namespace pid and uid from /proc.
 * @open_root: also keep its root open (the caller bounds how many it keeps)
 *
 * Return: 0, or -errno when the process is gone or its status unreadable
 * (then nothing of it is trusted). root_fd is -1 when not asked or not opened.
 */
int perf_map_src__init(struct perf_map_src *s, int pid, bool open_root);

/**
 * perf_map_src__open() - open the map file: inside the kept root, else by
 * /proc path while the process lives (@exited false).
 * @name: gets the path, for messages
 *
 * Symbolic links are refused and absolute links resolve inside the root, so
 * the process cannot point us at another file.
 *
 * Return: an fd, or -1 with errno (ENOENT: no map; ESRCH: exited, no root kept).
 */
int perf_map_src__open(const struct perf_map_src *s, bool exited, char *name, size_t len);

struct stat;

/**
 * perf_map_src__unchanged() - @now (an fstat of the open map) is the file last
 * read as @last: same inode, size and mtime, so reading it again gives nothing new.
 */
bool perf_map_src__unchanged(const struct stat *now, const struct stat *last);

/** perf_map_src__close_root() - let go of the root; -1 after. */
void perf_map_src__close_root(struct perf_map_src *s);

#endif
