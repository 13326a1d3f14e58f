/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-stack walker: unwind tables (from .sframe / .eh_frame, built by
 * lib/unwind/ and loaded by lib/unwind/bpf_tables.c) walked inside BPF, with
 * frame pointers where a pc has no table.
 *
 * Each frame is one bpf_loop() iteration, so depth is bounded by the record
 * (ST_MAX_USTACK), not by a tail-call chain. Per frame:
 *   1. find the mapping of pc in the process's sorted mapping array
 *      (binary search, ST_UNW_MAP_STEPS);
 *   2. find the row covering pc in the file's rows (binary search over
 *      st_urows, ST_UNW_ROW_STEPS);
 *   3. CFA = rsp/rbp + offset (or the PLT rule); the return address is at
 *      CFA - 8 and the caller's rbp, if saved, at CFA + rbp_off * 8;
 *   4. validate like the kernel's own unwinder: the CFA must lie above sp
 *      and be 8-aligned, so the walk always moves up the stack.
 * pc is looked up as is for the first frame and as pc - 1 for return
 * addresses (a call may be a function's last instruction).
 *
 * Memory is read with bpf_probe_read_user() at the event (no faults), or
 * with bpf_copy_from_user() from a sleepable context (the deferred task_work
 * callback), which may fault pages in: st_walk_user(..., faultable).
 */
#ifndef ST_UNWIND_BPF_H
#define ST_UNWIND_BPF_H

#include "bpf/record.h"
#include "bpf/unwind_maps.h"
#include "bpf/unwind_row.h"

/* Sized by user space before load (--unwind-rows); written by batch updates. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
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

/* Per-CPU counters: why walks stopped (enum st_ustop), plus enum st_ustat_extra. */
enum st_ustat_extra {
	ST_USTAT_FP_FRAMES = ST_USTOP_MAX, /* frames found by frame pointer, no table */
	ST_USTAT_NO_PROC,                  /* process not (yet) loaded: no tables at all */
	ST_USTAT_WALKS,                    /* walks done */
	ST_USTAT_MAX,
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ST_USTAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} st_ustats SEC(".maps");

/*
 * The walk's numbers live in a per-CPU map value, not on the stack: the
 * verifier tracks stack scalars exactly, so a frame counter there differs in
 * every bpf_loop() iteration, the callback's states never converge and the
 * program hits the million-instruction limit. Map memory is opaque to it.
 * Walks at the event use the per-CPU slot; a faultable walk, which may sleep
 * while another task's walk runs on the same CPU, brings its own (the
 * deferred request's map value, one per task).
 */
struct st_uwalk_state {
	__u64 ip, sp, bp;
	__u64 mark;   /* ST_FRAME_FP when ip was found by frame pointer */
	__u32 n, max; /* frames stored, limit */
	__u32 mode;   /* enum st_unwind_mode */
	__u32 stop;   /* enum st_ustop */
	__u32 unknown; /* the process, or a pc's mapping, is not loaded yet */
	__u32 lo, hi;  /* binary search bounds, kept here for the verifier's sake */
	/*
	 * The last mapping and row found: deep stacks (recursion, one library's
	 * internals) hit the same ones frame after frame, and a hit skips both
	 * binary searches. Valid for this walk only (reset at its start).
	 */
	__u32 map_ix;           /* last mapping + 1; 0 = none */
	__u32 row_key;          /* st_urows key of the last row */
	__u64 row_lo, row_hi;   /* process addresses the last row covers: [lo, hi) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_uwalk_state);
} st_uwalk_states SEC(".maps");

/* On the stack: only the pointers bpf_loop()'s context must carry. */
struct st_uwalk {
	struct st_uwalk_state *st;
	__u64 *out;            /* first user slot of the record's ips[] */
	struct st_uproc *proc; /* NULL: process unknown */
};

static __always_inline void st_ustat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&st_ustats, &which);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline long st_uread(void *dst, __u32 size, __u64 addr, bool faultable)
{
	if (faultable)
		return bpf_copy_from_user(dst, size, (const void *)addr);
	return bpf_probe_read_user(dst, size, (const void *)addr);
}

/*
 * The binary searches are open-coded but keep lo/hi in the walk's map value
 * (read and written through volatile): in registers the verifier would
 * follow every lo/hi combination of every step and give up at a million
 * instructions; from map memory each step looks alike to it. This is ~10x
 * cheaper per step than a bpf_loop() callback.
 */
#define ST_VOL(x) (*(volatile __typeof__(x) *)&(x))

static __always_inline struct st_umap *st_find_map(struct st_uwalk_state *st,
						   struct st_uproc *p, __u64 pc)
{
	struct st_umap *m;
	__u32 i, mid, n = p->n;

	mid = ST_VOL(st->map_ix);
	if (mid) {
		m = &p->maps[(mid - 1) & (ST_UNW_MAX_MAPS - 1)];
		if (m->start <= pc && pc < m->end)
			return m;
	}
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
		return NULL;
	m = &p->maps[(mid - 1) & (ST_UNW_MAX_MAPS - 1)];
	if (pc >= m->end)
		return NULL;
	ST_VOL(st->map_ix) = mid;
	return m;
}

static __always_inline struct unwind_row *st_find_row(struct st_uwalk_state *st,
						      const struct st_umap *m, __u64 pc)
{
	__u64 rpc = pc - m->bias;
	struct unwind_row *row, *next;
	__u32 i, key;

	if (pc >= ST_VOL(st->row_lo) && pc < ST_VOL(st->row_hi)) {
		key = ST_VOL(st->row_key);
		return bpf_map_lookup_elem(&st_urows, &key);
	}
	if (pc < m->bias || rpc > 0xffffffffull)
		return NULL;
	ST_VOL(st->lo) = 0;
	ST_VOL(st->hi) = m->nrows;
	for (i = 0; i < ST_UNW_ROW_STEPS; i++) {
		__u32 lo = ST_VOL(st->lo), hi = ST_VOL(st->hi), mid;

		if (lo >= hi)
			break;
		mid = lo + (hi - lo) / 2;
		key = m->first_row + mid;
		row = bpf_map_lookup_elem(&st_urows, &key);
		if (!row)
			return NULL;
		if (row->pc <= rpc)
			ST_VOL(st->lo) = mid + 1;
		else
			ST_VOL(st->hi) = mid;
	}
	i = ST_VOL(st->lo);
	if (!i)
		return NULL;
	key = m->first_row + i - 1;
	row = bpf_map_lookup_elem(&st_urows, &key);
	if (!row)
		return NULL;
	/* Remember the range this row covers: up to the next row, or the mapping's end. */
	ST_VOL(st->row_key) = key;
	ST_VOL(st->row_lo) = row->pc + m->bias;
	key++;
	next = i < m->nrows ? bpf_map_lookup_elem(&st_urows, &key) : NULL;
	ST_VOL(st->row_hi) = next ? next->pc + m->bias : m->end;
	return row;
}

/* One frame-pointer step: [bp] is the caller's bp, [bp + 8] the return address. */
static __always_inline int st_fp_step(struct st_uwalk *w, bool faultable)
{
	__u64 frame[2];

	if (!w->st->bp || (w->st->bp & 7) || w->st->bp < w->st->sp) {
		w->st->stop = w->proc || w->st->mode == ST_UNWIND_AUTO ? ST_USTOP_FP_END : ST_USTOP_NO_TABLE;
		return 1;
	}
	if (st_uread(frame, sizeof(frame), w->st->bp, faultable)) {
		w->st->stop = ST_USTOP_READ_FAILED;
		return 1;
	}
	w->st->sp = w->st->bp + 16;
	w->st->bp = frame[0];
	w->st->ip = frame[1];
	w->st->mark = ST_FRAME_FP;
	st_ustat_inc(ST_USTAT_FP_FRAMES);
	return 0;
}

static __always_inline int st_row_step(struct st_uwalk *w, const struct unwind_row *row,
				       bool faultable)
{
	__u64 cfa, ra, bp;

	switch (row->cfa) {
	case UNWIND_CFA_RSP: cfa = w->st->sp + row->cfa_off; break;
	case UNWIND_CFA_RBP: cfa = w->st->bp + row->cfa_off; break;
	case UNWIND_CFA_PLT: cfa = w->st->sp + 8 + ((w->st->ip & 15) >= 11 ? 8 : 0); break;
	case UNWIND_CFA_OUTERMOST: w->st->stop = ST_USTOP_OUTERMOST; return 1;
	default: w->st->stop = ST_USTOP_UNSUPPORTED; return 1;
	}
	if (cfa <= w->st->sp || (cfa & 7)) {
		w->st->stop = ST_USTOP_BAD_CFA;
		return 1;
	}
	if (st_uread(&ra, sizeof(ra), cfa - 8, faultable)) {
		w->st->stop = ST_USTOP_READ_FAILED;
		return 1;
	}
	if (row->rbp == UNWIND_RBP_SAVED) {
		if (st_uread(&bp, sizeof(bp), cfa + (__s64)row->rbp_off * 8, faultable)) {
			w->st->stop = ST_USTOP_READ_FAILED;
			return 1;
		}
		w->st->bp = bp;
	} else if (row->rbp == UNWIND_RBP_UNDEFINED) {
		w->st->bp = 0;
	}
	w->st->sp = cfa;
	w->st->ip = ra;
	w->st->mark = 0;
	return 0;
}

static __always_inline int st_uwalk_step(struct st_uwalk *w, bool faultable)
{
	__u64 pc = w->st->n ? w->st->ip - 1 : w->st->ip;
	struct unwind_row *row = NULL;
	struct st_umap *m;

	if (w->st->n >= w->st->max || w->st->n >= ST_MAX_USTACK) {
		w->st->stop = ST_USTOP_DEPTH;
		return 1;
	}
	if (!w->st->ip) {
		w->st->stop = ST_USTOP_OUTERMOST;
		return 1;
	}
	w->out[w->st->n & (ST_MAX_USTACK - 1)] = w->st->ip | w->st->mark;
	w->st->n++;
	m = w->proc ? st_find_map(w->st, w->proc, pc) : NULL;
	/* Every executable mapping is loaded, anonymous ones too: none means not loaded yet. */
	if (w->proc && !m) {
		w->st->unknown = 1;
		w->st->stop = ST_USTOP_NO_MAPPING;
		return 1;
	}
	if (m && m->nrows)
		row = st_find_row(w->st, m, pc);
	if (row && row->cfa != UNWIND_CFA_NONE)
		return st_row_step(w, row, faultable);
	if (w->st->mode == ST_UNWIND_TABLE) {
		w->st->stop = ST_USTOP_NO_TABLE;
		return 1;
	}
	return st_fp_step(w, faultable);
}

static int st_uwalk_cb(__u32 i, void *ctx)
{
	return st_uwalk_step(ctx, false);
}

static int st_uwalk_cb_faultable(__u32 i, void *ctx)
{
	return st_uwalk_step(ctx, true);
}

/*
 * st_walk_user() - walk the user stack of @pid from @regs into @out.
 * @max: frames wanted (<= ST_MAX_USTACK); @mode: ST_UNWIND_TABLE or _AUTO
 * @stop: receives the enum st_ustop reason
 * @unknown: set when the process or a mapping was not loaded (a copy can help)
 * @state: the walk's state in map memory, NULL for the per-CPU one (not faultable)
 *
 * Return: frames stored.
 */
static __always_inline __u32 st_walk_user(struct pt_regs *regs, __u32 pid, __u64 *out, __u32 max,
					  __u32 mode, struct st_uwalk_state *state, bool faultable,
					  __u32 *stop, bool *unknown)
{
	__u32 slot = 0;
	struct st_uwalk w = { .out = out };

	/* A faultable walk may sleep: its state must be the task's own (@state), not the CPU's. */
	w.st = state ? state : bpf_map_lookup_elem(&st_uwalk_states, &slot);
	if (!w.st) {
		*stop = ST_USTOP_NONE;
		return 0;
	}
	*w.st = (struct st_uwalk_state){
		.ip = BPF_CORE_READ(regs, ip),
		.sp = BPF_CORE_READ(regs, sp),
		.bp = BPF_CORE_READ(regs, bp),
		.max = max,
		.mode = mode,
	};
	w.proc = bpf_map_lookup_elem(&st_uprocs, &pid);
	if (!w.proc) {
		w.st->unknown = 1;
		st_ustat_inc(ST_USTAT_NO_PROC);
	}
	if (faultable)
		bpf_loop(ST_MAX_USTACK + 1, st_uwalk_cb_faultable, &w, 0);
	else
		bpf_loop(ST_MAX_USTACK + 1, st_uwalk_cb, &w, 0);
	st_ustat_inc(ST_USTAT_WALKS);
	st_ustat_inc(w.st->stop);
	*stop = w.st->stop;
	*unknown = w.st->unknown;
	return w.st->n;
}

#endif
