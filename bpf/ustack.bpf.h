/* SPDX-License-Identifier: GPL-2.0 */
/*
 * THE user-stack walker: one walk for the synchronous capture at the event,
 * the deferred walk on return to user space and the faultable one, in every
 * unwind mode. Memory is read by the variant the context allows:
 * bpf_probe_read_user() at the event (no faults), bpf_copy_from_user() in a
 * sleepable context (the deferred task_work callback), which faults pages in.
 *
 * A walk is a loop of steps, one bpf_loop() iteration per frame. Each step
 * stores the frame at ip, then finds the caller's ip, sp and bp by one rule:
 *
 *   row      the unwind row covering the pc (.sframe / .eh_frame / .debug_frame,
 *            built by lib/unwind/, loaded by lib/unwind/bpf_tables.c):
 *            CFA = rsp/rbp + offset (or the PLT formula), RA at CFA - 8, the
 *            caller's rbp saved at CFA + off or left alone;
 *   signal   the row of a sigreturn trampoline (UNWIND_CFA_SIGNAL, from an FDE
 *            whose CIE says 'S'), or, where no row covers the pc, a trampoline
 *            recognised by its code (mov $15,%rax; syscall; not in fp mode:
 *            reading code costs as much as a frame), or frame 0 inside the
 *            rt_sigreturn call: sp points at the ucontext of the rt_sigframe
 *            and the interrupted rip, rsp and rbp are read from it. The
 *            interrupted pc is exact (ST_FRAME_EXACT);
 *   fp       frame pointers, one more row (CFA = rbp + 16, RA at CFA - 8, the
 *            caller's rbp at CFA - 16), as the kernel's unwind_user has it:
 *            every pc in fp mode, pcs without a row in auto mode;
 *   entry    frame 0 of a uprobe at a function's first instruction (a u:
 *            probe, st_walk_user()'s @at_entry): the frame is not built yet,
 *            RA at [sp] (CFA = sp + 8), rbp unchanged, whatever the first
 *            instruction is (glibc's malloc starts with push %r12).
 * pc is looked up as is for frame 0 and exact frames, as pc - 1 for return
 * addresses (a call may be a function's last instruction) and for frame 0
 * in a system call (so may a syscall be). A return address no row covers
 * that points at glibc's __start_context ends a makecontext() coroutine's
 * stack: its outermost frame, as _start is a process's.
 *
 * The code below is careful about what the verifier can prove and what it
 * costs per frame: one bpf_loop() iteration, the walk's numbers in map
 * memory, no per-frame counter updates.
 *
 * Every step is validated the way the kernel's own unwinder does it: the
 * CFA is 8-aligned and above sp, so the walk moves up the stack. The one
 * exception is a move to another stack: Go switching between a goroutine's
 * stack and the system stack, a handler on a sigaltstack returning to the
 * interrupted stack, a coroutine. A step whose CFA is not above sp, or lies
 * outside the stack the walk is known to be on, is a switch when the CFA
 * lies in another writable, non-executable mapping of the task (found with
 * bpf_find_vma(), only then) and, for a return address read there, the
 * return address lies in executable memory. The walk remembers each stack
 * it left and how far up it was: it never comes back to a stack below that
 * point (no loops), and switches at most ST_USTACK_SWITCHES times.
 *
 * Where a walk ends says whether the stack is whole: ST_USTOP_OUTERMOST
 * (RA undefined in the row, RA 0, frame pointer 0: _start, clone3's child,
 * runtime.goexit) is a complete stack; ST_USTOP_DEPTH means more frames
 * follow; any other reason is a walk that stopped early.
 *
 * Return probes: a pending uretprobe replaced its function's return address
 * on the stack with the [uprobes] trampoline. The kernel keeps the real
 * ones in current->utask->return_instances, newest (innermost) first; the
 * walk puts them back in order as it meets the trampoline, so the caller
 * shows and the walk goes on through it.
 */
#ifndef ST_USTACK_BPF_H
#define ST_USTACK_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "bpf/record.h"
#include "bpf/ucache.bpf.h"
#include "bpf/unwind_maps.h"
#include "bpf/unwind_row.h"

/*
 * Moves to another stack one walk may make. Go with cgo needs one (system
 * stack to goroutine stack), a handler on a sigaltstack one more, a Go
 * signal handler on its gsignal stack one more; beyond that it is a loop or
 * garbage.
 */
#ifndef ST_USTACK_SWITCHES
#define ST_USTACK_SWITCHES 4
#endif

#define ST_VM_WRITE 0x2 /* include/linux/mm.h VM_WRITE */
#define ST_VM_EXEC 0x4  /* VM_EXEC */
#define ST_ENOENT 2     /* bpf_find_vma(): no mapping holds the address */

/* The x86-64 sigreturn trampoline: mov $15,%rax; syscall (glibc, musl) or mov $15,%eax; syscall. */
#define ST_SIGRETURN_RAX 0x0f0000000fc0c748ull
#define ST_SIGRETURN_EAX 0x050f0000000fb8ull
#define ST_SIGRETURN_EAX_MASK 0xffffffffffffffull
#define ST_NR_RT_SIGRETURN 15 /* x86-64 __NR_rt_sigreturn: what the trampoline calls */
/* glibc's __start_context: mov %rbx,%rsp; mov (%rsp),%rdi; 48 (of test %rdi,%rdi). */
#define ST_START_CONTEXT 0x48243c8b48dc8948ull

/*
 * Sized by user space before load (--unwind-rows); written through a window
 * of it mapped for each write (lib/unwind/bpf_tables.c), hence mmapable.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1 << 21);
	__type(key, __u32);
	__type(value, struct unwind_row);
} st_urows SEC(".maps");

/* 8 KiB a process: allocated as processes come (no prealloc), not 8 MiB up front. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct st_uproc);
} st_uprocs SEC(".maps");

/* Per-CPU counters: why walks stopped (enum st_ustop), then enum st_ustat_extra. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ST_USTAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} st_ustats SEC(".maps");

/* A stack the walk left: how far up the walk had come in it (its mapping is the one holding sp). */
struct st_ustack_left {
	__u64 sp;
};

/*
 * The walk's numbers live in map memory, not on the stack: the verifier
 * tracks stack scalars exactly, so a frame counter there differs in every
 * bpf_loop() iteration, the callback's states never converge and the
 * program hits the million-instruction limit. Map memory is opaque to it.
 * Walks at the event use the per-CPU slot; a faultable walk, which may sleep
 * while another task's walk runs on the same CPU, brings its own (in the
 * deferred walk's ring-buffer record).
 */
