/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw stacks' insides, shared by its files: the set and its keys
 * (raw_stacks.c: adding, settling, the report) and the fold of settled
 * stacks into the settled log (raw_fold.c). Nothing outside lib/pipeline/
 * includes it.
 */
#ifndef ST_RAW_INTERNAL_H
#define ST_RAW_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/pipeline/loc_pack.h"
#include "lib/pipeline/settled_log.h"
#include "lib/proc/registry.h"
#include "lib/session/joiner.h"
#include "lib/stack/store.h"
#include "lib/sym/symbolizer.h"
#include "lib/util/delta_pack.h"
#include "lib/util/grow.h"
#include "lib/util/htab.h"

/*
 * Stacks are decoded late, with the mappings their process had at the
 * event, which the registry keeps after the process exits only until the
 * stacks are settled (raw_stacks__settle()): a settled entry holds where
 * its user frames were (struct proc_loc each) in its data, and needs the
 * registry no more. Until then each process's undecoded entries are listed
 * under its pid, so settling one costs only its own entries. The places
 * are packed (lib/pipeline/loc_pack.h): a storm of short processes leaves
 * many settled entries, and a fold (raw_fold.c) moves them out of the
 * store into the settled log (lib/pipeline/settled_log.h).
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

static inline void raw__view_entry(const struct stack_entry *e, struct raw_view *w)
{
	const struct raw_key *k = (const struct raw_key *)e->key;

	*w = (struct raw_view){ .pid = k->pid, .kd = k->kd, .ud = k->ud, .flags = k->flags,
				.ustop = k->ustop, .comm = k->comm, .frames = k->frames,
				.flen = e->len - sizeof(*k), .places = e->data, .count = e->count,
				.weight = e->weight };
}

static inline void raw__view_rec(const struct settled_rec *r, struct raw_view *w)
{
	*w = (struct raw_view){ .pid = r->pid, .kd = r->kd, .ud = r->ud, .flags = r->flags,
				.ustop = r->ustop, .comm = r->comm, .frames = settled_rec__frames(r),
				.flen = r->flen, .places = settled_rec__places(r), .count = r->count,
				.weight = r->weight };
}

/* @w's frames decoded into the growing *@v (*@cap). Return: it, or NULL (ENOMEM). */
static inline uint64_t *raw__ips_of(const struct raw_view *w, uint64_t **v, size_t *cap)
{
	if (array_reserve((void **)v, cap, (size_t)w->kd + w->ud + 1, sizeof(**v)))
		return NULL;
	delta_unpack(w->frames, w->flen, *v, (size_t)w->kd + w->ud);
	return *v;
}


/* Return: the rank of the store's entry @i. */
static inline uint64_t raw__seq(const struct raw_stacks *rs, size_t i)
{
	return rs->seq ? rs->seq[i] : i;
}

/* Is one of @locs code outside a file, which the perf map of its process names? */
static inline bool raw__has_anon(const struct proc_loc *locs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (locs[i].path && !locs[i].file_backed)
			return true;
	return false;
}

#endif
