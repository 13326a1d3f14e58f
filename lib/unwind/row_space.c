// SPDX-License-Identifier: GPL-2.0
/* Free space of the BPF row table: first-fit ranges, merged when freed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/row_space.h"

int row_space__init(struct row_space *s, uint32_t total)
{
	memset(s, 0, sizeof(*s));
	s->total = total;
	if (!total)
		return 0;
	s->free = malloc(sizeof(*s->free));
	if (!s->free)
		return -ENOMEM;
	s->free[0] = (struct row_range){ .first = 0, .n = total };
	s->nfree = s->cap = 1;
	return 0;
}

int row_space__alloc(struct row_space *s, uint32_t n, uint32_t *first)
{
	size_t i;

	if (!n)
		return -ENOSPC;
	for (i = 0; i < s->nfree; i++) {
		struct row_range *r = &s->free[i];

		if (r->n < n)
			continue;
		*first = r->first;
		r->first += n;
		r->n -= n;
		if (!r->n) {
			memmove(r, r + 1, (s->nfree - i - 1) * sizeof(*r));
			s->nfree--;
		}
		s->used += n;
		return 0;
	}
	return -ENOSPC;
}

/* Index of the first free range starting after @first. */
static size_t space__after(const struct row_space *s, uint32_t first)
{
	size_t lo = 0, hi = s->nfree;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->free[mid].first <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int space__insert(struct row_space *s, size_t at, uint32_t first, uint32_t n)
{
	if (s->nfree == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct row_range *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(s->free, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->free = v;
		s->cap = cap;
	}
	memmove(&s->free[at + 1], &s->free[at], (s->nfree - at) * sizeof(*s->free));
	s->free[at] = (struct row_range){ .first = first, .n = n };
	s->nfree++;
	return 0;
}

int row_space__free(struct row_space *s, uint32_t first, uint32_t n)
{
	size_t at;
	struct row_range *prev, *next;
	uint64_t end = (uint64_t)first + n;

	if (!n || end > s->total)
		return -EINVAL;
	at = space__after(s, first);
	prev = at ? &s->free[at - 1] : NULL;
	next = at < s->nfree ? &s->free[at] : NULL;
	/* Overlapping a free range: not taken, a caller's bug; refuse rather than corrupt. */
	if ((prev && (uint64_t)prev->first + prev->n > first) || (next && next->first < end))
		return -EINVAL;
	s->used -= n;
	if (prev && prev->first + prev->n == first) {
		prev->n += n;
		if (next && next->first == end) {
			prev->n += next->n;
			memmove(next, next + 1, (s->nfree - at - 1) * sizeof(*next));
			s->nfree--;
		}
		return 0;
	}
	if (next && next->first == end) {
		next->first = first;
		next->n += n;
		return 0;
	}
	if (space__insert(s, at, first, n)) {
		s->used += n;
		return -ENOMEM;
	}
	return 0;
}

uint32_t row_space__largest(const struct row_space *s)
{
	uint32_t best = 0;
	size_t i;

	for (i = 0; i < s->nfree; i++)
		if (s->free[i].n > best)
			best = s->free[i].n;
	return best;
}

void row_space__release(struct row_space *s)
{
	free(s->free);
	memset(s, 0, sizeof(*s));
}