struct st_uwalk_state {
	__u64 ip, sp, bp;
	__u64 mark;    /* ST_FRAME_* of the frame at ip */
	__u32 n, max;  /* frames stored, limit */
	__u32 mode;    /* enum st_unwind_mode */
	__u32 stop;    /* enum st_ustop */
	__u32 unknown; /* the process, or a pc's mapping, is not loaded yet */
	__u32 lo, hi;  /* binary search bounds, kept here for the verifier's sake */
	/*
	 * The last mapping and row found: deep stacks (recursion, one library's
	 * internals) hit the same ones frame after frame, and a hit skips both
	 * binary searches. Valid for this walk only (reset at its start).
	 */
	__u32 map_ix;         /* last mapping + 1; 0 = none */
	__u32 row_key;        /* st_urows key of the last row */
	__u32 nleft;          /* stacks left so far (entries of left[]) */
	__u64 row_lo, row_hi; /* process addresses the last row covers: [lo, hi) */
	/* The mapping of the stack the walk is on, once a switch made it known ([0, 0): not yet). */
	__u64 stack_lo, stack_hi;
	struct st_ustack_left left[ST_USTACK_SWITCHES];
	__u64 tramp; /* the uretprobe trampoline's address; 0: no uretprobe pending */
	__u64 ri;    /* the next pending struct return_instance (kernel pointer) */
	__u32 frame0;     /* enum st_frame0: how frame 0 is unwound (NONE once it is) */
	__u32 pc_off;     /* 1: ip is a return address, looked up at ip - 1; 0: an exact pc */
	__u32 switched;   /* this step moved to another stack: its RA must be code */
	__u32 bp_unknown; /* a row left the caller's rbp undefined: bp is no frame pointer */
	__u32 fp_frames;  /* frames found by frame pointer (counted once per walk) */
	__u32 logging;    /* the walk may be kept in the walk cache (bpf/ucache.bpf.h) */
	__u64 win_lo, win_hi; /* what the stack window holds (st_uwin_slot()); lo 0: nothing */
	/* Where the last rsp-based row with rbp kept covers: [lo, hi), CFA = rsp + off. */
	__u64 rep_lo, rep_hi, rep_off;
	/* The stack region the walk cache read at this event (st_uwalk.rgn): [lo, hi). */
	__u64 rgn_lo, rgn_hi;
	/* The user part of the aggregation's hash of the frames, when uhash_ok (st_walk_user()). */
	__u64 uhash;
	__u32 uhash_ok;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_uwalk_state);
} st_uwalk_states SEC(".maps");

/*
 * The stack window of a walk at the event: a copy of the stack from a word
 * the walk read to the end of its page. Deep stacks keep many frames in one page (a recursion's
 * frames are 16-64 bytes), and a read of user memory costs about as much for
 * a page as for 8 bytes: the checks around the copy (copy_from_user_nofault(),
 * the hardened-usercopy check) were 57% of a 100-frame walk with one read a
 * frame (perf, 2026-11-27). With the window a walk pays one read per page.
 * The read stays within one page, so it fails exactly when a word read in
 * that page would, and the words are those the word reads would give; a
 * word below the window reads the page again from there. Per CPU,
 * as st_uwalk_states: one walk at the event runs per CPU at a time
 * (st_scratch.busy). The faultable walk reads word by word: it may sleep,
 * and a window of its own would cost a page of ring buffer per walk.
 */
#define ST_UWIN_BYTES 4096 /* a page: never larger, or a read could cross into one not mapped */

struct st_uwin {
	__u64 w[ST_UWIN_BYTES / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_uwin);
} st_uwins SEC(".maps");

/* How frame 0 is looked up and unwound. */
enum st_frame0 {
	ST_FRAME0_NONE,      /* nothing special (and every frame after the first) */
	ST_FRAME0_SYSCALL,   /* in a system call: pc is the instruction after it, looked up at pc - 1
			      * (a syscall may be a function's last instruction) */
	ST_FRAME0_SIGRETURN, /* in rt_sigreturn: the trampoline, sp at the ucontext */
	ST_FRAME0_ENTRY,     /* a uprobe at a function's first instruction: RA at [sp] */
};

/*
 * On the stack: the pointers bpf_loop()'s context must carry, and the mode:
 * a constant there (callers pass st_cfg.unwind, read-only data), so the
 * verifier drops the rules a mode never uses instead of checking them all.
 */
struct st_uwalk {
	struct st_uwalk_state *st;
	__u64 *out;            /* the first user slot of the record's ips[] */
	struct st_uproc *proc; /* NULL: process unknown (or fp mode) */
	struct st_ucache *log; /* the task's walk cache entry the words read go to; NULL: none */
	struct st_uwin *win;   /* the stack window (walks at the event); NULL: read word by word */
	/* The region the walk cache's hit check read at this event; NULL: none. */
	const struct st_uregion *rgn;
	__u32 mode;            /* enum st_unwind_mode */
};

static __always_inline void st_ustat_add(__u32 which, __u64 n)
{
	__u64 *v = bpf_map_lookup_elem(&st_ustats, &which);

	if (v && n)
		__sync_fetch_and_add(v, n);
}

static __always_inline void st_ustat_inc(__u32 which)
{
	st_ustat_add(which, 1);
}

/* Reads user memory: with faults (sleepable callers only) or without. */
static __always_inline long st_uread(void *dst, __u32 size, __u64 addr, bool faultable)
{
	if (faultable)
		return bpf_copy_from_user(dst, size, (const void *)addr);
	return bpf_probe_read_user(dst, size, (const void *)addr);
}

static __always_inline int st_ustop(struct st_uwalk_state *st, __u32 why)
{
	st->stop = why;
	return 1;
}

/*
 * The binary searches are open-coded but keep lo/hi in the walk's map value
 * (read and written through volatile): in registers the verifier would
 * follow every lo/hi combination of every step and give up at a million
 * instructions; from map memory each step looks alike to it. This is ~10x
 * cheaper per step than a bpf_loop() callback.
 */
#define ST_VOL(x) (*(volatile __typeof__(x) *)&(x))

/*
 * The binary searches are global functions: the verifier checks a global
 * function once, on its own, where a static one is checked again at every
 * call site in every caller's state (the row search alone was ~14k of the
 * sampling program's ~43k checked instructions). So they take the walk's
 * state and the mapping as pointers that may be NULL, and return a number:
 * the mapping's index + 1, the row's key + 1, 0 for none.
 */

/* The binary search behind st_find_map(). Return: index + 1 of the mapping of @pc, or 0. */
__noinline __u32 st_search_map(struct st_uwalk_state *st, const struct st_uproc *p, __u64 pc)
{
	const struct st_umap *m;
	__u32 i, mid, n;

	if (!st || !p)
		return 0;
	n = p->n;
	ST_VOL(st->lo) = 0;
	ST_VOL(st->hi) = n > ST_UNW_MAX_MAPS ? ST_UNW_MAX_MAPS : n;
	for (i = 0; i < ST_UNW_MAP_STEPS; i++) {
		__u32 lo = ST_VOL(st->lo), hi = ST_VOL(st->hi);

		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		if (p->maps[mid & (ST_UNW_MAX_MAPS - 1)].start <= pc)
			ST_VOL(st->lo) = mid + 1;
		else
			ST_VOL(st->hi) = mid;
	}
	mid = ST_VOL(st->lo);
	if (!mid)
		return 0;
	m = &p->maps[(mid - 1) & (ST_UNW_MAX_MAPS - 1)];
	if (pc >= m->end)
		return 0;
	ST_VOL(st->map_ix) = mid;
	return mid;
}

static __always_inline struct st_umap *st_find_map(struct st_uwalk_state *st,
						   struct st_uproc *p, __u64 pc)
{
	struct st_umap *m;
	__u32 mid = ST_VOL(st->map_ix);

	if (mid) {
		m = &p->maps[(mid - 1) & (ST_UNW_MAX_MAPS - 1)];
		if (m->start <= pc && pc < m->end)
			return m;
	}
	mid = st_search_map(st, p, pc);
	return mid ? &p->maps[(mid - 1) & (ST_UNW_MAX_MAPS - 1)] : NULL;
}

/*
 * The page index narrows the search for row pc @rpc to the rows of its block
 * (struct st_urow_ix): one slot read. A slot that does not fit the file's
 * rows (never written so) leaves the search over all of them.
 */
static __always_inline void st_row_bounds(struct st_uwalk_state *st, const struct st_umap *m,
					  __u64 rpc)
{
	const struct st_urow_ix *ix;
	__u64 b = rpc >> (m->ix_shift & 31);
	__u32 key, nrows = m->nrows;

	if (b >= m->ix_blocks) {
		ST_VOL(st->lo) = nrows; /* above every row: the last one covers it */
		return;
	}
	key = m->ix_row + (__u32)b;
	ix = bpf_map_lookup_elem(&st_urows, &key);
	if (ix && ix->lo <= ix->hi && ix->hi <= nrows) {
		ST_VOL(st->lo) = ix->lo;
		ST_VOL(st->hi) = ix->hi;
	}
}

