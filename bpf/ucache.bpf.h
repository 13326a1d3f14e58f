/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The exact walk cache of the user-stack walker (bpf/ustack.bpf.h).
 *
 * A task stopped at the same place again (a loop's system call, a sampled
 * hot spot, a deep recursion) has the same user stack when its registers
 * and every stack word its last walk read are the same: a walk is a pure
 * function of those, of the unwind tables and of the walk's settings. So
 * each task keeps its last walk (task storage, freed with the task): the
 * registers and settings it started from, the frames it found, and the
 * (address, value) of every stack word it read. The next walk of the task
 * reads the stack region [lo, hi) those words lie in with one read, compares
 * them word for word, and on a full match takes the frames as they are.
 *
 * What else a walk depends on is either in the key or keeps it out:
 *  - the unwind tables: the process's st_uprocs entry carries a generation
 *    user space bumps at every load (st_uproc.gen), and a file's rows never
 *    change while a process maps it; a walk that met a process or mapping
 *    not loaded yet is not kept;
 *  - the task's mappings as bpf_find_vma() sees them (stack switches, a
 *    return address checked for code), code bytes (trampolines told by
 *    their instructions), pending uretprobes (kernel state): a walk that
 *    looked at any of these is not kept;
 *  - frame 0's rule (system call, sigreturn, uprobe at an entry) is in the key.
 * Only walks at the event (not faultable, the per-CPU state) use it: the
 * task itself is then the only reader and writer of its entry (a program
 * nested in a walk finds the entry busy and leaves it alone), and task
 * storage is not freed under a running program.
 *
 * A miss takes what it can from the walk before (the splice): the rest of
 * a walk from a frame is a pure function of the walk's state there, so the
 * entry keeps that state per frame (struct st_ucache_frame); a missed walk
 * that comes to a frame in the state the walk before had at the same index
 * compares the words the walk before read from there on and, all the same,
 * takes its frames from there (st_ucache_splice_ok(), docs/walker.md).
 *
 * Task storage is probed at run time (lib/session/features.c): without it
 * st_config.walk_cache is 0, the walker never calls in here (the verifier
 * drops this code) and user space does not create these maps.
 *
 * Limits: walks of up to ST_UCACHE_FRAMES frames that read up to
 * ST_UCACHE_WORDS words within ST_UCACHE_REGION bytes are kept; others are
 * walked every time, and counted.
 */
#ifndef ST_UCACHE_BPF_H
#define ST_UCACHE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "bpf/record.h"
#include "bpf/stack_hash.bpf.h"

#ifndef ST_UCACHE_FRAMES
#define ST_UCACHE_FRAMES 128 /* bpftrace's ustack depth and then some: a power of two */
#endif
#ifndef ST_UCACHE_WORDS
#define ST_UCACHE_WORDS 512 /* two words a frame (return address, saved rbp): a power of two */
#endif
#ifndef ST_UCACHE_REGION
#define ST_UCACHE_REGION 16384 /* bytes of stack read at once to check a hit: a power of two */
#endif

#ifndef BPF_LOCAL_STORAGE_GET_F_CREATE
#define BPF_LOCAL_STORAGE_GET_F_CREATE 1
#endif

/* What a walk starts from: equal keys and equal words read give equal walks. */
struct st_ucache_key {
	__u64 ip, sp, bp;
	__u32 mode, max; /* enum st_unwind_mode, frames wanted */
	__u32 frame0;    /* enum st_frame0 */
	__u32 gen;       /* the process's st_uprocs generation (0 in fp mode) */
};

/*
 * Where a kept walk stood as it came to a frame, before storing it: the
 * rest of a walk is a pure function of this state (with the frame's ip and
 * mark, its ips[] slot), the tables and the words it reads from then on.
 */
struct st_ucache_frame {
	__u64 sp, bp;
	__u16 word;  /* words the walk had read: the rest of its log starts there */
	__u16 fp;    /* frames found by frame pointer so far */
	__u16 flags; /* ST_UCACHE_BP_UNKNOWN, ST_UCACHE_PC_OFF */
	__u16 pad;
	/*
	 * The row the frame's pc found (a full step; row_hi 0: none), covering
	 * [row_lo, row_hi) within mapping map_ix (st_uwalk_state's fields):
	 * the next walk's frame at the same index takes it when its pc lies
	 * there, without a search, as long as the tables are the same.
	 */
	__u64 row_lo, row_hi;
	__u32 row_key, map_ix;
};

