// SPDX-License-Identifier: GPL-2.0
/* The report model: stacks of frames merged by exact comparison, strings interned. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/frame_table.h"
#include "lib/report/report.h"
#include "lib/stack/store.h"
#include "lib/util/arena.h"
#include "lib/util/sort_two.h"

/*
 * The last interning of each string pointer, direct-mapped: a report's
 * frames come from a few thousand names the symbolizer keeps, so most
 * strings are seen again at the same address and need no hash of their
 * text. A slot is trusted only when the text still matches (memory freed
 * and reused for another string must not take the old name).
 */
#define REPORT_ICACHE 16384 /* a power of two; 256 KiB */

struct report_icache {
	const char *from, *to;
};

struct report {
	unsigned flags;
	struct report_icache *icache;
	struct report_info info;
	char *event;               /* info.event's own copy: it outlives report__clear() */
	struct stack_store *strs;  /* interned strings: key = the bytes with their NUL */
	struct stack_store *index; /* merge key -> struct report_stack */
	struct arena stacks;       /* the report_stacks: freed together by report__clear() */
	struct frame_table frames; /* the distinct frames: stacks hold their indexes */
	struct report_stack **sorted;
	struct report_frame *own; /* report__add()'s scratch: the frames, strings interned */
	struct report_key *key;   /* and their merge key */
	size_t own_cap, key_cap;  /* frames; bytes */
	bool same_strings;        /* report__same_strings(): pointers keep their text */
};

struct report *report__new(unsigned flags)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->flags = flags;
	r->strs = stack_store__new();
	r->index = stack_store__new();
	r->icache = calloc(REPORT_ICACHE, sizeof(*r->icache));
	if (!r->strs || !r->index || !r->icache || frame_table__init(&r->frames)) {
		report__free(r);
		return NULL;
	}
	return r;
}

unsigned report__flags(const struct report *r)
{
	return r->flags;
}

int report__set_info(struct report *r, const struct report_info *info)
{
	char *event = info->event ? strdup(info->event) : NULL;

	if (info->event && !event)
		return -ENOMEM;
	free(r->event);
	r->event = event;
	r->info = *info;
	r->info.event = event;
	return 0;
}

const struct report_info *report__info(const struct report *r)
{
	return &r->info;
}

/*
 * The report's copy of @s: equal strings are one pointer, so merge keys can
 * hold pointers instead of text. NULL stays NULL. Return: the copy, or NULL
 * with *err set.
 */
static const char *report__intern(struct report *r, const char *s, int *err)
{
	struct report_icache *c;
	struct stack_entry *e;
	uintptr_t h;

	if (!s)
		return NULL;
	h = (uintptr_t)s * 0x9e3779b97f4a7c15ull;
	c = &r->icache[(h >> 40) & (REPORT_ICACHE - 1)];
	if (c->from == s && (s == c->to || r->same_strings || !strcmp(s, c->to)))
		return c->to;
	e = stack_store__add(r->strs, s, strlen(s) + 1, 0);
	if (!e) {
		*err = -ENOMEM;
		return NULL;
	}
	*c = (struct report_icache){ s, (const char *)e->key };
	return c->to;
}

/* @in as the merge key reads it: name (and source line) interned, the rest as given. */
static int report__intern_keyed(struct report *r, const struct report_frame *in,
				struct report_frame *out)
{
	int err = 0;

	*out = *in;
	out->name = report__intern(r, in->name ? in->name : "[unknown]", &err);
	if (r->flags & REPORT_LINES) {
		out->src_file = report__intern(r, in->src_file, &err);
	} else {
		out->src_file = NULL;
		out->line = 0;
	}
	return err;
}

/*
 * The strings no key reads, interned only for a stack the report keeps (most
 * merge): @n frames @in, copied to @out. A frame's module and build ID are
 * most often those of the frame before it, at the same pointer within one
 * call: those are taken from it, not looked up again.
 */
