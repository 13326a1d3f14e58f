/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel exact aggregation: count an event's stacks in a BPF hash instead
 * of sending a record, for tools that only count (count, profile, offcpu;
 * see docs/capture.md).
 *
 * Two maps. st_agg_stacks holds each distinct stack once, keyed by a 64-bit
 * hash of its depths and frames. st_agg_counts holds the counts, keyed by
 * that hash plus the identity user space reports by (pid, comm, the flags
 * that change a stack's meaning, and the tid when split by thread) and the
 * process's mappings generation (st_agg_gens).
 *
 * Exact, never merged by mistake: every event whose hash finds a stored
 * stack compares it with its own in full. A different stack under the same
 * hash (a collision) is sent as an ordinary record and counted
 * (ST_STAT_AGG_COLLIDE); so is an event when a map is full
 * (ST_STAT_AGG_FULL) or its stack is deeper than a stored one holds
 * (ST_STAT_AGG_DEEP). User space adds those records to the counts it reads,
 * so each event is counted exactly once whichever way it went.
 *
 * The first event of each count key travels as a record too: user space
 * meets the process at the time of its first event, as without aggregation
 * (the process registry reads its mappings then, while it is alive), and
 * the count in the map starts at 0.
 *
 * Counts are never reset in the kernel: user space reads them at each
 * interval and at exit and reports the difference from its last read. A
 * reset would race with a program holding a pointer into the element.
 *
 * What is not aggregated (sent as before): events that carry a stack copy
 * or met code user space has not loaded yet. An event whose user stack is
 * deferred is counted here once its entry's walk has joined it
 * (bpf/defer_hold.bpf.h), or sent with its cookie for the joiner.
 *
 * Included by bpf/capture.bpf.h.
 */
#ifndef ST_AGGREGATE_BPF_H
#define ST_AGGREGATE_BPF_H

#include "bpf/state.bpf.h"
#include "bpf/aggregate.h"
#include "bpf/stack_hash.bpf.h"

/* Upper bounds; user space sets both with --agg-entries before load (agg_size()). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC); /* memory only for what is used */
	__uint(max_entries, ST_AGG_ENTRIES_DEFAULT);
	__type(key, __u64);
	__type(value, struct st_agg_stack);
} st_agg_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, ST_AGG_ENTRIES_DEFAULT);
	__type(key, struct st_agg_key);
	__type(value, struct st_agg_val);
} st_agg_counts SEC(".maps");

const volatile struct st_agg_config st_agg_cfg = { .hash_mask = ~0ull };

/*
 * Mappings generation per process: bumped whenever it execs, maps or unmaps
 * code (bpf/proc_events.bpf.h), and part of the count key, so a library
 * unmapped and another mapped at the same addresses counts apart, and its
 * first event (a record) names it with the mappings of its own time. Never
 * reset: a reused pid keeps counting up.
 *
 * A slot per pid modulo ST_AGG_GENS, in an ARRAY: read on every counted
 * event, and an array read is a load where a hash lookup was a helper call
 * and a hash (~40 ns, bench/bench_count.sh). Pids that share a slot share
 * bumps: a bump then only starts new keys for the other pid too (its next
 * event travels as a record), it never merges anything, since the key also
 * holds the pid. 256 KiB (ST_AGG_GENS, bpf/aggregate.h). A key whose
 * generation has moved on never grows again: user space reads it a last
 * time and deletes it (agg_reader__read_gone()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* user space reads it whole at each scan */
	__uint(max_entries, ST_AGG_GENS);
	__type(key, __u32);
	__type(value, __u32);
} st_agg_gens SEC(".maps");

/* The generation slot of @pid. Return: a pointer to it (NULL only to the verifier). */
static __always_inline __u32 *st_agg_gen_of(__u32 pid)
{
	__u32 slot = pid & (ST_AGG_GENS - 1);

	return bpf_map_lookup_elem(&st_agg_gens, &slot);
}

/* st_agg_mappings_changed() - @pid's code changed: its later events count apart. */
static __always_inline void st_agg_mappings_changed(__u32 pid)
{
	__u32 *gen;

	if (!st_agg_cfg.on)
		return;
	gen = st_agg_gen_of(pid);
	if (gen)
		__sync_fetch_and_add(gen, 1);
}

#ifndef EEXIST
#define EEXIST 17
#endif