/* The binary search behind st_find_row(). Return: the st_urows key + 1 of @pc's row, or 0. */
__noinline __u64 st_search_row(struct st_uwalk_state *st, const struct st_umap *m, __u64 pc)
{
	struct unwind_row *row, *next;
	__u32 i, key;
	__u64 rpc;

	if (!st || !m || pc < m->bias)
		return 0;
	rpc = pc - m->bias;
	if (rpc > 0xffffffffull)
		return 0;
	ST_VOL(st->lo) = 0;
	ST_VOL(st->hi) = m->nrows;
	if (m->ix_blocks)
		st_row_bounds(st, m, rpc);
	for (i = 0; i < ST_UNW_ROW_STEPS; i++) {
		__u32 lo = ST_VOL(st->lo), hi = ST_VOL(st->hi), mid;

		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		key = m->first_row + mid;
		row = bpf_map_lookup_elem(&st_urows, &key);
		if (!row)
			return 0;
		if (row->pc <= rpc)
			ST_VOL(st->lo) = mid + 1;
		else
			ST_VOL(st->hi) = mid;
	}
	i = ST_VOL(st->lo);
	if (!i)
		return 0;
	key = m->first_row + i - 1;
	row = bpf_map_lookup_elem(&st_urows, &key);
	if (!row)
		return 0;
	/* Remember the range this row covers: up to the next row, or the mapping's end. */
	ST_VOL(st->row_key) = key;
	ST_VOL(st->row_lo) = row->pc + m->bias;
	key++;
	next = i < m->nrows ? bpf_map_lookup_elem(&st_urows, &key) : NULL;
	ST_VOL(st->row_hi) = next ? next->pc + m->bias : m->end;
	return (__u64)key; /* the row's key + 1 */
}

static __always_inline struct unwind_row *st_find_row(struct st_uwalk_state *st,
						      const struct st_umap *m, __u64 pc)
{
	__u64 found;
	__u32 key;

	if (pc >= ST_VOL(st->row_lo) && pc < ST_VOL(st->row_hi)) {
		key = ST_VOL(st->row_key);
		return bpf_map_lookup_elem(&st_urows, &key);
	}
	found = st_search_row(st, m, pc);
	if (!found)
		return NULL;
	key = found - 1;
	return bpf_map_lookup_elem(&st_urows, &key);
}

/*
 * The stack window's slot of the @size bytes (8 or 16) at @addr, reading
 * them in with the rest of their page when the window does not hold them.
 * Return: the slot + 1 (w[slot] is the word at @addr), or 0 when the window
 * cannot serve them: no window, an unaligned address, a read across a
 * page's end, a page that cannot be read (the caller then reads as
 * st_uread() does, and fails as it would have).
 */
static __always_inline __u32 st_uwin_slot(struct st_uwalk_state *st, struct st_uwin *win,
					  __u64 addr, __u32 size)
{
	__u64 end = (addr | (ST_UWIN_BYTES - 1)) + 1, lo = ST_VOL(st->win_lo), n = end - addr;

	if (!win || (addr & 7) || addr + size > end || n > ST_UWIN_BYTES)
		return 0;
	if (!lo || addr < lo || addr >= ST_VOL(st->win_hi)) {
		ST_VOL(st->win_lo) = 0;
		if (bpf_probe_read_user(win->w, n, (const void *)addr))
			return 0;
		ST_VOL(st->win_lo) = lo = addr;
		ST_VOL(st->win_hi) = end;
	}
	return ((addr - lo) / 8 & (ST_UWIN_BYTES / 8 - 1)) + 1;
}

/*
 * The slot + 1 of the @size bytes at @addr in the region the walk cache's
 * hit check read at this event (a missed check's walk reads the stack it
 * read: no second read of those pages), or 0.
 */
static __always_inline __u32 st_urgn_slot(struct st_uwalk_state *st, const struct st_uregion *rgn,
					  __u64 addr, __u32 size)
{
	__u64 lo = ST_VOL(st->rgn_lo);

	if (!rgn || (addr & 7) || addr < lo || addr + size > ST_VOL(st->rgn_hi))
		return 0;
	return ((addr - lo) / 8 & (ST_UCACHE_REGION / 8 - 1)) + 1;
}

/*
 * Reads @size (8 or 16) bytes of the stack at @addr: from the walk cache's
 * region or the stack window where it can.
 */
static __always_inline long st_ustack_read(struct st_uwalk *w, __u64 *dst, __u32 size,
					   __u64 addr, bool faultable)
{
	struct st_uwalk_state *st = w->st;
	struct st_uwin *win = w->win;
	__u32 i = faultable ? 0 : st_urgn_slot(st, w->rgn, addr, size);

	if (i && w->rgn) {
		dst[0] = w->rgn->w[(i - 1) & (ST_UCACHE_REGION / 8 - 1)];
		if (size > 8)
			dst[1] = w->rgn->w[i & (ST_UCACHE_REGION / 8 - 1)];
		return 0;
	}
	i = faultable ? 0 : st_uwin_slot(st, win, addr, size);
	if (!i)
		return st_uread(dst, size, addr, faultable);
	dst[0] = win->w[(i - 1) & (ST_UWIN_BYTES / 8 - 1)];
	if (size > 8)
		dst[1] = win->w[i & (ST_UWIN_BYTES / 8 - 1)];
	return 0;
}

/* What bpf_find_vma() tells about one address. */
struct st_vma {
	__u64 start, end, flags;
};

static long st_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct st_vma *v = ctx;

	v->start = vma->vm_start;
	v->end = vma->vm_end;
	v->flags = vma->vm_flags;
	return 0;
}

/* Return: true when @addr lies in a mapping of the current task, described in @v. */
static __always_inline bool st_vma_of(__u64 addr, struct st_vma *v)
{
	v->start = v->end = v->flags = 0;
	return !bpf_find_vma(bpf_get_current_task_btf(), addr, st_vma_cb, v, 0) && v->end;
}

/*
 * The next frame's CFA @cfa is not above sp, or lies outside the stack the
 * walk is on: a move to another stack, if @cfa lies on one the walk may go
 * to. Return: 0 when the walk may go on there, 1 when it stopped (@why, or
 * ST_USTOP_BAD_SWITCH).
 */
__noinline int st_switch(struct st_uwalk_state *st, __u64 cfa, __u32 why)
{
	struct st_vma v;
	__u32 i, k;

	if (!st)
		return 1;
	st->logging = 0; /* the task's mappings decide: no key holds them */
	if (st->stack_hi && cfa >= st->stack_lo && cfa < st->stack_hi)
		return st_ustop(st, why); /* the same stack, downwards */
	/*
	 * One lookup, of @cfa's mapping: the one bpf_find_vma() answers at a
	 * perf sample or a switch-out (st_ra_kind()). The stack the walk is on
	 * is the mapping that holds sp, known after a first switch; before one,
	 * @cfa's mapping holding sp says the same stack.
	 */
	if (!st_vma_of(cfa, &v) || !(v.flags & ST_VM_WRITE) || (v.flags & ST_VM_EXEC))
		return st_ustop(st, why); /* no stack there: a broken chain, not a switch */
	if (!st->stack_hi && st->sp >= v.start && st->sp < v.end)
		return st_ustop(st, why); /* the same stack, downwards */
	if (st->nleft >= ST_USTACK_SWITCHES)
		return st_ustop(st, ST_USTOP_BAD_SWITCH);
	for (i = 0; i < ST_USTACK_SWITCHES; i++)
		if (i < st->nleft && st->left[i].sp >= v.start && st->left[i].sp < v.end &&
		    cfa <= st->left[i].sp)
			return st_ustop(st, ST_USTOP_BAD_SWITCH); /* back down a stack left: a loop */
	k = st->nleft;
	if (k < ST_USTACK_SWITCHES) {
		st->left[k].sp = st->sp;
	}
	st->nleft = k + 1;
	st->stack_lo = v.start;
	st->stack_hi = v.end;
	st->switched = 1;
	st_ustat_inc(ST_USTAT_SWITCHES);
	return 0;
}

