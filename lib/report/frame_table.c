// SPDX-License-Identifier: GPL-2.0
/* A report's distinct frames, each stored once and named by a 32-bit index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/frame_table.h"
#include "lib/util/grow.h"

/*
 * Why not the stack store: it keeps its own copy of every key, and here
 * the key is the frame the table already holds. The slots name frames by
 * index with a tag of their hash, so a probe reads a frame only when the
 * tags agree, and the frame is then compared whole.
 */
#define FRAME_FIRST_SLOTS 1024

int frame_table__init(struct frame_table *t)
{
	return frame_table__init_hashed(t, stack_hash);
}

int frame_table__init_hashed(struct frame_table *t, stack_hash_fn hash)
{
	memset(t, 0, sizeof(*t));
	t->slots = calloc(FRAME_FIRST_SLOTS, sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	t->nslots = FRAME_FIRST_SLOTS;
	t->hash = hash;
	return 0;
}

/* @f as the table keys it: every field, and zeroes in the padding, which is compared too. */
static void frame_table__key(const struct report_frame *f, struct report_frame *k)
{
	memset(k, 0, sizeof(*k));
	k->name = f->name;
	k->module = f->module;
	k->build_id = f->build_id;
	k->src_file = f->src_file;
	k->addr = f->addr;
	k->file_off = f->file_off;
	k->sym_off = f->sym_off;
	k->line = f->line;
	k->kind = f->kind;
	k->flags = f->flags;
}

/* The slot holding @k (hashed @h), or the free slot where it would go; @k NULL: the free one. */
static uint64_t *frame_table__probe(const struct frame_table *t, uint64_t *slots, size_t nslots,
				    uint64_t h, const struct report_frame *k)
{
	size_t mask = nslots - 1, i;

	for (i = h & mask; slots[i]; i = (i + 1) & mask)
		if (k && slots[i] >> 32 == h >> 32 &&
		    !memcmp(&t->v[(uint32_t)slots[i] - 1], k, sizeof(*k)))
			break;
	return &slots[i];
}

/* Twice the slots, every frame placed again. Return: 0 or -ENOMEM. */
static int frame_table__grow(struct frame_table *t)
{
	size_t ns = t->nslots * 2, i;
	uint64_t *s;

	if (ns > SIZE_MAX / sizeof(*s) || !(s = calloc(ns, sizeof(*s))))
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		uint64_t h = t->hash(&t->v[i], sizeof(t->v[i]));

		*frame_table__probe(t, s, ns, h, NULL) = (h >> 32 << 32) | (i + 1);
	}
	free(t->slots);
	t->slots = s;
	t->nslots = ns;
	return 0;
}

/* The index of key @k, hashed @h, added when new. Return: 0 or -ENOMEM. */
static int frame_table__index_key(struct frame_table *t, const struct report_frame *k, uint64_t h,
				  uint32_t *idx)
{
	uint64_t *slot = frame_table__probe(t, t->slots, t->nslots, h, k);

	if (!*slot) {
		if (t->n >= UINT32_MAX - 1 ||
		    array_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof(*k)))
			return -ENOMEM;
		if (2 * (t->n + 1) > t->nslots) {
			if (frame_table__grow(t))
				return -ENOMEM;
			slot = frame_table__probe(t, t->slots, t->nslots, h, NULL);
		}
		t->v[t->n++] = *k;
		*slot = (h >> 32 << 32) | t->n;
	}
	*idx = (uint32_t)*slot - 1;
	return 0;
}

int frame_table__index(struct frame_table *t, const struct report_frame *f, uint32_t *idx)
{
	struct report_frame k;

	frame_table__key(f, &k);
	return frame_table__index_key(t, &k, t->hash(&k, sizeof(k)), idx);
}

/*
 * A system-wide report's table outgrows the caches, and each lookup waits
 * on two misses, its slot and then its frame. One stack's frames are
 * looked up FRAME_BATCH at a time: every slot is asked for first, then
 * every frame the slots name, so the misses overlap instead of queuing.
 */
#define FRAME_BATCH 16

int frame_table__index_all(struct frame_table *t, const struct report_frame *f, size_t n,
			   uint32_t *idx)
{
	struct report_frame k[FRAME_BATCH];
	uint64_t h[FRAME_BATCH];
	size_t at, i, m;
	int err;

	for (at = 0; at < n; at += m) {
		m = n - at < FRAME_BATCH ? n - at : FRAME_BATCH;
		for (i = 0; i < m; i++) {
			frame_table__key(&f[at + i], &k[i]);
			h[i] = t->hash(&k[i], sizeof(k[i]));
			__builtin_prefetch(&t->slots[h[i] & (t->nslots - 1)]);
		}
		for (i = 0; i < m; i++) {
			uint64_t s = t->slots[h[i] & (t->nslots - 1)];

			if (s)
				__builtin_prefetch(&t->v[(uint32_t)s - 1]);
		}
		for (i = 0; i < m; i++)
			if ((err = frame_table__index_key(t, &k[i], h[i], &idx[at + i])))
				return err;
	}
	return 0;
}

void frame_table__clear(struct frame_table *t)
{
	if (t->slots)
		memset(t->slots, 0, t->nslots * sizeof(*t->slots));
	t->n = 0;
}

void frame_table__fini(struct frame_table *t)
{
	free(t->slots);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
