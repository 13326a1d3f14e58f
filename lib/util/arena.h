/* SPDX-License-Identifier: GPL-2.0 */
/* A bump arena: many small zeroed blocks that are all freed at once. */
#ifndef ST_ARENA_H
#define ST_ARENA_H

#include <stddef.h>

struct arena_chunk;

/*
 * Zero-initialised is empty. Blocks come from chunks that double in size
 * (64 KiB to 64 MiB) and are mapped with transparent huge pages allowed:
 * a report keeps millions of blocks, each of which would otherwise be a
 * malloc(), a free() and, on first touch, a page fault per 4 KiB.
 */
struct arena {
	struct arena_chunk *chunks; /* newest first */
	char *at, *end;              /* the free part of the newest chunk */
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

#endif