/*
 * May the walk go from sp to a frame whose CFA is @cfa? Up the same stack,
 * or to another stack (st_switch()). Return: 0 yes, 1 stopped with @why.
 */
static __always_inline int st_up(struct st_uwalk_state *st, __u64 cfa, __u32 why)
{
	st->switched = 0;
	if (cfa & 7)
		return st_ustop(st, why);
	if (st->stack_hi ? cfa < st->stack_lo || cfa >= st->stack_hi : cfa <= st->sp)
		return st_switch(st, cfa, why);
	if (cfa <= st->sp)
		return st_ustop(st, why);
	return 0;
}

/* What the task's mappings say of a return address. */
enum st_ra_kind {
	ST_RA_UNSURE,  /* no answer: the lookup failed */
	ST_RA_CODE,    /* in an executable mapping */
	ST_RA_NO_CODE, /* in no mapping, or in one that is not executable */
};

/*
 * bpf_find_vma() answers only when it can take the task's mmap_lock at
 * once: it fails with -EBUSY while the task holds it for writing (an event
 * inside its own mmap, munmap, brk or mprotect), and where interrupts are
 * off (a perf sample, sched_switch) after its first lookup, until an
 * irq_work releases the lock. Measured in a system-wide profile, 999 Hz,
 * beside short-lived processes: 1,295 answers and 681 -EBUSY, 293 of them
 * with the lock held for writing. A failure says nothing about @ra.
 *
 * Return: enum st_ra_kind.
 */
__noinline int st_ra_kind(__u64 ra)
{
	struct st_vma v = {};
	long err = bpf_find_vma(bpf_get_current_task_btf(), ra, st_vma_cb, &v, 0);

	if (err == -ST_ENOENT)
		return ST_RA_NO_CODE; /* the walk runs in the task: its mm stays while it does */
	if (err || !v.end)
		return ST_RA_UNSURE;
	return v.flags & ST_VM_EXEC ? ST_RA_CODE : ST_RA_NO_CODE;
}

/*
 * A return address read on a stack just switched to must be code, or the
 * switch was garbage. An address in an executable mapping user space
 * described (st_uprocs: the walk runs in the task) is code without asking
 * the task's mappings: at a perf sample or a switch-out the switch's own
 * lookup was likely the one bpf_find_vma() answers there (st_ra_kind()).
 */
static __always_inline bool st_ra_is_code(struct st_uwalk_state *st, __u64 ra)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	if (st_search_map(st, bpf_map_lookup_elem(&st_uprocs, &pid), ra))
		return true;
	return st_ra_kind(ra) == ST_RA_CODE;
}

/*
 * @ra is the uretprobe trampoline: the real return address is the next
 * pending return instance's. A probed function that tail-called another
 * probed one left two instances on one stack slot ("chained"): both are used
 * up here.
 */
__noinline __u64 st_uretprobe_ra(struct st_uwalk_state *st, __u64 ra)
{
	struct return_instance *ri;
	__u64 real;

	if (!st)
		return ra;
	ri = (struct return_instance *)st->ri;
	if (ra != st->tramp || !ri)
		return ra;
	real = BPF_CORE_READ(ri, orig_ret_vaddr);
	if (BPF_CORE_READ(ri, chained))
		ri = BPF_CORE_READ(ri, next);
	if (ri && BPF_CORE_READ(ri, chained))
		ri = BPF_CORE_READ(ri, next);
	st->ri = ri ? (__u64)BPF_CORE_READ(ri, next) : 0;
	st_ustat_inc(ST_USTAT_URETPROBE);
	return real;
}

/* The caller's frame is found: ip @ra (read at @cfa - 8), sp @cfa, rbp @bp. */
static __always_inline int st_to_caller(struct st_uwalk_state *st, __u64 cfa, __u64 ra, __u64 bp,
					bool bp_unknown, __u64 mark)
{
	if (st->tramp && ra == st->tramp)
		ra = st_uretprobe_ra(st, ra);
	if (st->switched && ra && !st_ra_is_code(st, ra))
		return st_ustop(st, ST_USTOP_BAD_RA);
	st->sp = cfa;
	st->bp = bp;
	st->bp_unknown = bp_unknown;
	st->ip = ra;
	st->mark = mark;
	st->pc_off = 1;
	return 0;
}

/*
 * The rules below read user memory into @buf, two words the step owns: the
 * step's stack frame must stay under 64 bytes, or the verifier moves it to
 * a per-CPU private stack, where every read costs a hardened-usercopy heap
 * check (~20 ns a read, measured).
 */

/* The row rule: CFA from rsp/rbp, RA at CFA - 8, rbp per the row. */
static __always_inline int st_row_step(struct st_uwalk *w, const struct unwind_row *row,
				       __u64 *buf, bool faultable)
{
	struct st_uwalk_state *st = w->st;
	struct st_ucache *log = w->log;
	bool bp_unknown = st->bp_unknown;
	__u64 cfa;

	switch (row->cfa) {
	case UNWIND_CFA_RSP: cfa = st->sp + row->cfa_off; break;
	case UNWIND_CFA_RBP:
		if (st->bp_unknown)
			return st_ustop(st, ST_USTOP_BAD_CFA);
		cfa = st->bp + row->cfa_off;
		break;
	case UNWIND_CFA_RSP8: cfa = st->sp + (__s64)row->cfa_off * 8; break;
	case UNWIND_CFA_RBP8:
		if (st->bp_unknown)
			return st_ustop(st, ST_USTOP_BAD_CFA);
		cfa = st->bp + (__s64)row->cfa_off * 8;
		break;
	case UNWIND_CFA_PLT: cfa = st->sp + 8 + ((st->ip & 15) >= 11 ? 8 : 0); break;
	case UNWIND_CFA_OUTERMOST: return st_ustop(st, ST_USTOP_OUTERMOST);
	default: return st_ustop(st, ST_USTOP_UNSUPPORTED);
	}
	if (st_up(st, cfa, ST_USTOP_BAD_CFA))
		return 1;
	/*
	 * rbp saved right below the return address (push %rbp at a function's
	 * start: most frames of code with frame pointers): both in one read,
	 * which costs as much as one of the two.
	 */
	if (row->rbp == UNWIND_RBP_SAVED && row->rbp_off == -2) {
		if (st_ustack_read(w, buf, 16, cfa - 16, faultable))
			return st_ustop(st, ST_USTOP_READ_FAILED);
		/* Both words are what the walk read: the walk cache compares them again. */
		if (!faultable && log) {
			st_ucache_word(log, cfa - 16, buf[0]);
			st_ucache_word(log, cfa - 8, buf[1]);
		}
		return st_to_caller(st, cfa, buf[1], buf[0], false, 0);
	}
	if (st_ustack_read(w, &buf[1], 8, cfa - 8, faultable))
		return st_ustop(st, ST_USTOP_READ_FAILED);
	if (!faultable && log)
		st_ucache_word(log, cfa - 8, buf[1]);
	buf[0] = st->bp;
	if (row->rbp == UNWIND_RBP_SAVED) {
		if (st_ustack_read(w, &buf[0], 8, cfa + (__s64)row->rbp_off * 8, faultable))
			return st_ustop(st, ST_USTOP_READ_FAILED);
		if (!faultable && log)
			st_ucache_word(log, cfa + (__s64)row->rbp_off * 8, buf[0]);
		bp_unknown = false;
	} else if (row->rbp == UNWIND_RBP_UNDEFINED) {
		buf[0] = 0;
		bp_unknown = true;
	}
	return st_to_caller(st, cfa, buf[1], buf[0], bp_unknown, 0);
}

