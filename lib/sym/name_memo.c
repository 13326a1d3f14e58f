// SPDX-License-Identifier: GPL-2.0
/* The naming memo: (object, key) -> index, open addressing with linear probing. */
#include <errno.h>
#include <stdlib.h>

#include "lib/sym/name_memo.h"

struct memo_slot {
	const void *obj;
	uint64_t key;
	uint32_t val;
	bool used;
};

struct name_memo {
	struct memo_slot *s;
	size_t nslots, n; /* nslots: a power of two, at most half full */
};

#define MEMO_FIRST_SLOTS 4096

struct name_memo *name_memo__new(void)
{
	struct name_memo *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->nslots = MEMO_FIRST_SLOTS;
	m->s = calloc(m->nslots, sizeof(*m->s));
	if (!m->s) {
		free(m);
		return NULL;
	}
	return m;
}

static size_t memo__slot(const void *obj, uint64_t key, size_t mask)
{
	uint64_t h = ((uint64_t)(uintptr_t)obj ^ (key * 0x9e3779b97f4a7c15ull)) *
		     0xff51afd7ed558ccdull;

	return (size_t)(h ^ (h >> 31)) & mask;
}

bool name_memo__find(const struct name_memo *m, const void *obj, uint64_t key, uint32_t *val)
{
	size_t mask = m->nslots - 1, i;

	for (i = memo__slot(obj, key, mask); m->s[i].used; i = (i + 1) & mask)
		if (m->s[i].obj == obj && m->s[i].key == key) {
			*val = m->s[i].val;
			return true;
		}
	return false;
}

static void memo__place(struct memo_slot *s, size_t mask, const struct memo_slot *e)
{
	size_t i;

	for (i = memo__slot(e->obj, e->key, mask); s[i].used; i = (i + 1) & mask)
		;
	s[i] = *e;
}

static int memo__grow(struct name_memo *m)
{
	size_t nslots = m->nslots * 2, i;
	struct memo_slot *s;

	if (nslots < m->nslots || nslots > SIZE_MAX / sizeof(*s))
		return -ENOMEM;
	s = calloc(nslots, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < m->nslots; i++)
		if (m->s[i].used)
			memo__place(s, nslots - 1, &m->s[i]);
	free(m->s);
	m->s = s;
	m->nslots = nslots;
	return 0;
}

int name_memo__put(struct name_memo *m, const void *obj, uint64_t key, uint32_t val)
{
	const struct memo_slot e = { obj, key, val, true };

	if (2 * (m->n + 1) > m->nslots && memo__grow(m))
		return -ENOMEM;
	memo__place(m->s, m->nslots - 1, &e);
	m->n++;
	return 0;
}

void name_memo__free(struct name_memo *m)
{
	if (!m)
		return;
	free(m->s);
	free(m);
}
