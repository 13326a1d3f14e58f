// SPDX-License-Identifier: GPL-2.0
/* The process tracker: each process's executable mappings, pushed to their users. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc/maps.h"
#include "lib/proc/tracker.h"
#include "lib/stack/store.h"
#include "lib/sym/symbolizer.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/copy_unwind.h"

struct tracked {
	struct proc_map *maps; /* executable mappings, sorted by start */
	size_t n;
};

struct proc_tracker {
	struct symbolizer *sz;
	struct bpf_tables *tables;
	struct copy_unwinder *cu;
	struct stack_store *procs; /* key: pid; data: struct tracked */
};

struct proc_tracker *proc_tracker__new(struct symbolizer *sz, struct bpf_tables *tables,
				       struct copy_unwinder *cu)
{
	struct proc_tracker *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->sz = sz;
	pt->tables = tables;
	pt->cu = cu;
	pt->procs = stack_store__new();
	if (!pt->procs) {
		free(pt);
		return NULL;
	}
	return pt;
}

static void tracked__clear(struct tracked *t)
{
	proc_maps__free(t->maps, t->n);
	t->maps = NULL;
	t->n = 0;
}

static struct tracked *tracker__get(struct proc_tracker *pt, int pid, bool *fresh)
{
	int32_t key = pid;
	struct stack_entry *e = stack_store__add(pt->procs, &key, sizeof(key), 0);

	if (!e)
		return NULL;
	*fresh = !e->data;
	if (!e->data)
		e->data = calloc(1, sizeof(struct tracked));
	return e->data;
}

static void tracker__push(struct proc_tracker *pt, int pid, const struct tracked *t)
{
	symbolizer__set_maps(pt->sz, pid, t->maps, t->n);
	if (pt->tables)
		bpf_tables__set_maps(pt->tables, pid, t->maps, t->n);
	if (pt->cu)
		copy_unwinder__set_maps(pt->cu, pid, t->maps, t->n);
}

/* Replaces what we know of @pid with /proc; keeps it when the process is gone. */
static void tracker__read(struct proc_tracker *pt, int pid, struct tracked *t)
{
	struct proc_map *maps;
	size_t n;

	if (proc_maps__read(pid, &maps, &n))
		return;
	tracked__clear(t);
	t->maps = maps;
	t->n = n;
	tracker__push(pt, pid, t);
}

void proc_tracker__saw(struct proc_tracker *pt, int pid)
{
	bool fresh;
	struct tracked *t = tracker__get(pt, pid, &fresh);

	if (t && fresh)
		tracker__read(pt, pid, t);
}

/* The path of a map record: its dentry names, root first. "" when cut short. */
static char *tracker__path(const struct st_proc_event *pe)
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

/* Inserts @m in order, dropping what it overlaps (a new mmap replaces old ones). */
static int tracked__insert(struct tracked *t, struct proc_map *m)
{
	struct proc_map *v = malloc((t->n + 1) * sizeof(*v));
	size_t i, k = 0;
	bool placed = false;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		if (t->maps[i].start < m->end && m->start < t->maps[i].end) {
			free(t->maps[i].path);
			continue;
		}
		if (!placed && m->start < t->maps[i].start) {
			v[k++] = *m;
			placed = true;
		}
		v[k++] = t->maps[i];
	}
	if (!placed)
		v[k++] = *m;
	free(t->maps);
	t->maps = v;
	t->n = k;
	return 0;
}

static void tracker__map(struct proc_tracker *pt, const struct st_proc_event *pe)
{
	struct proc_map m = {
		.start = pe->start, .end = pe->end, .pgoff = pe->pgoff, .inode = pe->ino,
		.dev_major = pe->dev >> 20, .dev_minor = pe->dev & 0xfffff,
		.prot = PROC_MAP_R | PROC_MAP_X, .path = tracker__path(pe),
	};
	bool fresh;
	struct tracked *t = tracker__get(pt, pe->pid, &fresh);

	if (!t || !m.path || tracked__insert(t, &m)) {
		free(m.path);
		return;
	}
	tracker__push(pt, pe->pid, t);
}

void proc_tracker__on_record(struct proc_tracker *pt, const struct st_proc_event *pe)
{
	bool fresh;
	struct tracked *t;

	switch (pe->what) {
	case ST_PROC_EXEC:
		/* A new image: forget the old mappings, read the new ones while they exist. */
		t = tracker__get(pt, pe->pid, &fresh);
		if (t) {
			tracked__clear(t);
			tracker__read(pt, pe->pid, t);
		}
		break;
	case ST_PROC_MAP:
		tracker__map(pt, pe);
		break;
	case ST_PROC_EXIT:
		/* Symbols stay for late events; only the walker's table entry goes. */
		if (pt->tables)
			bpf_tables__remove_process(pt->tables, pe->pid);
		break;
	}
}

void proc_tracker__free(struct proc_tracker *pt)
{
	struct stack_entry **e;
	size_t i;

	if (!pt)
		return;
	e = stack_store__entries(pt->procs);
	for (i = 0; e && i < stack_store__len(pt->procs); i++) {
		tracked__clear(e[i]->data);
		free(e[i]->data);
	}
	free(e);
	stack_store__free(pt->procs);
	free(pt);
}