/*
 * st_row_step() of a walk at the event. A global function: the verifier
 * checks it once, where inlined in the walk's callback it was checked again
 * at every way into the callback (a fifth of the sampling program's checked
 * instructions). Not for the faultable walk: a global function that may
 * sleep cannot be called from the callback at the event. @log, @win and
 * @rgn may be NULL, as in struct st_uwalk.
 * Return: as st_row_step() (0 or 1; the callback's bound is its caller's to show).
 */
__noinline int st_row_step_event(struct st_uwalk_state *st, const struct unwind_row *row,
				 struct st_ucache *log, struct st_uwin *win,
				 const struct st_uregion *rgn)
{
	struct st_uwalk w = { .st = st, .log = log, .win = win, .rgn = rgn };
	__u64 buf[2];

	if (!st || !row)
		return 1;
	return st_row_step(&w, row, buf, false);
}

/* The fp rule: [bp] is the caller's bp, [bp + 8] the return address. */
static __always_inline int st_fp_step(struct st_uwalk *w, __u64 *buf, bool faultable)
{
	struct st_uwalk_state *st = w->st;
	struct st_ucache *log = w->log;

	if (st->bp_unknown)
		return st_ustop(st, ST_USTOP_FP_END);
	if (!st->bp)
		return st_ustop(st, ST_USTOP_OUTERMOST); /* frame pointer 0: the chain's end */
	if (st_up(st, st->bp + 16, ST_USTOP_FP_END))
		return 1;
	if (st_ustack_read(w, buf, 16, st->bp, faultable))
		return st_ustop(st, ST_USTOP_READ_FAILED);
	if (!faultable && log) {
		st_ucache_word(log, st->bp, buf[0]);
		st_ucache_word(log, st->bp + 8, buf[1]);
	}
	st->fp_frames++;
	return st_to_caller(st, st->bp + 16, buf[1], buf[0], false, ST_FRAME_FP);
}

/* st_fp_step() of a walk at the event: a global function, as st_row_step_event(). */
__noinline int st_fp_step_event(struct st_uwalk_state *st, struct st_ucache *log,
				struct st_uwin *win, const struct st_uregion *rgn)
{
	struct st_uwalk w = { .st = st, .log = log, .win = win, .rgn = rgn };
	__u64 buf[2];

	if (!st)
		return 1;
	return st_fp_step(&w, buf, false);
}

/* The entry rule (frame 0 on a uprobe at a function's first instruction): RA at [sp]. */
static __always_inline int st_entry_step(struct st_uwalk_state *st, __u64 *buf,
					 struct st_ucache *log, bool faultable)
{
	if (st_uread(buf, 8, st->sp, faultable))
		return st_ustop(st, ST_USTOP_READ_FAILED);
	if (!faultable && log)
		st_ucache_word(log, st->sp, buf[0]);
	return st_to_caller(st, st->sp + 8, buf[0], st->bp, st->bp_unknown, 0);
}

/*
 * The signal rule: sp points at the ucontext of an rt_sigframe (the handler
 * returned into the trampoline); the interrupted registers are in its
 * uc_mcontext. The interrupted pc is exact.
 */
static __noinline int st_signal_step(struct st_uwalk_state *st, __u64 *buf, struct st_ucache *log,
				     bool faultable)
{
	__u64 uc = st->sp;

	/* rsp and rip are adjacent; rbp lies below them. */
	if (st_uread(buf, 16, uc + UNWIND_SIG_RSP, faultable))
		return st_ustop(st, ST_USTOP_READ_FAILED);
	if (!faultable && log) {
		st_ucache_word(log, uc + UNWIND_SIG_RSP, buf[0]);
		st_ucache_word(log, uc + UNWIND_SIG_RSP + 8, buf[1]);
	}
	st_ustat_inc(ST_USTAT_SIGNAL_FRAMES);
	if (st_up(st, buf[0], ST_USTOP_BAD_CFA))
		return 1;
	st->sp = buf[0];
	st->ip = buf[1];
	if (st_uread(buf, 8, uc + UNWIND_SIG_RBP, faultable))
		return st_ustop(st, ST_USTOP_READ_FAILED);
	if (!faultable && log)
		st_ucache_word(log, uc + UNWIND_SIG_RBP, buf[0]);
	st->bp = buf[0];
	st->bp_unknown = 0;
	st->mark = ST_FRAME_EXACT;
	st->pc_off = 0;
	return 0;
}

enum st_tramp {
	ST_TRAMP_NONE,
	ST_TRAMP_SIGRETURN,     /* a handler returns here: the signal rule */
	ST_TRAMP_START_CONTEXT, /* a makecontext() function returns here: its stack ends */
};

/*
 * A return address no row describes pointing at a trampoline, told by its
 * first bytes: a sigreturn trampoline without CFI (musl, built without unwind tables),
 * or glibc's __start_context, which makecontext() makes the return address
 * of a coroutine's function (mov %rbx,%rsp; mov (%rsp),%rdi; test %rdi,%rdi;
 * its FDE starts at the function, so no row covers the return address - 1).
 */
static __noinline __u32 st_trampoline(__u64 ip, __u64 *buf, bool faultable)
{
	if (st_uread(buf, 8, ip, faultable))
		return ST_TRAMP_NONE;
	if (buf[0] == ST_SIGRETURN_RAX || (buf[0] & ST_SIGRETURN_EAX_MASK) == ST_SIGRETURN_EAX)
		return ST_TRAMP_SIGRETURN;
	if (buf[0] == ST_START_CONTEXT)
		return ST_TRAMP_START_CONTEXT;
	return ST_TRAMP_NONE;
}

/*
 * The return address just stored points at no code (ST_RA_NO_CODE, a
 * definite answer): it was never a frame, but a word of data a broken frame
 * (a frame pointer that code built without them keeps data in) held. Taken
 * back, so that the stack ends at the last real frame: a word of data
 * differs from event to event, and each would make a stack of its own (a
 * key of the in-kernel counts, a record). Frame 0 is the task's own pc (the
 * instruction after a system call), read from its registers: it stays, as
 * the one frame of a stack that would otherwise be lost.
 * Return: 1 (the walk ends).
 */
static __always_inline int st_not_a_frame(struct st_uwalk_state *st)
{
	__u32 n = ST_VOL(st->n);

	ST_VOL(st->n) = n - (n > 1);
	return st_ustop(st, ST_USTOP_BAD_RA);
}

/*
 * A recursion walks one function's frames one after another, and the
 * commonest rule of code without frame pointers is CFA = rsp + off with rbp
 * kept. So the range the row just found covers (within its mapping) is kept
 * when the row says so, and a frame whose return address falls in it takes
 * the row rule's step (st_rep_frame()) without finding mapping and row again,
 * which was most of a deep walk's cost once its reads came from the window.
 */
static __always_inline void st_rep_keep(struct st_uwalk_state *st, const struct st_umap *m,
					__s16 cfa_off)
{
	__u64 lo = ST_VOL(st->row_lo), hi = ST_VOL(st->row_hi);

	ST_VOL(st->rep_lo) = lo > m->start ? lo : m->start;
	ST_VOL(st->rep_hi) = hi < m->end ? hi : m->end;
	ST_VOL(st->rep_off) = (__u64)(__s64)cfa_off;
}

/*
 * Does the frame at ip take the kept row's step: CFA = rsp + off, RA at
 * CFA - 8, rbp kept, as st_row_step() would take it? Only where that step
 * would find the same row and make no other check: a return address in the
 * kept range, no uretprobe trampoline to look for, no stack switch so far,
 * the CFA above sp; and only from the stack window (a walk at the event).
 * Return: the window slot + 1 of the return address, or 0 (the full step).
 */
