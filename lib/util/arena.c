// SPDX-License-Identifier: GPL-2.0
/* The bump arena: chunks mapped whole, handed out in order, unmapped together. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/util/arena.h"

#define ARENA_FIRST (64u << 10)
#define ARENA_MAX (64u << 20)
#define ARENA_PAGE 4096u
#define ARENA_AHEAD (64u << 10) /* faulted in at once: at most this much more resident */

struct arena_chunk {
	struct arena_chunk *next;
	size_t size; /* mapped bytes, this header included */
};

static size_t arena__round(size_t n, size_t to)
{
	return (n + to - 1) & ~(to - 1);
}

static int arena__grow(struct arena *a, size_t len)
{
	size_t size = a->next_size ? a->next_size : ARENA_FIRST;
	struct arena_chunk *c;

	if (len > SIZE_MAX - sizeof(*c) - ARENA_PAGE)
		return -ENOMEM;
	if (size < sizeof(*c) + len)
		size = arena__round(sizeof(*c) + len, ARENA_PAGE);
	c = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		return -ENOMEM;
	c->next = a->chunks;
	c->size = size;
	a->chunks = c;
	a->at = (char *)(c + 1);
	a->end = (char *)c + size;
	a->ready = (char *)c + ARENA_PAGE; /* the header's page is in */
	if (!a->next_size)
		a->next_size = ARENA_FIRST * 2;
	else if (a->next_size < ARENA_MAX)
		a->next_size *= 2;
	return 0;
}

/*
 * Faults in the next pages of the newest chunk in one call. Where the
 * kernel cannot (before 5.14), they fault in one by one as they are written.
 */
static void arena__populate(struct arena *a)
{
	char *to = (size_t)(a->end - a->ready) > ARENA_AHEAD ? a->ready + ARENA_AHEAD : a->end;

	madvise(a->ready, (size_t)(to - a->ready), MADV_POPULATE_WRITE);
	a->ready = to;
}

void *arena__alloc(struct arena *a, size_t len)
{
	void *p;

	len = len ? arena__round(len, 8) : 8;
	if (len < 8 || (size_t)(a->end - a->at) < len) {
		if (len < 8 || arena__grow(a, len)) {
			errno = ENOMEM;
			return NULL;
		}
	}
	p = a->at;
	a->at += len;
	while (a->at > a->ready)
		arena__populate(a);
	return p; /* fresh mapped memory: zeroed */
}

void arena__reset(struct arena *a)
{
	struct arena_chunk *c = a->chunks, *next;

	for (; c; c = next) {
		next = c->next;
		munmap(c, c->size);
	}
	*a = (struct arena){ 0 };
}

void arena__rewind(struct arena *a)
{
	struct arena_chunk *keep = a->chunks, *c, *next;
	char *start, *keep_end;
	size_t used;

	if (!keep)
		return;
	for (c = keep->next; c; c = next) {
		next = c->next;
		munmap(c, c->size);
	}
	keep->next = NULL;
	start = (char *)(keep + 1);
	memset(start, 0, (size_t)(a->at - start));
	/*
	 * Pages in beyond twice this fill go: a large fill once leaves no large
	 * rest in, and fills that vary less fault in nothing again.
	 */
	used = arena__round((size_t)(a->at - (char *)keep), ARENA_PAGE);
	keep_end = (size_t)(a->end - (char *)keep) / 2 > used ? (char *)keep + 2 * used : a->end;
	if (a->ready > keep_end && !madvise(keep_end, (size_t)(a->ready - keep_end), MADV_DONTNEED))
		a->ready = keep_end;
	a->chunks = keep;
	a->at = start;
}
