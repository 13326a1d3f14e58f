/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deferred events joined in the kernel: an event whose user stack comes
 * later (bpf/deferred.bpf.h) is held per task until its entry's walk, then
 * joined to that walk and counted in the kernel's exact aggregation
 * (bpf/aggregate.bpf.h), as a synchronous event would be. Then neither the
 * event nor the user stack travels through the ring buffer: a task that
 * blocks once per system call (offcpu) or is sampled once per kernel entry
 * (profile) costs no record at all once its stack is known.
 *
 * One event a task. st_defer_held[tid] holds the first event of the
 * task's current kernel entry (its header, kernel frames and weight); every
 * other event of that entry travels as a record with the cookie, as
 * without holding, and marks the request "sent" so the walk still sends
 * the user stack for the joiner (lib/session/joiner.c).
 *
 * The walk's callback, in the task on its way back to user space:
 *   - marks the request closed: an event after that point (the callback
 *     faulted and slept, or was preempted) is captured synchronously, so
 *     no event can join a walk that is over;
 *   - walks the user stack into its ring-buffer reservation;
 *   - takes the held event: copies it into the same reservation (private
 *     to this callback, which may be preempted) and deletes it from the
 *     map; only a successful delete makes it this callback's, so an event
 *     user space took at the end of a session (lib/session/held.c) is never
 *     counted twice;
 *   - joins it: the user frames after its kernel frames, the walk's stop
 *     reason and flags, no cookie; then counts it in the kernel, or sends
 *     it whole as an ordinary record (the first of its count key, a full
 *     map, a collision);
 *   - sends the user stack only if some event of the entry went as a
 *     record, else discards it.
 *
 * Not held (sent with the cookie, counted ST_STAT_USHARED as before):
 * a second event of the same entry, an entry whose request is closed or
 * gone, aggregation off (record mode). Held, but sent with the cookie at
 * the walk: a walk that needs a stack copy (code not loaded yet), a ring
 * buffer too full for the walk, frames beyond a stored stack's room.
 *
 * Included by bpf/deferred.bpf.h.
 */
#ifndef ST_DEFER_HOLD_BPF_H
#define ST_DEFER_HOLD_BPF_H

#include "bpf/state.bpf.h"
#include "bpf/aggregate.bpf.h"
#include "bpf/defer_hold.h"

/*
 * By tid, allocated as used: an element lives from a task's first event
 * in a kernel entry to that entry's walk. Sized as the request table
 * (ST_DEFER_MAX_TASKS, bpf/deferred.bpf.h): a task without a request
 * holds nothing. User space takes what is left at the end of a session.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct st_defer_held);
} st_defer_held SEC(".maps");

/* The request's side of the hold (struct st_defer_req in bpf/deferred.bpf.h). */
struct st_defer_hold_state {
	__u32 closed; /* the walk has begun: later events are captured synchronously */
	__u32 sent;   /* an event of the entry went as a record: send the user stack */
};

/*
 * st_defer_hold() - hold the deferred event @ev for its entry's walk.
 * @ev: a record with ST_EV_UDEFERRED, followed in map memory by at least
 *      sizeof(struct st_defer_held) bytes (the capture scratch, offcpu's block)
 * @hs: the hold state of @ev's request, or NULL when there is none
 *
 * Return: true when held (send nothing now); false when the caller sends
 * @ev as a record, the walk being told to send the user stack.
 */
static __always_inline bool st_defer_hold(struct st_event *ev, struct st_defer_hold_state *hs)
{
	__u32 tid = ev->tid;
	struct st_defer_held *h;

	if (!hs)
		return false;
	if (!st_agg_cfg.on || st_cfg.copy_bytes || hs->closed || ev->kdepth >= ST_AGG_FRAMES ||
	    (ev->flags & (ST_EV_UNLOADED | ST_EV_UCOPY)))
		goto send;
	h = bpf_map_lookup_elem(&st_defer_held, &tid);
	if (h && h->ev.cookie == ev->cookie)
		goto send; /* the entry's one held event is taken */
	/*
	 * An element of another entry: never left by a walk (it takes its
	 * own), so its task died before returning to user space; replaced.
	 * Its cookie's user stack will never come, so it goes as a record
	 * the joiner gives up on, counted.
	 */
	if (h && bpf_ringbuf_output(&st_events, &h->ev,
				    sizeof(h->ev) + (h->ev.kdepth & (ST_AGG_FRAMES - 1)) * 8ull, 0))
		st_stat_inc(ST_DROP_RINGBUF_FULL);
	if (!bpf_map_update_elem(&st_defer_held, &tid, ev, BPF_ANY))
		return true;
send:
	hs->sent = 1;
	return false;
}

/*
 * st_defer_hold_take() - the held event of @cookie's entry into @j, owned
 * by this callback. Return: true when there was one.
 */
static __always_inline bool st_defer_hold_take(__u32 tid, __u64 cookie, struct st_defer_held *j)
{
	struct st_defer_held *h = bpf_map_lookup_elem(&st_defer_held, &tid);

	if (!h || h->ev.cookie != cookie)
		return false;
	if (bpf_probe_read_kernel(j, offsetof(struct st_defer_held, tmp), h))
		return false;
	/* User space may have taken it meanwhile (end of session): then it is theirs. */
	return !bpf_map_delete_elem(&st_defer_held, &tid) && j->ev.cookie == cookie;
}

/*
 * st_defer_hold_join() - @j gets the walk's user frames @uips (@ud of
 * them, stop reason @stop, walk flags @uflags), and is counted or sent.
 *
 * Return: false when the frames do not fit a stored stack: the caller
 * sends @j with its cookie instead (and the user stack with it).
 */
static __always_inline bool st_defer_hold_join(struct st_defer_held *j, const __u64 *uips,
					       __u32 ud, __u16 stop, __u16 uflags)
{
	__u32 kd = j->ev.kdepth, n;
	__u64 size;

	/* 128 user frames and no kernel frame: sent, to keep the slack below one stored stack. */
	if (kd + ud > ST_AGG_FRAMES || kd >= ST_AGG_FRAMES || ud >= ST_AGG_FRAMES)
		return false;
	/*
	 * For the verifier, which cannot relate kd and ud: both masked (neither
	 * changes: both < 128), and past ips[] the reservation's slack (struct
	 * st_ustack_rec) keeps the widest pair in bounds.
	 */
	kd &= ST_AGG_FRAMES - 1;
	n = (ud & (ST_AGG_FRAMES - 1)) * 8;
	if (n && bpf_probe_read_kernel(&j->ips[kd], n, uips))
		return false;
	j->ev.udepth = ud;
	j->ev.ustop = stop;
	j->ev.flags = (j->ev.flags & ~ST_EV_UDEFERRED) | uflags;
	j->ev.cookie = 0;
	st_stat_inc(ST_STAT_JOINED);
	if (st_agg_event_in(&j->ev, false, &j->tmp, false) == ST_AGG_COUNTED)
		return true;
	size = sizeof(j->ev) + (__u64)kd * 8 + n;
	barrier_var(size);
	if (size > sizeof(j->ev) + sizeof(j->ips))
		size = sizeof(j->ev);
	if (!bpf_ringbuf_output(&st_events, &j->ev, size, st_rb_flags()))
		st_stat_inc(ST_STAT_SENT);
	else if (st_agg_event_in(&j->ev, true, &j->tmp, true) != ST_AGG_COUNTED &&
		 st_agg_event_in(&j->ev, true, &j->tmp, true) != ST_AGG_COUNTED)
		st_agg_drop_in(&j->tmp); /* see st_agg_rescue(): a key made, then counted */
	return true;
}

#endif
