// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's answers at the stack-copy door (lib/unwind/copy_source.h):
 * each walk of a copy gets the frames and stop reason the recorded walk
 * found, walk by walk in recorded order, and no table is built for it. A
 * recording of format 2.0 keeps no copy bytes; a walk the recording has no
 * answer for (damage) gets no frames, as a copy that could not be read.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/replay_internal.h"
#include "lib/unwind/copy_source.h"

struct rp_walk {
	struct rp_walk *next;
	struct rec_copy_walk w;
	uint64_t frames[];
};

int rp_stash_copy_walk(struct replay *rp, const struct rec_copy_walk *cw, const void *frames,
		       size_t len)
{
	struct rp_walk *w;

	if (cw->n > ST_MAX_USTACK || cw->stop >= UNWIND_STOP_MAX || len != cw->n * 8ull)
		return -EBADMSG;
	w = malloc(sizeof(*w) + len);
	if (!w)
		return -ENOMEM;
	w->next = NULL;
	w->w = *cw;
	memcpy(w->frames, frames, len);
	if (rp->walk_tail)
		rp->walk_tail->next = w;
	else
		rp->walk_head = w;
	rp->walk_tail = w;
	return 0;
}

static bool copy__answer(void *ctx, int pid, const struct st_ucopy *c, uint64_t *out, size_t max,
			 size_t *n, enum unwind_stop *stop)
{
	struct replay *rp = ctx;
	struct rp_walk *w = rp->walk_head;

	*n = 0;
	*stop = UNWIND_STOP_OUTSIDE;
	if (!w) {
		rp->counts.walks_missing++;
		return true;
	}
	rp->walk_head = w->next;
	if (!rp->walk_head)
		rp->walk_tail = NULL;
	if (w->w.pid != (uint32_t)pid || w->w.sp != c->sp || w->w.n > max) {
		rp->counts.walks_mismatch++;
		free(w);
		return true;
	}
	*n = w->w.n;
	*stop = w->w.stop;
	memcpy(out, w->frames, *n * sizeof(*out));
	free(w);
	return true;
}

void rp_copy__install(struct replay *rp)
{
	if (rp->sparse_copies)
		copy_source_set(&(struct copy_source_ops){ .answer = copy__answer, .ctx = rp });
}

void rp_copy__uninstall(void)
{
	copy_source_set(NULL);
}

void rp_copy__free(struct replay *rp)
{
	struct rp_walk *w, *next;

	for (w = rp->walk_head; w; w = next) {
		next = w->next;
		free(w);
	}
	rp->walk_head = rp->walk_tail = NULL;
}
