/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack-copy door: the words of a copied user stack that the copy
 * unwinder reads. A copy is 1-64 KB of stack, of which a walk reads a few
 * words (a return address and a saved register or two per frame). Live, the
 * door reads the copy's bytes. `stacktap record` keeps no copy bytes: it
 * lets each walk read the copy and writes down the words it read, one entry
 * per walk; `stacktap report` answers each walk, in the same order, from
 * those words. A word the recorded walk did not read (a report that found a
 * file the recording could not read, and unwinds further) is a failed read:
 * the walk stops there, as at the end of a copy. The twin of the proc door
 * (lib/proc/source.h), one layer down.
 */
#ifndef ST_UNWIND_COPY_SOURCE_H
#define ST_UNWIND_COPY_SOURCE_H

#include "bpf/record.h"
#include "lib/unwind/unwinder.h"

struct copy_source_ops {
	/*
	 * A walk of @c, a copy of @pid's stack, begins: set @s->read and
	 * @s->ctx (left unset, the walk reads @s->data).
	 */
	void (*begin)(void *ctx, int pid, const struct st_ucopy *c, struct unwind_stack *s);
	/* That walk ended. */
	void (*end)(void *ctx, int pid, const struct st_ucopy *c);
	void *ctx;
};

/**
 * copy_source_set() - route the copy unwinder's reads through @ops (copied),
 * or back to the copies' own bytes with NULL.
 */
void copy_source_set(const struct copy_source_ops *ops);

/** copy_source_begin() - a walk of @c begins; the door may set @s's read hook. */
void copy_source_begin(int pid, const struct st_ucopy *c, struct unwind_stack *s);

/** copy_source_end() - the walk of @c ended. */
void copy_source_end(int pid, const struct st_ucopy *c);

#endif
