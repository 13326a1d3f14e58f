// SPDX-License-Identifier: GPL-2.0
/* Reading the in-kernel aggregation maps: counts grown since the last read. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/aggregate.h"
#include "lib/session/aggregate.h"
#include "lib/session/session.h"
#include "lib/stack/store.h"
#include "lib/util/log.h"

/*
 * Counts read a syscall: a system-wide run reads the whole map each time it
 * settles exited processes (several times a second under churn), and one
 * key at a time took two syscalls a count.
 */
#define AGG_BATCH 256

struct agg_reader {
	int counts_fd, stacks_fd;
	struct stack_store *seen; /* key -> the count and weight at the last read */
	struct st_agg_stack stack; /* the one being read */
	uint64_t missing;
	struct st_agg_key keys[AGG_BATCH]; /* one batch of counts */
	struct st_agg_val vals[AGG_BATCH];
	bool no_batch; /* the kernel refused a batch read: one key at a time */
};

int agg_size(struct bpf_object *obj, uint32_t entries)
{
	struct bpf_map *counts = bpf_object__find_map_by_name(obj, "st_agg_counts");
	struct bpf_map *stacks = bpf_object__find_map_by_name(obj, "st_agg_stacks");
	int err;

	if (!counts || !stacks) {
		st_err("aggregate: BPF object has no aggregation maps");
		return -ENOENT;
	}
	err = bpf_map__set_max_entries(counts, entries);
	if (!err)
		err = bpf_map__set_max_entries(stacks, entries);
	if (err)
		st_err("aggregate: cannot size the maps to %u entries: %s", entries, strerror(-err));
	return err;
}

struct agg_reader *agg_reader__new(struct bpf_object *obj)
{
	struct bpf_map *counts = bpf_object__find_map_by_name(obj, "st_agg_counts");
	struct bpf_map *stacks = bpf_object__find_map_by_name(obj, "st_agg_stacks");
	struct agg_reader *ar;

	if (!counts || !stacks) {
		st_err("aggregate: BPF object has no aggregation maps");
		errno = ENOENT;
		return NULL;
	}
	ar = calloc(1, sizeof(*ar));
	if (!ar)
		return NULL;
	ar->seen = stack_store__new();
	if (!ar->seen) {
		free(ar);
		errno = ENOMEM;
		return NULL;
	}
	ar->counts_fd = bpf_map__fd(counts);
	ar->stacks_fd = bpf_map__fd(stacks);
	return ar;
}

/* The count's growth since the last read, remembered now. Return: 0 or -ENOMEM. */
static int agg__delta(struct agg_reader *ar, const struct st_agg_key *k,
		      const struct st_agg_val *v, uint64_t *count, uint64_t *weight)
{
	struct stack_entry *e = stack_store__merge(ar->seen, k, sizeof(*k), 0, 0);

	if (!e)
		return -ENOMEM;
	*count = v->count - e->count;
	*weight = v->weight - e->weight;
	e->count = v->count;
	e->weight = v->weight;
	return 0;
}

/* One count out: the stored stack under the key's identity. */
static int agg__emit(struct agg_reader *ar, const struct st_agg_key *k,
		     const struct st_agg_val *v, uint64_t count, uint64_t weight, agg_fn fn,
		     void *ctx)
{
	struct st_event ev;

	if (bpf_map_lookup_elem(ar->stacks_fd, &k->hash, &ar->stack) ||
	    ar->stack.ev.kdepth + ar->stack.ev.udepth > ST_AGG_FRAMES) {
		ar->missing += count;
		return 0;
	}
	ev = ar->stack.ev;
	ev.pid = k->pid;
	ev.tid = k->tid;
	ev.flags = (ev.flags & ~(ST_EV_UFAIL | ST_EV_KTHREAD)) | k->flags;
	ev.ustop = k->ustop;
	ev.ts = v->first_ts;
	ev.weight = weight;
	ev.cookie = 0;
	memcpy(ev.comm, k->comm, ST_COMM_LEN);
	return fn(ctx, &ev, (const uint64_t *)ar->stack.ips, count, weight);
}

/* One entry read: handed out if it grew. */
static int agg__visit(struct agg_reader *ar, const struct st_agg_key *k,
		      const struct st_agg_val *v, agg_fn fn, void *ctx)
{
	uint64_t count, weight;
	int err = agg__delta(ar, k, v, &count, &weight);

	return !err && count ? agg__emit(ar, k, v, count, weight, fn, ctx) : err;
}

/* Two syscalls a count: the way kernels without batch lookups are read. */
static int agg__read_each(struct agg_reader *ar, agg_fn fn, void *ctx)
{
	struct st_agg_key key, next;
	struct st_agg_val v;
	void *prev = NULL;
	int err = 0;

	while (!err && !bpf_map_get_next_key(ar->counts_fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(ar->counts_fd, &key, &v))
			err = agg__visit(ar, &key, &v, fn, ctx);
	}
	return err;
}

/*
 * AGG_BATCH counts a syscall. Return: 0, an error of @fn or of memory, or
 * -EOPNOTSUPP when the kernel cannot read this map in batches (or a bucket
 * holds more than a batch): then agg__read_each(), which hands out nothing
 * twice, as what was read is remembered.
 */
static int agg__read_batched(struct agg_reader *ar, agg_fn fn, void *ctx)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	struct st_agg_key in, out; /* the batch position: a hash map's is 4 bytes of it */
	bool first = true, last = false;
	__u32 n, i;
	int err = 0;

	while (!err && !last) {
		n = AGG_BATCH;
		if (bpf_map_lookup_batch(ar->counts_fd, first ? NULL : &in, &out, ar->keys, ar->vals,
					 &n, &opts)) {
			if (errno != ENOENT)
				return -EOPNOTSUPP;
			last = true; /* the end: @n entries still came */
		}
		for (i = 0; i < n && !err; i++)
			err = agg__visit(ar, &ar->keys[i], &ar->vals[i], fn, ctx);
		in = out;
		first = false;
	}
	return err;
}

int agg_reader__read(struct agg_reader *ar, agg_fn fn, void *ctx)
{
	int err = ar->no_batch ? -EOPNOTSUPP : agg__read_batched(ar, fn, ctx);

	if (err != -EOPNOTSUPP)
		return err;
	ar->no_batch = true;
	return agg__read_each(ar, fn, ctx);
}

void agg_reader__report(const struct agg_reader *ar, const struct session *s, const char *tool)
{
	uint64_t st[ST_STAT_MAX];

	if (!ar)
		return;
	if (ar->missing)
		st_warn("%s: %llu in-kernel counts lost: their stack was not found", tool,
			(unsigned long long)ar->missing);
	if (!session__stats(s, st))
		st_info("%s: %llu events counted in the kernel, %llu sent as records", tool,
			(unsigned long long)st[ST_STAT_AGG], (unsigned long long)st[ST_STAT_SENT]);
}

void agg_reader__free(struct agg_reader *ar)
{
	if (!ar)
		return;
	stack_store__free(ar->seen);
	free(ar);
}