static __always_inline __u32 st_rep_slot(struct st_uwalk_state *st, struct st_uwin *win)
{
	__u64 pc = st->ip - 1, cfa;

	if (!st->pc_off || pc < ST_VOL(st->rep_lo) || pc >= ST_VOL(st->rep_hi) || st->tramp ||
	    st->stack_hi)
		return 0;
	cfa = st->sp + ST_VOL(st->rep_off);
	if ((cfa & 7) || cfa <= st->sp)
		return 0;
	return st_uwin_slot(st, win, cfa - 8, 8);
}

/*
 * The kept row's step, its return address in window slot @i - 1 (@i from
 * st_rep_slot()). Return: 0 when taken, -1 when the full step must run.
 */
static __always_inline int st_rep_take(struct st_uwalk_state *st, struct st_ucache *log,
				       struct st_uwin *win, __u32 i)
{
	__u64 cfa = st->sp + ST_VOL(st->rep_off), ra;

	if (!i || !win)
		return -1;
	ra = win->w[(i - 1) & (ST_UWIN_BYTES / 8 - 1)];
	if (log)
		st_ucache_word(log, cfa - 8, ra);
	st->switched = 0;
	st->sp = cfa;
	st->ip = ra;
	st->mark = 0;
	st->pc_off = 1;
	return 0;
}

/*
 * The row just found for the frame just stored, for the walk cache's next
 * walk (st_uwalk_row_seed()): when it covers a range within its mapping,
 * a pc in that range lies in the mapping and finds the same row.
 */
static __always_inline void st_uwalk_row_kept(struct st_uwalk *w, const struct st_umap *m)
{
	struct st_uwalk_state *st = w->st;
	struct st_ucache_frame *f;
	__u32 n = ST_VOL(st->n) - 1;
	__u64 lo = ST_VOL(st->row_lo), hi = ST_VOL(st->row_hi);

	if (!w->log || n >= ST_UCACHE_FRAMES || lo < m->start || hi > m->end)
		return;
	barrier_var(n); /* the mask kept from the compiler, which knows n < ST_UCACHE_FRAMES */
	f = &w->log->frames[n & (ST_UCACHE_FRAMES - 1)];
	f->row_lo = lo;
	f->row_hi = hi;
	f->row_key = ST_VOL(st->row_key);
	f->map_ix = ST_VOL(st->map_ix);
}

/*
 * Frame @n of the walk before found a row whose range holds this frame's
 * pc: the walk's last mapping and row become those, so st_row_of() finds
 * them without a search (same tables: st_ucache.old_rows).
 */
static __always_inline void st_uwalk_row_seed(struct st_uwalk *w, __u32 n)
{
	struct st_uwalk_state *st = w->st;
	const struct st_ucache_frame *f;
	__u64 pc = st->ip - st->pc_off;

	if (!w->log || !w->log->old_rows || n >= w->log->n || n >= ST_UCACHE_FRAMES)
		return;
	f = &w->log->frames[n & (ST_UCACHE_FRAMES - 1)];
	if (pc < f->row_lo || pc >= f->row_hi)
		return;
	ST_VOL(st->map_ix) = f->map_ix;
	ST_VOL(st->row_key) = f->row_key;
	ST_VOL(st->row_lo) = f->row_lo;
	ST_VOL(st->row_hi) = f->row_hi;
}

/*
 * The row for @pc, NULL for none; in *how 1 when the walk must end here,
 * 2 where a trampoline may hide, else 0. A trampoline may hide in a file
 * without rows (JIT code, a libc built without unwind tables), and where a
 * return address without a row is the first byte of the next row (of the
 * FDE of a function entered by ret, as glibc's __start_context): an
 * ordinary return address lies inside its caller.
 */
static __always_inline struct unwind_row *st_row_of(struct st_uwalk *w, __u64 pc, int *how)
{
	struct st_uwalk_state *st = w->st;
	struct unwind_row *row;
	struct st_umap *m;

	*how = 2;
	if (w->mode == ST_UNWIND_FP)
		return NULL;
	/*
	 * A process user space has not loaded yet is walked by frame pointers
	 * alone, and its mappings are not known here: the task's decide whether
	 * a return address is one (a VMA lookup a frame, until it is loaded).
	 * Unsure (st_ra_kind()), the frame is kept, as without the lookup.
	 */
	if (!w->proc) {
		if (st->pc_off && st_ra_kind(st->ip) == ST_RA_NO_CODE)
			*how = st_not_a_frame(st);
		return NULL;
	}
	m = st_find_map(st, w->proc, pc);
	/*
	 * Every executable mapping is loaded, anonymous ones too: a pc in none
	 * was mapped since (not loaded yet: a copy lets user space unwind it),
	 * or is no code at all (a return address read from a broken frame).
	 */
	if (!m) {
		int kind = st->pc_off ? st_ra_kind(st->ip) : ST_RA_CODE;

		st->logging = 0; /* not loaded yet, or no code: the task's mappings decide */
		if (kind == ST_RA_NO_CODE) {
			*how = st_not_a_frame(st);
			return NULL;
		}
		if (kind == ST_RA_UNSURE) {
			*how = st_ustop(st, ST_USTOP_BAD_RA); /* kept, the walk ends: as before */
			return NULL;
		}
		st->unknown = 1;
		*how = st_ustop(st, ST_USTOP_NO_MAPPING);
		return NULL;
	}
	if (!m->nrows)
		return NULL;
	row = st_find_row(st, m, pc);
	if (row)
		st_uwalk_row_kept(w, m);
	*how = (!row || row->cfa == UNWIND_CFA_NONE) && ST_VOL(st->row_hi) == st->ip ? 2 : 0;
	if (row && row->cfa == UNWIND_CFA_RSP && row->rbp == UNWIND_RBP_SAME)
		st_rep_keep(st, m, row->cfa_off);
	return row;
}

/* The frame just stored is exact too (a trampoline): mark it, the index read afresh. */
static __always_inline void st_mark_exact(struct st_uwalk *w)
{
	__u32 n = ST_VOL(w->st->n) - 1;

	w->out[n & (ST_MAX_USTACK - 1)] |= ST_FRAME_EXACT;
	if (w->log && n < ST_UCACHE_FRAMES)
		w->log->ips[n & (ST_UCACHE_FRAMES - 1)] |= ST_FRAME_EXACT;
}

/* The walk's state as the walk cache keeps it per frame (st_ucache_frame()). */
static __always_inline __u32 st_uwalk_flags(const struct st_uwalk_state *st)
{
	return (st->bp_unknown ? ST_UCACHE_BP_UNKNOWN : 0) | (st->pc_off ? ST_UCACHE_PC_OFF : 0);
}

/* The walk at the event comes to frame @n: the walk cache notes where it stands. */
static __always_inline void st_uwalk_note(struct st_uwalk_state *st, struct st_ucache *log,
					  __u32 n)
{
	if (log)
		st_ucache_frame(log, n, st->ip | st->mark, st->sp, st->bp, st->fp_frames,
				st_uwalk_flags(st));
}

/*
 * The walk at the event stands at frame st->n where the task's walk before
 * stood too (bpf/ucache.bpf.h, st_ucache_splice_ok()): a program whose
 * stacks differ near the leaf only (one loop calling through different
 * callers) walks those frames and takes the rest from the walk before. Not
 * after a stack switch, and not with uretprobes pending: the rest would
 * depend on more than the state kept per frame (the walk cache is not used
 * then anyway). A global function: checked once.
 * Return: the frames taken (from st->n; the walk's result then in @st), or 0.
 */
