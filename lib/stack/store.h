/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack store: exact deduplication of stacks (or any byte keys).
 * A 64-bit hash picks the slot; keys are always compared in full, so two
 * different stacks are never merged and a collision never drops one.
 */
#ifndef ST_STACK_STORE_H
#define ST_STACK_STORE_H

#include <stddef.h>
#include <stdint.h>

struct stack_entry {
	uint64_t count;  /* times added */
	uint64_t weight; /* sum of weights added */
	uint64_t hash;
	size_t len;
	void *data;     /* the caller's, e.g. a report stack */
	uint64_t key[]; /* len bytes, 8-aligned */
};

struct stack_store;

/* A hash of a byte key. */
typedef uint64_t (*stack_hash_fn)(const void *key, size_t len);

/** stack_store__new() - an empty store with stack_hash(). Return: it, or NULL (ENOMEM). */
struct stack_store *stack_store__new(void);

/**
 * stack_store__new_hashed() - an empty store with its own @hash: tests force
 * every key onto one hash to prove a collision never merges two keys.
 *
 * Return: the store, or NULL (ENOMEM).
 */
struct stack_store *stack_store__new_hashed(stack_hash_fn hash);

/**
 * stack_store__add() - count @key once with @weight; inserts it when new.
 *
 * Return: the entry (stable until stack_store__clear()), or NULL (ENOMEM).
 */
struct stack_entry *stack_store__add(struct stack_store *st, const void *key, size_t len,
				     uint64_t weight);

/**
 * stack_store__merge() - like stack_store__add() but adds @count at once.
 *
 * Return: the entry, or NULL (ENOMEM).
 */
struct stack_entry *stack_store__merge(struct stack_store *st, const void *key, size_t len,
				       uint64_t count, uint64_t weight);

/** stack_store__len() - number of distinct keys. */
size_t stack_store__len(const struct stack_store *st);

/**
 * stack_store__entries() - every entry, in insertion order.
 *
 * Return: a malloc'ed array of stack_store__len() pointers (caller frees the
 * array, not the entries), or NULL when empty or out of memory.
 */
struct stack_entry **stack_store__entries(const struct stack_store *st);

/** stack_store__clear() - forget every key (the -i interval reset). */
void stack_store__clear(struct stack_store *st);

/** stack_store__free() - NULL is fine. */
void stack_store__free(struct stack_store *st);

/** stack_hash() - the store's hash of a byte key; exposed for tests. */
uint64_t stack_hash(const void *key, size_t len);

#endif
