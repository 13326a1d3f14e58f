// SPDX-License-Identifier: GPL-2.0
/* Reading the in-kernel aggregation maps: counts grown since the last read. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/aggregate.h"
#include "lib/session/aggregate.h"
#include "lib/session/capture_maps.h"
#include "lib/session/session.h"
#include "lib/stack/store.h"
#include "lib/util/clock.h"
#include "lib/util/grow.h"
#include "lib/util/log.h"
#include "lib/util/pid_set.h"

/*
 * Counts read a syscall: a system-wide run reads the whole map each time it
 * settles exited processes (several times a second under churn), and one
 * key at a time took two syscalls a count.
 */
#define AGG_BATCH 256

/*
 * A stack deleted from the map, kept a read long: only its event and the
 * frames it has (agg__kept_new()). Whole, each was 1 KiB, and the arrays
 * kept the size of the largest read's deletions (10 MB after a burst of
 * exits) for the rest of the run.
 */
struct agg_kept {
	uint64_t hash;
	struct st_agg_stack *stack;
};

struct agg_reader {
	int counts_fd, stacks_fd;
	struct stack_store *seen; /* key -> the count and weight at the last read */
	struct st_agg_stack stack; /* the one being read */
	uint64_t missing;
	struct st_agg_key *gone; /* counts of exited processes, deleted after the scan */
	size_t ngone, gone_cap;
	uint64_t *live; /* stack hashes the other counts name, while gone ones are deleted */
	size_t nlive, live_cap;
	uint64_t deleted, stacks_deleted, stacks_restored;
	struct agg_kept *kept; /* stacks deleted at the last read: agg__stack_of() */
	size_t nkept, kept_cap;
	struct agg_kept *dropping; /* those this read deletes, kept after it */
	size_t ndropping, dropping_cap;
	struct pid_set gone_pids; /* during a scan that settles exited processes */
	struct st_agg_key keys[AGG_BATCH]; /* one batch of counts */
	struct st_agg_val vals[AGG_BATCH];
	bool no_batch; /* the kernel refused a batch read: one key at a time */
	uint32_t max_entries; /* of each map (capture_agg_auto(), --agg-entries) */
	const uint64_t *gens; /* st_agg_gens, mapped; NULL: stale generations are kept */
	uint64_t *gens_old, *gens_last; /* copies of it: one at least AGG_STALE_NS old, the last */
	uint64_t gens_last_ns;
	uint64_t stale; /* counts of superseded generations deleted */
	uint64_t scanned, peak; /* counts the last scan met, the most any scan met */
	const struct session *session; /* whose records name the counts */
	uint64_t handled_before;       /* its answer at this scan's start */
	uint64_t early;                /* counts left for a later read: their first record on the way */
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

/*
 * A count whose process's mappings generation had moved on this long ago
 * is read a last time and deleted: no event adds to it any more (events
 * count under the new generation), and a program that read the old one
 * before the bump has long finished. Under churn of code (a JIT mapping
 * code, a process forking and exec'ing its children) such counts filled
 * the map with keys no event would ever use again.
 */
#define AGG_STALE_NS (1000 * 1000000ull)

/*
 * A mapped ARRAY lays its values out 8 bytes apart (the kernel rounds each
 * up to 8): a 32-bit generation in the low half of each slot.
 */
#define AGG_GENS_BYTES (ST_AGG_GENS * sizeof(uint64_t))

/* Maps the generations (read-only) and the two copies of them. Return: 0 or -errno. */
static int agg__map_gens(struct agg_reader *ar, struct bpf_object *obj)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, "st_agg_gens");
	size_t size = AGG_GENS_BYTES;
	void *p;

	if (!m || !(bpf_map__map_flags(m) & BPF_F_MMAPABLE))
		return 0; /* an object without it keeps stale counts, as before */
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED)
		return -errno;
	ar->gens_old = malloc(size);
	ar->gens_last = malloc(size);
	if (!ar->gens_old || !ar->gens_last) {
		munmap(p, size);
		return -ENOMEM;
	}
	ar->gens = p;
	memcpy(ar->gens_last, ar->gens, size);
	memcpy(ar->gens_old, ar->gens, size);
	ar->gens_last_ns = mono_ns();
	return 0;
}

/* At a scan's start: the last copy becomes the old one once it is AGG_STALE_NS old. */
static void agg__age_gens(struct agg_reader *ar)
{
	uint64_t now = mono_ns();
	uint64_t *t;

	if (!ar->gens || now - ar->gens_last_ns < AGG_STALE_NS)
		return;
	t = ar->gens_old;
	ar->gens_old = ar->gens_last;
	ar->gens_last = t;
	memcpy(ar->gens_last, ar->gens, AGG_GENS_BYTES);
	ar->gens_last_ns = now;
}

