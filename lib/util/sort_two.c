// SPDX-License-Identifier: GPL-2.0
/* qsort_r() on two threads: halves sorted at once, then merged (sort_two.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/relay.h"
#include "lib/util/sort_two.h"

/* Below this a thread's start costs more than half the sort saves. */
#define SORT_TWO_MIN 16384

struct sort_half {
	void *base;
	size_t n, size;
	sort_two_cmp cmp;
	void *arg;
};

static void *sort_two__half(void *p)
{
	struct sort_half *h = p;

	qsort_r(h->base, h->n, h->size, h->cmp, h->arg);
	return NULL;
}

/* Sorted runs @a (@na items) and @b (@nb) into @out; ties take @a's first (stable). */
static void sort_two__merge(const char *a, size_t na, const char *b, size_t nb, char *out,
			    size_t size, sort_two_cmp cmp, void *arg)
{
	const char *ea = a + na * size, *eb = b + nb * size;

	while (a < ea && b < eb) {
		if (cmp(b, a, arg) < 0) {
			memcpy(out, b, size);
			b += size;
		} else {
			memcpy(out, a, size);
			a += size;
		}
		out += size;
	}
	memcpy(out, a, ea - a);
	memcpy(out + (ea - a), b, eb - b);
}

void sort_two(void *base, size_t n, size_t size, sort_two_cmp cmp, void *arg)
{
	size_t lo = n / 2;
	struct sort_half hi = { (char *)base + lo * size, n - lo, size, cmp, arg };
	pthread_t worker;
	char *tmp;

	if (n < SORT_TWO_MIN || !relay__two_threads() || !(tmp = malloc(n * size))) {
		qsort_r(base, n, size, cmp, arg);
		return;
	}
	if (relay__start_worker(&worker, sort_two__half, &hi)) {
		free(tmp);
		qsort_r(base, n, size, cmp, arg);
		return;
	}
	qsort_r(base, lo, size, cmp, arg);
	pthread_join(worker, NULL);
	sort_two__merge(base, lo, hi.base, hi.n, tmp, size, cmp, arg);
	memcpy(base, tmp, n * size);
	free(tmp);
}