#define ST_UCACHE_BP_UNKNOWN 1 /* st_uwalk_state.bp_unknown */
#define ST_UCACHE_PC_OFF 2     /* st_uwalk_state.pc_off */

/*
 * A task's last walk. The walk under way logs the words it reads straight
 * into its task's entry (busy meanwhile: a program nested in it leaves the
 * entry alone), valid once the walk is whole and keepable. Until it ends,
 * what it has not overwritten yet is still the walk before it (the splice,
 * st_ucache_splice_ok()): n, stop, fp_frames, end_sp, ips[], the frames and
 * the words past those logged so far, and old_* below.
 */
struct st_ucache {
	struct st_ucache_key key;
	__u32 busy, valid;
	__u32 ok;                 /* the walk under way is still keepable */
	__u32 n, stop, fp_frames; /* the walk's result */
	__u32 nwords;
	__u32 old_ok;             /* the walk before may be spliced onto this one */
	__u32 old_rows;           /* the walk before's rows hold: same tables and mode */
	__u32 pad;
	__u64 end_sp;             /* sp of the last frame, as the walk left it */
	__u64 lo, hi;             /* the stack region the words lie in */
	__u64 old_lo, old_hi;     /* the walk before's region */
	__u32 old_nwords;
	__u32 region_read;        /* st_uregions holds [old_lo, old_hi) as read at this event */
	__u32 uh_lo;              /* uh[] holds the kept walk's frames [uh_lo, n) */
	__u32 spliced;            /* the walk under way took the walk before's frames from here */
	__u64 ips[ST_UCACHE_FRAMES];
	/*
	 * uh[i]: the user part of the aggregation's hash of frames [i, n)
	 * (bpf/stack_hash.bpf.h), filled on demand (st_ucache_uhash()).
	 */
	__u64 uh[ST_UCACHE_FRAMES];
	struct st_ucache_frame frames[ST_UCACHE_FRAMES];
	__u16 offs[ST_UCACHE_WORDS]; /* word index from lo */
	__u64 vals[ST_UCACHE_WORDS];
};

/*
 * Bytes below the first sp a walk may read: a frame-pointer step reads at
 * rbp, which may lie up to 15 bytes below sp (the walk checks rbp + 16 > sp).
 */
#define ST_UCACHE_BELOW 16

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct st_ucache);
} st_ucaches SEC(".maps");

/* The stack region read at once to check a hit. */
struct st_uregion {
	__u64 w[ST_UCACHE_REGION / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_uregion);
} st_uregions SEC(".maps");

/* Return: the current task's entry (made on first use), or NULL (no memory, nested storage use). */
static __always_inline struct st_ucache *st_ucache_of(struct task_struct *task)
{
	return bpf_task_storage_get(&st_ucaches, task, NULL, BPF_LOCAL_STORAGE_GET_F_CREATE);
}

static __always_inline bool st_ucache_same_key(const struct st_ucache_key *a,
					       const struct st_ucache_key *b)
{
	return a->ip == b->ip && a->sp == b->sp && a->bp == b->bp && a->mode == b->mode &&
	       a->max == b->max && a->frame0 == b->frame0 && a->gen == b->gen;
}

/*
 * Words compared per bpf_loop() step. A loop over all ST_UCACHE_WORDS words
 * made the verifier check its body once per word (~23k instructions, half
 * the sampling program's load time); a callback is checked once, and a hit
 * on a 30-frame stack costs ~8 calls more than the open loop.
 */
#define ST_UCACHE_CMP_STEP 64 /* a power of two, dividing ST_UCACHE_WORDS */

/* A hit's or a splice's comparison, carried through bpf_loop(). */
struct st_ucache_cmp {
	struct st_ucache *c;
	const struct st_uregion *r;
	__u32 from, nwords; /* the log's words [from, nwords) are compared */
	__s32 delta;        /* added to each word's offset once compared (a splice onto another lo) */
	__u32 same;         /* 1 until a word differs */
	__u32 fits;         /* 1 until a moved offset falls out of the region */
};

#define ST_UCACHE_DIFFER 1  /* st_ucache_differ_words(): a word differs */
#define ST_UCACHE_MISFIT 2  /* a moved offset falls out of the region */

/* Does word @i of @c's log differ from the region @r read now? */
static __always_inline bool st_ucache_word_differs(const struct st_ucache *c,
						   const struct st_uregion *r, __u32 i)
{
	__u32 k = i & (ST_UCACHE_WORDS - 1);

	return r->w[c->offs[k] & (ST_UCACHE_REGION / 8 - 1)] != c->vals[k];
}