/*
 * The hash and the comparison go through bpf_loop(), ST_AGG_BLOCK frames a
 * callback: a callback per frame cost more than the frame's arithmetic
 * (bench/bench_count.sh), and plain bounded loops made the verifier walk
 * every one of the ST_AGG_FRAMES iterations in each of count's programs,
 * which tripled the start-up (0.6 -> 2.1 s). Their state lives in per-CPU
 * map memory: on the stack the callback's states would never converge.
 * 64 frames a block: a user stack of 31 frames and a system call's kernel
 * frames (~5) are compared by one direct call, not bpf_loop() and two
 * callbacks (~2% of the loop's samples at 31 frames, perf); the block is a
 * global function, checked once, so its size costs the verifier little.
 */
#define ST_AGG_BLOCK 64 /* frames a callback; divides ST_AGG_FRAMES */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_agg_tmp);
} st_agg_tmp_map SEC(".maps");

struct st_agg_loop {
	const struct st_agg_stack *ev; /* the event: its header, then ST_AGG_FRAMES slots at least */
	const struct st_agg_stack *stored;
	struct st_agg_tmp *t;
};

/*
 * A frame index the verifier can bound: clang drops a mask it can prove
 * useless after the caller's range check, and the verifier loses that check
 * in the 32-to-64-bit move, so the mask is kept opaque to clang.
 */
static __always_inline __u32 st_agg_index(__u32 i)
{
	barrier_var(i);
	return i & (ST_AGG_FRAMES - 1);
}

/*
 * A block's work is a global function: the verifier checks one once per
 * program, where a callback's body is checked again at each call site and
 * on each path into it. Inlined, the hash and the comparison were half of
 * the instructions the verifier went through for profile's sampler (40k of
 * 76k), the largest part of its start-up. Global functions get their
 * pointers as possibly NULL, so they check.
 */

/* @h with frames [@b * ST_AGG_BLOCK, that + ST_AGG_BLOCK) of @ev's first @n mixed in. */
__noinline __u64 st_agg_hash_frames(const struct st_agg_stack *ev, __u64 h, __u32 b, __u32 n)
{
	__u32 j, i;

	if (!ev)
		return h;
	for (j = 0; j < ST_AGG_BLOCK; j++) {
		i = b * ST_AGG_BLOCK + j;
		if (i >= n)
			break;
		h = st_hash_mix(h, ev->ips[st_agg_index(i)]);
	}
	return h;
}

/*
 * @u with block @b of @ev's user frames [@kd, @n) mixed in, counted from
 * the outermost (@n - 1) inward: the walk cache's order (bpf/stack_hash.bpf.h).
 */
__noinline __u64 st_agg_uhash_frames(const struct st_agg_stack *ev, __u64 u, __u32 b, __u32 kd,
				     __u32 n)
{
	__u32 j, i;

	if (!ev || kd > n)
		return u;
	for (j = 0; j < ST_AGG_BLOCK; j++) {
		i = b * ST_AGG_BLOCK + j;
		if (i >= n - kd)
			break;
		u = st_hash_mix(u, ev->ips[st_agg_index(n - 1 - i)]);
	}
	return u;
}

/* Return: 1 when a frame of block @b (of the first @n) differs between @a and @s, else 0. */
__noinline int st_agg_differ_frames(const struct st_agg_stack *a, const struct st_agg_stack *s,
				    __u32 b, __u32 n)
{
	__u32 j, i;

	if (!a || !s)
		return 1;
	for (j = 0; j < ST_AGG_BLOCK; j++) {
		i = b * ST_AGG_BLOCK + j;
		if (i >= n)
			break;
		i = st_agg_index(i);
		if (s->ips[i] != a->ips[i])
			return 1;
	}
	return 0;
}

static int st_agg_hash_block(__u32 b, void *arg)
{
	struct st_agg_loop *l = arg;

	l->t->hash = st_agg_hash_frames(l->ev, l->t->hash, b, l->t->kd);
	return 0;
}

static int st_agg_uhash_block(__u32 b, void *arg)
{
	struct st_agg_loop *l = arg;

	l->t->uhash = st_agg_uhash_frames(l->ev, l->t->uhash, b, l->t->kd, l->t->n);
	return 0;
}

static int st_agg_cmp_block(__u32 b, void *arg)
{
	struct st_agg_loop *l = arg;

	if (!st_agg_differ_frames(l->ev, l->stored, b, l->t->n))
		return 0;
	l->t->differ = 1;
	return 1;
}

static __always_inline __u32 st_agg_blocks(__u32 n)
{
	return (n + ST_AGG_BLOCK - 1) / ST_AGG_BLOCK;
}