__noinline __u32 st_uwalk_splice(struct st_uwalk_state *st, struct st_ucache *c)
{
	struct st_ucache_frame cur = {};
	__u32 n, fp;

	if (!st || !c || st->stack_hi || st->nleft || st->tramp || st->frame0 != ST_FRAME0_NONE)
		return 0;
	n = st->n;
	cur.sp = st->sp;
	cur.bp = st->bp;
	cur.fp = st->fp_frames;
	cur.flags = st_uwalk_flags(st);
	if (n >= ST_UCACHE_FRAMES || !st_ucache_splice_ok(c, n, st->ip | st->mark, &cur))
		return 0;
	fp = c->frames[n & (ST_UCACHE_FRAMES - 1)].fp;
	st->fp_frames += c->fp_frames - fp;
	st->n = c->n;
	st->stop = c->stop;
	st->sp = c->end_sp;
	st_ustat_inc(ST_USTAT_UCACHE_SPLICES);
	return c->n - n;
}

/*
 * Frames [@n, @n + @k) from the walk cache's walk before, after
 * st_uwalk_splice(). Return: 1 (the walk is over).
 */
static __always_inline int st_uwalk_spliced(struct st_uwalk *w, __u32 n, __u32 k)
{
	st_ucache_copy((struct st_ucache_out *)w->out, w->log, n, n + k);
	return 1;
}

/*
 * One frame. The decisions below read the walk's state from map memory and
 * never branch on the frame count: a branch on it would make the verifier
 * check the store of every frame apart (its index is precise), and so the
 * whole step several times over.
 */
static __always_inline int st_uwalk_step(struct st_uwalk *w, bool faultable)
{
	struct st_uwalk_state *st = w->st;
	__u32 n = st->n, frame0 = st->frame0;
	struct unwind_row *row;
	__u64 buf[2];
	int how;

	if (!st->ip)
		return st_ustop(st, ST_USTOP_OUTERMOST);
	if (n >= st->max || n >= ST_MAX_USTACK)
		return st_ustop(st, ST_USTOP_DEPTH);
	if (!faultable && w->log) {
		__u32 k = 0;

		/* The walk before stood at this sp and pc here: only then is the call worth it. */
		if (w->log->old_ok && n && n < ST_UCACHE_FRAMES &&
		    w->log->frames[n & (ST_UCACHE_FRAMES - 1)].sp == st->sp &&
		    w->log->ips[n & (ST_UCACHE_FRAMES - 1)] == (st->ip | st->mark))
			k = st_uwalk_splice(st, w->log);
		if (k)
			return st_uwalk_spliced(w, n, k);
		st_uwalk_row_seed(w, n);
		st_uwalk_note(st, w->log, n);
	}
	w->out[n & (ST_MAX_USTACK - 1)] = st->ip | st->mark;
	st->n = n + 1;
	st->frame0 = ST_FRAME0_NONE;
	if (frame0 == ST_FRAME0_SIGRETURN)
		return st_signal_step(st, buf, w->log, faultable);
	row = st_row_of(w, st->ip - st->pc_off, &how);
	if (how == 1)
		return 1;
	if (row && row->cfa == UNWIND_CFA_SIGNAL) {
		st_mark_exact(w); /* the trampoline itself is named at its address */
		return st_signal_step(st, buf, w->log, faultable);
	}
	if (row && row->cfa != UNWIND_CFA_NONE)
		return faultable ? st_row_step(w, row, buf, true) :
				   st_row_step_event(st, row, w->log, w->win, w->rgn) != 0;
	/*
	 * A return address where a trampoline may hide (st_row_of()): it is told
	 * by its code. Reading it costs as much as a frame-pointer step, so it is
	 * not done in fp mode (frame pointers only, as fast as it goes), nor for
	 * every row-less frame (Go's code in a cgo binary is walked frame after
	 * frame by frame pointers).
	 */
	if (w->mode != ST_UNWIND_FP && how == 2 && frame0 == ST_FRAME0_NONE && st->pc_off) {
		__u32 tramp;

		st->logging = 0; /* code bytes, which no key holds */
		tramp = st_trampoline(st->ip, buf, faultable);

		if (tramp == ST_TRAMP_SIGRETURN) {
			st_mark_exact(w);
			return st_signal_step(st, buf, w->log, faultable);
		}
		if (tramp == ST_TRAMP_START_CONTEXT) {
			st_mark_exact(w); /* entered at its first byte, by ret */
			return st_ustop(st, ST_USTOP_OUTERMOST);
		}
	}
	if (w->mode == ST_UNWIND_TABLE)
		return st_ustop(st, ST_USTOP_NO_TABLE);
	if (frame0 == ST_FRAME0_ENTRY)
		return st_entry_step(st, buf, w->log, faultable);
	if (faultable)
		return st_fp_step(w, buf, true);
	return st_fp_step_event(st, w->log, w->win, w->rgn) != 0;
}

/* The user part of a walk at the event's record (st_walk_user()'s out): room for every frame. */
struct st_uwalk_out {
	__u64 ips[ST_MAX_USTACK];
};

/*
 * One more frame, where it takes the kept row's step, in the same
 * bpf_loop() iteration: a deep recursion's frames then cost no call and
 * return each (a return costs ~10 ns here, with the SRSO mitigation's
 * return thunk). What st_uwalk_step() does for such a frame, in its order.
 * st_uwalk_cb() tries it before every full step, so the full step only
 * meets frames it refused (and would refuse again).
 * Return: 0 when taken, -1 when left to the next iteration's full step.
 */
static __always_inline int st_rep_frame(struct st_uwalk_state *st, struct st_uwalk_out *out,
					struct st_ucache *log, struct st_uwin *win)
{
	__u32 n = st->n, i;

	if (!st->ip || n >= st->max || n >= ST_MAX_USTACK || st->frame0 != ST_FRAME0_NONE)
		return -1;
	i = st_rep_slot(st, win);
	if (!i)
		return -1;
	st_uwalk_note(st, log, n);
	out->ips[n & (ST_MAX_USTACK - 1)] = st->ip | st->mark;
	st->n = n + 1;
	return st_rep_take(st, log, win, i);
}

/* Frames an iteration takes by st_rep_frame() at most: the verifier checks each apart. */
#define ST_REP_BATCH 8

/*
 * Up to ST_REP_BATCH frames by st_rep_frame(), one after another. A global
 * function: checked once, where the batch inlined in the walk's callback was
 * checked again at every path into the callback (a quarter of the sampling
 * program's checked instructions). @log may be NULL; without @win (a walk
 * reading word by word) st_rep_slot() refuses every frame.
 * Return: the frames taken.
 */
__noinline int st_rep_frames(struct st_uwalk_state *st, struct st_uwalk_out *out,
			     struct st_ucache *log, struct st_uwin *win)
{
	int k;

	if (!st || !out || !win)
		return 0;
	for (k = 0; k < ST_REP_BATCH; k++)
		if (st_rep_frame(st, out, log, win))
			break;
	return k;
}

static int st_uwalk_cb(__u32 i, void *ctx)
{
	struct st_uwalk *w = ctx;

	if (w->mode != ST_UNWIND_FP &&
	    st_rep_frames(w->st, (struct st_uwalk_out *)w->out, w->log, w->win))
		return 0;
	return st_uwalk_step(w, false);
}

static int st_uwalk_cb_faultable(__u32 i, void *ctx)
{
	return st_uwalk_step(ctx, true);
}

/* Pending uretprobes, from the task's uprobe state. */
static __always_inline void st_uwalk_uprobes(struct st_uwalk_state *st, struct task_struct *task)
{
	struct uprobe_task *ut = task->utask;

	if (!ut)
		return;
	st->ri = (__u64)BPF_CORE_READ(ut, return_instances);
	if (st->ri)
		st->tramp = BPF_CORE_READ(task, mm, uprobes_state.xol_area, vaddr);
}

