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
 * A task's last walk. The walk under way logs the words it reads straight
 * into its task's entry (busy meanwhile: a program nested in it leaves the
 * entry alone), valid once the walk is whole and keepable.
 */
struct st_ucache {
	struct st_ucache_key key;
	__u32 busy, valid;
	__u32 ok;                 /* the walk under way is still keepable */
	__u32 n, stop, fp_frames; /* the walk's result */
	__u32 nwords;
	__u32 pad;
	__u64 end_sp;             /* sp of the last frame, as the walk left it */
	__u64 lo, hi;             /* the stack region the words lie in */
	__u64 ips[ST_UCACHE_FRAMES];
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
#define ST_UCACHE_CMP_STEP 32 /* a power of two, dividing ST_UCACHE_WORDS */

/* A hit's comparison, carried through bpf_loop(). */
struct st_ucache_cmp {
	const struct st_ucache *c;
	const struct st_uregion *r;
	__u32 nwords;
	__u32 same; /* 1 until a word differs */
};

/*
 * Words [@i * STEP, @i * STEP + STEP) of @c's log (of its first @end) against
 * the region read now. A global function, checked once per program rather
 * than at every path into the callback (see st_agg_hash_frames()).
 * Return: 1 when a word differs (or a pointer is NULL), else 0.
 */
__noinline int st_ucache_differ_words(const struct st_ucache *c, const struct st_uregion *r,
				      __u32 i, __u32 end)
{
	/* The mask only tells the verifier: i < nwords / STEP, and nwords <= ST_UCACHE_WORDS. */
	__u32 j, base = (i * ST_UCACHE_CMP_STEP) & (ST_UCACHE_WORDS - 1);
	const __u16 *offs;
	const __u64 *vals;

	if (!c || !r)
		return 1;
	offs = &c->offs[base];
	vals = &c->vals[base];
	for (j = 0; j < ST_UCACHE_CMP_STEP; j++) {
		if (base + j >= end)
			break;
		if (r->w[offs[j] & (ST_UCACHE_REGION / 8 - 1)] != vals[j])
			return 1;
	}
	return 0;
}

static int st_ucache_cmp_cb(__u32 i, void *ctx)
{
	struct st_ucache_cmp *x = ctx;

	if (!st_ucache_differ_words(x->c, x->r, i, x->nwords))
		return 0;
	x->same = 0;
	return 1;
}

/*
 * Is @c's walk the one @k would make? One read of its stack region, then its
 * words compared. Return: true on a hit, with its frames copied to @out.
 */
static __noinline bool st_ucache_hit(struct st_ucache *c, const struct st_ucache_key *k,
				     __u64 *out)
{
	struct st_ucache_cmp x = { .c = c, .same = 1 };
	struct st_uregion *r;
	__u32 zero = 0, n, size;

	if (!c || !k || !out || !c->valid || !st_ucache_same_key(&c->key, k))
		return false;
	r = bpf_map_lookup_elem(&st_uregions, &zero);
	size = c->hi - c->lo;
	if (!r || !size || size >= ST_UCACHE_REGION)
		return false;
	if (bpf_probe_read_user(r->w, size & (ST_UCACHE_REGION - 1), (const void *)c->lo))
		return false;
	x.r = r;
	x.nwords = c->nwords;
	if (x.nwords > ST_UCACHE_WORDS)
		return false;
	bpf_loop((x.nwords + ST_UCACHE_CMP_STEP - 1) / ST_UCACHE_CMP_STEP, st_ucache_cmp_cb, &x, 0);
	if (!x.same)
		return false;
	n = c->n;
	if (!n || n > ST_UCACHE_FRAMES)
		return false;
	bpf_probe_read_kernel(out, (n & (2 * ST_UCACHE_FRAMES - 1)) * 8, c->ips);
	return true;
}

/* A walk from @k starts: it logs into @c from here (not valid until st_ucache_end()). */
static __always_inline void st_ucache_begin(struct st_ucache *c, const struct st_ucache_key *k)
{
	c->busy = 1;
	c->valid = 0;
	c->ok = 1;
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
 * The walk is over: keep it (frames in @out, @n of them) when it may be kept
 * (@keep, and within the limits). Return: true when kept.
 */
static __always_inline bool st_ucache_end(struct st_ucache *c, bool keep, const __u64 *out,
					  __u32 n, __u32 stop, __u64 end_sp, __u32 fp_frames)
{
	bool kept = false;

	if (keep && c->ok && n && n <= ST_UCACHE_FRAMES && c->nwords && c->hi > c->lo &&
	    !bpf_probe_read_kernel(c->ips, (n & (2 * ST_UCACHE_FRAMES - 1)) * 8, out)) {
		c->n = n;
		c->stop = stop;
		c->fp_frames = fp_frames;
		c->end_sp = end_sp;
		c->valid = 1;
		kept = true;
	}
	c->busy = 0;
	return kept;
}

#endif
