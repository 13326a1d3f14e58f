/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A chained hash table keyed by two 64-bit integers, intrusive: callers
 * embed struct hnode first in their own records. Equal keys may repeat;
 * htab__first() and hnode__next_same() walk them.
 */
#ifndef ST_HTAB_H
#define ST_HTAB_H

#include <stddef.h>
#include <stdint.h>

struct hnode {
	struct hnode *next;
	uint64_t k1, k2;
};

struct htab {
	struct hnode **b;
	size_t nb, n;
};

/** htab__first() - Return: the first node with key (@k1, @k2), or NULL. */
struct hnode *htab__first(const struct htab *h, uint64_t k1, uint64_t k2);

/** hnode__next_same() - Return: the next node after @n with @n's key, or NULL. */
struct hnode *hnode__next_same(struct hnode *n);

/**
 * htab__insert() - add @node (its k1, k2 set); the table doubles to keep a
 * load factor of at most 1.
 *
 * Return: 0 or -ENOMEM.
 */
int htab__insert(struct htab *h, struct hnode *node);

/**
 * htab__remove() - unlink @node (the caller frees it).
 *
 * Return: 0, or -ENOENT when @node is not in @h.
 */
int htab__remove(struct htab *h, struct hnode *node);

/** htab__each() - call @fn on every node, with @ctx; @fn must not insert or remove. */
void htab__each(const struct htab *h, void (*fn)(struct hnode *, void *), void *ctx);

/** htab__drain() - call @fn on every node (it may free it), then empty the table. */
void htab__drain(struct htab *h, void (*fn)(struct hnode *));

/** str_hash() - Return: FNV-1a of the NUL-terminated @s. */
uint64_t str_hash(const char *s);

#endif
