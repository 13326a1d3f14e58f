// SPDX-License-Identifier: GPL-2.0
/* Raw stacks: exact dedup on arrival, decoded and named in batches at report time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/pipeline/loc_pack.h"
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

/*
 * Stacks are decoded late, with the mappings their process had at the
 * event, which the registry keeps after the process exits only until the
 * stacks are settled (raw_stacks__settle()): a settled entry holds where
 * its user frames were (struct proc_loc each) in its data, and needs the
 * registry no more. Until then each process's undecoded entries are listed
 * under its pid, so settling one costs only its own entries. The places
 * are packed (lib/pipeline/loc_pack.h): a storm of short processes leaves
 * many settled entries.
 */
struct raw_pending {
	struct stack_entry *e;
	uint64_t ts; /* its first event's time: the mappings that name it */
};

struct raw_pid {
	struct hnode node; /* (pid, 0) */
	struct raw_pending *v;
	size_t n, cap;
};

struct raw_stacks {
	struct symbolizer *sym;
	struct stack_store *store;
	uint64_t *ts; /* per entry, in insertion order: its first event's time */
	uint64_t *seq; /* per entry, its rank (next_seq at its insertion); NULL: its index */
	size_t nts, cap;
	uint64_t next_seq;       /* entries inserted since the last clear */
	struct settled_log log;  /* settled entries moved out of the store by a fold */
	uint64_t total;
	struct htab pids; /* pid -> struct raw_pid: its entries not decoded yet */
	struct loc_places *places; /* of the settled entries' frames (their data) */
	struct proc_loc *locs;     /* raw__settle_one()'s scratch, nlocs frames */
	size_t nlocs;
	uint64_t settled; /* entries resolved early, their process gone */
	uint64_t folded;  /* settled entries merged into an earlier one (raw__fold()) */
	size_t unfolded;  /* entries settled since the last fold */
	bool fold;        /* the report does not split by process: settled entries fold */
	bool fold_addrs;  /* ... and shows addresses: the run-time addresses must agree too */
	struct raw_key *key; /* raw_stacks__merge()'s scratch, key_cap bytes */
	size_t key_cap;
	uint64_t *ips; /* a key's frames decoded (raw__ips()): settling's scratch, nips */
	size_t nips;
};

/*
 * The dedup key: identity, the mappings' epoch, and the exact frames: kd
 * kernel then ud user addresses, delta-packed (lib/util/delta_pack.h):
 * ~3.6 bytes a frame instead of 8, and a churn's settled stacks are most of
 * what a profile holds. The packing is one-to-one for the frame count in
 * the header, so equal keys are still equal stacks, compared in full.
 */
struct raw_key {
	__u32 pid;
	__u16 kd, ud;
	__u16 flags; /* ST_EV_UFAIL, ST_EV_KTHREAD and the joiner's lost reason */
	__u16 ustop; /* why the user walk ended: the stack's end mark */
	__u16 pad[2];
	uint64_t epoch; /* procs__epoch() at the event: the same addresses, other code */
	char comm[ST_COMM_LEN];
	uint8_t frames[]; /* delta-packed, up to the entry's len */
};

#define RAW_KEY_FLAGS (ST_EV_UFAIL | ST_EV_KTHREAD | JOINER_LOST_MASK)

/*
 * A stack as the fold and the report read it, wherever it is held: an entry
 * of the store (settled or not) or a record of the settled log.
 */
struct raw_view {
	uint32_t pid;
	uint16_t kd, ud, flags, ustop;
	const char *comm;
	const uint8_t *frames; /* delta-packed, flen bytes */
	size_t flen;
	const void *places; /* settled: its places (lib/pipeline/loc_pack.h); else NULL */
	uint64_t count, weight;
};

static void raw__view_entry(const struct stack_entry *e, struct raw_view *w)
{
	const struct raw_key *k = (const struct raw_key *)e->key;

	*w = (struct raw_view){ .pid = k->pid, .kd = k->kd, .ud = k->ud, .flags = k->flags,
				.ustop = k->ustop, .comm = k->comm, .frames = k->frames,
				.flen = e->len - sizeof(*k), .places = e->data, .count = e->count,
				.weight = e->weight };
}

