/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture library: every tool's probes call st_capture() and nothing
 * else, so every tool gets the same record, the same filters and the same
 * loss accounting.
 *
 * One event = one ring-buffer record carrying the kernel stack and the user
 * stack of that event, each with its exact depth (bpf_get_stack() returns
 * the byte count; no fixed-size slots, no STACK_TRACE map and no stack ids).
 * The record is assembled in a per-CPU scratch buffer, guarded against
 * nesting, then copied out with bpf_ringbuf_output() at its exact length.
 *
 * Truncation is detected by asking for one frame more than the limit: if it
 * comes back, the stack was cut. At the kernel's own ceiling (127, see
 * ST_MAX_KSTACK) that extra frame cannot come back, so a stack of exactly
 * 127 frames is reported as truncated: it may have been.
 *
 * Seam: user stacks come from the kernel's frame-pointer walk here. The
 * table walker and deferred capture plug in at st_capture_user().
 */
#ifndef ST_CAPTURE_BPF_H
#define ST_CAPTURE_BPF_H

#include "bpf/record.h"
#include "bpf/unwind.bpf.h"

#ifndef ST_PF_KTHREAD
#define ST_PF_KTHREAD 0x00200000 /* include/linux/sched.h PF_KTHREAD */
#endif

/* Ring buffer size: user space resizes it before load (--ringbuf-kb). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} st_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ST_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} st_stats SEC(".maps");

/*
 * The record under construction; ips[] must directly follow ev (both
 * 8-aligned). Room for each stack's extra truncation-probe frame, plus the
 * verifier's view of the user stack's start (it cannot see that kd <= 127
 * survives the bpf_get_stack() byte count: two spare slots keep it happy).
 */
struct st_scratch {
	__u32 busy;
	__u32 want_copy; /* the walk met code not loaded yet: attach a copy */
	struct st_event ev;
	__u64 ips[ST_MAX_KSTACK + 1 + ST_MAX_USTACK + 1 + 2];
	/* An st_ucopy and the stack bytes land right after the last frame used. */
	__u8 copy[sizeof(struct st_ucopy) + ST_COPY_MAX + 4096]; /* + a page of slack for the verifier */
};

/* Bytes to ask bpf_get_stack() for: the limit plus the truncation-probe frame. */
#define ST_UFP_BYTES                                                                       \
	((st_cfg.udepth_max > ST_MAX_USTACK_FP ? ST_MAX_USTACK_FP : st_cfg.udepth_max) + 1) * 8

/*
 * One scratch record per CPU, indexed by CPU number. A plain ARRAY, not a
 * PERCPU one: with the stack copy a record outgrows the 32 KiB per-CPU value
 * limit. User space sizes it to the possible CPUs (capture_maps_size()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_scratch);
} st_scratch_map SEC(".maps");

const volatile struct st_config st_cfg = {
	.filter_cpu = -1,
	.kstack = 1,
	.ustack = 1,
	.kdepth_max = ST_MAX_KSTACK,
	.udepth_max = ST_MAX_USTACK,
};

/*
 * Ring-buffer wake-ups are batched: waking the consumer is an interrupt to
 * itself, a VM exit on virtual machines, and woken per record it cost more
 * than the stack walks (bench/bench_count.sh). Records are sent without a
 * wake-up until st_cfg.wakeup_bytes are waiting; the session also drains the
 * buffer on its poll timeout, so a quiet buffer is never left unread long.
 */
