// SPDX-License-Identifier: GPL-2.0
/*
 * sort_two(): the order qsort_r() gives with a comparator that orders
 * every pair, and a stable sort's with ties, on two threads and on one,
 * for sizes either side of where it starts a thread.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/relay.h"
#include "lib/util/sort_two.h"
#include "tests/unit/check.h"

struct item {
	uint32_t key, at; /* at: the item's place before sorting */
};

/* @arg non-NULL: the key alone (ties), else key then place (every pair ordered). */
static int cmp_item(const void *pa, const void *pb, void *keys_only)
{
	const struct item *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return keys_only ? 0 : (a->at > b->at) - (a->at < b->at);
}

static void fill(struct item *v, size_t n, uint32_t keys)
{
	uint64_t x = 88172645463325252ull;
	size_t i;

	for (i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: the same items each run */
		v[i] = (struct item){ (uint32_t)(x % keys), (uint32_t)i };
	}
}

/* Sorted by key, ties in their first order: what any stable sort gives. */
static bool stable_sorted(const struct item *v, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (v[i - 1].key > v[i].key || (v[i - 1].key == v[i].key && v[i - 1].at > v[i].at))
			return false;
	return true;
}

static void test_size(size_t n, uint32_t keys)
{
	struct item *v = malloc(n * sizeof(*v)), *w = malloc(n * sizeof(*w));

	CHECK(v && w);
	if (!v || !w)
		goto out;
	fill(v, n, keys);
	memcpy(w, v, n * sizeof(*v));
	sort_two(v, n, sizeof(*v), cmp_item, NULL);
	qsort_r(w, n, sizeof(*w), cmp_item, NULL);
	CHECK(!memcmp(v, w, n * sizeof(*v)));
	fill(v, n, keys);
	sort_two(v, n, sizeof(*v), cmp_item, (void *)1);
	CHECK(stable_sorted(v, n));
out:
	free(v);
	free(w);
}

static void test_sizes(void)
{
	test_size(0, 10);
	test_size(1, 10);
	test_size(1000, 10);
	test_size(16383, 100);
	test_size(16384, 100);
	test_size(100001, 7);
	test_size(100001, 1000000);
}

int main(void)
{
	unsetenv(RELAY_ENV_ONE_THREAD);
	test_sizes();
	setenv(RELAY_ENV_ONE_THREAD, "1", 1);
	test_sizes();
	return CHECK_DONE();
}
