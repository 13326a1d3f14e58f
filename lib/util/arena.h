/* SPDX-License-Identifier: GPL-2.0 */
/* A bump arena: many small zeroed blocks that are all freed at once. */
#ifndef ST_ARENA_H
#define ST_ARENA_H

#include <stddef.h>

struct arena_chunk;

/*
 * Zero-initialised is empty. Blocks come from chunks that double in size
 * (64 KiB to 64 MiB), mapped whole: a report keeps millions of blocks, each
 * of which would otherwise be a malloc() and a free(). (Transparent huge
 * pages for the chunks were tried: no gain measurable on the loaded VM.)
 * Pages are faulted in ahead of use, 64 KiB per madvise(): a report
 * fills some hundred thousand pages, and taking a fault for each cost as
 * much as clearing them.
 */
struct arena {
	struct arena_chunk *chunks; /* newest first */
	char *at, *end;              /* the free part of the newest chunk */
	char *ready;                 /* its pages up to here are faulted in */
	size_t next_size;            /* the next chunk's size */
};

/**
 * arena__alloc() - @len zeroed bytes, 8-aligned, valid until arena__reset().
 *
 * Return: the block, or NULL (ENOMEM).
 */
void *arena__alloc(struct arena *a, size_t len);

/** arena__reset() - free every block; @a is empty again. */
void arena__reset(struct arena *a);

/**
 * arena__rewind() - free every block but keep the newest chunk, its used
 * bytes zeroed again, for the blocks to come: an arena filled with about as
 * much again and again (a batch) maps and faults in its pages once, not
 * each time. Pages of the chunk beyond this fill's are given back, so one
 * large fill (the batches of a report range from 1 to 33 MB) does not stay
 * resident.
 */
void arena__rewind(struct arena *a);

#endif