/* The user part of @l's hash (bpf/stack_hash.bpf.h): its frames from the outermost in. */
static __always_inline __u64 st_agg_uhash(struct st_agg_loop *l)
{
	__u32 ud = l->t->n - l->t->kd;

	l->t->uhash = ST_UHASH_SEED;
	if (ud <= ST_AGG_BLOCK)
		l->t->uhash = st_agg_uhash_frames(l->ev, l->t->uhash, 0, l->t->kd, l->t->n);
	else
		bpf_loop(st_agg_blocks(ud), st_agg_uhash_block, l, 0);
	return l->t->uhash;
}

/*
 * The hash of the frames of @l's event and its depths: the depths, the
 * kernel frames, then the user part, @uhash when @have_uhash (the walk
 * cache's, bpf/ucache.bpf.h), else hashed here. Strong enough that
 * distinct stacks rarely share it (64 bits), not cryptographic: a shared
 * hash costs a record, never a wrong count (st_agg_same()).
 */
static __always_inline __u64 st_agg_hash(struct st_agg_loop *l, bool have_uhash, __u64 uhash)
{
	__u32 kd = l->ev->ev.kdepth;

	if (kd > l->t->n)
		kd = l->t->n;
	l->t->kd = kd;
	l->t->hash = (__u64)kd << 16 | l->ev->ev.udepth;
	/* One block's frames: called directly (a call and return cost ~15 ns here). */
	if (kd <= ST_AGG_BLOCK)
		l->t->hash = st_agg_hash_frames(l->ev, l->t->hash, 0, kd);
	else
		bpf_loop(st_agg_blocks(kd), st_agg_hash_block, l, 0);
	if (!have_uhash)
		uhash = st_agg_uhash(l);
	return st_hash_fmix(st_hash_mix(l->t->hash, uhash));
}

/* The stored stack of @hash, storing @ev's when there is none. Return: it, or NULL (full). */
static __always_inline struct st_agg_stack *st_agg_stack_of(struct st_agg_stack *ev, __u64 hash)
{
	struct st_agg_stack *st = bpf_map_lookup_elem(&st_agg_stacks, &hash);

	if (st)
		return st;
	/*
	 * Stored, or stored by another CPU meanwhile (-EEXIST): look again;
	 * the map is full: NULL.
	 */
	bpf_map_update_elem(&st_agg_stacks, &hash, ev, BPF_NOEXIST);
	return bpf_map_lookup_elem(&st_agg_stacks, &hash);
}

/* True when @l->stored holds exactly the event's frames: every frame compared. */
static __always_inline bool st_agg_same(struct st_agg_loop *l)
{
	if (l->stored->ev.kdepth != l->ev->ev.kdepth || l->stored->ev.udepth != l->ev->ev.udepth)
		return false;
	l->t->differ = 0;
	if (l->t->n <= ST_AGG_BLOCK)
		l->t->differ = st_agg_differ_frames(l->ev, l->stored, 0, l->t->n);
	else
		bpf_loop(st_agg_blocks(l->t->n), st_agg_cmp_block, l, 0);
	return !l->t->differ;
}

/*
 * A map had no room for the event: sent as a record instead (counted), or,
 * when a rescue found it so, noted for st_agg_drop_in() to name the reason.
 */
static __always_inline void st_agg_full(struct st_agg_tmp *t, bool rescue)
{
	if (rescue)
		t->full = 1;
	else
		st_stat_inc(ST_STAT_AGG_FULL);
}

/*
 * st_agg_drop_in() - count the drop of an event that found no room in the
 * ring buffer and that the rescue with @t could not count: a full map is
 * its own reason (--agg-entries; the ring was full too), else the ring's.
 */
static __always_inline void st_agg_drop_in(const struct st_agg_tmp *t)
{
	st_stat_inc(t->full ? ST_DROP_AGG_FULL : ST_DROP_RINGBUF_FULL);
}

/* What st_agg_event_in() made of an event. */
enum st_agg_result {
	ST_AGG_NOT = -1,    /* not counted here (not eligible, collision, map full): send it */
	ST_AGG_FIRST = 0,   /* the first of its key, made now with a count of 0: send it */
	ST_AGG_COUNTED = 1, /* counted: send nothing */
};

