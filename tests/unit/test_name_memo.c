// SPDX-License-Identifier: GPL-2.0
/*
 * The naming memo: what was put is found with its exact value, through
 * many growths; the same key under another object, and a key never put,
 * are not found.
 */
#include <stdint.h>

#include "lib/sym/name_memo.h"
#include "tests/unit/check.h"

static void test_put_find_grow(void)
{
	struct name_memo *m = name_memo__new();
	static const char files[3]; /* three objects: their addresses are the keys' halves */
	uint32_t v, bad = 0, missing = 0;
	uint64_t k;
	int i;

	CHECK(m != NULL);
	if (!m)
		return;
	/* 3 x 50,000 entries: the memo starts at 4096 slots and grows 6 times. */
	for (k = 0; k < 50000; k++)
		for (i = 0; i < 3; i++)
			CHECK(!name_memo__put(m, &files[i], k * 4096 + 17, (uint32_t)(k * 3 + i)));
	for (k = 0; k < 50000; k++)
		for (i = 0; i < 3; i++) {
			if (!name_memo__find(m, &files[i], k * 4096 + 17, &v))
				missing++;
			else if (v != (uint32_t)(k * 3 + i))
				bad++;
		}
	CHECK_EQ_U64(missing, 0);
	CHECK_EQ_U64(bad, 0);
	CHECK(!name_memo__find(m, &files[0], 16, &v));       /* a key never put */
	CHECK(!name_memo__find(m, NULL, 17, &v));            /* another object (the kernel's) */
	CHECK(!name_memo__put(m, NULL, 17, 7));
	CHECK(name_memo__find(m, NULL, 17, &v) && v == 7);
	CHECK(name_memo__find(m, &files[0], 17, &v) && v == 0); /* still its own */
	name_memo__free(m);
	name_memo__free(NULL);
}

int main(void)
{
	test_put_find_grow();
	return CHECK_DONE();
}
