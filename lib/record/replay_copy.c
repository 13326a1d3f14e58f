// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's answers at the stack-copy door (lib/unwind/copy_source.h):
 * each walk of a copy gets the words the recorded walk read, walk by walk
 * in recorded order. A recording of format 2.0 keeps no copy bytes, so a
 * word not recorded is a failed read, never the zeros the record was
 * padded with.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/replay_internal.h"
#include "lib/unwind/copy_source.h"

struct rp_walk {
	struct rp_walk *next;
	uint32_t pid, n, cursor;
	uint64_t sp;
	uint32_t *offs;
	uint64_t vals[];
};

int rp_stash_copy_read(struct replay *rp, const struct rec_copy_read *cr, const void *words,
		       size_t len)
{
	struct rp_walk *w;

	if (cr->n > REC_COPY_READ_MAX || len != cr->n * 12ull)
		return -EBADMSG;
	w = malloc(sizeof(*w) + len);
	if (!w)
		return -ENOMEM;
	*w = (struct rp_walk){ .pid = cr->pid, .n = cr->n, .sp = cr->sp };
	memcpy(w->vals, words, len);
	w->offs = (uint32_t *)(w->vals + w->n);
	if (rp->walk_tail)
		rp->walk_tail->next = w;
	else
		rp->walk_head = w;
	rp->walk_tail = w;
	return 0;
}

/* The walk reads as it read when recorded: the next word is most often the next one written. */
static bool copy__word(void *ctx, uint64_t off, uint64_t *v)
{
	struct rp_walk *w = ctx;
	uint32_t i;

	if (w->cursor < w->n && w->offs[w->cursor] == off) {
		*v = w->vals[w->cursor++];
		return true;
	}
	for (i = 0; i < w->n; i++)
		if (w->offs[i] == off) {
			*v = w->vals[i];
			return true;
		}
	return false;
}

static bool copy__none(void *ctx, uint64_t off, uint64_t *v)
{
	return false;
}

static void copy__begin(void *ctx, int pid, const struct st_ucopy *c, struct unwind_stack *s)
{
	struct replay *rp = ctx;
	struct rp_walk *w = rp->walk_head;

	free(rp->walk_cur);
	rp->walk_cur = NULL;
	s->read = copy__none;
	s->ctx = NULL;
	if (!w) {
		rp->counts.walks_missing++;
		return;
	}
	rp->walk_head = w->next;
	if (!rp->walk_head)
		rp->walk_tail = NULL;
	rp->walk_cur = w;
	if (w->pid != (uint32_t)pid || w->sp != c->sp) {
		rp->counts.walks_mismatch++;
		return;
	}
	s->read = copy__word;
	s->ctx = w;
}

static void copy__end(void *ctx, int pid, const struct st_ucopy *c)
{
	struct replay *rp = ctx;

	free(rp->walk_cur);
	rp->walk_cur = NULL;
}

void rp_copy__install(struct replay *rp)
{
	if (rp->sparse_copies)
		copy_source_set(&(struct copy_source_ops){
			.begin = copy__begin, .end = copy__end, .ctx = rp });
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
	free(rp->walk_cur);
	rp->walk_cur = NULL;
}