/* The count key of @ev under @hash: the identity user space reports it by. */
static __always_inline void st_agg_key_of(struct st_agg_key *k, const struct st_event *ev,
					  __u64 hash)
{
	__u32 *gen = st_agg_gen_of(ev->pid);

	k->hash = hash;
	k->pid = ev->pid;
	k->tid = st_agg_cfg.per_tid ? ev->tid : 0;
	k->flags = ev->flags & (ST_EV_UFAIL | ST_EV_KTHREAD);
	k->ustop = ev->ustop;
	k->gen = gen ? *gen : 0;
	__builtin_memcpy(k->comm, ev->comm, ST_COMM_LEN);
}

/* @ev added to its count @v. Return: ST_AGG_COUNTED. */
static __always_inline int st_agg_add(struct st_agg_val *v, const struct st_event *ev,
				      bool rescue)
{
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->weight, ev->weight);
	st_stat_inc(rescue ? ST_STAT_AGG_RESCUED : ST_STAT_AGG);
	return ST_AGG_COUNTED;
}

/*
 * Adds the event to its count, or makes its key. @rescue: its record found
 * no room (st_agg_rescue()): counted apart, and a full map noted in @t.
 */
static __always_inline int st_agg_count(struct st_event *ev, __u64 hash, bool rescue,
					struct st_agg_tmp *t)
{
	struct st_agg_key key, *k = &key;
	struct st_agg_val fresh = {}, *v;
	long err;

	st_agg_key_of(k, ev, hash);
	v = bpf_map_lookup_elem(&st_agg_counts, k);
	if (!v) {
		/* A new key: its first event travels as a record, stamped now (st_capture_send()). */
		if (!ev->ts)
			ev->ts = bpf_ktime_get_ns();
		fresh.first_ts = ev->ts;
		err = bpf_map_update_elem(&st_agg_counts, k, &fresh, BPF_NOEXIST);
		if (!err)
			return ST_AGG_FIRST;
		if (err != -EEXIST) {
			st_agg_full(t, rescue);
			return ST_AGG_NOT;
		}
		v = bpf_map_lookup_elem(&st_agg_counts, k);
		if (!v)
			return ST_AGG_NOT;
	}
	return st_agg_add(v, ev, rescue);
}

/*
 * st_agg_lazy_clock() - may the capture leave st_event.ts at 0 until the
 * event turns out to need one? Yes when every event may be counted here:
 * a counted event needs no time (the first of its key and every record get
 * theirs from st_agg_count() or st_capture_send(), after the walk). A
 * constant after load (read-only config).
 */
static __always_inline bool st_agg_lazy_clock(void)
{
	return st_agg_cfg.on && !st_cfg.copy_bytes && st_cfg.user_mode != ST_USER_DEFERRED;
}

/*
 * A stack too deep to store whose record found no room: its user part cut
 * to what a stored stack holds, marked cut at the depth limit (as
 * --max-user-depth would), rather than lost. Its own key: the end mark is
 * part of it. Return: false when even the kernel part is too deep.
 */
static __always_inline bool st_agg_cut(struct st_event *ev)
{
	if (ev->kdepth >= ST_AGG_FRAMES)
		return false;
	ev->udepth = ST_AGG_FRAMES - ev->kdepth;
	ev->flags |= ST_EV_UTRUNC;
	ev->ustop = ST_USTOP_DEPTH;
	return true;
}

/* May @ev be counted here at all? (@rescue: see st_agg_rescue()) */
static __always_inline bool st_agg_eligible(const struct st_event *ev, bool want_copy,
					    bool rescue)
{
	/* The compat build (bpf/compat.bpf.h) counts nothing: hash and compare loop by callback. */
#ifdef ST_COMPAT
	return false;
#endif
	if (!st_agg_cfg.on || st_cfg.copy_bytes || (ev->flags & ST_EV_UDEFERRED))
		return false;
	return rescue || !(want_copy || (ev->flags & (ST_EV_UNLOADED | ST_EV_UCOPY)));
}

/*
 * st_agg_event_hashed() - st_agg_event_in() given the user part of the
 * event's hash when @have_uhash: @uhash, the walk cache's
 * (st_walk_user()'s uhash). Kept only while the user frames are the ones
 * hashed: a stack cut here hashes them again.
 */
