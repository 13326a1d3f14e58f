// SPDX-License-Identifier: GPL-2.0
/* The unwind table of one executable mapping of a process: its file's, or the vDSO's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/unwind/map_table.h"

/* The vDSO image as mapped in @pid: the whole ELF file, since it is mapped from offset 0. */
static void *map_table__read_vdso(int pid, const struct proc_map *m, size_t *len)
{
	char path[32];
	void *buf;
	ssize_t r;
	int fd;

	if (m->end <= m->start || m->end - m->start > UNWIND_VDSO_MAX || m->pgoff)
		return NULL;
	*len = m->end - m->start;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(*len);
	r = buf ? pread(fd, buf, *len, (off_t)m->start) : -1;
	close(fd);
	if (r != (ssize_t)*len) {
		free(buf);
		return NULL;
	}
	return buf;
}

static struct unwind_table *map_table__vdso(struct unwind_cache *c, int pid,
					    const struct proc_map *m)
{
	struct unwind_table *t;
	size_t len = 0;
	void *image = map_table__read_vdso(pid, m, &len);
	int err;

	if (!image) {
		errno = ESRCH;
		return NULL;
	}
	t = unwind_cache__get_image(c, image, len, "[vdso]");
	err = errno;
	free(image);
	errno = err;
	return t;
}

struct unwind_table *unwind_cache__get_map(struct unwind_cache *c, int pid,
					   const struct proc_map *m)
{
	if (m->path[0] == '/')
		return unwind_cache__get_mapped(c, pid, m->start, m->end, m->path);
	if (!strcmp(m->path, "[vdso]"))
		return map_table__vdso(c, pid, m);
	errno = ENOENT;
	return NULL;
}
