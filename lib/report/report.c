// SPDX-License-Identifier: GPL-2.0
/* The report model: symbolized stacks merged by full text. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/report.h"
#include "lib/stack/store.h"

struct report {
	bool by_pid;
	struct stack_store *index; /* key: serialized stack text -> report_stack */
	struct report_stack **sorted;
};

struct report *report__new(bool by_pid)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->by_pid = by_pid;
	r->index = stack_store__new();
	if (!r->index) {
		free(r);
		return NULL;
	}
	return r;
}

/*
 * The merge key: [pid][nk][nu] then every frame with its NUL. Sizes are part
 * of the key so "k1 | u1" and "k1 u1 |" never collide.
 */
static char *report__key(int pid, const char *comm, const char *const *frames, size_t nk,
			 size_t nu, size_t *len)
{
	size_t i, n = 3 * sizeof(uint64_t) + ST_COMM_LEN, off;
	uint64_t head[3] = { (uint64_t)pid, nk, nu };
	char *key;

	for (i = 0; i < nk + nu; i++)
		n += strlen(frames[i]) + 1;
	key = calloc(1, n);
	if (!key)
		return NULL;
	memcpy(key, head, sizeof(head));
	off = sizeof(head);
	if (pid)
		strncpy(key + off, comm, ST_COMM_LEN - 1);
	off += ST_COMM_LEN;
	for (i = 0; i < nk + nu; i++) {
		size_t l = strlen(frames[i]) + 1;

		memcpy(key + off, frames[i], l);
		off += l;
	}
	*len = n;
	return key;
}

static struct report_stack *report__stack_new(int pid, const char *comm,
					      const char *const *frames, size_t nk, size_t nu)
{
	struct report_stack *s = calloc(1, sizeof(*s));
	size_t i;

	if (!s)
		return NULL;
	s->frames = calloc(nk + nu + 1, sizeof(char *));
	if (!s->frames) {
		free(s);
		return NULL;
	}
	for (i = 0; i < nk + nu; i++) {
		s->frames[i] = strdup(frames[i]);
		if (!s->frames[i])
			goto err_free;
	}
	s->pid = pid;
	strncpy(s->comm, comm, ST_COMM_LEN - 1);
	s->nk = nk;
	s->nu = nu;
	return s;
err_free:
	while (i--)
		free(s->frames[i]);
	free(s->frames);
	free(s);
	return NULL;
}

int report__add(struct report *r, int pid, const char *comm, const char *const *frames,
		size_t nk, size_t nu, uint64_t count, uint64_t weight, unsigned flags)
{
	struct stack_entry *e;
	size_t len;
	char *key;

	if (!r->by_pid)
		pid = 0;
	key = report__key(pid, comm, frames, nk, nu, &len);
	if (!key)
		return -ENOMEM;
	e = stack_store__merge(r->index, key, len, count, weight);
	free(key);
	if (!e)
		return -ENOMEM;
	if (!e->data) {
		e->data = report__stack_new(pid, comm, frames, nk, nu);
		if (!e->data)
			return -ENOMEM;
	}
	((struct report_stack *)e->data)->count = e->count;
	((struct report_stack *)e->data)->weight = e->weight;
	((struct report_stack *)e->data)->flags |= flags;
	return 0;
}

static int report__cmp_frames(const struct report_stack *a, const struct report_stack *b)
{
	size_t i, n = a->nk + a->nu < b->nk + b->nu ? a->nk + a->nu : b->nk + b->nu;
	int c;

	for (i = 0; i < n; i++) {
		c = strcmp(a->frames[i], b->frames[i]);
		if (c)
			return c;
	}
	if (a->nk + a->nu != b->nk + b->nu)
		return a->nk + a->nu < b->nk + b->nu ? -1 : 1;
	return a->pid - b->pid;
}

static int report__cmp(const void *pa, const void *pb)
{
	const struct report_stack *a = *(struct report_stack *const *)pa;
	const struct report_stack *b = *(struct report_stack *const *)pb;

	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight < b->weight ? -1 : 1;
	return report__cmp_frames(a, b);
}

struct report_stack **report__sorted(struct report *r, size_t *n)
{
	struct stack_entry **e = stack_store__entries(r->index);
	size_t i;

	*n = stack_store__len(r->index);
	free(r->sorted);
	r->sorted = NULL;
	if (!e)
		return NULL;
	r->sorted = malloc(*n * sizeof(*r->sorted));
	if (r->sorted) {
		for (i = 0; i < *n; i++)
			r->sorted[i] = e[i]->data;
		qsort(r->sorted, *n, sizeof(*r->sorted), report__cmp);
	}
	free(e);
	if (!r->sorted)
		*n = 0;
	return r->sorted;
}

static void report__free_stacks(struct report *r)
{
	struct stack_entry **e = stack_store__entries(r->index);
	size_t i, j, n = stack_store__len(r->index);

	for (i = 0; e && i < n; i++) {
		struct report_stack *s = e[i]->data;

		for (j = 0; s && j < s->nk + s->nu; j++)
			free(s->frames[j]);
		if (s)
			free(s->frames);
		free(s);
	}
	free(e);
}

void report__clear(struct report *r)
{
	report__free_stacks(r);
	stack_store__clear(r->index);
	free(r->sorted);
	r->sorted = NULL;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	report__clear(r);
	stack_store__free(r->index);
	free(r);
}
