// SPDX-License-Identifier: GPL-2.0
/* A report's distinct frames, each stored once and named by a 32-bit index. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/frame_table.h"
#include "lib/stack/store.h"
#include "lib/util/grow.h"

/*
 * The frames a new stack brings are mostly those of stacks added just
 * before (the same threads' outer frames): a small direct-mapped memory of
 * them, checked against the table's copy field by field, spares most the
 * store's hash and its misses over a table of some hundred thousand frames.
 */
#define FRAME_RECENT 65536 /* a power of two; 256 KiB */

int frame_table__init(struct frame_table *t)
{
	memset(t, 0, sizeof(*t));
	t->ids = stack_store__new();
	t->recent = calloc(FRAME_RECENT, sizeof(*t->recent));
	if (!t->ids || !t->recent) {
		frame_table__fini(t);
		return -ENOMEM;
	}
	return 0;
}

/* @f as the table keys it: every field, and zeroes in the padding, which the store compares too. */
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

static uint32_t *frame_table__recent(struct frame_table *t, const struct report_frame *k)
{
	uint64_t h = ((uintptr_t)k->name ^ k->addr * 0xff51afd7ed558ccdull) * 0x9e3779b97f4a7c15ull;

	return &t->recent[(h >> 40) & (FRAME_RECENT - 1)];
}

int frame_table__index(struct frame_table *t, const struct report_frame *f, uint32_t *idx)
{
	struct report_frame k;
	struct stack_entry *e;
	uint32_t *recent;

	frame_table__key(f, &k);
	recent = frame_table__recent(t, &k);
	if (*recent && !memcmp(&t->v[*recent - 1], &k, sizeof(k))) {
		*idx = *recent - 1;
		return 0;
	}
	e = stack_store__add(t->ids, &k, sizeof(k), 0);
	if (!e)
		return -ENOMEM;
	if (!e->data) {
		if (t->n >= UINT32_MAX ||
		    array_reserve((void **)&t->v, &t->cap, t->n + 1, sizeof(k)))
			return -ENOMEM;
		t->v[t->n++] = k;
		e->data = (void *)(uintptr_t)t->n;
	}
	*recent = (uint32_t)(uintptr_t)e->data;
	*idx = *recent - 1;
	return 0;
}

void frame_table__clear(struct frame_table *t)
{
	stack_store__clear(t->ids);
	memset(t->recent, 0, FRAME_RECENT * sizeof(*t->recent));
	t->n = 0;
}

void frame_table__fini(struct frame_table *t)
{
	stack_store__free(t->ids);
	free(t->recent);
	free(t->v);
	memset(t, 0, sizeof(*t));
}