/*
 * Words [@base, @base + STEP) of @c's log (of its first @end) against the
 * region read now, each offset moved by @delta words once compared. A
 * global function, checked once per program rather than at every path into
 * the callback (see st_agg_hash_frames()). Its loop is checked word by
 * word: without a move (a hit's check) it only compares; with one, a moved
 * offset out of the region is noted without a branch (its bits above the
 * region's) so that each word is checked in one state, not one per outcome.
 * Return: ST_UCACHE_DIFFER when a word differs (or a pointer is NULL),
 * else 0, or ST_UCACHE_MISFIT when a moved offset left the region.
 */
__noinline int st_ucache_differ_words(struct st_ucache *c, const struct st_uregion *r,
				      __u32 base, __u32 end, __s32 delta)
{
	__u32 j, k, out = 0;
	__s32 off;

	if (!c || !r)
		return ST_UCACHE_DIFFER;
	if (!delta) {
		for (j = 0; j < ST_UCACHE_CMP_STEP && base + j < end; j++)
			if (st_ucache_word_differs(c, r, base + j))
				return ST_UCACHE_DIFFER;
		return 0;
	}
	for (j = 0; j < ST_UCACHE_CMP_STEP && base + j < end; j++) {
		if (st_ucache_word_differs(c, r, base + j))
			return ST_UCACHE_DIFFER;
		k = (base + j) & (ST_UCACHE_WORDS - 1);
		off = (__s32)c->offs[k] + delta;
		/* Below 0 or at ST_UCACHE_REGION / 8 and above: bits above the region's. */
		out |= (__u32)off / (ST_UCACHE_REGION / 8);
		c->offs[k] = off;
	}
	return out ? ST_UCACHE_MISFIT : 0;
}

static int st_ucache_cmp_cb(__u32 i, void *ctx)
{
	struct st_ucache_cmp *x = ctx;
	int d = st_ucache_differ_words(x->c, x->r, x->from + i * ST_UCACHE_CMP_STEP, x->nwords,
				       x->delta);

	if (d & ST_UCACHE_MISFIT)
		x->fits = 0;
	if (!(d & ST_UCACHE_DIFFER))
		return 0;
	x->same = 0;
	return 1;
}

/*
 * Compare @c's logged words [@from, @nwords) with the region @r, moving
 * each offset by @delta. Return: true when every word is the same.
 */
static __always_inline bool st_ucache_same_words(struct st_ucache_cmp *x)
{
	int d;

	if (x->nwords > ST_UCACHE_WORDS || x->from > x->nwords)
		return false;
	/* One step's words (a 60-frame stack): called directly, no loop. */
	if (x->nwords - x->from <= ST_UCACHE_CMP_STEP) {
		d = st_ucache_differ_words(x->c, x->r, x->from, x->nwords, x->delta);
		x->fits = !(d & ST_UCACHE_MISFIT);
		return !(d & ST_UCACHE_DIFFER);
	}
	bpf_loop((x->nwords - x->from + ST_UCACHE_CMP_STEP - 1) / ST_UCACHE_CMP_STEP,
		 st_ucache_cmp_cb, x, 0);
	return x->same;
}

/* The user part of a record (st_walk_user()'s out): room for a kept walk's frames. */
struct st_ucache_out {
	__u64 ips[ST_UCACHE_FRAMES];
};

/*
 * Frames [@from, @to) of @c's walk to @out. A loop of loads and stores:
 * bpf_probe_read_kernel() copies word by word too, each word behind a
 * fault handler (~3 ns a frame, perf). A global function: checked once.
 * Return: 0.
 */
__noinline int st_ucache_copy(struct st_ucache_out *out, const struct st_ucache *c, __u32 from,
			      __u32 to)
{
	__u32 i, k;

	if (!out || !c)
		return 0;
	for (i = 0; i < ST_UCACHE_FRAMES; i++) {
		k = from + i;
		if (k >= to)
			break;
		out->ips[k & (ST_UCACHE_FRAMES - 1)] = c->ips[k & (ST_UCACHE_FRAMES - 1)];
	}
	return 0;
}

/*
 * Is @c's walk the one @k would make? One read of its stack region, then its
 * words compared. Return: true on a hit, with its frames copied to @out.
 * The region read stays in st_uregions for a splice (c->region_read).
 */