static int report__intern_rest(struct report *r, const struct report_frame *in,
			       struct report_frame *out, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		if (i && in[i].module == in[i - 1].module)
			out[i].module = out[i - 1].module;
		else
			out[i].module = report__intern(r, in[i].module, &err);
		if (i && in[i].build_id == in[i - 1].build_id)
			out[i].build_id = out[i - 1].build_id;
		else
			out[i].build_id = report__intern(r, in[i].build_id, &err);
	}
	return err;
}

/*
 * What keeps frames apart, one to three words a frame: the interned name
 * (8-aligned, so equal text is an equal word) with the kind in its low
 * bits; with REPORT_LINES the interned source file and the line; with
 * REPORT_ADDRS the address. Words a report never fills (lines and
 * addresses it drops) are left out: a system-wide report holds some ten
 * million frames in its keys.
 */
struct report_key {
	uint64_t pid, nk, nu;
	char comm[ST_COMM_LEN];
	uint64_t w[];
};

static size_t report__key_words(const struct report *r)
{
	return 1 + (r->flags & REPORT_LINES ? 2 : 0) + (r->flags & REPORT_ADDRS ? 1 : 0);
}

/*
 * The merge key of a stack, built in the report's scratch (grown as
 * needed, reused by every report__add()). Return: the key, or NULL.
 */
static struct report_key *report__key(struct report *r, int pid, const char *comm,
				      const struct report_frame *frames, size_t nk, size_t nu,
				      size_t *len)
{
	size_t i, n = nk + nu, at = 0;
	struct report_key *k;

	*len = sizeof(*k) + n * report__key_words(r) * sizeof(k->w[0]);
	if (*len > r->key_cap) {
		k = realloc(r->key, *len * 2);
		if (!k)
			return NULL;
		r->key = k;
		r->key_cap = *len * 2;
	}
	k = r->key;
	memset(k, 0, sizeof(*k));
	k->pid = (uint64_t)pid;
	k->nk = nk;
	k->nu = nu;
	if (r->flags & (REPORT_BY_PID | REPORT_BY_COMM))
		strncpy(k->comm, comm, ST_COMM_LEN - 1);
	for (i = 0; i < n; i++) {
		k->w[at++] = (uintptr_t)frames[i].name | (frames[i].kind & 7);
		if (r->flags & REPORT_LINES) {
			k->w[at++] = (uintptr_t)frames[i].src_file;
			k->w[at++] = frames[i].line;
		}
		if (r->flags & REPORT_ADDRS)
			k->w[at++] = frames[i].addr;
	}
	return k;
}

static struct report_stack *report__stack_new(struct report *r, int pid, const char *comm,
					      const struct report_frame *frames, size_t nk,
					      size_t nu)
{
	/* One block: the frame indexes follow the stack. */
	struct report_stack *s = arena__alloc(&r->stacks, sizeof(*s) + (nk + nu) * sizeof(*s->fi));
	uint32_t *fi;

	if (!s)
		return NULL;
	fi = (uint32_t *)(s + 1);
	if (frame_table__index_all(&r->frames, frames, nk + nu, fi))
		return NULL; /* the block stays in the arena until the report is cleared */
	s->frames = (const struct report_frame *const *)&r->frames.v;
	s->fi = fi;
	s->pid = pid;
	s->tid = -1;
	s->cpu = -1;
	strncpy(s->comm, comm, ST_COMM_LEN - 1);
	s->nk = nk;
	s->nu = nu;
	return s;
}

/* The report's scratch for @n frames. Return: it, or NULL (ENOMEM). */
static struct report_frame *report__own(struct report *r, size_t n)
{
	struct report_frame *v;

	if (n > r->own_cap) {
		if (n > SIZE_MAX / 2 / sizeof(*v))
			return NULL;
		v = realloc(r->own, 2 * n * sizeof(*v));
		if (!v)
			return NULL;
		r->own = v;
		r->own_cap = 2 * n;
	}
	return r->own;
}