static void raw__view_rec(const struct settled_rec *r, struct raw_view *w)
{
	*w = (struct raw_view){ .pid = r->pid, .kd = r->kd, .ud = r->ud, .flags = r->flags,
				.ustop = r->ustop, .comm = r->comm, .frames = settled_rec__frames(r),
				.flen = r->flen, .places = settled_rec__places(r), .count = r->count,
				.weight = r->weight };
}

/* @w's frames decoded into the growing *@v (*@cap). Return: it, or NULL (ENOMEM). */
static uint64_t *raw__ips_of(const struct raw_view *w, uint64_t **v, size_t *cap)
{
	if (array_reserve((void **)v, cap, (size_t)w->kd + w->ud + 1, sizeof(**v)))
		return NULL;
	delta_unpack(w->frames, w->flen, *v, (size_t)w->kd + w->ud);
	return *v;
}

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

/* Return: the rank of the store's entry @i. */
static uint64_t raw__seq(const struct raw_stacks *rs, size_t i)
{
	return rs->seq ? rs->seq[i] : i;
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

/* Is one of @locs code outside a file, which the perf map of its process names? */
static bool raw__has_anon(const struct proc_loc *locs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (locs[i].path && !locs[i].file_backed)
			return true;
	return false;
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

/*
 * Folding settled stacks. A process gone and settled keeps its entries (its
 * pid, addresses, and where each user frame was) until the report, which,
 * when it is not split by process, merges them with every other process's
 * entries whose frames read the same. Under a storm of short processes,
 * nearly each one a process of its own, those entries are what grows. So
 * settled entries whose frames will read the same for certain merge early:
 * the same comm, flags, end of walk and kernel addresses, and for each user
 * frame the same mapped path and file model (both one pointer a thing for
 * the registry's life: a settled place holds its model, loc_places__new()),
 * offset and walker marks (with REPORT_ADDRS, the
 * whole run-time address). Names are a function of these alone, except
 * code outside any file, named by its own process's perf map: an entry
 * with such a frame stays apart. An entry merges into the earliest of its
 * kind, the one the report would meet first and keep (its place, process
 * and addresses), so the report reads the same byte for byte. The store
 * frees entries only all at once (an arena), so a fold builds a new store
 * of the live entries and a new settled log (lib/pipeline/settled_log.h)
 * of the settled ones, a record a kind: once a quarter of the entries, and
 * at least RAW_FOLD_MIN, were settled since the last one, which keeps its
 * cost linear in the entries settled. A churn of 10,000 short processes
 * settles about a thousand stacks: the first fold should come within it.
 */
#define RAW_FOLD_MIN 256

/*
 * The user frames of a fold key, as RAW_FOLD_WORDS columns of ud words:
 * the mapped paths (interned by the registry), the file models (or NULL),
 * their flags (file_backed | why << 1), the offsets, and the walker's
 * marks (or the whole addresses). Every settled entry has its key in the
 * fold's kinds at once, so the words are delta-packed
 * (lib/util/delta_pack.h), a column at a time: a frame's path, model and
 * flags mostly repeat the frame before's, and cost a byte and a half each.
 */
#define RAW_FOLD_WORDS 5

struct raw_fold_key {
	__u16 kd, ud, flags, ustop;
	char comm[ST_COMM_LEN];
	uint8_t w[]; /* delta-packed: kd kernel addresses, then ud frames of RAW_FOLD_WORDS */
};

struct raw_fold {
	struct stack_store *store;  /* the new store: the entries not settled */
	struct stack_store *kinds;  /* fold key -> its record in the new log (data); or NULL */
	struct settled_log log;     /* the new log: every settled entry, by rank */
	struct stack_entry **to;    /* per old entry: the new entry it went into, NULL: the log */
	uint64_t *ts, *seq;         /* the new store's first-event times and ranks */
	size_t nts;
	uint64_t folded;            /* settled entries merged into an earlier one */
	void *key;                  /* fold key scratch, key_cap bytes */
	size_t key_cap;
	struct proc_loc *locs;      /* a settled entry's places unpacked, nlocs frames */
	size_t nlocs;
	uint64_t *ips;              /* its frames decoded, nips */
	size_t nips;
	uint64_t *words;            /* its fold key's words before packing, nwords */
	size_t nwords;
};

void raw_stacks__fold_for(struct raw_stacks *rs, unsigned report_flags)
{
	rs->fold = !(report_flags & REPORT_BY_PID);
	rs->fold_addrs = report_flags & REPORT_ADDRS;
}

/* The fold key of settled @w, in @f's scratch (*len bytes); NULL: @w stays apart, or *err. */
static const struct raw_fold_key *raw__fold_key(const struct raw_stacks *rs, struct raw_fold *f,
						 const struct raw_view *w, size_t *len, int *err)
{
	const uint64_t *ips = raw__ips_of(w, &f->ips, &f->nips);
	const struct proc_loc *locs;
	struct raw_fold_key *fk;
	size_t i, nw;
	uint64_t *v;

	if (!ips || array_reserve((void **)&f->locs, &f->nlocs, w->ud, sizeof(*f->locs))) {
		*err = -ENOMEM;
		return NULL;
	}
	loc_places__unpack(rs->places, w->places, ips + w->kd, w->ud, f->locs);
	locs = f->locs;
	if (raw__has_anon(locs, w->ud))
		return NULL; /* named by its own process's perf map */
	nw = w->kd + (size_t)w->ud * RAW_FOLD_WORDS;
	if (array_reserve((void **)&f->words, &f->nwords, nw + 1, sizeof(*f->words)) ||
	    array_reserve(&f->key, &f->key_cap, sizeof(*fk) + delta_pack_max(nw), 1)) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(f->words, ips, w->kd * sizeof(*f->words));
	for (i = 0, v = f->words + w->kd; i < w->ud; i++, v++) { /* a column a field */
		uint64_t ip = ips[w->kd + i];

		v[0] = (uint64_t)(uintptr_t)locs[i].path;
		v[w->ud] = (uint64_t)(uintptr_t)locs[i].file;
		v[2 * w->ud] = (uint64_t)locs[i].file_backed | (uint64_t)locs[i].why << 1;
		v[3 * w->ud] = locs[i].file_off;
		v[4 * w->ud] = rs->fold_addrs ? ip : ip & ST_FRAME_MARKS;
	}
	fk = f->key;
	*fk = (struct raw_fold_key){ .kd = w->kd, .ud = w->ud, .flags = w->flags,
				     .ustop = w->ustop };
	memcpy(fk->comm, w->comm, ST_COMM_LEN);
	*len = sizeof(*fk) + delta_pack(fk->w, f->words, nw);
	return fk;
}

/* Settled @w, of rank @seq, into @f's new log, merged into the earliest of its kind. */
static int raw__fold_settled(const struct raw_stacks *rs, struct raw_fold *f,
			     const struct raw_view *w, uint64_t seq, size_t plen)
{
	const struct raw_fold_key *fk = NULL;
	struct stack_entry *kind = NULL;
	struct settled_rec h, *r;
	size_t len;
	int err = 0;

	if (f->kinds)
		fk = raw__fold_key(rs, f, w, &len, &err);
	if (fk && !(kind = stack_store__merge(f->kinds, fk, len, 1, 0)))
		err = -ENOMEM;
	if (err)
		return err;
	if (kind && kind->data) {
		r = kind->data;
		r->count += w->count;
		r->weight += w->weight;
		f->folded++;
		return 0;
	}
	h = (struct settled_rec){ .count = w->count, .weight = w->weight, .seq = seq,
				  .pid = w->pid, .kd = w->kd, .ud = w->ud, .flags = w->flags,
				  .ustop = w->ustop, .flen = (uint16_t)w->flen, .plen = (uint16_t)plen };
	memcpy(h.comm, w->comm, ST_COMM_LEN);
	r = settled_log__append(&f->log, &h, w->frames, w->places);
	if (!r)
		return -ENOMEM;
	if (kind)
		kind->data = r;
	return 0;
}

/*
 * Old entry @e (the store's @i-th) into @f: settled, into the new log (*@to
 * NULL); else into the new store, its time and rank kept.
 */
static int raw__fold_entry(const struct raw_stacks *rs, struct raw_fold *f, struct stack_entry *e,
			   size_t i, struct stack_entry **to)
{
	struct raw_view w;
	struct stack_entry *ne;
	size_t plen = 0;

	raw__view_entry(e, &w);
	if (w.places)
		plen = loc_places__packed_len(w.places, w.ud);
	/* A record's lengths are 16 bits: a stack too large for one stays in the store. */
	if (w.places && w.flen <= UINT16_MAX && plen <= UINT16_MAX) {
		*to = NULL;
		return raw__fold_settled(rs, f, &w, raw__seq(rs, i), plen);
	}
	ne = stack_store__merge(f->store, e->key, e->len, e->count, e->weight);
	if (!ne)
		return -ENOMEM;
	ne->data = e->data;
	f->ts[f->nts] = rs->ts[i];
	f->seq[f->nts++] = raw__seq(rs, i);
	*to = ne;
	return 0;
}

/* A pending list's entries: where the fold put them (the old entry's data, for now). */
static void raw_pid__moved(struct hnode *n, void *ctx)
{
	struct raw_pid *p = (struct raw_pid *)n;
	size_t i, kept = 0;

	(void)ctx;
	for (i = 0; i < p->n; i++) {
		p->v[kept] = p->v[i];
		p->v[kept].e = p->v[i].e->data;
		kept += p->v[kept].e != NULL; /* moved to the log: settled already */
	}
	p->n = kept;
}

/* The fold of @v (the old store's @n entries) into @f done: @f's store and log replace the old. */
static void raw__fold_commit(struct raw_stacks *rs, struct raw_fold *f, struct stack_entry **v,
			     size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!f->to[i])
			free(v[i]->data); /* its places are in the log now */
		v[i]->data = f->to[i];
	}
	htab__each(&rs->pids, raw_pid__moved, NULL);
	stack_store__free(rs->store);
	rs->store = f->store;
	settled_log__reset(&rs->log);
	rs->log = f->log;
	free(rs->ts);
	free(rs->seq);
	rs->ts = f->ts;
	rs->seq = f->seq;
	rs->nts = f->nts;
	rs->cap = n;
	rs->folded += f->folded;
	rs->unfolded = 0;
	f->store = NULL;
	f->ts = NULL;
	f->seq = NULL;
	f->log = (struct settled_log){ 0 };
}