/*
 * Does the current task have a user context (an mm: exit_mmap() at exit
 * frees it, and the registers would still pretend a user stack)? Its
 * uprobe state into @st too (st_uwalk_uprobes()). A global function, so the
 * verifier checks it once: each check of a pointer loaded from a task
 * (task->mm, task->utask) searches the kernel's whole BTF by name for a
 * "__safe_trusted" twin, and inlined in every walk's states that was a
 * fifth of the sampling program's load time.
 *
 * Return: 1 when it has one, else 0.
 */
__noinline int st_task_user(struct st_uwalk_state *st)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (!st || !task->mm)
		return 0;
	st_uwalk_uprobes(st, task);
	return 1;
}

/*
 * In a system call? orig_ax is its number (-1 for an interrupt or an
 * exception), and the syscall instruction left the address after it in rcx
 * as in ip: a signal frame set up on the way out (before a deferred walk)
 * moved ip to the handler.
 */
static __always_inline __u32 st_frame0_of(struct pt_regs *regs)
{
	long nr = regs->orig_ax;

	if (nr < 0 || regs->cx != regs->ip)
		return ST_FRAME0_NONE;
	return nr == ST_NR_RT_SIGRETURN ? ST_FRAME0_SIGRETURN : ST_FRAME0_SYSCALL;
}

/*
 * The walk cache (bpf/ucache.bpf.h) for a walk at the event from @w's
 * start. Return: the task's entry, NULL for none (not usable now); *@hit
 * true when its walk is this one (its frames are then in @w->out, its result
 * in @w->st), else the entry is taken to log this walk's words.
 */
static __always_inline struct st_ucache *st_ucache_try(struct st_uwalk *w,
						       struct task_struct *task, bool *hit)
{
	struct st_uwalk_state *st = w->st;
	struct st_ucache_key key;
	struct st_ucache *c;

	*hit = false;
	if (st->tramp || (w->mode != ST_UNWIND_FP && !w->proc))
		return NULL; /* kernel state, or tables not loaded: never kept */
	key.ip = st->ip;
	key.sp = st->sp;
	key.bp = st->bp;
	key.mode = w->mode;
	key.max = st->max;
	key.frame0 = st->frame0;
	key.gen = w->proc ? w->proc->gen : 0;
	c = st_ucache_of(task);
	if (!c || c->busy)
		return NULL;
	if (st_ucache_hit(c, &key, w->out)) {
		st->n = c->n;
		st->stop = c->stop;
		st->sp = c->end_sp;
		st->fp_frames = c->fp_frames;
		*hit = true;
		return c;
	}
	if (c->region_read) {
		__u32 zero = 0;

		w->rgn = bpf_map_lookup_elem(&st_uregions, &zero);
		st->rgn_lo = c->lo;
		st->rgn_hi = c->hi;
	}
	st_ucache_begin(c, &key);
	st->logging = 1;
	return c;
}

/*
 * Keep the walk just made in the task's entry @c, when it may be kept;
 * with @uhash, the user part of its hash from there (st_ucache_uhash()).
 */
static __always_inline void st_ucache_keep(struct st_uwalk *w, struct st_ucache *c, bool uhash)
{
	struct st_uwalk_state *st = w->st;
	bool keep = st->logging && !st->unknown && !st->nleft;

	if (st_ucache_end(c, keep, st->n, st->stop, st->sp, st->fp_frames,
			  uhash ? &st->uhash : NULL)) {
		st->uhash_ok = uhash;
		st_ustat_inc(ST_USTAT_UCACHE_KEPT);
	} else {
		st_ustat_inc(ST_USTAT_UCACHE_UNKEPT);
	}
}

/* A hit: the user part of its hash, its entry held busy meanwhile (as a walk holds it). */
static __always_inline void st_ucache_hit_uhash(struct st_uwalk_state *st, struct st_ucache *c)
{
	c->busy = 1;
	st->uhash = st_ucache_uhash(c);
	st->uhash_ok = 1;
	c->busy = 0;
}

/*
 * st_walk_user() - walk the current task's user stack from @regs into @out.
 * @pid: its process (the key of its unwind tables)
 * @max: frames wanted (<= ST_MAX_USTACK)
 * @mode: enum st_unwind_mode (FP, TABLE or AUTO)
 * @state: the walk's state in map memory; NULL for the per-CPU one (only
 *         when not @faultable: a faultable walk may sleep)
 * @cache: use the walk cache (only with @state NULL and not @faultable); a
 *         read-only constant (st_cfg.walk_cache), so without task storage
 *         the verifier drops the cache's code
 * @at_entry: @regs are at a function's first instruction (a uprobe on a
 *            symbol): frame 0 is unwound by the entry rule where no row
 *            covers it. Not the kernel's is_uprobe_at_func_entry() (push
 *            %rbp or endbr64 first): code built without frame pointers
 *            starts otherwise, and there the fp rule skipped the caller.
 * @uhash: the aggregation will hash the frames: take the user part of the
 *         hash from the walk cache where it has the walk (->uhash_ok)
 *
 * A walk at the event (@state NULL) is first looked up in the task's walk
 * cache (bpf/ucache.bpf.h), and kept there when it was made.
 *
 * Return: the finished walk's state (frames in ->n, why it ended in ->stop,
 * ->unknown, ->nleft), or NULL when there was no state to walk with, or no
 * user context: a task whose mm is gone (exit_mmap() freeing it at exit)
 * has no user stack, which its registers would still pretend.
 */
static __always_inline struct st_uwalk_state *st_walk_user(struct pt_regs *regs, __u32 pid,
							  __u64 *out, __u32 max, __u32 mode,
							  struct st_uwalk_state *state,
							  bool faultable, bool cache, bool at_entry,
							  bool uhash)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct st_uwalk w = { .out = out };
	struct st_ucache *c = NULL;
	__u32 slot = 0;
	bool hit = false;

	w.st = state ? state : bpf_map_lookup_elem(&st_uwalk_states, &slot);
	if (!w.st)
		return NULL;
	__builtin_memset(w.st, 0, sizeof(*w.st));
	w.st->ip = regs->ip;
	w.st->sp = regs->sp;
	w.st->bp = regs->bp;
	w.st->max = max;
	w.st->mode = mode;
	w.mode = mode;
	/* A uprobe is a trap, never a system call: frame 0 is one or the other. */
	w.st->frame0 = at_entry ? ST_FRAME0_ENTRY : st_frame0_of(regs);
	w.st->pc_off = w.st->frame0 == ST_FRAME0_SYSCALL;
	if (!st_task_user(w.st))
		return NULL;
	if (mode != ST_UNWIND_FP) {
		w.proc = bpf_map_lookup_elem(&st_uprocs, &pid);
		if (!w.proc) {
			w.st->unknown = 1;
			st_ustat_inc(ST_USTAT_NO_PROC);
		}
	}
	if (!faultable && !state)
		w.win = bpf_map_lookup_elem(&st_uwins, &slot);
	if (cache && !faultable && !state)
		c = st_ucache_try(&w, task, &hit);
	if (hit) {
		if (uhash && c)
			st_ucache_hit_uhash(w.st, c);
		st_ustat_inc(ST_USTAT_UCACHE_HITS);
	} else {
		w.log = c;
		if (faultable)
			bpf_loop(ST_MAX_USTACK + 1, st_uwalk_cb_faultable, &w, 0);
		else
			bpf_loop(ST_MAX_USTACK + 1, st_uwalk_cb, &w, 0);
		if (!faultable && c)
			st_ucache_keep(&w, c, uhash);
	}
	st_ustat_inc(ST_USTAT_WALKS);
	st_ustat_inc(w.st->stop);
	st_ustat_add(ST_USTAT_FP_FRAMES, w.st->fp_frames);
	return w.st;
}

#endif