static __always_inline int st_agg_event_hashed(struct st_event *ev, bool want_copy,
					       struct st_agg_tmp *t, bool rescue,
					       bool have_uhash, __u64 uhash)
{
	struct st_agg_loop l = { .ev = (struct st_agg_stack *)ev, .t = t };
	__u32 n = (__u32)ev->kdepth + ev->udepth;
	bool cut = false;
	__u64 hash;
	int res;

	t->full = 0;
	if (!st_agg_eligible(ev, want_copy, rescue))
		return ST_AGG_NOT;
	if (n > ST_AGG_FRAMES) {
		if (!rescue) {
			st_stat_inc(ST_STAT_AGG_DEEP);
			return ST_AGG_NOT;
		}
		if (!st_agg_cut(ev))
			return ST_AGG_NOT;
		n = ST_AGG_FRAMES;
		cut = true;
		have_uhash = false;
	}
	l.t->n = n;
	hash = st_agg_hash(&l, have_uhash, uhash) & st_agg_cfg.hash_mask;
	l.stored = st_agg_stack_of((struct st_agg_stack *)ev, hash);
	if (!l.stored) {
		st_agg_full(t, rescue);
		return ST_AGG_NOT;
	}
	if (!st_agg_same(&l)) {
		if (!rescue)
			st_stat_inc(ST_STAT_AGG_COLLIDE);
		return ST_AGG_NOT;
	}
	t->hash = hash; /* the key's: st_agg_event_keyed() */
	res = st_agg_count(ev, hash, rescue, t);
	if (cut && res == ST_AGG_COUNTED)
		st_stat_inc(ST_STAT_AGG_CUT);
	return res;
}

/*
 * st_agg_event_in() - st_agg_event() with the hash and comparison state in
 * @t: a sleepable program (the deferred walk's callback, bpf/defer_hold.bpf.h)
 * may be preempted halfway, and the next program on its CPU would take the
 * per-CPU one over. @rescue: see st_agg_rescue(); the reasons it fails were
 * counted by the first try, or are counted as the record's drop.
 *
 * Return: an enum st_agg_result.
 */
static __always_inline int st_agg_event_in(struct st_event *ev, bool want_copy,
					   struct st_agg_tmp *t, bool rescue)
{
	return st_agg_event_hashed(ev, want_copy, t, rescue, false, 0);
}

/*
 * st_agg_event() - count the event @ev in the kernel when it can be.
 * @ev: the record, its frames right after it in map memory with room for
 *      at least ST_AGG_FRAMES (the capture scratch, offcpu's blocked task)
 * @want_copy: a stack copy should go with it (the walker met unloaded code)
 *
 * Return: true when counted (send nothing), false when it must be sent.
 */
static __always_inline bool st_agg_event(struct st_event *ev, bool want_copy)
{
	__u32 zero = 0;
	struct st_agg_tmp *t = bpf_map_lookup_elem(&st_agg_tmp_map, &zero);

	return t && st_agg_event_in(ev, want_copy, t, false) == ST_AGG_COUNTED;
}

/*
 * st_agg_event_uhash() - st_agg_event() given the user part of @ev's hash
 * (@uhash when @have_uhash), as the walk cache had it at hand
 * (st_scratch.uhash).
 */
static __always_inline bool st_agg_event_uhash(struct st_event *ev, bool want_copy,
					       bool have_uhash, __u64 uhash)
{
	__u32 zero = 0;
	struct st_agg_tmp *t = bpf_map_lookup_elem(&st_agg_tmp_map, &zero);

	return t && st_agg_event_hashed(ev, want_copy, t, false, have_uhash, uhash) ==
			    ST_AGG_COUNTED;
}

/*
 * st_agg_event_keyed() - st_agg_event() that also says under which hash
 * @ev's frames matched the stored stack, compared in full: a caller that
 * proves, by comparing in full, that a later event has the same frames and
 * depths may count it with st_agg_event_again() and skip the hash and the
 * comparison.
 * @hash: set to the hash when matched (counted or made its key), else 0
 *
 * Return: as st_agg_event().
 */
static __always_inline bool st_agg_event_keyed(struct st_event *ev, __u64 *hash)
{
	__u32 zero = 0;
	struct st_agg_tmp *t = bpf_map_lookup_elem(&st_agg_tmp_map, &zero);
	int res;

	*hash = 0;
	if (!t)
		return false;
	t->hash = 0;
	res = st_agg_event_in(ev, false, t, false);
	if (res != ST_AGG_NOT)
		*hash = t->hash;
	return res == ST_AGG_COUNTED;
}

/*
 * st_agg_event_again() - count @ev under @hash, which st_agg_event_keyed()
 * gave an earlier event whose frames and depths the caller compared with
 * @ev's in full (st_agg_same_frames()). Only a count that exists is added
 * to: it names @hash, so user space keeps that stored stack. A new key (a
 * new comm, mappings generation, or the old key read and deleted) goes the
 * whole way through st_agg_event_keyed() instead.
 *
 * Return: true when counted, false when the caller must take the whole way.
 */
