// SPDX-License-Identifier: GPL-2.0
/* The settled log: stacks of gone processes packed one after another. */
#include <stdlib.h>
#include <string.h>

#include "lib/pipeline/settled_log.h"
#include "lib/util/grow.h"

struct settled_rec *settled_log__append(struct settled_log *l, const struct settled_rec *h,
					const void *frames, const void *places)
{
	struct settled_rec *r;

	if (array_reserve((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return NULL;
	r = arena__alloc(&l->mem, sizeof(*r) + h->flen + h->plen);
	if (!r)
		return NULL;
	*r = *h;
	memcpy(r->b, frames, h->flen);
	memcpy(r->b + h->flen, places, h->plen);
	l->v[l->n++] = r;
	return r;
}

void settled_log__reset(struct settled_log *l)
{
	arena__reset(&l->mem);
	free(l->v);
	*l = (struct settled_log){ 0 };
}
