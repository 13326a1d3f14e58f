// SPDX-License-Identifier: GPL-2.0
/* A chained hash table keyed by two 64-bit integers. */
#include <errno.h>
#include <stdlib.h>

#include "lib/util/htab.h"

static size_t htab__slot(size_t nb, uint64_t k1, uint64_t k2)
{
	uint64_t x = k1 * 0x9e3779b97f4a7c15ull ^ k2;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (size_t)x & (nb - 1);
}

struct hnode *htab__first(const struct htab *h, uint64_t k1, uint64_t k2)
{
	struct hnode *n;

	if (!h->nb)
		return NULL;
	for (n = h->b[htab__slot(h->nb, k1, k2)]; n; n = n->next)
		if (n->k1 == k1 && n->k2 == k2)
			return n;
	return NULL;
}

struct hnode *hnode__next_same(struct hnode *n)
{
	uint64_t k1 = n->k1, k2 = n->k2;

	for (n = n->next; n; n = n->next)
		if (n->k1 == k1 && n->k2 == k2)
			return n;
	return NULL;
}

int htab__remove(struct htab *h, struct hnode *node)
{
	struct hnode **pp;

	if (!h->nb)
		return -ENOENT;
	for (pp = &h->b[htab__slot(h->nb, node->k1, node->k2)]; *pp; pp = &(*pp)->next) {
		if (*pp == node) {
			*pp = node->next;
			h->n--;
			return 0;
		}
	}
	return -ENOENT;
}

int htab__insert(struct htab *h, struct hnode *node)
{
	struct hnode **nb, *n, *next;
	size_t i, size, s;

	if (h->n >= h->nb) {
		size = h->nb ? h->nb * 2 : 256;
		if (size < h->nb || size > SIZE_MAX / sizeof(*nb))
			return -ENOMEM;
		nb = calloc(size, sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		for (i = 0; i < h->nb; i++) {
			for (n = h->b[i]; n; n = next) {
				next = n->next;
				s = htab__slot(size, n->k1, n->k2);
				n->next = nb[s];
				nb[s] = n;
			}
		}
		free(h->b);
		h->b = nb;
		h->nb = size;
	}
	s = htab__slot(h->nb, node->k1, node->k2);
	node->next = h->b[s];
	h->b[s] = node;
	h->n++;
	return 0;
}

void htab__each(const struct htab *h, void (*fn)(struct hnode *, void *), void *ctx)
{
	struct hnode *n;
	size_t i;

	for (i = 0; i < h->nb; i++)
		for (n = h->b[i]; n; n = n->next)
			fn(n, ctx);
}

void htab__drain(struct htab *h, void (*fn)(struct hnode *))
{
	struct hnode *n, *next;
	size_t i;

	for (i = 0; i < h->nb; i++)
		for (n = h->b[i]; n; n = next) {
			next = n->next;
			fn(n);
		}
	free(h->b);
	h->b = NULL;
	h->nb = h->n = 0;
}

uint64_t str_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}
