// SPDX-License-Identifier: GPL-2.0
/* The stack store: exact deduplication by hash + full compare. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stack/store.h"

struct stack_store {
	stack_hash_fn hash;
	struct stack_entry **buckets;
	size_t nbuckets; /* power of two */
	struct stack_entry **order; /* insertion order, for stable output */
	size_t n, cap;
};

/* Grow at 3/4 load: chains stay short without wasting much memory. */
#define STORE_LOAD_NUM 3
#define STORE_LOAD_DEN 4

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
	st->nbuckets = 1024;
	st->buckets = calloc(st->nbuckets, sizeof(*st->buckets));
	if (!st->buckets) {
		free(st);
		return NULL;
	}
	return st;
}

static int store__grow(struct stack_store *st)
{
	size_t nb = st->nbuckets * 2, i;
	struct stack_entry **b;

	if (nb < st->nbuckets)
		return -ENOMEM;
	b = calloc(nb, sizeof(*b));
	if (!b)
		return -ENOMEM;
	for (i = 0; i < st->n; i++) {
		struct stack_entry *e = st->order[i];

		e->next = b[e->hash & (nb - 1)];
		b[e->hash & (nb - 1)] = e;
	}
	free(st->buckets);
	st->buckets = b;
	st->nbuckets = nb;
	return 0;
}

static struct stack_entry *store__insert(struct stack_store *st, const void *key, size_t len,
					 uint64_t hash)
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
	e = calloc(1, sizeof(*e) + ((len + 7) & ~(size_t)7));
	if (!e)
		return NULL;
	memcpy(e->key, key, len);
	e->len = len;
	e->hash = hash;
	e->next = st->buckets[hash & (st->nbuckets - 1)];
	st->buckets[hash & (st->nbuckets - 1)] = e;
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
	struct stack_entry *e;

	for (e = st->buckets[h & (st->nbuckets - 1)]; e; e = e->next)
		if (e->hash == h && e->len == len && !memcmp(e->key, key, len))
			break;
	if (!e) {
		if (st->n * STORE_LOAD_DEN >= st->nbuckets * STORE_LOAD_NUM && store__grow(st))
			return NULL;
		e = store__insert(st, key, len, h);
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
	size_t i;

	for (i = 0; i < st->n; i++)
		free(st->order[i]);
	st->n = 0;
	memset(st->buckets, 0, st->nbuckets * sizeof(*st->buckets));
}

void stack_store__free(struct stack_store *st)
{
	if (!st)
		return;
	stack_store__clear(st);
	free(st->buckets);
	free(st->order);
	free(st);
}