static __noinline bool st_ucache_hit(struct st_ucache *c, const struct st_ucache_key *k,
				     __u64 *out)
{
	struct st_ucache_cmp x = { .c = c, .same = 1, .fits = 1 };
	struct st_uregion *r;
	__u32 zero = 0, n, size;

	if (!c || !k || !out)
		return false;
	c->region_read = 0;
	if (!c->valid || !st_ucache_same_key(&c->key, k))
		return false;
	r = bpf_map_lookup_elem(&st_uregions, &zero);
	size = c->hi - c->lo;
	if (!r || !size || size >= ST_UCACHE_REGION)
		return false;
	if (bpf_probe_read_user(r->w, size & (ST_UCACHE_REGION - 1), (const void *)c->lo))
		return false;
	c->region_read = 1;
	x.r = r;
	x.nwords = c->nwords;
	if (!st_ucache_same_words(&x))
		return false;
	n = c->n;
	if (!n || n > ST_UCACHE_FRAMES)
		return false;
	st_ucache_copy((struct st_ucache_out *)out, c, 0, n);
	return true;
}

/*
 * A walk from @k starts: it logs into @c from here (not valid until
 * st_ucache_end()). The walk before stays splicable when it was kept with
 * the same tables and settings: the rest of a walk from a frame is the same
 * under those.
 */
static __always_inline void st_ucache_begin(struct st_ucache *c, const struct st_ucache_key *k)
{
	c->old_rows = c->valid && c->key.mode == k->mode && c->key.gen == k->gen &&
		      c->n <= ST_UCACHE_FRAMES;
	c->old_ok = c->old_rows && c->key.max == k->max;
	c->old_lo = c->lo;
	c->old_hi = c->hi;
	c->old_nwords = c->nwords;
	c->busy = 1;
	c->valid = 0;
	c->ok = 1;
	c->spliced = 0;
	c->nwords = 0;
	c->key = *k;
	c->lo = (k->sp - ST_UCACHE_BELOW) & ~7ull;
	c->hi = c->lo;
}

/* The word @val was read at @addr. */
static __always_inline void st_ucache_word(struct st_ucache *c, __u64 addr, __u64 val)
{
	__u64 off = addr - c->lo;
	__u32 k = c->nwords, i;

	if (k >= ST_UCACHE_WORDS || (addr & 7) || off >= ST_UCACHE_REGION) {
		c->ok = 0;
		return;
	}
	/* The mask kept from the compiler, which knows k < ST_UCACHE_WORDS: the verifier does not. */
	i = k;
	asm volatile("" : "+r"(i));
	i &= ST_UCACHE_WORDS - 1;
	c->offs[i] = off >> 3;
	c->vals[i] = val;
	c->nwords = k + 1;
	if (addr + 8 > c->hi)
		c->hi = addr + 8;
}

/*
 * The walk under way stores frame @n, ip and mark @ipm, from sp @sp, rbp
 * @bp: where the rest of it would start. The frame goes to ips[] at once
 * (st_ucache_end() then has nothing to copy).
 */
static __always_inline void st_ucache_frame(struct st_ucache *c, __u32 n, __u64 ipm, __u64 sp,
					    __u64 bp, __u32 fp, __u32 flags)
{
	struct st_ucache_frame *f;

	if (n >= ST_UCACHE_FRAMES)
		return;
	c->ips[n & (ST_UCACHE_FRAMES - 1)] = ipm;
	f = &c->frames[n & (ST_UCACHE_FRAMES - 1)];
	f->sp = sp;
	f->bp = bp;
	f->word = c->nwords;
	f->fp = fp;
	f->flags = flags;
	f->row_hi = 0;
}

/*
 * The walk under way stands at frame @n (ip and mark @ipm, the rest in
 * @cur as st_ucache_frame() has it, but for its word) where the walk before stood too: then the
 * rest of it is the walk before's rest when the words that rest read are
 * the same now (compared here: the region st_ucache_hit() read, else read
 * now). Those words are still in the log when this walk has logged no more
 * words than the walk before had at @n.
 * Return: true when the walk before's frames [@n, c->n), stop and end_sp
 * are this walk's; c->ok then says whether the two make one walk to keep.
 */
