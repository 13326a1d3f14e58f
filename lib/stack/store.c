// SPDX-License-Identifier: GPL-2.0
/* The stack store: exact deduplication by hash + full compare. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stack/store.h"
#include "lib/util/arena.h"

/*
 * Open addressing over (hash, entry) slots: a probe compares hashes in the
 * slot array and touches an entry only when its hash matches, so adding a
 * new stack costs no cache miss per entry it passes (a chain did).
 */
struct store_slot {
	uint64_t hash;
	struct stack_entry *e; /* NULL: free */
};

struct stack_store {
	stack_hash_fn hash;
	struct store_slot *slots;
	size_t nslots; /* power of two, at most half full */
	struct stack_entry **order; /* insertion order, for stable output */
	size_t n, cap;
	struct arena entries; /* every entry: none is freed before the store is cleared */
};

#define STORE_FIRST_SLOTS 1024

uint64_t stack_hash(const void *key, size_t len)
{
	const unsigned char *p = key;
	uint64_t h = 0xcbf29ce484222325ull ^ len;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		h = (h ^ w) * 0x100000001b3ull;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	return h ^ (h >> 32);
}

struct stack_store *stack_store__new(void)
{
	return stack_store__new_hashed(stack_hash);
}

struct stack_store *stack_store__new_hashed(stack_hash_fn hash)
{
	struct stack_store *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->hash = hash;
	st->nslots = STORE_FIRST_SLOTS;
	st->slots = calloc(st->nslots, sizeof(*st->slots));
	if (!st->slots) {
		free(st);
		return NULL;
	}
	return st;
}

/* The slot of @hash's entry equal to (@key, @len), or the free slot where it would go. */
static struct store_slot *store__probe(struct store_slot *slots, size_t nslots, uint64_t hash,
				       const void *key, size_t len)
{
	size_t mask = nslots - 1, i;

	for (i = hash & mask; slots[i].e; i = (i + 1) & mask)
		if (slots[i].hash == hash && slots[i].e->len == len &&
		    (!key || !memcmp(slots[i].e->key, key, len)))
			return &slots[i];
	return &slots[i];
}

static int store__grow(struct stack_store *st)
{
	size_t ns = st->nslots * 2, i;
	struct store_slot *s;

	if (ns < st->nslots || ns > SIZE_MAX / sizeof(*s))
		return -ENOMEM;
	s = calloc(ns, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < st->n; i++) {
		struct stack_entry *e = st->order[i];

		/* no key: every entry is distinct, the first free slot is its */
		*store__probe(s, ns, e->hash, NULL, SIZE_MAX) = (struct store_slot){ e->hash, e };
	}
	free(st->slots);
	st->slots = s;
	st->nslots = ns;
	return 0;
}

static struct stack_entry *store__insert(struct stack_store *st, struct store_slot *slot,
					 const void *key, size_t len, uint64_t hash)
{
	struct stack_entry *e;

	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 256;
		struct stack_entry **o;

		if (cap > SIZE_MAX / sizeof(*o))
			return NULL;
		o = realloc(st->order, cap * sizeof(*o));
		if (!o)
			return NULL;
		st->order = o;
		st->cap = cap;
	}
	if (len > SIZE_MAX - sizeof(*e) - 8)
		return NULL;
	e = arena__alloc(&st->entries, sizeof(*e) + len);
	if (!e)
		return NULL;
	memcpy(e->key, key, len);
	e->len = len;
	e->hash = hash;
	*slot = (struct store_slot){ hash, e };
	st->order[st->n++] = e;
	return e;
}

struct stack_entry *stack_store__add(struct stack_store *st, const void *key, size_t len,
				     uint64_t weight)
{
	return stack_store__merge(st, key, len, 1, weight);
}

struct stack_entry *stack_store__merge(struct stack_store *st, const void *key, size_t len,
				       uint64_t count, uint64_t weight)
{
	uint64_t h = st->hash(key, len);
	struct store_slot *slot = store__probe(st->slots, st->nslots, h, key, len);
	struct stack_entry *e = slot->e;

	if (!e) {
		if (2 * (st->n + 1) > st->nslots) {
			if (store__grow(st))
				return NULL;
			slot = store__probe(st->slots, st->nslots, h, key, len);
		}
		e = store__insert(st, slot, key, len, h);
		if (!e)
			return NULL;
	}
	e->count += count;
	e->weight += weight;
	return e;
}

size_t stack_store__len(const struct stack_store *st)
{
	return st->n;
}

struct stack_entry **stack_store__entries(const struct stack_store *st)
{
	struct stack_entry **v;

	if (!st->n)
		return NULL;
	v = malloc(st->n * sizeof(*v));
	if (v)
		memcpy(v, st->order, st->n * sizeof(*v));
	return v;
}

void stack_store__clear(struct stack_store *st)
{
	arena__reset(&st->entries);
	st->n = 0;
	memset(st->slots, 0, st->nslots * sizeof(*st->slots));
}

void stack_store__free(struct stack_store *st)
{
	if (!st)
		return;
	stack_store__clear(st);
	free(st->slots);
	free(st->order);
	free(st);
}
