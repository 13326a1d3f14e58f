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
 * task itself is then the only reader and writer of its entry, and BPF
 * programs do not nest on a CPU (the log is per CPU; a guard makes sure).
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

/* A task's last walk. */
struct st_ucache {
	struct st_ucache_key key;
	__u32 valid;
	__u32 n, stop, fp_frames; /* the walk's result */
	__u32 nwords;
	__u32 pad;
	__u64 end_sp;            /* sp of the last frame, as the walk left it */
	__u64 lo, hi;            /* the stack region the words lie in */
	__u64 ips[ST_UCACHE_FRAMES];
	__u16 offs[ST_UCACHE_WORDS]; /* word index from lo */
	__u64 vals[ST_UCACHE_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct st_ucache);
} st_ucaches SEC(".maps");

/* The words the walk under way read (absolute addresses), per CPU. */
struct st_ulog {
	__u32 busy; /* a walk on this CPU logs: a nested one must not */
	__u32 ok;   /* still keepable */
	__u32 n;
	__u32 pad;
	__u64 lo, hi;
	__u64 addr[ST_UCACHE_WORDS];
	__u64 val[ST_UCACHE_WORDS];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_ulog);
} st_ulogs SEC(".maps");

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

/* Return: the log of this CPU, emptied and owned, or NULL (nested: this walk is not kept). */
static __always_inline struct st_ulog *st_ulog_start(void)
{
	__u32 zero = 0;
	struct st_ulog *l = bpf_map_lookup_elem(&st_ulogs, &zero);

	if (!l || l->busy)
		return NULL;
	l->busy = 1;
	l->ok = 1;
	l->n = 0;
	l->lo = ~0ull;
	l->hi = 0;
	return l;
}

static __always_inline void st_ulog_end(struct st_ulog *l)
{
	l->busy = 0;
}

/* The walk did what a key cannot hold (see the top): it is not kept. */
static __always_inline void st_ulog_off(void)
{
	__u32 zero = 0;
	struct st_ulog *l = bpf_map_lookup_elem(&st_ulogs, &zero);

	if (l)
		l->ok = 0;
}

/* The word @val was read at @addr (into the walk's own log @l). */
static __always_inline void st_ulog_word(struct st_ulog *l, __u64 addr, __u64 val)
{
	__u32 k = l->n, i;

	if (k >= ST_UCACHE_WORDS || (addr & 7)) {
		l->ok = 0;
		return;
	}
	/* The mask kept from the compiler, which knows k < ST_UCACHE_WORDS: the verifier does not. */
	i = k;
	asm volatile("" : "+r"(i));
	i &= ST_UCACHE_WORDS - 1;
	l->addr[i] = addr;
	l->val[i] = val;
	l->n = k + 1;
	if (addr < l->lo)
		l->lo = addr;
	if (addr + 8 > l->hi)
		l->hi = addr + 8;
}

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
 * Is @c's walk the one @k would make? One read of its stack region, then its
 * words compared. Return: true on a hit, with its frames copied to @out.
 */
static __noinline bool st_ucache_hit(struct st_ucache *c, const struct st_ucache_key *k,
				     __u64 *out)
{
	struct st_uregion *r;
	__u32 zero = 0, i, n, size;

	if (!c || !k || !out || !c->valid || !st_ucache_same_key(&c->key, k))
		return false;
	r = bpf_map_lookup_elem(&st_uregions, &zero);
	size = c->hi - c->lo;
	if (!r || !size || size >= ST_UCACHE_REGION)
		return false;
	if (bpf_probe_read_user(r->w, size & (ST_UCACHE_REGION - 1), (const void *)c->lo))
		return false;
	for (i = 0; i < ST_UCACHE_WORDS; i++) {
		if (i >= c->nwords)
			break;
		if (r->w[c->offs[i] & (ST_UCACHE_REGION / 8 - 1)] != c->vals[i])
			return false;
	}
	n = c->n;
	if (!n || n > ST_UCACHE_FRAMES)
		return false;
	bpf_probe_read_kernel(out, (n & (2 * ST_UCACHE_FRAMES - 1)) * 8, c->ips);
	return true;
}

/*
 * Keep the walk just made from @k (frames in @out, words in @l) as @c's, or
 * forget @c's old one when this walk cannot be kept. Return: true when kept.
 * Inline: a call of its own could not take its eight arguments.
 */
static __always_inline bool st_ucache_put(struct st_ucache *c, const struct st_ucache_key *k,
				     const struct st_ulog *l, const __u64 *out, __u32 n, __u32 stop,
				     __u64 end_sp, __u32 fp_frames)
{
	__u32 i, nw;

	if (!c || !k || !l || !out)
		return false;
	c->valid = 0;
	nw = l->n;
	if (!l->ok || !n || n > ST_UCACHE_FRAMES || nw > ST_UCACHE_WORDS || !nw ||
	    l->hi <= l->lo || l->hi - l->lo >= ST_UCACHE_REGION)
		return false;
	c->key = *k;
	c->n = n;
	c->stop = stop;
	c->fp_frames = fp_frames;
	c->end_sp = end_sp;
	c->lo = l->lo;
	c->hi = l->hi;
	c->nwords = nw;
	for (i = 0; i < ST_UCACHE_WORDS; i++) {
		if (i >= nw)
			break;
		c->offs[i] = (l->addr[i] - l->lo) >> 3;
		c->vals[i] = l->val[i];
	}
	if (bpf_probe_read_kernel(c->ips, (n & (2 * ST_UCACHE_FRAMES - 1)) * 8, out))
		return false;
	c->valid = 1;
	return true;
}

#endif