static __always_inline bool st_agg_event_again(struct st_event *ev, __u64 hash)
{
	struct st_agg_key k;
	struct st_agg_val *v;

	if (!st_agg_eligible(ev, false, false) || (__u32)ev->kdepth + ev->udepth > ST_AGG_FRAMES)
		return false;
	st_agg_key_of(&k, ev, hash);
	v = bpf_map_lookup_elem(&st_agg_counts, &k);
	return v && st_agg_add(v, ev, false) == ST_AGG_COUNTED;
}

/*
 * st_agg_same_frames() - are @a's depths and frames those of @b, every one
 * compared? Both records are followed by their frames in map memory, with
 * room for ST_AGG_FRAMES; deeper stacks are never the same here.
 */
static __always_inline bool st_agg_same_frames(const struct st_event *a,
					       const struct st_event *b)
{
	struct st_agg_loop l = { .ev = (const struct st_agg_stack *)a,
				 .stored = (const struct st_agg_stack *)b };
	__u32 zero = 0, n = (__u32)a->kdepth + a->udepth;

#ifdef ST_COMPAT
	return false; /* as st_agg_eligible() */
#endif
	if (n > ST_AGG_FRAMES)
		return false;
	l.t = bpf_map_lookup_elem(&st_agg_tmp_map, &zero);
	if (!l.t)
		return false;
	l.t->n = n;
	return st_agg_same(&l);
}

/*
 * st_agg_rescue() - count in the kernel an event whose record finds no room
 * in the ring buffer, rather than drop it; one that would have carried a
 * stack copy too (the walker met code user space has not loaded yet): the
 * frames it found are counted, the copy forgone, and st_event.ustop says
 * where the walk ended. Counted apart (ST_STAT_AGG_RESCUED). The first
 * event of a key is not counted here (ST_AGG_FIRST): the caller sends it
 * without a copy, so that user space meets its process and loads its
 * tables, and calls again if even that finds no room. What cannot be
 * counted here (a collision, a full map, a deferred event) stays a counted
 * drop.
 * @ev: as for st_agg_event(); a copy appended after its frames is ignored
 *
 * Return: an enum st_agg_result.
 */
static __always_inline int st_agg_rescue(struct st_event *ev)
{
	__u32 zero = 0;
	struct st_agg_tmp *t;

	if (!st_agg_cfg.on)
		return ST_AGG_NOT;
	t = bpf_map_lookup_elem(&st_agg_tmp_map, &zero);
	if (!t)
		return ST_AGG_NOT;
	ev->flags &= ~ST_EV_UCOPY;
	return st_agg_event_in(ev, true, t, true);
}

/* st_agg_drop() - st_agg_drop_in() after st_agg_rescue(). */
static __always_inline void st_agg_drop(void)
{
	__u32 zero = 0;
	struct st_agg_tmp *t = bpf_map_lookup_elem(&st_agg_tmp_map, &zero);

	if (t)
		st_agg_drop_in(t);
	else
		st_stat_inc(ST_DROP_RINGBUF_FULL);
}

/* Is user space behind, its drained records queued past a mark (st_backlog)? */
static __always_inline bool st_agg_backlog(void)
{
	__u32 zero = 0, *b = bpf_map_lookup_elem(&st_backlog, &zero);

	return b && *b;
}

/*
 * st_agg_ring_above() - is the ring buffer more than @quarters quarters
 * full? Half full counts as such while user space is behind
 * (st_agg_backlog()): the ring is then kept near empty by the pump, and the
 * queue behind it is what fills. Events that can be counted in the kernel
 * leave it room: above half
 * they are counted here (st_agg_rescue()) instead of sent, and above three
 * quarters so is the first event of a new key, which below goes as a small
 * record. The last quarter is for the records that have no other way (a
 * process's exec and mappings, whose loss leaves its stacks without names;
 * a stack too deep to store), and a burst of 16 KiB stack copies (a process
 * met before user space loaded its tables) cannot crowd them out.
 */
static __always_inline bool st_agg_ring_above(__u32 quarters)
{
	return st_agg_cfg.on && ((quarters <= 2 && st_agg_backlog()) ||
				 bpf_ringbuf_query(&st_events, BPF_RB_AVAIL_DATA) >
					 bpf_ringbuf_query(&st_events, BPF_RB_RING_SIZE) / 4 * quarters);
}

#endif
