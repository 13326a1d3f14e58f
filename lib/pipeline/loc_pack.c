// SPDX-License-Identifier: GPL-2.0
/* Settled frames' locations packed as (offset, place number), places kept once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pipeline/loc_pack.h"
#include "lib/util/grow.h"
#include "lib/util/htab.h"

/* A place: a proc_loc without its offset. Its number is its index in loc_places.v. */
struct loc_place {
	struct hnode node; /* (path, file and flags): a hash, the fields compared in full */
	uint32_t id;
};

struct loc_places {
	struct proc_registry *procs; /* holds each place's file model, or NULL */
	struct htab index;
	struct proc_loc *v; /* by place number, file_off 0 */
	size_t n, cap;
};

struct loc_places *loc_places__new(struct proc_registry *procs)
{
	struct loc_places *lp = calloc(1, sizeof(struct loc_places));

	if (lp)
		lp->procs = procs;
	return lp;
}

static bool place__same(const struct proc_loc *a, const struct proc_loc *b)
{
	return a->path == b->path && a->file == b->file && a->file_backed == b->file_backed &&
	       a->why == b->why;
}

/* Return: @loc's place number, added when new; -1 when out of memory. */
static int64_t places__id(struct loc_places *lp, const struct proc_loc *loc)
{
	uint64_t k1 = (uint64_t)(uintptr_t)loc->path;
	uint64_t k2 = (uint64_t)(uintptr_t)loc->file ^ ((uint64_t)loc->why << 1) ^ loc->file_backed;
	struct hnode *n;
	struct loc_place *p;

	for (n = htab__first(&lp->index, k1, k2); n; n = hnode__next_same(n))
		if (place__same(&lp->v[((struct loc_place *)n)->id], loc))
			return ((struct loc_place *)n)->id;
	if (lp->n >= UINT32_MAX || array_reserve((void **)&lp->v, &lp->cap, lp->n + 1, sizeof(*lp->v)))
		return -1;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	p->node.k1 = k1;
	p->node.k2 = k2;
	p->id = (uint32_t)lp->n;
	if (htab__insert(&lp->index, &p->node)) {
		free(p);
		return -1;
	}
	lp->v[lp->n] = *loc;
	lp->v[lp->n].file_off = 0;
	/*
	 * Settled stacks are named at the report, long after their processes
	 * were forgotten: a place's file model stays open until the end. Never
	 * put: places are dropped only with the run, the registry's cache first.
	 */
	if (lp->procs)
		procs__hold_file(lp->procs, loc->file);
	return (int64_t)lp->n++;
}

/* The block: n offsets, then n place numbers. */
void *loc_places__pack(struct loc_places *lp, const struct proc_loc *locs, size_t n)
{
	size_t size = n * (sizeof(uint64_t) + sizeof(uint32_t));
	uint64_t *offs;
	uint32_t *ids;
	int64_t id;
	size_t i;

	if (n > SIZE_MAX / (sizeof(uint64_t) + sizeof(uint32_t)) - 1)
		return NULL;
	offs = malloc(size ? size : 1);
	if (!offs)
		return NULL;
	ids = (uint32_t *)(offs + n);
	for (i = 0; i < n; i++) {
		id = places__id(lp, &locs[i]);
		if (id < 0) {
			free(offs);
			return NULL;
		}
		offs[i] = locs[i].file_off;
		ids[i] = (uint32_t)id;
	}
	return offs;
}

void loc_places__unpack(const struct loc_places *lp, const void *packed, size_t n,
			struct proc_loc *out)
{
	const uint64_t *offs = packed;
	const uint32_t *ids = (const uint32_t *)(offs + n);
	size_t i;

	for (i = 0; i < n; i++) {
		out[i] = lp->v[ids[i]];
		out[i].file_off = offs[i];
	}
}

size_t loc_places__len(const struct loc_places *lp)
{
	return lp->n;
}

static void place__free(struct hnode *n)
{
	free(n);
}

void loc_places__free(struct loc_places *lp)
{
	if (!lp)
		return;
	htab__drain(&lp->index, place__free);
	free(lp->v);
	free(lp);
}