/* Had @k's generation been superseded when the old copy was taken? */
static bool agg__stale(const struct agg_reader *ar, const struct st_agg_key *k)
{
	return ar->gens &&
	       (int32_t)((uint32_t)ar->gens_old[k->pid & (ST_AGG_GENS - 1)] - k->gen) > 0;
}

struct agg_reader *agg_reader__new(struct bpf_object *obj, const struct session *s)
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
	ar->session = s;
	ar->counts_fd = bpf_map__fd(counts);
	ar->stacks_fd = bpf_map__fd(stacks);
	ar->max_entries = bpf_map__max_entries(counts);
	if (agg__map_gens(ar, obj)) {
		st_err("aggregate: cannot map the mappings generations: %s", strerror(errno));
		agg_reader__free(ar);
		return NULL;
	}
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

/* The bytes of @st that matter: its event and its kdepth + udepth frames (at most all). */
static size_t agg__kept_size(const struct st_agg_stack *st)
{
	size_t n = (size_t)st->ev.kdepth + st->ev.udepth;

	return offsetof(struct st_agg_stack, ips) +
	       (n < ST_AGG_FRAMES ? n : ST_AGG_FRAMES) * sizeof(st->ips[0]);
}

/* A copy of @st's bytes that matter. Return: it (malloc'ed), or NULL. */
static struct st_agg_stack *agg__kept_new(const struct st_agg_stack *st)
{
	size_t size = agg__kept_size(st);
	struct st_agg_stack *k = malloc(size);

	if (k)
		memcpy(k, st, size);
	return k;
}

/*
 * The stored stack @hash into ar->stack: from its map, else from those the
 * last read deleted (agg__drop_stacks()), put back into the map for the
 * count that still names it. Return: true when found.
 */
static bool agg__stack_of(struct agg_reader *ar, uint64_t hash)
{
	size_t i;

	if (!bpf_map_lookup_elem(ar->stacks_fd, &hash, &ar->stack))
		return true;
	for (i = 0; i < ar->nkept; i++) {
		if (ar->kept[i].hash != hash)
			continue;
		memset(&ar->stack, 0, sizeof(ar->stack));
		memcpy(&ar->stack, ar->kept[i].stack, agg__kept_size(ar->kept[i].stack));
		bpf_map_update_elem(ar->stacks_fd, &hash, &ar->stack, BPF_NOEXIST);
		ar->stacks_restored++;
		return true;
	}
	return false;
}

/* One count out: the stored stack under the key's identity. */
static int agg__emit(struct agg_reader *ar, const struct st_agg_key *k,
		     const struct st_agg_val *v, uint64_t count, uint64_t weight, agg_fn fn,
		     void *ctx)
{
	struct st_event ev;

	if (!agg__stack_of(ar, k->hash) ||
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

/* Notes @k for deletion once the scan is over (a deleted key would restart the scan). */
static int agg__note_gone(struct agg_reader *ar, const struct st_agg_key *k)
{
	if (array_reserve((void **)&ar->gone, &ar->gone_cap, ar->ngone + 1, sizeof(*ar->gone)))
		return -ENOMEM;
	ar->gone[ar->ngone++] = *k;
	return 0;
}

/* Notes that a count of a live process names the stack @hash. */
static int agg__note_live(struct agg_reader *ar, uint64_t hash)
{
	if (array_reserve((void **)&ar->live, &ar->live_cap, ar->nlive + 1, sizeof(*ar->live)))
		return -ENOMEM;
	ar->live[ar->nlive++] = hash;
	return 0;
}

static int agg__cmp_hash(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The stored stacks of the deleted counts that no other count named during
 * the scan go too: else the stack map fills with the stacks of exited
 * processes, and from then on new stacks come as records. Should a count
 * made meanwhile name one (a live process's first event of that very stack,
 * between the scan and now: an event that found the stack just before it
 * went, and made its count just after the scan passed), the next read finds
 * it among those kept until then (agg__stack_of()), and puts it back. Such
 * counts grew common once the walker stopped keeping data as frames: a
 * stack of a few frames in libc is shared by a shell's forked children (the
 * same addresses), one of which exits while another makes its count. The
 * next read is at least a settle later; the event's window, microseconds.
 * What is still not found is counted and warned (agg_reader__report()).
 */
static void agg__drop_stacks(struct agg_reader *ar)
{
	struct st_agg_stack stack;
	struct agg_kept *k;
	size_t i;

	qsort(ar->live, ar->nlive, sizeof(*ar->live), agg__cmp_hash);
	for (i = 0; i < ar->ngone; i++) {
		uint64_t h = ar->gone[i].hash;

		if (bsearch(&h, ar->live, ar->nlive, sizeof(*ar->live), agg__cmp_hash))
			continue;
		if (array_reserve((void **)&ar->dropping, &ar->dropping_cap, ar->ndropping + 1,
				  sizeof(*ar->dropping)))
			return; /* kept for a later read to delete */
		k = &ar->dropping[ar->ndropping];
		k->hash = h;
		if (bpf_map_lookup_and_delete_elem(ar->stacks_fd, &h, &stack))
			continue;
		k->stack = agg__kept_new(&stack);
		if (!k->stack) {
			/* Back in the map, for a later read to delete. */
			bpf_map_update_elem(ar->stacks_fd, &h, &stack, BPF_NOEXIST);
			return;
		}
		ar->ndropping++;
		ar->stacks_deleted++;
	}
}

/* Frees the stacks of @n kept @v. */
static void agg__kept_free(struct agg_kept *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].stack);
}