static __always_inline bool st_ucache_splice_ok(struct st_ucache *c, __u32 n, __u64 ipm,
					       const struct st_ucache_frame *cur)
{
	struct st_ucache_cmp x = { .c = c, .same = 1, .fits = 1 };
	const struct st_ucache_frame *f;
	struct st_uregion *r;
	__u32 zero = 0, size;
	__u64 lo, hi;

	if (!c || !cur || !c->old_ok || !n || n >= c->n || n >= ST_UCACHE_FRAMES)
		return false;
	f = &c->frames[n & (ST_UCACHE_FRAMES - 1)];
	if (f->sp != cur->sp || f->bp != cur->bp || f->flags != cur->flags ||
	    c->ips[n & (ST_UCACHE_FRAMES - 1)] != ipm || c->nwords > f->word)
		return false;
	r = bpf_map_lookup_elem(&st_uregions, &zero);
	lo = c->old_lo;
	hi = c->old_hi;
	size = hi - lo;
	if (!r || hi <= lo || size >= ST_UCACHE_REGION)
		return false;
	c->old_ok = 0; /* whatever the words say, one try */
	if (!c->region_read &&
	    bpf_probe_read_user(r->w, size & (ST_UCACHE_REGION - 1), (const void *)lo))
		return false;
	x.r = r;
	x.from = f->word;
	x.nwords = c->old_nwords;
	/* Offsets move to this walk's lo; a move beyond the region cannot be kept. */
	if (lo > c->lo + ST_UCACHE_REGION || c->lo > lo + ST_UCACHE_REGION)
		x.fits = 0;
	else
		x.delta = lo >= c->lo ? (__s32)((lo - c->lo) / 8) : -(__s32)((c->lo - lo) / 8);
	if (!st_ucache_same_words(&x))
		return false;
	/* One log: this walk's words, then the rest of the walk before's (at the same index). */
	if (c->nwords != f->word || f->fp != cur->fp || !x.fits)
		c->ok = 0;
	c->nwords = c->old_nwords;
	if (hi > c->hi)
		c->hi = hi;
	c->spliced = n;
	return true;
}

/*
 * st_ucache_uhash() - the user part of the aggregation's hash of @c's kept
 * walk (bpf/stack_hash.bpf.h): frames [0, c->uh_lo) hashed onto the hash of
 * [uh_lo, n), so a hit hashes none and a splice only those walked. A
 * global function: checked once.
 * Return: the hash of frames [0, n).
 */
__noinline __u64 st_ucache_uhash(struct st_ucache *c)
{
	__u64 h;
	__u32 j, i, lo, n;

	if (!c)
		return 0;
	n = c->n;
	lo = c->uh_lo;
	if (!n || n > ST_UCACHE_FRAMES)
		return 0;
	if (lo > n)
		lo = n;
	h = lo < n ? c->uh[lo & (ST_UCACHE_FRAMES - 1)] : ST_UHASH_SEED;
	/*
	 * The loop reads lo back from the entry: held in a register, its bounds
	 * differ on the two ways into the loop (lo < n or not), and the
	 * verifier checked all 128 steps twice.
	 */
	c->uh_lo = lo;
	for (j = 0; j < ST_UCACHE_FRAMES; j++) {
		lo = *(volatile __u32 *)&c->uh_lo;
		if (j >= lo)
			break;
		i = (lo - 1 - j) & (ST_UCACHE_FRAMES - 1);
		h = st_hash_mix(h, c->ips[i]);
		c->uh[i] = h;
	}
	c->uh_lo = 0;
	return h;
}

/*
 * The walk is over: keep it (@n frames, already in c->ips[]) when it may
 * be kept (@keep, and within the limits), with the user part of its hash
 * in *@uhash when @uhash is not NULL (st_ucache_uhash()). Return: true
 * when kept.
 */
static __always_inline bool st_ucache_end(struct st_ucache *c, bool keep, __u32 n, __u32 stop,
					  __u64 end_sp, __u32 fp_frames, __u64 *uhash)
{
	bool kept = false;

	if (keep && c->ok && n && n <= ST_UCACHE_FRAMES && c->nwords && c->hi > c->lo) {
		/* A splice at k kept the walk before's frames [k, n), and their hashes. */
		if (!c->spliced)
			c->uh_lo = n;
		else if (c->uh_lo < c->spliced)
			c->uh_lo = c->spliced;
		c->n = n;
		c->stop = stop;
		c->fp_frames = fp_frames;
		c->end_sp = end_sp;
		c->valid = 1;
		kept = true;
		if (uhash)
			*uhash = st_ucache_uhash(c);
	}
	c->busy = 0;
	return kept;
}

#endif
