// SPDX-License-Identifier: GPL-2.0
/* Perf maps per process: read at first sight, refreshed, kept after exit. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/sym/jit_maps.h"
#include "lib/sym/perf_map.h"
#include "lib/sym/perf_map_src.h"
#include "lib/util/htab.h"

/*
 * Root fds kept open at once: enough for every JIT process a machine runs;
 * past it a map is read by path while its process lives (an fd each would
 * otherwise grow with every short-lived process of a long system-wide run).
 */
#define JIT_ROOTS_MAX 256
/* A lookup that misses re-checks the file at most this often (ns). */
#define JIT_RECHECK_NS 100000000ull

struct jit_proc {
	struct hnode node; /* (pid, 0) */
	struct perf_map_src src;
	bool exited, refused;
	bool recorded;     /* set from a recording: /proc is never asked */
	bool kept;         /* a settled stack names code of it through it (jit_maps__keep()) */
	struct perf_map *map, *prev; /* prev: the map of an earlier process with this pid */
	struct stat last;  /* of the file last read (size and mtime say when it changed) */
	uint64_t checked;  /* CLOCK_MONOTONIC ns of the last check after a miss */
};

struct jit_maps {
	struct htab procs;
	size_t nroots;
	bool recorded_only; /* a replay: maps come from the recording only */
	struct jit_maps_stats stats;
};

static uint64_t jit__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct jit_maps *jit_maps__new(void)
{
	return calloc(1, sizeof(struct jit_maps));
}

static struct jit_proc *jit__lookup(const struct jit_maps *jm, int pid)
{
	return (struct jit_proc *)htab__first(&jm->procs, (uint64_t)pid, 0);
}

/* Reads @p's map when its file is new or changed since the last read. */
static void jit__load(struct jit_maps *jm, struct jit_proc *p)
{
	struct perf_map *pm;
	char name[128];
	struct stat st;
	int fd;

	if (p->refused)
		return;
	fd = perf_map_src__open(&p->src, p->exited, name, sizeof(name));
	if (fd < 0)
		return; /* no JIT, or it has not written yet */
	if (fstat(fd, &st) || (p->map && perf_map_src__unchanged(&st, &p->last))) {
		close(fd);
		return;
	}
	pm = perf_map__read_fd(fd, name, p->src.uid, 0);
	if (!pm && (errno == EPERM || errno == EINVAL)) {
		p->refused = true; /* perf_map__read_fd() said why, once */
		jm->stats.refused++;
	}
	close(fd);
	if (!pm)
		return;
	jm->stats.maps_read++;
	perf_map__free(p->map);
	p->map = pm;
	p->last = st;
}

static void jit__close_root(struct jit_maps *jm, struct jit_proc *p)
{
	if (p->src.root_fd < 0)
		return;
	perf_map_src__close_root(&p->src);
	jm->nroots--;
}

/*
 * @p as a new process: its identity, its root, its map. One gone already
 * (nothing to read, nothing trusted) is exited: no exit will come to say
 * so, and jit_maps__forget() would keep it for good.
 */
static void jit__begin(struct jit_maps *jm, struct jit_proc *p)
{
	p->exited = p->refused = false;
	memset(&p->last, 0, sizeof(p->last));
	if (perf_map_src__init(&p->src, p->src.pid, jm->nroots < JIT_ROOTS_MAX)) {
		p->exited = true;
		return;
	}
	if (p->src.root_fd >= 0)
		jm->nroots++;
	jit__load(jm, p);
}

/* A new entry for @pid, not read yet. */
static struct jit_proc *jit__add(struct jit_maps *jm, int pid)
{
	struct jit_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->node.k1 = (uint64_t)pid;
	p->src.pid = pid;
	p->src.root_fd = -1;
	if (htab__insert(&jm->procs, &p->node)) {
		free(p);
		return NULL;
	}
	jm->stats.held++;
	return p;
}

void jit_maps__recorded_only(struct jit_maps *jm)
{
	jm->recorded_only = true;
}

