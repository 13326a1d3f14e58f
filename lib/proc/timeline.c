// SPDX-License-Identifier: GPL-2.0
/* One process's executable mappings over time. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc/timeline.h"
#include "lib/util/grow.h"

/* Records that anything changed at @t (the epochs of timeline__epoch()). */
static int tl__mark(struct timeline *tl, uint64_t t)
{
	size_t lo = 0, hi = tl->nmarks, mid;

	if (tl->nmarks && tl->marks[tl->nmarks - 1] < t) {
		lo = tl->nmarks;
	} else {
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (tl->marks[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < tl->nmarks && tl->marks[lo] == t)
			return 0;
	}
	if (array_reserve((void **)&tl->marks, &tl->cap_marks, tl->nmarks + 1, sizeof(*tl->marks)))
		return -ENOMEM;
	memmove(&tl->marks[lo + 1], &tl->marks[lo], (tl->nmarks - lo) * sizeof(*tl->marks));
	tl->marks[lo] = t;
	tl->nmarks++;
	return 0;
}

/* Index of the first mapping starting after @addr. */
static size_t tl__after(const struct timeline *tl, uint64_t addr)
{
	size_t lo = 0, hi = tl->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tl->v[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int tl__insert(struct timeline *tl, const struct tl_map *m)
{
	size_t at;

	if (array_reserve((void **)&tl->v, &tl->cap, tl->n + 1, sizeof(*tl->v)))
		return -ENOMEM;
	at = tl__after(tl, m->start);
	memmove(&tl->v[at + 1], &tl->v[at], (tl->n - at) * sizeof(*tl->v));
	tl->v[at] = *m;
	tl->n++;
	if (m->end - m->start > tl->max_len)
		tl->max_len = m->end - m->start;
	return tl__mark(tl, m->from);
}

static bool tl__live_at(const struct tl_map *m, uint64_t t)
{
	return m->from <= t && t < m->to;
}

static bool tl__overlaps(const struct tl_map *m, uint64_t start, uint64_t end)
{
	return m->start < end && start < m->end;
}

/* The same mapping of the same file (anonymous ones are told apart by name). */
static bool tl__same(const struct tl_map *a, const struct tl_map *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       a->dev == b->dev && a->ino == b->ino && (a->ino || !strcmp(a->path, b->path));
}

/* Which of two mappings claiming one address at one moment is believed. */
static bool tl__better(const struct tl_map *a, const struct tl_map *b)
{
	if (a->guessed != b->guessed)
		return !a->guessed;
	return a->from > b->from;
}

/* The parts of @m outside [start, end), from @t on. Return: how many (0-2) went to @out. */
static size_t tl__remnants(const struct tl_map *m, uint64_t start, uint64_t end, uint64_t t,
			   struct tl_map *out)
{
	size_t n = 0;

	if (m->start < start) {
		out[n] = *m;
		out[n].end = start;
		n++;
	}
	if (end < m->end) {
		out[n] = *m;
		out[n].start = end;
		out[n].pgoff = m->pgoff + (end - m->start);
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		out[i].from = t;
		out[i].guessed = false; /* it was there at t, and is still */
	}
	return n;
}

/* Ends at @t what overlaps [start, end) then, but @keep; see the rules in timeline.h. */
static int tl__clip(struct timeline *tl, uint64_t start, uint64_t end, uint64_t t,
		    const struct tl_map *keep)
{
	struct tl_map *rest = NULL;
	size_t i, nrest = 0, cap = 0;
	int err = 0;

	for (i = 0; i < tl->n && tl->v[i].start < end; i++) {
		struct tl_map *m = &tl->v[i];

		if (m == keep || !tl__overlaps(m, start, end) || !tl__live_at(m, t))
			continue;
		if (m->guessed && m->seen > t) {
			m->from = t; /* seen after t: it was mapped after t, not unmapped */
			continue;
		}
		if (array_reserve((void **)&rest, &cap, nrest + 2, sizeof(*rest))) {
			err = -ENOMEM;
			break;
		}
		nrest += tl__remnants(m, start, end, t, &rest[nrest]);
		m->to = t;
	}
	if (!err)
		err = tl__mark(tl, t);
	for (i = 0; !err && i < nrest; i++)
		err = tl__insert(tl, &rest[i]);
	free(rest);
	return err;
}

/* The live mapping identical to @m, or NULL. */
static struct tl_map *tl__find_same(struct timeline *tl, const struct tl_map *m)
{
	size_t i;

	for (i = tl__after(tl, m->start); i-- > 0 && tl->v[i].start == m->start;)
		if (tl->v[i].to == TL_LIVE && tl__same(&tl->v[i], m))
			return &tl->v[i];
	return NULL;
}

int timeline__map(struct timeline *tl, uint64_t ts, const struct tl_map *m)
{
	struct tl_map *same = tl__find_same(tl, m), add = *m;
	int err;

	if (same && same->from <= ts) {
		if (!same->guessed)
			return 0; /* known from its record already */
		/* A /proc read saw it; its record says when it came. */
		same->from = ts;
		same->guessed = false;
		err = tl__mark(tl, ts);
		return err ? err : tl__clip(tl, m->start, m->end, ts, same);
	}
	err = tl__clip(tl, m->start, m->end, ts, NULL);
	if (err)
		return err;
	add.from = add.seen = ts;
	add.to = TL_LIVE;
	add.guessed = false;
	return tl__insert(tl, &add);
}

int timeline__unmap(struct timeline *tl, uint64_t ts, uint64_t start, uint64_t end)
{
	return start < end ? tl__clip(tl, start, end, ts, NULL) : 0;
}

int timeline__end_all(struct timeline *tl, uint64_t ts)
{
	return tl__clip(tl, 0, UINT64_MAX, ts, NULL);
}

/* A guess of when @m (not known yet) came: after what was there before it, and the image. */
static uint64_t tl__guess_from(const struct timeline *tl, const struct tl_map *m, uint64_t now,
			       uint64_t floor)
{
	uint64_t from = floor;
	size_t i;

	for (i = 0; i < tl->n && tl->v[i].start < m->end; i++) {
		const struct tl_map *o = &tl->v[i];

		if (!tl__overlaps(o, m->start, m->end))
			continue;
		if (o->to != TL_LIVE && o->to <= now && o->to > from)
			from = o->to;
		else if (o->to == TL_LIVE && o->from > from)
			from = o->from;
	}
	return from;
}

int timeline__describe(struct timeline *tl, uint64_t now, uint64_t floor,
		       const struct tl_map *maps, size_t n)
{
	struct tl_map add, *same;
	size_t i;
	int err = 0, added = 0;

	for (i = 0; i < n && !err; i++) {
		same = tl__find_same(tl, &maps[i]);
		if (same) {
			same->seen = now;
			continue;
		}
		add = maps[i];
		add.from = tl__guess_from(tl, &add, now, floor);
		add.to = TL_LIVE;
		add.seen = now;
		add.guessed = true;
		err = tl__insert(tl, &add);
		added++;
	}
	return err ? err : added;
}

int timeline__snapshot(struct timeline *tl, uint64_t now, uint64_t floor,
		       const struct tl_map *maps, size_t n)
{
	size_t i;
	int err = timeline__describe(tl, now, floor, maps, n);

	err = err < 0 ? err : 0;
	/* Known live but not listed: gone by now (a record may say exactly when). */
	for (i = 0; i < tl->n && !err; i++) {
		if (tl->v[i].to == TL_LIVE && tl->v[i].seen < now) {
			tl->v[i].to = now;
			err = tl__mark(tl, now);
		}
	}
	return err;
}

int timeline__fork(struct timeline *dst, const struct timeline *src, uint64_t ts)
{
	struct tl_map add;
	size_t i;
	int err = timeline__end_all(dst, ts);

	for (i = 0; src && i < src->n && !err; i++) {
		if (!tl__live_at(&src->v[i], ts))
			continue;
		add = src->v[i];
		add.from = add.seen = ts;
		add.to = TL_LIVE;
		add.guessed = false;
		err = tl__insert(dst, &add);
	}
	return err;
}

const struct tl_map *timeline__find(const struct timeline *tl, uint64_t ts, uint64_t addr)
{
	const struct tl_map *best = NULL, *m;
	size_t i;

	for (i = tl__after(tl, addr); i-- > 0;) {
		m = &tl->v[i];
		if (addr - m->start >= tl->max_len)
			break; /* it and every mapping before it start too low to hold @addr */
		if (addr >= m->end || !tl__live_at(m, ts))
			continue;
		if (!best || tl__better(m, best))
			best = m;
	}
	return best;
}

size_t timeline__live(const struct timeline *tl, const struct tl_map **out, size_t max)
{
	const struct tl_map *last = NULL, *m;
	size_t i, n = 0;

	for (i = 0; i < tl->n; i++) {
		m = &tl->v[i];
		if (m->to != TL_LIVE)
			continue;
		if (last && m->start < last->end) {
			if (tl__better(m, last)) {
				last = m;
				if (n - 1 < max)
					out[n - 1] = m;
			}
			continue;
		}
		if (n < max)
			out[n] = m;
		n++;
		last = m;
	}
	return n;
}

uint64_t timeline__epoch(const struct timeline *tl, uint64_t ts)
{
	size_t lo = 0, hi = tl->nmarks, mid;

	if (tl->nmarks && tl->marks[tl->nmarks - 1] <= ts)
		return tl->marks[tl->nmarks - 1];
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (tl->marks[mid] <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? tl->marks[lo - 1] : 0;
}

void timeline__release(struct timeline *tl)
{
	free(tl->v);
	free(tl->marks);
	memset(tl, 0, sizeof(*tl));
}