static __always_inline __u64 st_rb_flags(void)
{
	if (!st_cfg.wakeup_bytes)
		return 0;
	return bpf_ringbuf_query(&st_events, BPF_RB_AVAIL_DATA) >= st_cfg.wakeup_bytes ?
		       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void st_stat_inc(__u32 which)
{
	__u64 *v = bpf_map_lookup_elem(&st_stats, &which);

	if (v)
		__sync_fetch_and_add(v, 1);
}

/* True when the current task passes the pid/tid/cpu filters. */
static __always_inline bool st_wanted(__u32 pid, __u32 tid, __u32 cpu)
{
	if (st_cfg.filter_pid && pid != st_cfg.filter_pid)
		return false;
	if (st_cfg.filter_tid && tid != st_cfg.filter_tid)
		return false;
	if (st_cfg.filter_cpu >= 0 && cpu != (__u32)st_cfg.filter_cpu)
		return false;
	return true;
}

/*
 * Frames from a bpf_get_stack() result; flags the record when the stack was
 * cut at @max frames (asked for max + 1) or when the call failed.
 */
static __always_inline __u32 st_frames(long bytes, __u32 max, struct st_event *ev,
				       __u16 trunc_flag, __u32 trunc_stat, __u16 fail_flag,
				       __u32 fail_stat)
{
	__u32 n;

	if (bytes < 0) {
		ev->flags |= fail_flag;
		st_stat_inc(fail_stat);
		return 0;
	}
	n = bytes / 8;
	if (n > max || n == ST_MAX_KSTACK) {
		ev->flags |= trunc_flag;
		st_stat_inc(trunc_stat);
		if (n > max)
			n = max;
	}
	return n;
}

static __always_inline __u32 st_capture_kernel(void *ctx, struct st_scratch *s)
{
	long bytes;

	if (!st_cfg.kstack)
		return 0;
	bytes = bpf_get_stack(ctx, s->ips, (st_cfg.kdepth_max + 1) * 8,
			      st_cfg.kskip & BPF_F_SKIP_FIELD_MASK);
	return st_frames(bytes, st_cfg.kdepth_max, &s->ev, ST_EV_KTRUNC, ST_STAT_KTRUNC,
			 ST_EV_KFAIL, ST_STAT_KFAIL);
}

/* The table walker (bpf/unwind.bpf.h) at the event, from the task's user registers. */
static __always_inline __u32 st_capture_user_table(struct task_struct *task, struct st_scratch *s,
						   __u32 kd)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	bool unknown;
	__u32 stop, n;

	n = st_walk_user(regs, s->ev.pid, &s->ips[kd], st_cfg.udepth_max, st_cfg.unwind, NULL,
			 false, &stop, &unknown);
	/* User space has not loaded this code yet: a copy lets it unwind the event later. */
	s->want_copy = unknown;
	if (unknown)
		s->ev.flags |= ST_EV_UNLOADED;
	if (stop == ST_USTOP_DEPTH) {
		s->ev.flags |= ST_EV_UTRUNC;
		st_stat_inc(ST_STAT_UTRUNC);
	}
	return n;
}

/*
 * The user stack. In fp mode it is the kernel's frame-pointer walk; at a
 * uprobe on a function's first instruction the kernel itself adds the
 * caller from [sp] (the frame is not built yet).
 */
static __always_inline __u32 st_capture_user(void *ctx, struct st_scratch *s, __u32 kd)
{
	struct task_struct *task;
	long bytes;

	if (!st_cfg.ustack)
		return 0;
	task = bpf_get_current_task_btf();
	if (task->flags & ST_PF_KTHREAD) {
		s->ev.flags |= ST_EV_KTHREAD;
		return 0;
	}
	if (kd > ST_MAX_KSTACK)
		return 0;
	if (st_cfg.unwind == ST_UNWIND_COPY)
		return 0;
	if (st_cfg.unwind != ST_UNWIND_FP)
		return st_capture_user_table(task, s, kd);
	bytes = bpf_get_stack(ctx, &s->ips[kd], ST_UFP_BYTES, BPF_F_USER_STACK);
	/*
	 * No frame at all is no user stack, not an empty one: the task runs
	 * without a user context (exiting, its mm released), so say it is lost.
	 */
	if (bytes == 0)
		bytes = -1;
	return st_frames(bytes, st_cfg.udepth_max, &s->ev, ST_EV_UTRUNC, ST_STAT_UTRUNC,
			 ST_EV_UFAIL, ST_STAT_UFAIL);
}

/*
 * Copies the user stack from sp up, a page at a time: a single large read
 * fails as a whole when the stack's top is nearer than the copy size. The
 * running length lives in the record (map memory), not on the stack, so the
 * verifier checks the callback once instead of once per page.
 */
struct st_copy_ctx {
	struct st_ucopy *c;
	__u8 *dst;
};

/*
 * One page of the copy into @dst after @c->len bytes. Return: 1 when done.
 * Shared with the faultable copy of bpf/deferred.bpf.h; st_uread() picks the
 * helper.
 */
static __always_inline int st_copy_step(struct st_ucopy *c, __u8 *dst, bool faultable)
{
	__u64 done = c->len, want = c->want, chunk;

	if (done >= want || done >= ST_COPY_MAX)
		return 1;
	chunk = 4096 - ((c->sp + done) & 4095);
	if (chunk > want - done)
		chunk = want - done;
	/* Keep clang from passing the unclamped copy of chunk to the helper. */
	barrier_var(chunk);
	if (!chunk || chunk > 4096)
		return 1;
	if (st_uread(dst + (done & (ST_COPY_MAX - 1)), chunk, c->sp + done, faultable))
		return 1;
	c->len = done + chunk;
	return 0;
}

static int st_copy_page(__u32 i, void *ctx)
{
	struct st_copy_ctx *x = ctx;

	return st_copy_step(x->c, x->dst, false);
}

/*
 * Appends registers and a copy of the user stack after frame @n (--unwind=copy,
 * and --unwind-check's second opinion). Return: the bytes appended.
 */
