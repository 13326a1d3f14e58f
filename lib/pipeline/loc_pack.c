// SPDX-License-Identifier: GPL-2.0
/* Settled frames' locations packed as varints (place number, bias), places kept once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pipeline/loc_pack.h"
#include "lib/util/grow.h"
#include "lib/util/htab.h"
#include "lib/util/varint.h"

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
	uint8_t *buf; /* loc_places__pack()'s scratch, buf_cap bytes */
	size_t buf_cap;
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

/*
 * The block, frame by frame: the place's number, then the frame's bias (its
 * run-time address less its offset: the same for every frame of one mapping
 * of one process) as the zigzag of its difference from the frame before's,
 * both varints. Numbers are small and a stack's frames fall in few mappings,
 * so a frame takes 2-3 bytes where (offset, number) took 12; the offset
 * comes back from the caller's address, bit for bit (wrapping arithmetic).
 */
void *loc_places__pack(struct loc_places *lp, const uint64_t *ips, const struct proc_loc *locs,
		       size_t n)
{
	uint64_t bias, prev = 0;
	uint8_t *at, *block;
	int64_t id = -1;
	size_t i;

	if (n > SIZE_MAX / (2 * VARINT_MAX) ||
	    array_reserve((void **)&lp->buf, &lp->buf_cap, n * 2 * VARINT_MAX + 1, 1))
		return NULL;
	at = lp->buf;
	for (i = 0; i < n; i++) {
		/* A stack's frames come in runs of one file: a run's place is looked up once. */
		if (!i || !place__same(&locs[i], &locs[i - 1]))
			id = places__id(lp, &locs[i]);
		if (id < 0)
			return NULL;
		bias = ips[i] - locs[i].file_off;
		at = varint_put(at, (uint64_t)id);
		at = varint_put(at, zigzag((int64_t)(bias - prev)));
		prev = bias;
	}
	block = malloc(at > lp->buf ? (size_t)(at - lp->buf) : 1);
	if (block)
		memcpy(block, lp->buf, (size_t)(at - lp->buf));
	return block;
}

void loc_places__unpack(const struct loc_places *lp, const void *packed, const uint64_t *ips,
			size_t n, struct proc_loc *out)
{
	const uint8_t *at = packed;
	uint64_t id, z, bias = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		at = varint_get(at, &id);
		at = varint_get(at, &z);
		bias += (uint64_t)unzigzag(z);
		out[i] = lp->v[id];
		out[i].file_off = ips[i] - bias;
	}
}

size_t loc_places__packed_len(const void *packed, size_t n)
{
	const uint8_t *at = packed;
	uint64_t skip;
	size_t i;

	for (i = 0; i < 2 * n; i++)
		at = varint_get(at, &skip);
	return (size_t)(at - (const uint8_t *)packed);
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
	free(lp->buf);
	free(lp);
}
