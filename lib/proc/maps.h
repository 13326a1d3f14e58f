/* SPDX-License-Identifier: GPL-2.0 */
/* Parser of /proc/PID/maps text (hostile input: every field is checked). */
#ifndef ST_PROC_MAPS_H
#define ST_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>

#define PROC_MAP_R 1
#define PROC_MAP_W 2
#define PROC_MAP_X 4

struct proc_map {
	uint64_t start, end; /* [start, end) */
	uint64_t pgoff;      /* file offset of start */
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint32_t prot;       /* PROC_MAP_* */
	char *path;          /* "" for anonymous; "[vdso]" etc. kept as is */
};

/**
 * proc_maps__parse() - parse a maps text.
 * @buf, @len: the text (need not be NUL-terminated)
 * @out, @n: a malloc'ed array of mappings sorted by start, and its length
 *
 * Return: 0, or -EINVAL naming the bad line in the log, or -ENOMEM.
 */
int proc_maps__parse(const char *buf, size_t len, struct proc_map **out, size_t *n);

/** proc_maps__read() - read and parse /proc/@pid/maps; -ESRCH when the process is gone. */
int proc_maps__read(int pid, struct proc_map **out, size_t *n);

/** proc_maps__free() - free an array from proc_maps__parse(). */
void proc_maps__free(struct proc_map *maps, size_t n);

#endif
