/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture library: every tool's probes call st_capture() and nothing
 * else, so every tool gets the same record, the same filters and the same
 * loss accounting.
 *
 * One event = one ring-buffer record carrying the kernel stack and the user
 * stack of that event, each with its exact depth (no fixed-size slots, no
 * STACK_TRACE map and no stack ids). The record is assembled in a per-CPU
 * scratch buffer, guarded against nesting, then copied out with
 * bpf_ringbuf_output() at its exact length.
 *
 * The kernel stack is bpf_get_stack()'s. Its truncation is detected by
 * asking for one frame more than the limit: if it comes back, the stack was
 * cut. At the kernel's own ceiling (127, see ST_MAX_KSTACK) that extra frame
 * cannot come back, so a stack of exactly 127 frames is reported as
 * truncated: it may have been.
 *
 * The user stack is the walker's (bpf/ustack.bpf.h), now or later: here is
 * the decision. Deferred mode (bpf/deferred.bpf.h) walks once per kernel
 * entry on the way back to user space, except where the event must be
 * walked now: a uprobe (its registers move before the return), an exiting
 * task, a process user space has not loaded yet (its walk may need a copy).
 * The record says why the user walk ended (st_event.ustop).
 */
#ifndef ST_CAPTURE_BPF_H
#define ST_CAPTURE_BPF_H

#include "bpf/state.bpf.h"
#include "bpf/ustack.bpf.h"
#include "bpf/ucopy.bpf.h"
#include "bpf/deferred.bpf.h"
/* Counting tools: events counted in the kernel instead of sent. */
#include "bpf/aggregate.bpf.h"
#include "bpf/met.bpf.h" /* st_met_meet(): a first event describes its process */
#include "bpf/compat.bpf.h" /* the build for kernels without bpf_loop() (-DST_COMPAT) */

/* The --unwind-check copy reaches this far above the walk's last sp (a saved rbp above a CFA). */
#define ST_CHECK_SLACK 64

/*
 * Frames from a bpf_get_stack() result; flags the record when the stack was
 * cut at @max frames (asked for max + 1) or when the call failed.
 */
static __always_inline __u32 st_kframes(long bytes, __u32 max, struct st_event *ev)
{
	__u32 n;

	if (bytes < 0) {
		ev->flags |= ST_EV_KFAIL;
		st_stat_inc(ST_STAT_KFAIL);
		return 0;
	}
	n = bytes / 8;
	if (n > max || n == ST_MAX_KSTACK) {
		ev->flags |= ST_EV_KTRUNC;
		st_stat_inc(ST_STAT_KTRUNC);
		if (n > max)
			n = max;
	}
	return n;
}

/* Where an event was taken, as the capture needs to know. */
enum st_at {
	ST_AT_EVENT,      /* any event: its ctx says where the task was */
	ST_AT_ENTRY,      /* a uprobe at a function's first instruction (st_walk_user()) */
	ST_AT_TRACEPOINT, /* a tracepoint: always in the kernel, whatever registers it hands over */
};

static __always_inline __u32 st_capture_kernel(void *ctx, struct st_scratch *s, enum st_at at)
{
	long bytes;

	if (!st_cfg.kstack)
		return 0;
	bytes = bpf_get_stack(ctx, s->ips, (st_cfg.kdepth_max + 1) * 8,
			      st_cfg.kskip & BPF_F_SKIP_FIELD_MASK);
	/*
	 * None at a tracepoint, which fires in the kernel: the kernel handed
	 * the program the task's user registers (6.1's system call
	 * tracepoints), so bpf_get_stack() had no kernel part to walk. The
	 * task's own kernel stack, walked from here, has it, under this
	 * program's frames, which the symbolizer leaves out
	 * (event_frames__trim_plumbing()).
	 */
#ifndef ST_COMPAT /* bpf_get_task_stack() wants a BTF task pointer: 5.10 has none to give */
	if (!bytes && at == ST_AT_TRACEPOINT)
		bytes = bpf_get_task_stack(bpf_get_current_task_btf(), s->ips,
					   (st_cfg.kdepth_max + 1) * 8,
					   st_cfg.kskip & BPF_F_SKIP_FIELD_MASK);
#endif
	return st_kframes(bytes, st_cfg.kdepth_max, &s->ev);
}

