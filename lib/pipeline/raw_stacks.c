// SPDX-License-Identifier: GPL-2.0
/* Raw stacks: exact dedup on arrival, decoded and named in batches at report time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/pipeline/loc_pack.h"
#include "lib/pipeline/raw_internal.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/pipeline/settled_log.h"
#include "lib/proc/registry.h"
#include "lib/session/joiner.h"
#include "lib/stack/store.h"
#include "lib/sym/event_frames.h"
#include "lib/util/arena.h"
#include "lib/util/delta_pack.h"
#include "lib/util/grow.h"
#include "lib/util/htab.h"
#include "lib/util/log.h"
#include "lib/util/relay.h"

/* Stacks named per batch: large enough to share file visits, small enough to bound memory. */
#define RAW_BATCH 4096
/* Batches in flight: one added, one named, one for the worker to run ahead. */
#define RAW_BATCH_SLOTS 3
/* Stacks the caller decodes between looks at whether the worker waits: about 0.2 ms. */
#define RAW_DECODE_STEP 64

/* @e's frames decoded into the growing *@v (*@cap). Return: it, or NULL (ENOMEM). */
static uint64_t *raw__ips_in(const struct stack_entry *e, uint64_t **v, size_t *cap)
{
	struct raw_view w;

	raw__view_entry(e, &w);
	return raw__ips_of(&w, v, cap);
}

struct raw_stacks *raw_stacks__new(struct symbolizer *sym)
{
	struct raw_stacks *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->sym = sym;
	rs->store = stack_store__new();
	rs->places = loc_places__new(symbolizer__procs(sym));
	if (!rs->store || !rs->places) {
		stack_store__free(rs->store);
		loc_places__free(rs->places);
		free(rs);
		errno = ENOMEM;
		return NULL;
	}
	return rs;
}

