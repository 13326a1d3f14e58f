// SPDX-License-Identifier: GPL-2.0
/* The row table's free space: first fit, merging on free, refusing bad frees. */
#include <errno.h>
#include <stdint.h>

#include "lib/unwind/row_space.h"
#include "tests/unit/check.h"

static void test_fill_and_merge(void)
{
	struct row_space s;
	uint32_t a, b, c, d;

	CHECK_EQ_U64(row_space__init(&s, 100), 0);
	CHECK_EQ_U64(row_space__alloc(&s, 30, &a), 0);
	CHECK_EQ_U64(row_space__alloc(&s, 30, &b), 0);
	CHECK_EQ_U64(row_space__alloc(&s, 30, &c), 0);
	CHECK_EQ_U64(a, 0);
	CHECK_EQ_U64(b, 30);
	CHECK_EQ_U64(c, 60);
	CHECK_EQ_U64(s.used, 90);
	CHECK_EQ_U64(row_space__alloc(&s, 11, &d), (uint64_t)-ENOSPC);
	CHECK_EQ_U64(row_space__alloc(&s, 0, &d), (uint64_t)-ENOSPC);
	/* A hole in the middle: 30 free there and 10 at the end, not 40 in one piece. */
	CHECK_EQ_U64(row_space__free(&s, b, 30), 0);
	CHECK_EQ_U64(row_space__largest(&s), 30);
	CHECK_EQ_U64(row_space__alloc(&s, 35, &d), (uint64_t)-ENOSPC);
	/* Freeing the neighbours merges all three into [0, 100). */
	CHECK_EQ_U64(row_space__free(&s, a, 30), 0);
	CHECK_EQ_U64(row_space__free(&s, c, 30), 0);
	CHECK_EQ_U64(s.nfree, 1);
	CHECK_EQ_U64(s.used, 0);
	CHECK_EQ_U64(row_space__largest(&s), 100);
	CHECK_EQ_U64(row_space__alloc(&s, 100, &d), 0);
	CHECK_EQ_U64(d, 0);
	row_space__release(&s);
}

static void test_first_fit_reuses_holes(void)
{
	struct row_space s;
	uint32_t r[10], x;
	int i;

	CHECK_EQ_U64(row_space__init(&s, 100), 0);
	for (i = 0; i < 10; i++)
		CHECK_EQ_U64(row_space__alloc(&s, 10, &r[i]), 0);
	for (i = 0; i < 10; i += 2)
		CHECK_EQ_U64(row_space__free(&s, r[i], 10), 0);
	CHECK_EQ_U64(s.nfree, 5);
	CHECK_EQ_U64(s.used, 50);
	CHECK_EQ_U64(row_space__alloc(&s, 4, &x), 0);
	CHECK_EQ_U64(x, 0);
	CHECK_EQ_U64(row_space__alloc(&s, 7, &x), 0);
	CHECK_EQ_U64(x, 20);
	row_space__release(&s);
}

static void test_bad_free(void)
{
	struct row_space s;
	uint32_t a;

	CHECK_EQ_U64(row_space__init(&s, 50), 0);
	CHECK_EQ_U64(row_space__alloc(&s, 20, &a), 0);
	CHECK_EQ_U64(row_space__free(&s, 10, 20), (uint64_t)-EINVAL); /* half of it free */
	CHECK_EQ_U64(row_space__free(&s, 40, 20), (uint64_t)-EINVAL); /* past the end */
	CHECK_EQ_U64(row_space__free(&s, 0, 0), (uint64_t)-EINVAL);
	CHECK_EQ_U64(s.used, 20);
	CHECK_EQ_U64(row_space__free(&s, 0, 20), 0);
	CHECK_EQ_U64(row_space__free(&s, 0, 20), (uint64_t)-EINVAL); /* twice */
	CHECK_EQ_U64(s.used, 0);
	row_space__release(&s);
}

int main(void)
{
	test_fill_and_merge();
	test_first_fit_reuses_holes();
	test_bad_free();
	return CHECK_DONE();
}