/* The walker at the event, from the task's user registers, after kernel frame @kd. */
static __always_inline __u32 st_capture_user(struct st_scratch *s, __u32 kd)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct st_uwalk_state *st;

	if (kd > ST_MAX_KSTACK)
		return 0;
	st = st_walk_user(regs, s->ev.pid, &s->ips[kd], st_cfg.udepth_max, st_cfg.unwind, NULL,
			  false, st_cfg.walk_cache, s->at_entry,
			  st_agg_cfg.on && !st_cfg.copy_bytes);
	if (!st || !st->n) {
		s->ev.flags |= ST_EV_UFAIL;
		st_stat_inc(ST_STAT_UFAIL);
		return 0;
	}
	s->ev.ustop = st->stop;
	s->uhash_ok = st->uhash_ok;
	s->uhash = st->uhash;
	/* User space has not loaded this code yet: a copy lets it unwind the event later. */
	s->want_copy = st->unknown;
	if (st->unknown)
		s->ev.flags |= ST_EV_UNLOADED;
	/*
	 * The bytes the walk read matter only to --unwind-check's copy: set
	 * without one, they would keep every event from being counted in the
	 * kernel (st_agg_event() takes them as a copy wanted).
	 */
	if (st->nleft)
		s->ev.flags |= ST_EV_USWITCHED;
	else if (st_cfg.copy_bytes && st->sp > BPF_CORE_READ(regs, sp))
		s->check_bytes = st->sp - BPF_CORE_READ(regs, sp) + ST_CHECK_SLACK;
	if (st->stop == ST_USTOP_DEPTH) {
		s->ev.flags |= ST_EV_UTRUNC;
		st_stat_inc(ST_STAT_UTRUNC);
	}
	return st->n;
}

/*
 * Deferred mode: the cookie of this kernel entry in the record, the walk
 * later; or not, where the walk must happen at the event.
 *
 * Return: true when deferred (no user frames now).
 */
static __always_inline bool st_defer_user(void *ctx, struct st_scratch *s,
					  struct task_struct *task)
{
	__u64 cookie;

	if ((task->flags & ST_PF_EXITING) || ctx == (void *)bpf_task_pt_regs(task) ||
	    st_defer_unknown_process(s->ev.pid)) {
		st_stat_inc(ST_STAT_USYNC);
		return false;
	}
	cookie = st_defer_request(task, s->ev.tid);
	if (!cookie)
		return false;
	s->ev.flags |= ST_EV_UDEFERRED;
	s->ev.cookie = cookie;
	return true;
}

/*
 * A walk at the event stopped on a page it could not read (not present:
 * faults are off here): in deferred mode with st_cfg.defer_faults, that walk
 * is dropped and the entry's walk requested instead, which may fault.
 */
static __always_inline bool st_walk_wants_fault(struct st_scratch *s, __u32 n)
{
	return st_cfg.user_mode == ST_USER_DEFERRED && st_cfg.defer_faults && n &&
	       s->ev.ustop == ST_USTOP_READ_FAILED;
}

/* Forget what the dropped walk at the event set, before deferring. */
static __always_inline void st_walk_forget(struct st_scratch *s)
{
	s->ev.flags &= ~(ST_EV_UNLOADED | ST_EV_USWITCHED);
	s->ev.ustop = ST_USTOP_NONE;
	s->want_copy = 0;
	s->check_bytes = 0;
	s->uhash_ok = 0;
}

/*
 * The user stack: now, later, or (copy mode) only as a copy.
 *
 * Deferred with st_cfg.defer_faults (offcpu's default): walked now, and
 * deferred only when the walk met a page it could not read. Every task_work
 * request costs an irq_work self-interrupt (a VM exit here), ~3 us per
 * switch-out against a walk at the event that the walk cache mostly reduces
 * to one read and a compare; and a task switching out in a system call has
 * its stack pages resident nearly always.
 */
#ifdef ST_COMPAT
/* The compat build (bpf/compat.bpf.h): the kernel's frame-pointer walk, at the event. */
static __always_inline __u32 st_capture_ustack(void *ctx, struct st_scratch *s, __u32 kd,
						bool at_entry)
{
	if (!st_cfg.ustack || kd > ST_MAX_KSTACK)
		return 0;
	if (BPF_CORE_READ(st_compat_task(), flags) & ST_PF_KTHREAD) {
		s->ev.flags |= ST_EV_KTHREAD;
		return 0;
	}
	/* A constant: the verifier must not see a tracepoint read a uprobe's registers. */
	return st_compat_ustack(ctx, &s->ips[kd], &s->ev, at_entry);
}
#else
static __always_inline __u32 st_capture_ustack(void *ctx, struct st_scratch *s, __u32 kd,
						bool at_entry)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 n;

	if (!st_cfg.ustack)
		return 0;
	if (task->flags & ST_PF_KTHREAD) {
		s->ev.flags |= ST_EV_KTHREAD;
		return 0;
	}
	if (st_cfg.unwind == ST_UNWIND_COPY)
		return 0;
	if (st_cfg.user_mode == ST_USER_DEFERRED && !st_cfg.defer_faults &&
	    st_defer_user(ctx, s, task))
		return 0;
	/* One call of the walk: the verifier checks its loop once per program. */
	n = st_capture_user(s, kd);
	if (st_walk_wants_fault(s, n) && st_defer_user(ctx, s, task)) {
		st_walk_forget(s);
		return 0;
	}
	return n;
}
#endif