/* A new entry's first-event time and rank, at its index. Return: 0 or -ENOMEM. */
static int raw__push_ts(struct raw_stacks *rs, uint64_t ts)
{
	uint64_t *v;
	size_t cap;

	if (rs->nts == rs->cap) {
		cap = rs->cap ? rs->cap * 2 : 1024;
		v = cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(rs->ts, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		rs->ts = v;
		if (rs->seq) {
			v = realloc(rs->seq, cap * sizeof(*v));
			if (!v)
				return -ENOMEM; /* ts grown: harmless, cap says the smaller */
			rs->seq = v;
		}
		rs->cap = cap;
	}
	if (rs->seq)
		rs->seq[rs->nts] = rs->next_seq;
	rs->ts[rs->nts++] = ts;
	rs->next_seq++;
	return 0;
}

/* Lists @e (new, with user frames) under @pid until it is settled. Return: 0 or -ENOMEM. */
static int raw__pend(struct raw_stacks *rs, int pid, struct stack_entry *e, uint64_t ts)
{
	struct raw_pid *p = (struct raw_pid *)htab__first(&rs->pids, (uint64_t)pid, 0);
	struct raw_pending *v;
	size_t cap;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->node.k1 = (uint64_t)pid;
		if (htab__insert(&rs->pids, &p->node)) {
			free(p);
			return -ENOMEM;
		}
	}
	if (p->n == p->cap) {
		cap = p->cap ? p->cap * 2 : 4;
		v = cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (struct raw_pending){ .e = e, .ts = ts };
	return 0;
}

int raw_stacks__add(struct raw_stacks *rs, const struct st_event *ev, const uint64_t *ips,
		    uint64_t weight)
{
	return raw_stacks__merge(rs, ev, ips, 1, weight);
}

int raw_stacks__merge(struct raw_stacks *rs, const struct st_event *ev, const uint64_t *ips,
		      uint64_t count, uint64_t weight)
{
	size_t n = ev->kdepth + ev->udepth, len = sizeof(struct raw_key) + delta_pack_max(n);
	struct raw_key *k = rs->key;
	struct stack_entry *e;

	if (len > rs->key_cap) {
		k = realloc(rs->key, len);
		if (!k)
			return -ENOMEM;
		rs->key = k;
		rs->key_cap = len;
	}
	memset(k, 0, sizeof(*k));
	k->pid = ev->pid;
	k->kd = ev->kdepth;
	k->ud = ev->udepth;
	k->flags = ev->flags & RAW_KEY_FLAGS;
	k->ustop = ev->ustop;
	k->epoch = ev->udepth ? procs__epoch(symbolizer__procs(rs->sym), ev->pid, ev->ts) : 0;
	memcpy(k->comm, ev->comm, ST_COMM_LEN);
	len = sizeof(*k) + delta_pack(k->frames, ips, n);
	e = stack_store__merge(rs->store, k, len, count, weight);
	/* New: its first events' count is all it has. */
	if (!e || (e->count == count && raw__push_ts(rs, ev->ts)))
		return -ENOMEM;
	/* Kernel-only entries too: settled with their process, they can fold (raw__fold()). */
	if (e->count == count && raw__pend(rs, (int)ev->pid, e, ev->ts))
		return -ENOMEM;
	rs->total += count;
	return 0;
}

/*
 * Keeps where @pe's user frames were at its event (struct proc_loc each:
 * the file model and offset, strings the registry's) in its data, packed.
 * Return: 0 or -ENOMEM.
 */
static int raw__settle_one(struct raw_stacks *rs, const struct raw_pending *pe)
{
	const struct raw_key *k = (const struct raw_key *)pe->e->key;
	const uint64_t *ips;

	if (pe->e->data)
		return 0;
	ips = raw__ips_in(pe->e, &rs->ips, &rs->nips);
	if (!ips || array_reserve((void **)&rs->locs, &rs->nlocs, k->ud, sizeof(*rs->locs)))
		return -ENOMEM;
	event_frames__locate(symbolizer__procs(rs->sym), (int)k->pid, pe->ts, ips + k->kd, k->ud,
			     rs->locs);
	pe->e->data = loc_places__pack(rs->places, ips + k->kd, rs->locs, k->ud);
	if (!pe->e->data)
		return -ENOMEM;
	if (raw__has_anon(rs->locs, k->ud))
		symbolizer__keep_perf_map(rs->sym, (int)k->pid);
	rs->settled++;
	rs->unfolded++;
	return 0;
}

int raw_stacks__settle(struct raw_stacks *rs, int pid)
{
	struct raw_pid *p = (struct raw_pid *)htab__first(&rs->pids, (uint64_t)pid, 0);
	size_t i;
	int err = 0;

	if (!p)
		return 0;
	for (i = 0; i < p->n && !err; i++)
		err = raw__settle_one(rs, &p->v[i]);
	if (err)
		return err; /* still listed: settled again later, or decoded at the report */
	htab__remove(&rs->pids, &p->node);
	free(p->v);
	free(p);
	return 0;
}

uint64_t raw_stacks__settled(const struct raw_stacks *rs)
{
	return rs->settled;
}

uint64_t raw_stacks__folded(const struct raw_stacks *rs)
{
	return rs->folded;
}

/*
 * A batch of entries on its way to the report: decoded on the caller's
 * thread (reading the registry and the file models' build IDs, which stay
 * as they are while the relay runs), named on the relay's worker (the
 * symbolizer and libdw are only touched there while the relay runs), added
 * to the report on the caller's thread (the report model only there). What
 * passes between them is the batch's frames, and the strings they point
 * at, which stay as they are until the report is done
 * (symbolizer__remember(), report__same_strings()).
 */
struct raw_batch {
	struct event_frames *ef;
	size_t first, n, done; /* entries [first, first + n); done: decoded */
	struct arena frames;   /* the frames of ef, rewound for each batch of the slot */
	uint64_t *ips;         /* the entry being decoded: its key's frames, nips */
	size_t nips;
};

/*
 * The stacks in the order they were first met: the store's entries, or,
 * once a fold moved settled ones out, the entries and the log's records
 * interleaved by rank (a record's pointer tagged with RAW_ITEM_REC).
 */
#define RAW_ITEM_REC ((uintptr_t)1)

struct raw_run {
	struct raw_stacks *rs;
	struct symbolizer *sym;
	uintptr_t *v;      /* struct stack_entry *, or struct settled_rec * | RAW_ITEM_REC */
	const uint64_t *ts; /* per item: an entry's first event's time (a record's: unused) */
	size_t n; /* items */
	struct report *r;
};

static void raw__item(const struct raw_run *run, size_t j, struct raw_view *w)
{
	if (run->v[j] & RAW_ITEM_REC)
		raw__view_rec((const struct settled_rec *)(run->v[j] & ~RAW_ITEM_REC), w);
	else
		raw__view_entry((const struct stack_entry *)run->v[j], w);
}

static void raw__batch_release(void *ctx, void *slot)
{
	struct raw_batch *b = slot;
	size_t i;

	(void)ctx;
	for (i = 0; b->ef && i < b->done; i++)
		event_frames__release(&b->ef[i]);
	free(b->ef);
	b->ef = NULL;
	b->done = 0;
	arena__rewind(&b->frames);
}

/* Settled @w's frames @ips from its places (unpacked in @mem). Return: 0 or -ENOMEM. */
static int raw__decode_settled(const struct raw_stacks *rs, struct event_frames *ef,
			       struct arena *mem, const struct raw_view *w, const uint64_t *ips)
{
	struct proc_loc *locs = arena__alloc(mem, (w->ud ? w->ud : 1) * sizeof(*locs));

	if (!locs)
		return -ENOMEM;
	loc_places__unpack(rs->places, w->places, ips + w->kd, w->ud, locs);
	return event_frames__decode_at(ef, mem, w->pid, ips, w->kd, w->ud,
				       joiner_lost_frame(w->flags), w->ustop, locs);
}

/* Decodes @b's entries from the first not decoded yet up to @to. Return: 0 or -ENOMEM. */
static int raw__batch_decode_to(struct raw_run *run, struct raw_batch *b, size_t to)
{
	struct raw_view w;
	const uint64_t *ips;
	size_t j;
	int err = 0;

	for (j = b->first + b->done; j < b->first + to && !err; j++, b->done++) {
		raw__item(run, j, &w);
		ips = raw__ips_of(&w, &b->ips, &b->nips);
		if (!ips)
			err = -ENOMEM;
		else if (w.places)
			err = raw__decode_settled(run->rs, &b->ef[b->done], &b->frames, &w, ips);
		else
			err = event_frames__decode(&b->ef[b->done], &b->frames, run->sym, w.pid,
						   run->ts[j], ips, w.kd, w.ud,
						   joiner_lost_frame(w.flags), w.ustop);
	}
	return err;
}

/*
 * On the caller: decodes batch @i's entries while the worker is busy with
 * the batches before; it decodes the rest (and names them). Both wait for
 * the other at times, as the share of naming and adding in a batch moves:
 * the first batches open and read the files (the worker's), the later ones
 * find their names remembered and add (the caller's). Decoding fills
 * either one's idle time (docs/recording.md).
 */
static int raw__batch_prepare(void *ctx, size_t i, void *slot, const size_t *made)
{
	struct raw_run *run = ctx;
	struct raw_batch *b = slot;
	int err;

	raw__batch_release(ctx, slot); /* the batch before in this slot */
	b->first = i * RAW_BATCH;
	b->n = run->n - b->first < RAW_BATCH ? run->n - b->first : RAW_BATCH;
	b->ef = calloc(b->n, sizeof(*b->ef));
	err = b->ef ? 0 : -ENOMEM;
	while (!err && b->done < b->n && !relay__waiting(made, i))
		err = raw__batch_decode_to(run, b, b->done + RAW_DECODE_STEP < b->n ?
						   b->done + RAW_DECODE_STEP : b->n);
	if (err)
		raw__batch_release(ctx, slot);
	return err;
}

/* On the worker: decodes the rest of a batch, and names it in one go. */
static int raw__batch_make(void *ctx, size_t i, void *slot)
{
	struct raw_run *run = ctx;
	struct raw_batch *b = slot;
	int err = raw__batch_decode_to(run, b, b->n);

	(void)i;
	if (!err)
		err = symbolizer__name(run->sym, b->ef, b->n);
	if (!err)
		symbolizer__progress(run->sym, b->first + b->n, run->n);
	return err;
}

/* On the caller: adds a named batch to the report (its frames go at the slot's next decode). */
static int raw__batch_use(void *ctx, size_t i, void *slot)
{
	struct raw_run *run = ctx;
	struct raw_batch *b = slot;
	struct raw_view w;
	size_t j;
	int err = 0;

	(void)i;
	for (j = 0; j < b->n && !err; j++) {
		raw__item(run, b->first + j, &w);
		err = report__add(run->r, w.pid, w.comm, b->ef[j].v, b->ef[j].nk, b->ef[j].nu,
				  w.count, w.weight, w.flags);
	}
	return err;
}

/*
 * Names batch k + 1 while batch k is added, on two CPUs: of a 1M-sample
 * system-wide report's 7 CPU-s, decoding and naming are 3.1 and adding
 * 2.2, so the two overlap for most of it, decoding on whichever side is
 * free (docs/recording.md). A batch a slot; three let the worker run ahead
 * over an uneven batch (five made no difference).
 */
static int raw__report_batches(struct raw_stacks *rs, struct symbolizer *sym, uintptr_t *v,
			       const uint64_t *ts, size_t n, struct report *r)
{
	static const struct relay_ops ops = {
		.prepare = raw__batch_prepare, .make = raw__batch_make, .use = raw__batch_use,
		.drop = raw__batch_release,
	};
	struct raw_run run = { .rs = rs, .sym = sym, .v = v, .ts = ts, .n = n, .r = r };
	struct raw_batch slots[RAW_BATCH_SLOTS] = { 0 };
	size_t i;
	int err = relay__run((n + RAW_BATCH - 1) / RAW_BATCH, slots, sizeof(slots[0]),
			     RAW_BATCH_SLOTS, &ops, &run);

	for (i = 0; i < RAW_BATCH_SLOTS; i++) {
		raw__batch_release(&run, &slots[i]);
		arena__reset(&slots[i].frames);
		free(slots[i].ips);
	}
	return err;
}

/* Resident memory now, KiB (0 when unknown): for --debug's figures. */
static long raw__rss_kib(void)
{
	long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f && fscanf(f, "%*d %ld", &pages) != 1)
		pages = 0;
	if (f)
		fclose(f);
	return pages * (sysconf(_SC_PAGESIZE) / 1024);
}