/* At a read's end: the stacks it deleted are kept until the next one's end, the last ones go. */
static void agg__keep_dropped(struct agg_reader *ar)
{
	struct agg_kept *t = ar->kept;
	size_t cap = ar->kept_cap;

	agg__kept_free(ar->kept, ar->nkept);
	ar->kept = ar->dropping;
	ar->kept_cap = ar->dropping_cap;
	ar->nkept = ar->ndropping;
	ar->dropping = t;
	ar->dropping_cap = cap;
	ar->ndropping = 0;
}

/*
 * The last read of a gone process's count: taken out of the map and read in
 * one step (no event can add to it any more, see agg_reader__read_gone()),
 * and its growth handed out. The key's last value is forgotten (0), so a key
 * made again later starts from nothing, as the kernel's does.
 */
static int agg__take(struct agg_reader *ar, const struct st_agg_key *k, agg_fn fn, void *ctx)
{
	struct st_agg_val v;
	uint64_t count, weight;
	struct stack_entry *e;
	int err;

	if (bpf_map_lookup_and_delete_elem(ar->counts_fd, k, &v))
		return 0;
	ar->deleted++;
	err = agg__delta(ar, k, &v, &count, &weight);
	if (!err && count)
		err = agg__emit(ar, k, &v, count, weight, fn, ctx);
	e = stack_store__merge(ar->seen, k, sizeof(*k), 0, 0);
	if (e)
		e->count = e->weight = 0;
	return err;
}

/*
 * Keys taken out of the maps stay in @seen zeroed, and a zeroed entry means
 * what no entry means: nothing read yet (a key's first event travels as a
 * record, so a count read once may be 0 as well). Once @seen holds more than
 * twice the keys the last scan met, it is built again from its nonzero
 * entries; else it grew with every key any process ever counted, and each
 * read's lookups in it missed the cache more and more.
 */
#define AGG_SEEN_COMPACT_MIN 1024

static int agg__compact_seen(struct agg_reader *ar)
{
	size_t n = stack_store__len(ar->seen), i;
	struct stack_entry **v, *e;
	struct stack_store *fresh;

	if (n < AGG_SEEN_COMPACT_MIN || n <= 2 * ar->scanned)
		return 0;
	v = stack_store__entries(ar->seen);
	fresh = v ? stack_store__new() : NULL;
	for (i = 0; fresh && i < n; i++) {
		if (!v[i]->count && !v[i]->weight)
			continue;
		e = stack_store__merge(fresh, v[i]->key, v[i]->len, 0, 0);
		if (!e) {
			stack_store__free(fresh);
			fresh = NULL;
			break;
		}
		e->count = v[i]->count;
		e->weight = v[i]->weight;
	}
	free(v);
	if (!fresh)
		return -ENOMEM;
	stack_store__free(ar->seen);
	ar->seen = fresh;
	return 0;
}

/*
 * One entry of a scan: a count of an exited process is noted for its last
 * read after the scan; any other is handed out if it grew.
 */
