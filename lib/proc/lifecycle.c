// SPDX-License-Identifier: GPL-2.0
/* Process lifecycle records applied to the registry. */
#include <stdlib.h>
#include <string.h>

#include "lib/proc/lifecycle.h"
#include "lib/proc/registry.h"

/* The path of a map record: its dentry names, root first. "" when cut short. */
static char *lifecycle__path(const struct st_proc_event *pe)
{
	size_t len = 1, i, n = pe->ncomps < ST_PATH_COMPS ? pe->ncomps : ST_PATH_COMPS;
	char *path;

	if (pe->map_flags & ST_MAP_PATH_CUT)
		return strdup("");
	for (i = 0; i < n; i++)
		len += strnlen(pe->comps[i], ST_COMP_LEN) + 1;
	path = calloc(1, len);
	for (i = n; path && i > 0; i--) {
		strcat(path, "/");
		strncat(path, pe->comps[i - 1], ST_COMP_LEN);
	}
	return path;
}

/* A mapping record describes the mapping in full: the process may be gone already. */
static void lifecycle__map(struct proc_registry *r, const struct st_proc_event *pe)
{
	struct proc_map m = {
		.start = pe->start, .end = pe->end, .pgoff = pe->pgoff, .inode = pe->ino,
		.dev_major = pe->dev >> 20, .dev_minor = pe->dev & 0xfffff,
		.prot = PROC_MAP_R | PROC_MAP_X, .path = lifecycle__path(pe),
	};

	if (m.path)
		procs__map(r, pe->pid, pe->ts, &m);
	free(m.path);
}

void procs__on_record(struct proc_registry *r, const struct st_proc_event *pe)
{
	switch (pe->what) {
	case ST_PROC_EXEC:
		procs__exec(r, pe->pid, pe->ts);
		break;
	case ST_PROC_MAP:
		lifecycle__map(r, pe);
		break;
	case ST_PROC_UNMAP:
		procs__unmap(r, pe->pid, pe->ts, pe->start, pe->end);
		break;
	case ST_PROC_FORK:
		procs__fork(r, pe->ppid, pe->pid, pe->ts);
		break;
	case ST_PROC_EXIT:
		procs__exit(r, pe->pid, pe->ts);
		break;
	}
}