static double raw__ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/*
 * The report's items (struct raw_run) in *@v, their times in *@ts, @n of
 * them: with nothing in the log, the store's entries and times as they are.
 * Return: 0 or -ENOMEM.
 */
static int raw__items(const struct raw_stacks *rs, uintptr_t **v, uint64_t **ts, size_t n)
{
	struct stack_entry **e = stack_store__entries(rs->store);
	size_t ne = stack_store__len(rs->store), i = 0, j = 0, at;
	uintptr_t u;

	*v = NULL;
	*ts = NULL;
	if (ne && !e)
		return -ENOMEM;
	if (!rs->log.n) { /* the same block, as words: read through uintptr_t from here on */
		for (at = 0; at < ne; at++) {
			u = (uintptr_t)e[at];
			memcpy((uintptr_t *)(void *)e + at, &u, sizeof(u));
		}
		*v = (uintptr_t *)(void *)e;
		*ts = rs->ts;
		return 0;
	}
	*v = malloc(n * sizeof(**v));
	*ts = malloc(n * sizeof(**ts));
	for (at = 0; *v && *ts && at < n; at++) {
		if (j < rs->log.n && (i == ne || rs->log.v[j]->seq < raw__seq(rs, i))) {
			(*v)[at] = (uintptr_t)rs->log.v[j++] | RAW_ITEM_REC;
			(*ts)[at] = 0;
		} else {
			(*v)[at] = (uintptr_t)e[i];
			(*ts)[at] = rs->ts[i++];
		}
	}
	free(e);
	return *v && *ts ? 0 : -ENOMEM;
}

