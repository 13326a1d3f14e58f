// SPDX-License-Identifier: GPL-2.0
/* The exits waiting in the pump's queue, looked up by pid and time. */
#include <errno.h>
#include <stdlib.h>

#include "bpf/record.h"
#include "lib/session/exits_ahead.h"
#include "lib/util/grow.h"

void exits_ahead__clear(struct exits_ahead *ea)
{
	ea->n = 0;
}

int exits_ahead__note(void *ctx, void *data, size_t size)
{
	const struct st_proc_event *pe = data;
	struct exits_ahead *ea = ctx;

	if (size < offsetof(struct st_proc_event, comps) || pe->kind != ST_REC_PROC ||
	    pe->what != ST_PROC_EXIT)
		return 0;
	if (array_reserve((void **)&ea->v, &ea->cap, ea->n + 1, sizeof(*ea->v)))
		return -ENOMEM;
	ea->v[ea->n++] = (struct exit_ahead){ .pid = (int)pe->pid, .ts = pe->ts };
	return 0;
}

static int exit__cmp(const void *a, const void *b)
{
	const struct exit_ahead *x = a, *y = b;

	if (x->pid != y->pid)
		return (x->pid > y->pid) - (x->pid < y->pid);
	return (x->ts > y->ts) - (x->ts < y->ts);
}

void exits_ahead__seal(struct exits_ahead *ea)
{
	if (ea->n > 1)
		qsort(ea->v, ea->n, sizeof(*ea->v), exit__cmp);
}

bool exits_ahead__has(const struct exits_ahead *ea, int pid, uint64_t ts)
{
	size_t lo = 0, hi = ea->n, mid;

	/* The first exit of @pid at or after @ts: the last of its exits suffices to say. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ea->v[mid].pid < pid || (ea->v[mid].pid == pid && ea->v[mid].ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ea->n && ea->v[lo].pid == pid;
}

void exits_ahead__free(struct exits_ahead *ea)
{
	free(ea->v);
	*ea = (struct exits_ahead){};
}