/*
 * Stack bytes to copy into the record: all of --stack-copy-kb in copy mode;
 * for --unwind-check as far up as the walk read (so a deep stack is checked
 * whole); where the walk met code not loaded yet, the fallback size.
 */
static __always_inline __u32 st_copy_bytes(struct st_scratch *s)
{
	if (!st_cfg.ustack || (s->ev.flags & ST_EV_KTHREAD))
		return 0;
	if (st_cfg.unwind == ST_UNWIND_COPY)
		return st_cfg.copy_bytes;
	if (st_cfg.copy_bytes)
		return s->check_bytes > st_cfg.copy_bytes ? s->check_bytes : st_cfg.copy_bytes;
	return s->want_copy ? st_cfg.copy_fallback : 0;
}

/*
 * The task's name into @comm, as two loads: task->comm is NUL-padded
 * (__set_task_comm() pads it) and its last byte is always NUL, so two words
 * read while a rename runs still make a terminated name. The helper
 * bpf_get_current_comm() cost ~50 ns an event for the same bytes.
 */
#ifdef ST_COMPAT
/* No BTF pointer to the task (bpf/compat.bpf.h): the helper it is. */
static __always_inline void st_comm(char *comm)
{
	bpf_get_current_comm(comm, ST_COMM_LEN);
}
#else
static __always_inline void st_comm(char *comm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 *dst = (__u64 *)comm, *src = (__u64 *)task->comm;

	dst[0] = src[0];
	dst[1] = src[1];
}
#endif

/*
 * The capture behind st_capture_stacks() and st_capture(); @stamp: read the
 * clock now; @at: where the event was taken.
 */
static __always_inline struct st_scratch *st_capture_begin(void *ctx, __u32 probe_id,
							   __u64 weight, bool stamp,
							   enum st_at at)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id, cpu = bpf_get_smp_processor_id();
	struct st_scratch *s;
	__u32 kd;

	if (!st_wanted(pid, tid, cpu))
		return NULL;
	st_stat_inc(ST_STAT_EVENTS);
#ifndef ST_COMPAT
	st_met_meet(pid);
#endif
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
	s->ev.ts = stamp ? bpf_ktime_get_ns() : 0;
	s->ev.weight = weight;
	s->ev.cookie = 0;
	s->ev.ustop = ST_USTOP_NONE;
	s->want_copy = 0;
	s->check_bytes = 0;
	s->at_entry = at == ST_AT_ENTRY;
	s->uhash_ok = 0;
	st_comm(s->ev.comm);
	kd = st_capture_kernel(ctx, s, at);
	s->ev.udepth = st_capture_ustack(ctx, s, kd, at == ST_AT_ENTRY);
	s->ev.kdepth = kd;
	return s;
}

/*
 * st_capture_stacks() - capture the current event's stacks into this CPU's
 * scratch record, held busy: the caller sends it (st_capture_send()) or
 * keeps it (offcpu keeps it until the switch-in), then releases it.
 * @probe_id: index of the probe spec (the attach cookie)
 * @weight: 1 for an event count, or a time for weighted tools
 *
 * Return: the scratch record, its time stamped, or NULL (filtered out, or a
 * nested event: counted).
 */
static __always_inline struct st_scratch *st_capture_stacks(void *ctx, __u32 probe_id,
							    __u64 weight)
{
	return st_capture_begin(ctx, probe_id, weight, true, ST_AT_EVENT);
}

