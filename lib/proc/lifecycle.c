// SPDX-License-Identifier: GPL-2.0
/* Process lifecycle records applied to the registry. */
#include <string.h>

#include "lib/proc/lifecycle.h"
#include "lib/proc/registry.h"

/* A path of ST_PATH_COMPS names, each with its '/', and the NUL. */
#define LIFECYCLE_PATH_MAX (ST_PATH_COMPS * (ST_COMP_LEN + 1) + 1)

/*
 * The path of a map record in @buf: its dentry names, root first; "" when
 * cut short. On the stack: the registry interns it, and a malloc'ed copy
 * per record was three allocations for every short process.
 */
static char *lifecycle__path(const struct st_proc_event *pe, char buf[LIFECYCLE_PATH_MAX])
{
	size_t at = 0, len, i = pe->ncomps < ST_PATH_COMPS ? pe->ncomps : ST_PATH_COMPS;

	if (pe->map_flags & ST_MAP_PATH_CUT)
		i = 0;
	for (; i > 0; i--) {
		len = strnlen(pe->comps[i - 1], ST_COMP_LEN);
		buf[at++] = '/';
		memcpy(buf + at, pe->comps[i - 1], len);
		at += len;
	}
	buf[at] = '\0';
	return buf;
}

/* The mapping a map or description record names, its path in @path. */
static struct proc_map lifecycle__mapping(const struct st_proc_event *pe,
					  char path[LIFECYCLE_PATH_MAX])
{
	return (struct proc_map){
		.start = pe->start, .end = pe->end, .pgoff = pe->pgoff, .inode = pe->ino,
		.dev_major = pe->dev >> 20, .dev_minor = pe->dev & 0xfffff,
		.prot = PROC_MAP_R | PROC_MAP_X, .path = lifecycle__path(pe, path),
	};
}

/* A mapping record describes the mapping in full: the process may be gone already. */
static void lifecycle__map(struct proc_registry *r, const struct st_proc_event *pe)
{
	char path[LIFECYCLE_PATH_MAX];
	struct proc_map m = lifecycle__mapping(pe, path);

	if (pe->what == ST_PROC_DESC)
		procs__describe_record(r, pe->pid, pe->ts, &m);
	else
		procs__map(r, pe->pid, pe->ts, &m);
}

void procs__on_record(struct proc_registry *r, const struct st_proc_event *pe)
{
	switch (pe->what) {
	case ST_PROC_EXEC:
		procs__exec(r, pe->pid, pe->ts);
		break;
	case ST_PROC_MAP:
	case ST_PROC_DESC:
		lifecycle__map(r, pe);
		break;
	case ST_PROC_DESC_END:
		procs__describe_end(r, pe->pid, pe->ts, pe->count);
		break;
	case ST_PROC_UNMAP:
		procs__unmap(r, pe->pid, pe->ts, pe->start, pe->end);
		break;
	case ST_PROC_FORK:
		procs__fork(r, pe->ppid, pe->pid, pe->ts);
		break;
	case ST_PROC_EXIT:
		if (pe->map_flags & ST_EXIT_FOUND)
			procs__exit_found(r, pe->pid, pe->ts);
		else if (pe->map_flags & ST_EXIT_MAPLESS)
			procs__exit_mapless(r, pe->pid, pe->ts);
		else
			procs__exit(r, pe->pid, pe->ts);
		break;
	}
}

int procs__describe_ahead(void *ctx, void *data, size_t size)
{
	struct desc_ahead *da = ctx;
	const struct st_proc_event *pe = data;
	char path[LIFECYCLE_PATH_MAX];
	struct proc_map m;

	if (size < offsetof(struct st_proc_event, comps) || pe->kind != ST_REC_PROC ||
	    (int)pe->pid != da->pid)
		return 0;
	/* What follows an exit of the pid is a later process's. */
	if (pe->what == ST_PROC_EXIT || pe->what == ST_PROC_EXEC)
		return -1;
	if (pe->what != ST_PROC_DESC || size < st_proc_map_size(pe->ncomps) || pe->ts < da->ts)
		return 0;
	m = lifecycle__mapping(pe, path);
	if (procs__describe(da->r, da->pid, pe->ts, &m))
		return -1;
	da->described++;
	return 0;
}
