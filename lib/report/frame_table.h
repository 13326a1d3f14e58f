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

struct frame_table {
	struct report_frame *v; /* by index; moves as it grows */
	size_t n, cap;
	struct stack_store *ids; /* a frame's bytes, padding zeroed -> its index + 1 */
	uint32_t *recent;        /* direct-mapped: index + 1 of a frame seen lately, 0 */
};

/** frame_table__init() - an empty table in @t. Return: 0 or -ENOMEM. */
int frame_table__init(struct frame_table *t);

/**
 * frame_table__index() - the index of @f (its strings interned), added when new.
 *
 * Return: 0, or -ENOMEM (also past 2^32 frames).
 */
int frame_table__index(struct frame_table *t, const struct report_frame *f, uint32_t *idx);

/** frame_table__clear() - forget every frame. */
void frame_table__clear(struct frame_table *t);

/** frame_table__fini() - free what @t holds; a zeroed or failed @t is fine. */
void frame_table__fini(struct frame_table *t);

#endif