void jit_maps__see(struct jit_maps *jm, int pid)
{
	struct jit_proc *p = jit__lookup(jm, pid);

	if (pid <= 0 || jm->recorded_only || (p && (!p->exited || p->recorded)))
		return;
	if (p) {
		/* The pid names another process now; the old map stays for the old events. */
		perf_map__free(p->prev);
		p->prev = p->map;
		p->map = NULL;
		jit__begin(jm, p);
		return;
	}
	p = jit__add(jm, pid);
	if (p)
		jit__begin(jm, p);
}

int jit_maps__set(struct jit_maps *jm, int pid, struct perf_map *pm)
{
	struct jit_proc *p = jit__lookup(jm, pid);

	if (!p && !(p = jit__add(jm, pid))) {
		perf_map__free(pm);
		return -ENOMEM;
	}
	jit__close_root(jm, p);
	perf_map__free(p->map);
	p->map = pm;
	p->exited = p->refused = p->recorded = true; /* nothing to read: the map is what it is */
	return 0;
}

void jit_maps__exited(struct jit_maps *jm, int pid)
{
	struct jit_proc *p = jit__lookup(jm, pid);

	if (!p || p->exited)
		return;
	jit__load(jm, p); /* the last lines the JIT wrote */
	p->exited = true;
	jit__close_root(jm, p);
}

void jit_maps__keep(struct jit_maps *jm, int pid)
{
	struct jit_proc *p = jit__lookup(jm, pid);

	if (p)
		p->kept = true;
}

static void jit__free_proc(struct hnode *n)
{
	struct jit_proc *p = (struct jit_proc *)n;

	perf_map_src__close_root(&p->src);
	perf_map__free(p->map);
	perf_map__free(p->prev);
	free(p);
}

/*
 * Frees @p when it says no more than "gone, no map". Not yet exited: its
 * exit was never heard, and it is kept as before. Without a map, an entry
 * only said "no map": a lookup for a pid without an entry sees it anew, as
 * the next process of that pid. Return: whether it went.
 */
static bool jit__drop_empty(struct jit_maps *jm, struct jit_proc *p)
{
	if (!p->exited || p->kept || p->map || p->prev)
		return false;
	htab__remove(&jm->procs, &p->node);
	jit__free_proc(&p->node);
	jm->stats.held--;
	jm->stats.dropped++;
	return true;
}

void jit_maps__forget(struct jit_maps *jm, int pid)
{
	struct jit_proc *p = jit__lookup(jm, pid);

	if (p)
		jit__drop_empty(jm, p);
}

void jit_maps__refresh(struct jit_maps *jm)
{
	struct hnode *n;
	size_t b;

	for (b = 0; b < jm->procs.nb; b++)
		for (n = jm->procs.b[b]; n; n = n->next)
			jit__load(jm, (struct jit_proc *)n);
}

const struct perf_map_sym *jit_maps__find(struct jit_maps *jm, int pid, uint64_t addr)
{
	struct jit_proc *p = jit__lookup(jm, pid);
	const struct perf_map_sym *s;
	uint64_t now;

	if (!p) {
		/*
		 * A pid with no entry: one the registry forgot (a settled
		 * stack named at the output) or never knew. Gone with no map,
		 * what the look made goes too: no forget comes for it any more.
		 */
		jit_maps__see(jm, pid);
		p = jit__lookup(jm, pid);
		if (!p || jit__drop_empty(jm, p))
			return NULL;
	}
	s = p->map ? perf_map__find(p->map, addr) : NULL;
	if (!s && !p->exited && (now = jit__now()) - p->checked >= JIT_RECHECK_NS) {
		p->checked = now;
		jit__load(jm, p);
		s = p->map ? perf_map__find(p->map, addr) : NULL;
	}
	if (!s && p->prev)
		s = perf_map__find(p->prev, addr);
	return s;
}

const struct jit_maps_stats *jit_maps__stats(const struct jit_maps *jm)
{
	return &jm->stats;
}

void jit_maps__free(struct jit_maps *jm)
{
	if (!jm)
		return;
	htab__drain(&jm->procs, jit__free_proc);
	free(jm);
}