int report__add(struct report *r, int pid, const char *comm, const struct report_frame *frames,
		size_t nk, size_t nu, uint64_t count, uint64_t weight, unsigned flags)
{
	struct report_frame *own = report__own(r, nk + nu + 1);
	struct report_stack *s;
	struct report_key *key;
	struct stack_entry *e = NULL;
	size_t i, len;
	int err = own ? 0 : -ENOMEM;

	if (!(r->flags & REPORT_BY_PID))
		pid = 0;
	for (i = 0; !err && i < nk + nu; i++)
		err = report__intern_keyed(r, &frames[i], &own[i]);
	key = err ? NULL : report__key(r, pid, comm, own, nk, nu, &len);
	if (key)
		e = stack_store__merge(r->index, key, len, count, weight);
	if (e && !e->data && !err)
		err = report__intern_rest(r, frames, own, nk + nu);
	if (e && !e->data && !err)
		e->data = report__stack_new(r, pid, comm, own, nk, nu);
	if (!e || !e->data)
		return -ENOMEM;
	s = e->data;
	s->count = e->count;
	s->weight = e->weight;
	s->flags |= flags;
	return 0;
}

void report__same_strings(struct report *r, bool on)
{
	memset(r->icache, 0, REPORT_ICACHE * sizeof(*r->icache));
	r->same_strings = on;
}

size_t report__len(const struct report *r)
{
	return stack_store__len(r->index);
}

size_t report__nframes(const struct report *r)
{
	return r->frames.n;
}

uint64_t report__total(const struct report *r, bool weight)
{
	struct stack_entry **e = stack_store__entries(r->index);
	size_t i, n = stack_store__len(r->index);
	uint64_t sum = 0;

	for (i = 0; e && i < n; i++)
		sum += weight ? e[i]->weight : e[i]->count;
	free(e);
	return sum;
}

/*
 * The sort compares names by their rank among the report's strings, set in
 * each interned string's store entry (report__rank_strings()): equal text is
 * one pointer, so two names differ exactly when their ranks do, and the
 * ranks are in strcmp() order. Ties on count are most stacks (three in four
 * are seen once), and comparing their frames' text was most of the sort.
 */
static uintptr_t report__rank(const char *interned)
{
	const struct stack_entry *e = (const struct stack_entry *)
		(interned - offsetof(struct stack_entry, key));

	return (uintptr_t)e->data;
}

static int report__cmp_text(const void *pa, const void *pb, void *unused)
{
	const struct stack_entry *a = *(struct stack_entry *const *)pa;
	const struct stack_entry *b = *(struct stack_entry *const *)pb;

	return strcmp((const char *)a->key, (const char *)b->key);
}

/* Each interned string's rank in strcmp() order, in its entry's data. Return: 0 or -ENOMEM. */
static int report__rank_strings(struct report *r)
{
	struct stack_entry **e = stack_store__entries(r->strs);
	size_t i, n = stack_store__len(r->strs);

	if (!n)
		return 0; /* stacks of no frames */
	if (!e)
		return -ENOMEM;
	sort_two(e, n, sizeof(*e), report__cmp_text, NULL);
	for (i = 0; i < n; i++)
		e[i]->data = (void *)(uintptr_t)i;
	free(e);
	return 0;
}

/*
 * The rank of each frame's name, by frame index: the sort reads a small
 * array where it read the frame, then the string's entry, two misses in
 * tables of megabytes. Return: it (malloc'ed), or NULL (ENOMEM).
 */
static uint32_t *report__frame_ranks(const struct report *r)
{
	uint32_t *rank = malloc((r->frames.n + 1) * sizeof(*rank));
	size_t i;

	if (!rank || stack_store__len(r->strs) > UINT32_MAX) {
		free(rank);
		return NULL;
	}
	for (i = 0; i < r->frames.n; i++)
		rank[i] = (uint32_t)report__rank(r->frames.v[i].name);
	return rank;
}