/* Sends @s's record, its frames and @copy bytes of stack. Return: 0, or -errno (no room). */
static __always_inline long st_capture_output(struct st_scratch *s, __u32 copy)
{
	__u32 n = (__u32)s->ev.kdepth + s->ev.udepth;
	__u64 size;
	long err;

	if (!s->ev.ts)
		s->ev.ts = bpf_ktime_get_ns();
#ifdef ST_COMPAT
	size = sizeof(s->ev) + (__u64)n * 8; /* no stack copies: their loop is a callback */
#else
	size = sizeof(s->ev) + (__u64)n * 8 + st_capture_copy(s, n, copy);
#endif
	/* The bound must sit on the register that is used: keep clang from copying it. */
	barrier_var(size);
	if (size > sizeof(s->ev) + sizeof(s->ips) + sizeof(s->copy))
		size = sizeof(s->ev);
	err = bpf_ringbuf_output(&st_events, &s->ev, size, st_rb_flags());
	if (!err)
		st_stat_inc(ST_STAT_SENT);
	return err;
}

/*
 * A record with no room (the ring buffer refused it, or it is more than
 * half full, st_agg_ring_above()): counted in the kernel where it can be;
 * the first of its key sent without a stack copy, a small record, or
 * counted too when even that finds no room or the ring is three quarters
 * full. Return: true when it is either.
 */
static __always_inline bool st_capture_rescue(struct st_scratch *s)
{
	int r = st_agg_rescue(&s->ev);

	if (r != ST_AGG_FIRST)
		return r == ST_AGG_COUNTED;
	return (!st_agg_ring_above(3) && !st_capture_output(s, 0)) ||
	       st_agg_rescue(&s->ev) == ST_AGG_COUNTED;
}

/*
 * An event the kernel could not count (a full map, a collision), held back
 * only because user space is behind (st_agg_backlog()), not for want of
 * room in the ring: sent after all, without its stack copy as a rescue
 * would have, while the ring is under three quarters full: a record, not a
 * drop. Return: true when sent.
 */
static __always_inline bool st_capture_late(struct st_scratch *s)
{
	return st_agg_backlog() && !st_agg_ring_above(3) && !st_capture_output(s, 0);
}

/* Held for its kernel entry's deferred walk (bpf/defer_hold.bpf.h)? Never in the compat build. */
static __always_inline bool st_capture_held(struct st_event *ev)
{
#ifdef ST_COMPAT
	return false;
#else
	return (ev->flags & ST_EV_UDEFERRED) && st_defer_hold_event(ev);
#endif
}

/*
 * st_capture_send() - count the record of @s in the kernel where it can be
 * (bpf/aggregate.bpf.h; a deferred one once its entry's user stack is
 * walked, bpf/defer_hold.bpf.h), else send it; then release @s. A record not
 * stamped yet (st_agg_lazy_clock()) is stamped here. One with no room is
 * counted in the kernel where it can be (st_capture_rescue()), and dropped
 * (counted) only where it cannot.
 */
static __always_inline void st_capture_send(struct st_scratch *s)
{
	if (st_capture_held(&s->ev) ||
	    st_agg_event_uhash(&s->ev, s->want_copy, s->uhash_ok, s->uhash)) {
		s->busy = 0;
		return;
	}
	if ((st_agg_ring_above(2) || st_capture_output(s, st_copy_bytes(s))) &&
	    !st_capture_rescue(s) && !st_capture_late(s))
		st_agg_drop();
	s->busy = 0;
}

/* st_capture(), st_capture_at_entry() and st_capture_tp(). */
static __always_inline int st_capture_event(void *ctx, __u32 probe_id, __u64 weight,
					    enum st_at at)
{
	/* Counted in the kernel, an event needs no time: the clock only when it is sent. */
	struct st_scratch *s = st_capture_begin(ctx, probe_id, weight, !st_agg_lazy_clock(), at);

	if (s)
		st_capture_send(s);
	return 0;
}

/* st_capture() - capture the current event's stacks and send (or count) them. */
static __always_inline int st_capture(void *ctx, __u32 probe_id, __u64 weight)
{
	return st_capture_event(ctx, probe_id, weight, ST_AT_EVENT);
}

/* st_capture_tp() - st_capture() for a tracepoint program: the event is in the kernel. */
static __always_inline int st_capture_tp(void *ctx, __u32 probe_id, __u64 weight)
{
	return st_capture_event(ctx, probe_id, weight, ST_AT_TRACEPOINT);
}

/*
 * st_capture_at_entry() - st_capture() for a uprobe at a function's first
 * instruction: its caller is frame 1 even where no row covers frame 0.
 */
static __always_inline int st_capture_at_entry(void *ctx, __u32 probe_id, __u64 weight)
{
	return st_capture_event(ctx, probe_id, weight, ST_AT_ENTRY);
}

#endif
