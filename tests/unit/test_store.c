// SPDX-License-Identifier: GPL-2.0
/*
 * The stack store: the same stack merges, different stacks never do, even
 * when every key is forced onto one hash (an injected constant hash) or two
 * keys share a bucket under the real hash; order and growth hold.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stack/store.h"
#include "tests/unit/check.h"

static uint64_t one_hash(const void *key, size_t len)
{
	return 42;
}

/* A 3-frame stack whose frames depend on @i. */
static void stack_of(uint64_t *s, uint64_t i)
{
	s[0] = 0xffffffff81000000ull + i;
	s[1] = 0x401000 + i * 16;
	s[2] = 0x7f0000001000ull;
}

static void test_same_stack_merges(void)
{
	struct stack_store *st = stack_store__new();
	uint64_t a[3], b[3];
	struct stack_entry *e1, *e2;

	stack_of(a, 1);
	memcpy(b, a, sizeof(b)); /* equal content, another buffer */
	e1 = stack_store__add(st, a, sizeof(a), 10);
	e2 = stack_store__add(st, b, sizeof(b), 5);
	CHECK(e1 && e1 == e2);
	CHECK_EQ_U64(stack_store__len(st), 1);
	CHECK_EQ_U64(e1 ? e1->count : 0, 2);
	CHECK_EQ_U64(e1 ? e1->weight : 0, 15);
	e2 = stack_store__merge(st, a, sizeof(a), 7, 70);
	CHECK_EQ_U64(e2 ? e2->count : 0, 9);
	CHECK_EQ_U64(e2 ? e2->weight : 0, 85);
	stack_store__free(st);
}

/* Every key on one hash: 3000 stacks (past several grows) stay 3000 entries. */
static void test_forced_collisions(void)
{
	struct stack_store *st = stack_store__new_hashed(one_hash);
	struct stack_entry **v;
	uint64_t s[3], i, n = 3000, bad = 0;

	for (i = 0; i < n; i++) {
		stack_of(s, i);
		CHECK(stack_store__add(st, s, sizeof(s), i) != NULL);
	}
	for (i = 0; i < n; i += 2) { /* every other one again: counts 2 */
		stack_of(s, i);
		stack_store__add(st, s, sizeof(s), 1);
	}
	CHECK_EQ_U64(stack_store__len(st), n);
	v = stack_store__entries(st);
	CHECK(v != NULL);
	for (i = 0; v && i < n && i < stack_store__len(st); i++) {
		stack_of(s, i);
		/* Insertion order, each entry its own key, its own count and weight. */
		if (v[i]->hash != 42 || v[i]->len != sizeof(s) || memcmp(v[i]->key, s, sizeof(s)) ||
		    v[i]->count != (i % 2 ? 1 : 2) || v[i]->weight != i + (i % 2 ? 0 : 1))
			bad++;
	}
	CHECK_EQ_U64(bad, 0);
	free(v);
	stack_store__free(st);
}

/* A stack and its own prefix collide too: the length tells them apart. */
static void test_prefix_and_empty(void)
{
	struct stack_store *st = stack_store__new_hashed(one_hash);
	uint64_t s[3];
	struct stack_entry *full, *prefix, *empty;

	stack_of(s, 7);
	full = stack_store__add(st, s, sizeof(s), 0);
	prefix = stack_store__add(st, s, 2 * sizeof(s[0]), 0);
	empty = stack_store__add(st, s, 0, 0);
	CHECK(full && prefix && empty && full != prefix && prefix != empty && full != empty);
	CHECK_EQ_U64(stack_store__len(st), 3);
	CHECK(stack_store__add(st, s, 0, 0) == empty);
	CHECK_EQ_U64(empty ? empty->count : 0, 2);
	stack_store__free(st);
}

/*
 * The real hash: two different stacks in one bucket of the initial 1024
 * (found by search, so the test does not depend on hash constants) stay apart.
 */
static void test_real_hash_same_bucket(void)
{
	struct stack_store *st = stack_store__new();
	uint64_t a[3], b[3], want, i;
	struct stack_entry *ea, *eb;

	stack_of(a, 0);
	want = stack_hash(a, sizeof(a)) & 1023;
	for (i = 1; i < 100000; i++) {
		stack_of(b, i);
		if ((stack_hash(b, sizeof(b)) & 1023) == want)
			break;
	}
	CHECK(i < 100000);
	CHECK(stack_hash(a, sizeof(a)) != stack_hash(b, sizeof(b)));
	ea = stack_store__add(st, a, sizeof(a), 1);
	eb = stack_store__add(st, b, sizeof(b), 2);
	CHECK(ea && eb && ea != eb);
	CHECK(stack_store__add(st, a, sizeof(a), 1) == ea);
	CHECK_EQ_U64(ea ? ea->count : 0, 2);
	CHECK_EQ_U64(eb ? eb->count : 0, 1);
	CHECK_EQ_U64(stack_store__len(st), 2);
	stack_store__free(st);
}

static void test_clear(void)
{
	struct stack_store *st = stack_store__new();
	uint64_t s[3];
	struct stack_entry *e;

	stack_of(s, 3);
	stack_store__add(st, s, sizeof(s), 1);
	stack_store__clear(st);
	CHECK_EQ_U64(stack_store__len(st), 0);
	CHECK(stack_store__entries(st) == NULL);
	e = stack_store__add(st, s, sizeof(s), 4);
	CHECK_EQ_U64(e ? e->count : 0, 1);
	CHECK_EQ_U64(e ? e->weight : 0, 4);
	stack_store__free(st);
	stack_store__free(NULL);
}

int main(void)
{
	test_same_stack_merges();
	test_forced_collisions();
	test_prefix_and_empty();
	test_real_hash_same_bucket();
	test_clear();
	return CHECK_DONE();
}
