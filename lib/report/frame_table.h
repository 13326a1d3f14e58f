/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A report's table of distinct frames: each frame stored once, named by a
 * 32-bit index. Two frames are one entry only when every field is equal
 * (strings compared by pointer: the report interns them first).
 */
#ifndef ST_REPORT_FRAME_TABLE_H
#define ST_REPORT_FRAME_TABLE_H

#include <stdint.h>

#include "lib/report/report.h"
#include "lib/stack/store.h"

struct frame_table {
	struct report_frame *v; /* by index; moves as it grows */
	size_t n, cap;
	uint64_t *slots; /* open addressing: hash tag << 32 | index + 1; 0 is free */
	size_t nslots;   /* a power of two, at most half full */
	stack_hash_fn hash;
};

/** frame_table__init() - an empty table in @t. Return: 0 or -ENOMEM. */
int frame_table__init(struct frame_table *t);

/**
 * frame_table__init_hashed() - with its own @hash: tests force every frame
 * onto one hash to prove that only equal frames share an index.
 *
 * Return: 0 or -ENOMEM.
 */
int frame_table__init_hashed(struct frame_table *t, stack_hash_fn hash);

/**
 * frame_table__index() - the index of @f (its strings interned), added when new.
 *
 * Return: 0, or -ENOMEM (also past 2^32 - 1 frames).
 */
int frame_table__index(struct frame_table *t, const struct report_frame *f, uint32_t *idx);

/**
 * frame_table__index_all() - frame_table__index() of each of the @n frames
 * @f into @idx, faster than one at a time on a table larger than the caches.
 *
 * Return: 0, or -ENOMEM (@idx then partly filled).
 */
int frame_table__index_all(struct frame_table *t, const struct report_frame *f, size_t n,
			   uint32_t *idx);

/** frame_table__clear() - forget every frame. */
void frame_table__clear(struct frame_table *t);

/** frame_table__fini() - free what @t holds; a zeroed or failed @t is fine. */
void frame_table__fini(struct frame_table *t);

#endif
