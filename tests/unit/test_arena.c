// SPDX-License-Identifier: GPL-2.0
/*
 * The bump arena: blocks are zeroed, 8-aligned and apart; a rewound arena
 * hands out its kept chunk again from the start, zeroed again, and grows
 * past it as before.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/util/arena.h"
#include "tests/unit/check.h"

static int all_zero(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Fills @a with @n blocks of @len bytes, each set to 0xab. Return: the first block. */
static unsigned char *fill(struct arena *a, size_t n, size_t len)
{
	unsigned char *first = NULL, *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = arena__alloc(a, len);
		CHECK(p != NULL);
		if (!p)
			return first;
		CHECK(((uintptr_t)p & 7) == 0);
		CHECK(all_zero(p, len));
		memset(p, 0xab, len);
		if (!first)
			first = p;
	}
	return first;
}

static void test_blocks(void)
{
	struct arena a = { 0 };
	unsigned char *p = arena__alloc(&a, 3), *q = arena__alloc(&a, 5);

	CHECK(p && q && q - p == 8); /* rounded up to 8 */
	arena__reset(&a);
	CHECK(a.chunks == NULL && a.at == NULL);
	arena__rewind(&a); /* an empty arena stays empty */
	CHECK(a.chunks == NULL);
}

/* 100 x 10 KiB: several chunks; the rewind keeps the newest, which the first block reuses. */
static void test_rewind(void)
{
	struct arena a = { 0 };
	unsigned char *kept, *p;

	fill(&a, 100, 10240);
	CHECK(a.chunks != NULL);
	kept = (unsigned char *)a.chunks;
	arena__rewind(&a);
	CHECK((unsigned char *)a.chunks == kept);
	p = fill(&a, 100, 10240); /* zeroed again, from the kept chunk's start, then beyond it */
	CHECK(p != NULL && p > kept && p < kept + 4096);
	arena__rewind(&a);
	p = arena__alloc(&a, 64);
	CHECK(p != NULL && all_zero(p, 64));
	arena__reset(&a);
}

/* Pages of @len bytes at @p that are in memory. */
static size_t resident_pages(void *p, size_t len)
{
	unsigned char vec[1024];
	size_t i, n = (len + 4095) / 4096, in = 0;

	if (n > sizeof(vec) || mincore(p, len, vec))
		return SIZE_MAX;
	for (i = 0; i < n; i++)
		in += vec[i] & 1;
	return in;
}

/* A small fill after a large one: the kept chunk keeps in at most twice its pages. */
static void test_rewind_lets_go(void)
{
	struct arena a = { 0 };
	size_t size;
	void *kept;

	fill(&a, 100, 10240);
	arena__rewind(&a);
	fill(&a, 30, 10240); /* 300 KiB of the newest chunk, the fifth: 1 MiB */
	kept = a.chunks;
	size = (size_t)(a.end - (char *)kept);
	CHECK_EQ_U64(size, 1 << 20);
	arena__rewind(&a);
	CHECK(resident_pages(kept, size) <= 2 * (300 / 4 + 2)); /* twice the fill, at most */
	fill(&a, 1, 100); /* in the header's page */
	arena__rewind(&a);
	CHECK_EQ_U64(resident_pages(kept, size), 2);
	arena__reset(&a);
}

int main(void)
{
	test_blocks();
	test_rewind();
	test_rewind_lets_go();
	return CHECK_DONE();
}
