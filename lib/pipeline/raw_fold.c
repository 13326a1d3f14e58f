// SPDX-License-Identifier: GPL-2.0
/* Raw stacks: settled stacks folded into the settled log, the live ones kept in a new store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pipeline/raw_internal.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/util/log.h"

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