static __always_inline __u32 st_capture_copy(struct st_scratch *s, __u32 n)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct st_copy_ctx x;
	struct st_ucopy *c;

	__u32 bytes = st_cfg.copy_bytes ?: (s->want_copy ? st_cfg.copy_fallback : 0);

	if (!bytes || !st_cfg.ustack || (s->ev.flags & ST_EV_KTHREAD))
		return 0;
	if (n > ST_MAX_KSTACK + 1 + ST_MAX_USTACK + 1)
		return 0;
	c = (struct st_ucopy *)&s->ips[n];
	c->ip = regs->ip;
	c->sp = regs->sp;
	c->bp = regs->bp;
	c->want = bytes;
	c->len = 0;
	x.c = c;
	x.dst = (__u8 *)(c + 1);
	bpf_loop(ST_COPY_MAX / 4096 + 1, st_copy_page, &x, 0);
	s->ev.flags |= ST_EV_UCOPY;
	return sizeof(*c) + c->len;
}

/* Deferred mode's user stacks: a cookie now, the walk on return to user space. */
#include "bpf/deferred.bpf.h"
/* Counting tools: events counted in the kernel instead of sent. */
#include "bpf/aggregate.bpf.h"

/*
 * st_capture_stacks() - capture the current event's stacks into this CPU's
 * scratch record, held busy: the caller sends it (st_capture_send()) or
 * keeps it (offcpu keeps it until the switch-in), then releases it.
 * @probe_id: index of the probe spec (the attach cookie)
 * @weight: 1 for an event count, or a time for weighted tools
 *
 * Return: the scratch record, or NULL (filtered out, or a nested event: counted).
 */
static __always_inline struct st_scratch *st_capture_stacks(void *ctx, __u32 probe_id,
							    __u64 weight)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id, cpu = bpf_get_smp_processor_id();
	struct st_scratch *s;
	__u32 kd, ud;

	if (!st_wanted(pid, tid, cpu))
		return NULL;
	st_stat_inc(ST_STAT_EVENTS);
	s = bpf_map_lookup_elem(&st_scratch_map, &cpu);
	if (!s)
		return NULL;
	if (s->busy) {
		st_stat_inc(ST_DROP_SCRATCH_BUSY);
		return NULL;
	}
	s->busy = 1;
	s->ev.kind = ST_REC_EVENT;
	s->ev.flags = 0;
	s->ev.pid = pid;
	s->ev.tid = tid;
	s->ev.cpu = cpu;
	s->ev.probe_id = probe_id;
	s->ev.ts = bpf_ktime_get_ns();
	s->ev.weight = weight;
	s->ev.cookie = 0;
	s->want_copy = 0;
	bpf_get_current_comm(s->ev.comm, sizeof(s->ev.comm));
	kd = st_capture_kernel(ctx, s);
	/*
	 * A process user space has not loaded yet (it exec'ed a moment ago) is
	 * walked now, so that a copy can be taken for user space to unwind
	 * later: the deferred walk could only stop short.
	 */
	if (st_cfg.user_mode == ST_USER_DEFERRED &&
	    (st_cfg.unwind == ST_UNWIND_FP || bpf_map_lookup_elem(&st_uprocs, &pid)))
		ud = st_defer_user(ctx, s, kd);
	else
		ud = st_capture_user(ctx, s, kd);
	s->ev.kdepth = kd;
	s->ev.udepth = ud;
	return s;
}

/*
 * st_capture_send() - count the record of @s in the kernel where it can be
 * (bpf/aggregate.bpf.h), else send it; then release @s.
 */
static __always_inline void st_capture_send(struct st_scratch *s)
{
	__u32 n = (__u32)s->ev.kdepth + s->ev.udepth;
	__u64 size;

	if (st_agg_event(&s->ev, s->want_copy)) {
		s->busy = 0;
		return;
	}
	size = sizeof(s->ev) + (__u64)n * 8 + st_capture_copy(s, n);
	/* The bound must sit on the register that is used: keep clang from copying it. */
	barrier_var(size);
	if (size > sizeof(s->ev) + sizeof(s->ips) + sizeof(s->copy))
		size = sizeof(s->ev);
	if (bpf_ringbuf_output(&st_events, &s->ev, size, st_rb_flags()))
		st_stat_inc(ST_DROP_RINGBUF_FULL);
	else
		st_stat_inc(ST_STAT_SENT);
	s->busy = 0;
}

/* st_capture() - capture the current event's stacks and send (or count) them. */
static __always_inline int st_capture(void *ctx, __u32 probe_id, __u64 weight)
{
	struct st_scratch *s = st_capture_stacks(ctx, probe_id, weight);

	if (s)
		st_capture_send(s);
	return 0;
}

#endif