static int agg__visit(struct agg_reader *ar, const struct st_agg_key *k,
		      const struct st_agg_val *v, agg_fn fn, void *ctx)
{
	uint64_t count, weight;
	int pid = (int)k->pid, err;
	bool gone = pid_set__has(&ar->gone_pids, pid);
	/*
	 * Named by the mappings at its first event: the record of that event,
	 * and of the mappings before it, may still be on the way to the run
	 * loop (the ring, the pump's queue). Read next time. An exited
	 * process's exit record came after all of them.
	 */
	bool early = !gone && v->first_ts >= ar->handled_before;

	ar->scanned++;
	if (!early && agg__stale(ar, k)) {
		ar->stale++;
		return agg__note_gone(ar, k);
	}
	if (gone)
		return agg__note_gone(ar, k);
	if (ar->gone_pids.n || ar->gens) {
		err = agg__note_live(ar, k->hash);
		if (err)
			return err;
	}
	if (early) {
		ar->early++;
		return 0;
	}
	err = agg__delta(ar, k, v, &count, &weight);
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
 * twice, as what was read is remembered (a gone key noted twice is taken
 * once: the second take finds it deleted).
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

static int agg__scan_once(struct agg_reader *ar, agg_fn fn, void *ctx)
{
	int err = ar->no_batch ? -EOPNOTSUPP : agg__read_batched(ar, fn, ctx);

	if (err != -EOPNOTSUPP)
		return err;
	ar->no_batch = true;
	ar->scanned = 0; /* read again from the start, one key at a time */
	return agg__read_each(ar, fn, ctx);
}

static int agg__scan(struct agg_reader *ar, agg_fn fn, void *ctx)
{
	int err;

	ar->scanned = 0;
	err = agg__scan_once(ar, fn, ctx);
	if (ar->scanned > ar->peak)
		ar->peak = ar->scanned;
	return err;
}

int agg_reader__read_gone(struct agg_reader *ar, const int *gone, size_t n, agg_fn fn, void *ctx)
{
	size_t i;
	int err = pid_set__init(&ar->gone_pids, gone, n);

	if (err)
		return err;
	ar->ngone = ar->nlive = 0;
	ar->handled_before = session__handled_before(ar->session);
	agg__age_gens(ar);
	err = agg__scan(ar, fn, ctx);
	pid_set__free(&ar->gone_pids);
	for (i = 0; i < ar->ngone && !err; i++)
		err = agg__take(ar, &ar->gone[i], fn, ctx);
	if (!err && ar->ngone)
		agg__drop_stacks(ar);
	agg__keep_dropped(ar);
	if (!err)
		err = agg__compact_seen(ar);
	return err;
}

int agg_reader__read(struct agg_reader *ar, agg_fn fn, void *ctx)
{
	return agg_reader__read_gone(ar, NULL, 0, fn, ctx);
}

/* The maps' bound and what they hold (-v): kernel memory as the other maps' (capture_maps_report()). */
static void agg__report_memory(const struct agg_reader *ar)
{
	fprintf(stderr, "stacktap: in-kernel count maps: at most %u counts and %u stacks; now %llu KiB "
			"of counts, %llu KiB of stacks; %llu counts at the last read, at most %llu\n",
		ar->max_entries, ar->max_entries,
		(unsigned long long)(capture_map_bytes(ar->counts_fd) / 1024),
		(unsigned long long)(capture_map_bytes(ar->stacks_fd) / 1024),
		(unsigned long long)ar->scanned, (unsigned long long)ar->peak);
}

void agg_reader__report(const struct agg_reader *ar, const struct session *s, const char *tool,
			bool memory)
{
	uint64_t st[ST_STAT_MAX];

	if (!ar)
		return;
	if (memory)
		agg__report_memory(ar);
	if (ar->missing)
		st_warn("%s: %llu in-kernel counts lost: their stack was not found", tool,
			(unsigned long long)ar->missing);
	if (!session__stats(s, st))
		st_info("%s: %llu events counted in the kernel, %llu sent as records, %llu counted "
			"in the kernel for want of room; %llu counts of superseded mappings read a last "
			"time; %llu counts and %llu stacks of exited processes deleted; %llu reads of a "
			"count put off until its first record was handled; %llu deleted stacks put back "
			"for a count made as they went",
			tool, (unsigned long long)st[ST_STAT_AGG], (unsigned long long)st[ST_STAT_SENT],
			(unsigned long long)st[ST_STAT_AGG_RESCUED], (unsigned long long)ar->stale,
			(unsigned long long)ar->deleted, (unsigned long long)ar->stacks_deleted,
			(unsigned long long)ar->early, (unsigned long long)ar->stacks_restored);
}

void agg_reader__free(struct agg_reader *ar)
{
	if (!ar)
		return;
	if (ar->gens)
		munmap((void *)ar->gens, AGG_GENS_BYTES);
	free(ar->gens_old);
	free(ar->gens_last);
	stack_store__free(ar->seen);
	free(ar->gone);
	free(ar->live);
	agg__kept_free(ar->kept, ar->nkept);
	agg__kept_free(ar->dropping, ar->ndropping);
	free(ar->kept);
	free(ar->dropping);
	free(ar);
}
