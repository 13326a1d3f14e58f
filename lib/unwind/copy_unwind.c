// SPDX-License-Identifier: GPL-2.0
/* Unwinding copied user stacks in user space, with the BPF walker's tables. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/proc/source.h"
#include "lib/unwind/copy_source.h"
#include "lib/unwind/copy_unwind.h"
#include "lib/unwind/table.h"
#include "lib/util/htab.h"

struct copy_proc {
	struct hnode node; /* (pid, 0) */
	struct unwind_map *maps;
	size_t n;
};

struct copy_unwinder {
	struct unwind_table_source src;
	struct unwind_opts opts;
	struct htab procs; /* struct copy_proc, each removed when its process is forgotten */
	struct unwind_frame *frames;
	size_t cap;
};

struct copy_unwinder *copy_unwinder__new(const struct unwind_table_source *src, bool fp_fallback)
{
	struct copy_unwinder *cu = calloc(1, sizeof(*cu));

	if (!cu)
		return NULL;
	cu->src = *src;
	cu->opts.fp_fallback = fp_fallback;
	return cu;
}

static void copy_proc__clear(struct copy_proc *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free((char *)p->maps[i].path);
	free(p->maps);
	p->maps = NULL;
	p->n = 0;
}

static void copy_proc__free(struct copy_proc *p)
{
	if (!p)
		return;
	copy_proc__clear(p);
	free(p);
}

static void copy_proc__drop(struct hnode *n)
{
	copy_proc__free((struct copy_proc *)n);
}

static struct copy_proc *copy__lookup(const struct copy_unwinder *cu, int pid)
{
	return (struct copy_proc *)htab__first(&cu->procs, (uint32_t)pid, 0);
}

static struct copy_proc *copy__convert(int pid, const struct proc_map *maps, size_t n)
{
	struct copy_proc *p = calloc(1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	p->node.k1 = (uint32_t)pid;
	p->maps = calloc(n ? n : 1, sizeof(*p->maps));
	for (i = 0; p->maps && i < n; i++) {
		struct unwind_map *um = &p->maps[p->n];

		if (!(maps[i].prot & PROC_MAP_X))
			continue;
		/* Tables are found at each walk (copy__tables): they may be freed meanwhile. */
		*um = (struct unwind_map){ .start = maps[i].start, .end = maps[i].end,
					   .pgoff = maps[i].pgoff, .path = strdup(maps[i].path) };
		p->n++;
	}
	if (!p->maps) {
		free(p);
		return NULL;
	}
	return p;
}

int copy_unwinder__set_maps(struct copy_unwinder *cu, int pid, const struct proc_map *maps,
			    size_t n)
{
	struct copy_proc *p = copy__convert(pid, maps, n), *old = copy__lookup(cu, pid);

	if (!p)
		return -ENOMEM;
	if (!old) {
		if (!htab__insert(&cu->procs, &p->node))
			return 0;
		copy_proc__free(p);
		return -ENOMEM;
	}
	/* The process's mappings changed: the new ones in its entry. */
	copy_proc__clear(old);
	old->maps = p->maps;
	old->n = p->n;
	free(p);
	return 0;
}

void copy_unwinder__forget(struct copy_unwinder *cu, int pid)
{
	struct copy_proc *p = copy__lookup(cu, pid);

	if (p) {
		htab__remove(&cu->procs, &p->node);
		copy_proc__free(p);
	}
}

int copy_unwinder__see(struct copy_unwinder *cu, int pid)
{
	struct proc_map *maps;
	uint64_t ts;
	size_t n;
	int err;

	if (proc_source_maps(pid, &maps, &n, &ts))
		return -ESRCH;
	err = copy_unwinder__set_maps(cu, pid, maps, n);
	proc_maps__free(maps, n);
	return err;
}

static struct copy_proc *copy__proc(struct copy_unwinder *cu, int pid)
{
	struct copy_proc *p = copy__lookup(cu, pid);

	if (!p)
		copy_unwinder__see(cu, pid);
	return p ? p : copy__lookup(cu, pid);
}

/*
 * The tables of @p's files as they are now: a table is freed when no live
 * process maps its file (lib/unwind/bpf_tables.c) and built again when a
 * late copy needs it, so a pointer kept from an earlier walk may be stale.
 */
static void copy__tables(struct copy_unwinder *cu, int pid, struct copy_proc *p)
{
	struct proc_map pm;
	size_t i;

	for (i = 0; i < p->n; i++) {
		struct unwind_map *um = &p->maps[i];

		um->table = NULL;
		if (!um->path)
			continue; /* anonymous code: no table; the [vdso]'s comes from its image */
		pm = (struct proc_map){ .start = um->start, .end = um->end, .pgoff = um->pgoff,
					.prot = PROC_MAP_R | PROC_MAP_X, .path = (char *)um->path };
		unwind_map__set_table(um, cu->src.table(cu->src.ctx, pid, &pm));
	}
}

/*
 * The rows a walk read leave memory again: the page cache maps a table
 * file in large folios, so a handful of lookups brought megabytes of it
 * back (libLLVM's 8 MiB for each clang met). Only the tables of the
 * mappings its frames are in were read (a lookup a frame): a madvise for
 * every table of the process after each walk was a syscall per mapping
 * per stack copy under churn, most for tables the walk never opened.
 */
static void copy__drop_read(const struct copy_proc *p, const struct unwind_frame *f, size_t n)
{
	const struct unwind_table *last = NULL, *t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = f[i].map >= 0 && (size_t)f[i].map < p->n ? p->maps[f[i].map].table : NULL;
		if (t && t != last)
			unwind_table__drop_pages(t);
		last = t ? t : last;
	}
}

enum unwind_stop copy_unwinder__walk(struct copy_unwinder *cu, int pid, const struct st_ucopy *c,
				     uint64_t *out, size_t max, size_t *n)
{
	struct copy_proc *p = copy__proc(cu, pid);
	struct unwind_regs regs = { .ip = c->ip, .sp = c->sp, .bp = c->bp };
	struct unwind_stack stack = { .base = c->sp, .data = (const uint8_t *)(c + 1),
				      .len = c->len };
	enum unwind_stop stop;
	size_t i;

	*n = 0;
	if (!p)
		return UNWIND_STOP_NO_MAPPING;
	/* A report: the frames the recorded walk found, and no table built for them. */
	if (copy_source_answer(pid, c, out, max, n, &stop))
		return stop;
	if (max > cu->cap) {
		struct unwind_frame *f = realloc(cu->frames, max * sizeof(*f));

		if (!f)
			return UNWIND_STOP_DEPTH;
		cu->frames = f;
		cu->cap = max;
	}
	copy__tables(cu, pid, p);
	stop = unwinder__walk_opts(p->maps, p->n, &regs, &stack, &cu->opts, cu->frames, max, n);
	copy__drop_read(p, cu->frames, *n);
	/* The BPF walker's marks (bpf/record.h): frame 0 is exact by position and unmarked. */
	for (i = 0; i < *n; i++)
		out[i] = cu->frames[i].addr | (i && cu->frames[i].exact ? ST_FRAME_EXACT : 0) |
			 (cu->frames[i].by_fp ? ST_FRAME_FP : 0);
	copy_source_walked(pid, c, out, *n, stop);
	return stop;
}

void copy_unwinder__free(struct copy_unwinder *cu)
{
	if (!cu)
		return;
	htab__drain(&cu->procs, copy_proc__drop);
	free(cu->frames);
	free(cu);
}