/*
 * The old store's entries and the old log's records, both by rank, walked
 * together by rank: the new log keeps that order and each kind's earliest.
 */
static int raw__fold_walk(struct raw_stacks *rs, struct raw_fold *f, struct stack_entry **v,
			  size_t n)
{
	size_t i = 0, j = 0;
	struct raw_view w;
	int err = 0;

	while (!err && (i < n || j < rs->log.n)) {
		const struct settled_rec *r = j < rs->log.n ? rs->log.v[j] : NULL;

		if (r && (i == n || r->seq < raw__seq(rs, i))) {
			raw__view_rec(r, &w);
			err = raw__fold_settled(rs, f, &w, r->seq, r->plen);
			j++;
		} else {
			err = raw__fold_entry(rs, f, v[i], i, &f->to[i]);
			i++;
		}
	}
	return err;
}

int raw_stacks__fold(struct raw_stacks *rs)
{
	struct stack_entry **v = stack_store__entries(rs->store);
	size_t n = stack_store__len(rs->store);
	struct raw_fold f = { .store = stack_store__new() };
	int err;

	if (!n && !rs->log.n)
		return 0;
	if (rs->fold)
		f.kinds = stack_store__new();
	f.to = calloc(n + 1, sizeof(*f.to));
	f.ts = calloc(n + 1, sizeof(*f.ts));
	f.seq = calloc(n + 1, sizeof(*f.seq));
	err = (v || !n) && f.store && (f.kinds || !rs->fold) && f.to && f.ts && f.seq ? 0 : -ENOMEM;
	if (!err)
		err = raw__fold_walk(rs, &f, v, n);
	if (!err)
		raw__fold_commit(rs, &f, v, n);
	stack_store__free(f.store); /* on failure: the old store and log stand as they were */
	stack_store__free(f.kinds);
	settled_log__reset(&f.log);
	free(f.ts);
	free(f.seq);
	free(f.to);
	free(f.key);
	free(f.locs);
	free(f.ips);
	free(f.words);
	free(v);
	return err;
}

int raw_stacks__settle_gone(struct raw_stacks *rs, struct agg_reader *agg, agg_fn fn, void *ctx,
			    const int *pids, size_t n, const char *tool)
{
	size_t i;
	int err = agg ? agg_reader__read_gone(agg, pids, n, fn, ctx) : 0;

	if (err)
		st_err("%s: reading the in-kernel counts: %s", tool, strerror(-err));
	for (i = 0; i < n && !err; i++)
		err = raw_stacks__settle(rs, pids[i]);
	if (!err && rs->unfolded >= RAW_FOLD_MIN && rs->unfolded >= raw_stacks__len(rs) / 4)
		err = raw_stacks__fold(rs);
	return err;
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
