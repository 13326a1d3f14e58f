// SPDX-License-Identifier: GPL-2.0
/* A set of pids: a sorted copy of a list, searched by bisection. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/pid_set.h"

static int pid__cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

int pid_set__init(struct pid_set *s, const int *pids, size_t n)
{
	*s = (struct pid_set){};
	if (!n)
		return 0;
	s->pids = malloc(n * sizeof(*s->pids));
	if (!s->pids)
		return -ENOMEM;
	memcpy(s->pids, pids, n * sizeof(*s->pids));
	qsort(s->pids, n, sizeof(*s->pids), pid__cmp);
	s->n = n;
	return 0;
}

bool pid_set__has(const struct pid_set *s, int pid)
{
	return s->n && bsearch(&pid, s->pids, s->n, sizeof(pid), pid__cmp);
}

void pid_set__free(struct pid_set *s)
{
	free(s->pids);
	*s = (struct pid_set){};
}