/* Frames by their names' ranks (@rank: report__frame_ranks()), then addresses. */
static int report__cmp_frames(const struct report_stack *a, const struct report_stack *b,
			      const uint32_t *rank)
{
	size_t na = a->nk + a->nu, nb = b->nk + b->nu, i;

	for (i = 0; i < na && i < nb; i++) {
		uint32_t ia = a->fi[i], ib = b->fi[i];

		if (ia == ib)
			continue; /* one entry of the frame table */
		if (rank[ia] != rank[ib])
			return rank[ia] < rank[ib] ? -1 : 1;
		if (report_stack__frame(a, i)->addr != report_stack__frame(b, i)->addr)
			return report_stack__frame(a, i)->addr < report_stack__frame(b, i)->addr ? -1 : 1;
	}
	if (na != nb)
		return na < nb ? -1 : 1;
	if (a->nk != b->nk)
		return a->nk < b->nk ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

/*
 * A stack as the sort sees it: its count and weight at hand (most
 * comparisons end there without reading the stack), then its first frame's
 * rank (0: no frames; most ties on count end there, without the miss of
 * reading the stack), and its place in insertion order, which breaks the
 * last ties as a stable sort would. 32 bytes: glibc sorts larger items
 * through pointers.
 */
struct report_sort_item {
	uint64_t count, weight;
	uint32_t at, first;
	struct report_stack *s;
};

/* The sort item's first-frame key: what report__cmp_frames() compares first. */
static uint32_t report__first_rank(const struct report_stack *s, const uint32_t *rank)
{
	return s->nk + s->nu ? rank[s->fi[0]] + 1 : 0;
}

static int report__cmp(const void *pa, const void *pb, void *rank)
{
	const struct report_sort_item *a = pa, *b = pb;
	int c;

	if (a->count != b->count)
		return a->count < b->count ? -1 : 1;
	if (a->weight != b->weight)
		return a->weight < b->weight ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	c = report__cmp_frames(a->s, b->s, rank);
	if (c)
		return c;
	return a->at < b->at ? -1 : a->at > b->at;
}

/* @n stacks of @e in report order into r->sorted. Return: 0 or -ENOMEM. */
static int report__sort(struct report *r, struct stack_entry **e, size_t n)
{
	struct report_sort_item *v = malloc(n * sizeof(*v));
	uint32_t *rank = NULL;
	size_t i;

	r->sorted = malloc(n * sizeof(*r->sorted));
	if (v && r->sorted && n < UINT32_MAX && !report__rank_strings(r))
		rank = report__frame_ranks(r);
	if (!rank) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct report_sort_item){ e[i]->count, e[i]->weight, (uint32_t)i,
						  report__first_rank(e[i]->data, rank), e[i]->data };
	sort_two(v, n, sizeof(*v), report__cmp, rank);
	for (i = 0; i < n; i++)
		r->sorted[i] = v[i].s;
	free(rank);
	free(v);
	return 0;
}

struct report_stack **report__sorted(struct report *r, size_t *n)
{
	struct stack_entry **e = stack_store__entries(r->index);

	*n = stack_store__len(r->index);
	free(r->sorted);
	r->sorted = NULL;
	if (!e || report__sort(r, e, *n)) {
		free(r->sorted);
		r->sorted = NULL;
		*n = 0;
	}
	free(e);
	return r->sorted;
}

void report__clear(struct report *r)
{
	arena__reset(&r->stacks);
	stack_store__clear(r->index);
	stack_store__clear(r->strs);
	frame_table__clear(&r->frames);
	memset(r->icache, 0, REPORT_ICACHE * sizeof(*r->icache));
	free(r->sorted);
	r->sorted = NULL;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	if (r->index && r->strs && r->icache && r->frames.slots)
		report__clear(r);
	free(r->icache);
	free(r->own);
	free(r->key);
	stack_store__free(r->index);
	stack_store__free(r->strs);
	frame_table__fini(&r->frames);
	free(r->event);
	free(r);
}
