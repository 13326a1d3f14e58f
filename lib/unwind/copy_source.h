/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack-copy door: what a walk of a copied user stack found. A copy is
 * 1-64 KB of stack plus registers; the copy unwinder turns it into frames
 * (addresses with the walker's marks) and a stop reason, using the unwind
 * tables of the files the process maps. Live, the door is shut and the walk
 * runs. `stacktap record` writes down each walk's frames and stop, and
 * keeps none of the copy's bytes; `stacktap report` answers each walk, in
 * the same order, with them, and builds no table: the frames are those the
 * live command printed, whatever files the report's machine has (they are
 * named later, by build ID and offset, like the BPF walker's frames). The
 * twin of the proc door (lib/proc/source.h), one layer down.
 */
#ifndef ST_UNWIND_COPY_SOURCE_H
#define ST_UNWIND_COPY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/unwind/unwinder.h"

struct copy_source_ops {
	/*
	 * Answer the walk of @c, a copy of @pid's stack, without walking: true
	 * with @out[0 .. *n) (at most @max) and *stop set. NULL or false: walk.
	 */
	bool (*answer)(void *ctx, int pid, const struct st_ucopy *c, uint64_t *out, size_t max,
		       size_t *n, enum unwind_stop *stop);
	/* The walk of @c found @out[0 .. @n) and stopped for @stop. */
	void (*walked)(void *ctx, int pid, const struct st_ucopy *c, const uint64_t *out,
		       size_t n, enum unwind_stop stop);
	void *ctx;
};

/**
 * copy_source_set() - route the copy unwinder's walks through @ops (copied),
 * or back to walking every copy with NULL.
 */
void copy_source_set(const struct copy_source_ops *ops);

/**
 * copy_source_answer() - the door's answer for the walk of @c.
 *
 * Return: true with @out[0 .. *n) and *stop set, false when the copy must be walked.
 */
bool copy_source_answer(int pid, const struct st_ucopy *c, uint64_t *out, size_t max, size_t *n,
			enum unwind_stop *stop);

/** copy_source_walked() - tell the door what the walk of @c found. */
void copy_source_walked(int pid, const struct st_ucopy *c, const uint64_t *out, size_t n,
			enum unwind_stop stop);

#endif