int raw_stacks__report(struct raw_stacks *rs, struct symbolizer *sym, struct report *r)
{
	size_t n = raw_stacks__len(rs);
	long rss0 = raw__rss_kib();
	double t0 = raw__ms();
	uint64_t *ts;
	uintptr_t *v;
	int err = raw__items(rs, &v, &ts, n);

	if (err) {
		free(v);
		if (ts != rs->ts)
			free(ts);
		return err;
	}
	symbolizer__refresh(sym); /* what JITs wrote since their processes were seen */
	symbolizer__remember(sym, true); /* each address named once across the batches */
	report__same_strings(r, true);   /* and nothing the names live in is freed meanwhile */
	err = raw__report_batches(rs, sym, v, ts, n, r);
	report__same_strings(r, false);
	symbolizer__remember(sym, false);
	free(v);
	if (ts != rs->ts)
		free(ts);
	st_info("raw stacks: %zu distinct stacks decoded and named in %.1f ms (%llu of them resolved "
		"early, their process gone; %llu more folded into those); resident memory %ld -> "
		"%ld KiB", n, raw__ms() - t0, (unsigned long long)(rs->settled - rs->folded),
		(unsigned long long)rs->folded, rss0, raw__rss_kib());
	return err;
}

size_t raw_stacks__len(const struct raw_stacks *rs)
{
	return stack_store__len(rs->store) + rs->log.n;
}

uint64_t raw_stacks__total(const struct raw_stacks *rs)
{
	return rs->total;
}

static void raw_pid__free(struct hnode *n)
{
	free(((struct raw_pid *)n)->v);
	free(n);
}

/* Frees every settled entry's frames and every pending list. */
static void raw__drop_decoded(struct raw_stacks *rs)
{
	struct stack_entry **v = stack_store__entries(rs->store);
	size_t i, n = stack_store__len(rs->store);

	htab__drain(&rs->pids, raw_pid__free);
	if (!v)
		return; /* empty, or out of memory: a leak of settled frames, never a crash */
	for (i = 0; i < n; i++) {
		free(v[i]->data);
		v[i]->data = NULL;
	}
	free(v);
}

void raw_stacks__clear(struct raw_stacks *rs)
{
	raw__drop_decoded(rs);
	stack_store__clear(rs->store);
	settled_log__reset(&rs->log);
	free(rs->seq);
	rs->seq = NULL;
	rs->next_seq = 0;
	rs->nts = 0;
	rs->total = 0;
	rs->settled = 0;
	rs->folded = 0;
	rs->unfolded = 0;
}

void raw_stacks__free(struct raw_stacks *rs)
{
	if (!rs)
		return;
	raw__drop_decoded(rs);
	stack_store__free(rs->store);
	settled_log__reset(&rs->log);
	free(rs->seq);
	loc_places__free(rs->places);
	free(rs->locs);
	free(rs->key);
	free(rs->ips);
	free(rs->ts);
	free(rs);
}
