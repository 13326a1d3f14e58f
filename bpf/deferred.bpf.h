/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deferred user stacks: the kernel stack at the event, the user stack once,
 * later, when the task returns to user space.
 *
 * Why. At an event inside the kernel (a tracepoint, a context switch, a
 * timer interrupt) the user stack cannot fault: the kernel's walk and ours
 * read user memory with page faults disabled, so a frame on a page that is
 * not present cuts the stack short. And one system call may fire thousands
 * of events (a write() into a full pipe switches out again and again) whose
 * user stacks are all the same. On the way back to user space the task may
 * fault and its user registers have not moved: there one walk serves every
 * event of that kernel entry.
 *
 * How (kernel 6.18 has bpf_task_work; BPF cannot reach the kernel's own
 * unwind_deferred, so this file is a small version of it):
 *
 *   event (any program, via st_capture() when st_cfg.user_mode is deferred)
 *     - kernel stack now, as always;
 *     - st_defer_reqs[tid] exists: a walk is already requested for this
 *       kernel entry; the event takes its cookie (ST_STAT_USHARED);
 *     - else: a new cookie, a new element, bpf_task_work_schedule_resume()
 *       on it; the record carries ST_EV_UDEFERRED and the cookie, no user
 *       frames.
 *   callback (sleepable, in the task, on its return to user space)
 *     - walks the user stack from the task's saved user registers with
 *       bpf_copy_from_user(), which faults pages in (ST_STAT_UWALKS);
 *     - sends one struct st_ustack with the cookie;
 *     - deletes the element: the entry is over, the next event in this task
 *       starts a new one. An event between the send and the delete shares
 *       the cookie and its record lands after the stack: the joiner keeps
 *       answered cookies for a while for exactly that (lib/session/joiner.c).
 *
 * The cookie. cookie = (cpu + 1) | (per-CPU sequence << 32), as the
 * kernel's unwind_task_id: unique across CPUs, never 0. It names one kernel
 * entry of one task: the element that holds it lives from the first event
 * after a return to user space until the walk of that return is sent.
 *
 * One request per task. The element is keyed by tid and holds the only
 * struct bpf_task_work of that task, so there is at most one request in
 * flight per task (the kfunc would answer -EBUSY to a second one). The
 * element also holds the task's start time: a tid reused by a new task
 * never inherits a dead task's cookie.
 *
 * Synchronous on purpose (ST_STAT_USYNC), decided in bpf/capture.bpf.h:
 *   - a uprobe: the event is a trap from user space whose own single-step
 *     or emulation moves the user registers before the return, and at a
 *     function's first instruction the caller is at [sp] only now. Such a
 *     program's ctx is the task's user register set itself, which is how
 *     it is told apart;
 *   - an exiting task: it may never return to user space;
 *   - a process the table walker does not know yet: at the event its walk
 *     can fall back to a stack copy unwound in user space (the first
 *     events of a process that lives a millisecond).
 * A walk that meets code user space has not loaded yet sends its stack
 * again with a copy of the stack bytes, for user space to unwind later (see
 * st_defer_send_copy()).
 *
 * Synchronous as a fallback, counted: the request table is full
 * (ST_STAT_DEFER_FULL), the kfunc refused (ST_STAT_TW_BUSY, ST_STAT_TW_FAIL).
 * A walk whose record does not fit in the ring buffer still sends a
 * header-only st_ustack flagged ST_EV_UFAIL, so its events are answered
 * ("[user stack lost: ...]") instead of waiting (ST_DROP_USTACK_RINGBUF).
 *
 * The walk is one call, st_defer_walk(): the walker of bpf/ustack.bpf.h,
 * the same as at the event, with faults allowed.
 *
 * Whether an event defers at all is bpf/capture.bpf.h's decision; this file
 * gives it st_defer_request() and st_defer_unknown_process().
 */
#ifndef ST_DEFERRED_BPF_H
#define ST_DEFERRED_BPF_H

#include "bpf/state.bpf.h"
#include "bpf/ustack.bpf.h"
#include "bpf/ucopy.bpf.h"
/* Events held per task and joined to their walk in the kernel. */
#include "bpf/defer_hold.bpf.h"

/*
 * Tasks that may have a walk requested at once: every task between its
 * first event and its return to user space, e.g. every thread blocked since
 * an off-CPU session began. Beyond it, events are captured synchronously and
 * counted (ST_STAT_DEFER_FULL). 32 bytes an element.
 */
#ifndef ST_DEFER_MAX_TASKS
#define ST_DEFER_MAX_TASKS 32768
#endif

#ifndef ST_PF_EXITING
#define ST_PF_EXITING 0x00000004 /* include/linux/sched.h PF_EXITING */
#endif

#ifndef EBUSY
#define EBUSY 16
#endif
#ifndef EOPNOTSUPP
#define EOPNOTSUPP 95
#endif

/*
 * The kfunc in one form per build: 6.18's _impl by default; with
 * ST_TW_4ARG the four-argument form of later kernels, which also changed
 * _impl's prototype (libbpf 1.1 refuses a whole object over one extern the
 * kernel does not match, weak or not). User space opens the build whose
 * form its probe found (lib/session/skel_open.h). A weak kfunc the kernel
 * lacks resolves to NULL, and the verifier drops the call.
 */
#ifdef ST_TW_4ARG
extern int bpf_task_work_schedule_resume(struct task_struct *task, struct bpf_task_work *tw,
					 void *map__map,
					 bpf_task_work_callback_t callback) __weak __ksym;
#define st_task_work_schedule(task, tw, map, cb)                                           \
	(bpf_task_work_schedule_resume ? bpf_task_work_schedule_resume(task, tw, map, cb) :  \
					 -EOPNOTSUPP)
#else
extern int bpf_task_work_schedule_resume_impl(struct task_struct *task, struct bpf_task_work *tw,
					      void *map__map, bpf_task_work_callback_t callback,
					      void *aux__prog) __weak __ksym;
#define st_task_work_schedule(task, tw, map, cb)                                           \
	(bpf_task_work_schedule_resume_impl ?                                              \
		 bpf_task_work_schedule_resume_impl(task, tw, map, cb, NULL) :             \
		 -EOPNOTSUPP)
#endif

struct st_defer_req {
	__u64 cookie;
	__u64 start_time;         /* task->start_time of the requester */
	struct st_defer_hold_state hold; /* bpf/defer_hold.bpf.h */
	struct bpf_task_work tw;  /* the task's one request */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ST_DEFER_MAX_TASKS);
	__type(key, __u32); /* tid */
	__type(value, struct st_defer_req);
} st_defer_reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} st_defer_seq SEC(".maps");

/*
 * The record the callback fills in place: header, then room for the walk,
 * then the walk's state. The walk may sleep on a fault, so its state cannot
 * be the CPU's; here it costs 200 bytes of ring buffer a walk instead of as
 * many in each of ST_DEFER_MAX_TASKS requests. User space reads the header
 * and udepth frames, and skips the rest.
 */
struct st_ustack_rec {
	struct st_ustack h;
	__u64 ips[ST_MAX_USTACK];
	struct st_uwalk_state walk;
	/* The entry's held event, joined here (bpf/defer_hold.bpf.h); then slack for the verifier. */
	struct st_defer_held j;
	__u64 slack[ST_AGG_FRAMES];
};

static __always_inline void st_defer_count(struct st_ustack *h)
{
	if (h->stop == ST_USTOP_DEPTH) {
		h->flags |= ST_EV_UTRUNC;
		st_stat_inc(ST_STAT_UTRUNC);
	}
	if (!h->udepth) {
		h->flags |= ST_EV_UFAIL;
		st_stat_inc(ST_STAT_UFAIL);
	}
}

/* Return: true when the walk met code user space had not loaded yet. */
static __always_inline bool st_defer_walk_user(struct pt_regs *regs, struct st_ustack_rec *r,
					       struct st_uwalk_state *walk)
{
	struct st_uwalk_state *st;

	st = st_walk_user(regs, r->h.pid, r->ips, st_cfg.udepth_max, st_cfg.unwind, walk, true,
			  false, false, false);
	if (!st)
		return false;
	r->h.udepth = st->n;
	r->h.stop = st->stop;
	if (st->nleft)
		r->h.flags |= ST_EV_USWITCHED;
	st_defer_count(&r->h);
	return st->unknown;
}

/*
 * The walk met code user space had not loaded yet (a library mapped just
 * now): the same record again, followed by a copy of the stack (faults
 * allowed) that user space unwinds once it has loaded the code, as the
 * event-time walk does (bpf/capture.bpf.h st_capture_copy()). Sent only
 * then: it is 72 KiB of ring buffer. The copy sits at a fixed place,
 * after all ST_MAX_USTACK slots; the joiner moves it behind the frames.
 */
struct st_ustack_copy_rec {
	struct st_ustack h;
	__u64 ips[ST_MAX_USTACK];
	struct st_ucopy c;
	__u8 bytes[ST_COPY_MAX + 4096]; /* + a page of slack for the verifier */
};

static int st_dcopy_page(__u32 i, void *arg)
{
	struct st_ustack_copy_rec *r = *(struct st_ustack_copy_rec **)arg;

	return st_copy_step(&r->c, r->bytes, true);
}

/* Return: true when the copy record was sent (the caller discards @r). */
static __always_inline bool st_defer_send_copy(struct pt_regs *regs,
					       struct st_ustack_rec *r)
{
	struct st_ustack_copy_rec *c;

	if (!st_cfg.copy_fallback)
		return false;
	c = bpf_ringbuf_reserve(&st_events, sizeof(*c), 0);
	if (!c)
		return false;
	if (bpf_probe_read_kernel(c, offsetof(struct st_ustack_rec, walk), r)) {
		bpf_ringbuf_discard(c, 0);
		return false;
	}
	c->h.flags |= ST_EV_UCOPY | ST_EV_UNLOADED;
	st_copy_start(&c->c, regs, st_cfg.copy_fallback);
	bpf_loop(ST_COPY_MAX / 4096 + 1, st_dcopy_page, &c, 0);
	bpf_ringbuf_submit(c, st_rb_flags());
	return true;
}

static __always_inline void st_defer_header(struct st_ustack *h, __u64 cookie)
{
	__u64 id = bpf_get_current_pid_tgid();

	h->kind = ST_REC_USTACK;
	h->udepth = 0;
	h->flags = 0;
	h->stop = ST_USTOP_NONE;
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->cookie = cookie;
	h->ts = bpf_ktime_get_ns();
}

/* The ring buffer had no room for the walk: say so with a bare header. */
static __always_inline void st_defer_send_lost(__u64 cookie)
{
	struct st_ustack h;

	st_defer_header(&h, cookie);
	h.flags = ST_EV_UFAIL;
	st_stat_inc(ST_DROP_USTACK_RINGBUF);
	bpf_ringbuf_output(&st_events, &h, sizeof(h), 0);
}

/*
 * The held event of the entry could not be joined here: it goes as a record
 * with its cookie, and the user stack after it, for the joiner.
 */
static __always_inline void st_defer_hold_send(struct st_defer_req *req, struct st_defer_held *j)
{
	__u64 size = sizeof(j->ev) + (__u64)(j->ev.kdepth & (ST_AGG_FRAMES - 1)) * 8;

	req->hold.sent = 1;
	if (bpf_ringbuf_output(&st_events, &j->ev, size, st_rb_flags()))
		st_stat_inc(ST_DROP_RINGBUF_FULL);
	else
		st_stat_inc(ST_STAT_SENT);
}

/*
 * st_defer_walk() - the one walk of a kernel entry, into a ring-buffer
 * record reserved at its full size (the walk may sleep on a fault; a
 * per-CPU buffer could be taken over meanwhile by another task's walk).
 * The entry's held event is joined to it; the stack itself is sent only
 * when some event of the entry went as a record.
 */
static __always_inline void st_defer_walk(struct st_defer_req *req, __u32 tid)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct st_ustack_rec *r = bpf_ringbuf_reserve(&st_events, sizeof(*r), 0);
	__u64 cookie = req->cookie;
	bool unknown;

	/* No room: a held event stays in its map, sent when replaced or taken at the end. */
	if (!r)
		return st_defer_send_lost(cookie);
	st_defer_header(&r->h, cookie);
	unknown = st_defer_walk_user(regs, r, &r->walk);
	if (st_defer_hold_take(tid, cookie, &r->j) &&
	    (unknown || !r->h.udepth ||
	     !st_defer_hold_join(&r->j, r->ips, r->h.udepth, r->h.stop,
				 r->h.flags & (ST_EV_UTRUNC | ST_EV_UFAIL | ST_EV_USWITCHED))))
		st_defer_hold_send(req, &r->j);
	/*
	 * Nothing waits for this stack. A discarded record holds its room until
	 * the consumer passes it, so it wakes the consumer as a record does
	 * (st_rb_flags()): only once enough waits. Woken at every discard it
	 * ran for nothing, and its wake-up preempted this task in
	 * task_work_run(): another switch-out, another entry, another walk.
	 */
	if (!req->hold.sent)
		bpf_ringbuf_discard(r, st_rb_flags());
	else if (unknown && st_defer_send_copy(regs, r))
		bpf_ringbuf_discard(r, 0);
	else
		bpf_ringbuf_submit(r, st_rb_flags());
}

/* The task_work callback: sleepable, in the task, on its way to user space. */
static int st_defer_cb(struct bpf_map *map, void *key, void *value)
{
	struct st_defer_req *req = value;

	st_stat_inc(ST_STAT_UWALKS);
	/* From here on an event of this task is captured at the event (bpf/defer_hold.bpf.h). */
	req->hold.closed = 1;
	st_defer_walk(req, *(__u32 *)key);
	/* The entry is over: the next event of this task starts a new one. */
	bpf_map_delete_elem(map, key);
	return 0;
}

static __always_inline long st_defer_schedule(struct task_struct *task, struct st_defer_req *req)
{
	return st_task_work_schedule(task, &req->tw, &st_defer_reqs, st_defer_cb);
}

static __always_inline __u64 st_defer_cookie(void)
{
	__u32 zero = 0, cpu = bpf_get_smp_processor_id();
	__u64 *seq = bpf_map_lookup_elem(&st_defer_seq, &zero);

	if (!seq)
		return 0;
	*seq += 1;
	return (__u64)(cpu + 1) | (*seq << 32);
}

/*
 * The cookie of the current kernel entry of @task, requesting its walk when
 * this is the entry's first event. Return: the cookie, or 0 (capture now).
 */
static __always_inline __u64 st_defer_request(struct task_struct *task, __u32 tid)
{
	struct st_defer_req fresh = {}, *req;
	__u64 start = task->start_time;
	long err;

	req = bpf_map_lookup_elem(&st_defer_reqs, &tid);
	if (req && req->start_time == start) {
		/* The walk has begun: it cannot serve this event any more. */
		if (req->hold.closed) {
			st_stat_inc(ST_STAT_USYNC);
			return 0;
		}
		st_stat_inc(ST_STAT_USHARED);
		return req->cookie;
	}
	if (req) /* a dead task's request under a reused tid */
		bpf_map_delete_elem(&st_defer_reqs, &tid);
	fresh.cookie = st_defer_cookie();
	fresh.start_time = start;
	if (!fresh.cookie || bpf_map_update_elem(&st_defer_reqs, &tid, &fresh, BPF_NOEXIST)) {
		st_stat_inc(ST_STAT_DEFER_FULL);
		return 0;
	}
	req = bpf_map_lookup_elem(&st_defer_reqs, &tid);
	if (!req)
		return 0;
	err = st_defer_schedule(task, req);
	if (err) {
		bpf_map_delete_elem(&st_defer_reqs, &tid);
		st_stat_inc(err == -EBUSY ? ST_STAT_TW_BUSY : ST_STAT_TW_FAIL);
		return 0;
	}
	return fresh.cookie;
}

/*
 * st_defer_hold_event() - hold the deferred event @ev for its entry's walk
 * (bpf/defer_hold.bpf.h). Return: true when held; false when the caller
 * sends it as a record (the walk will send the user stack too).
 */
static __always_inline bool st_defer_hold_event(struct st_event *ev)
{
	__u32 tid = ev->tid;
	struct st_defer_req *req = bpf_map_lookup_elem(&st_defer_reqs, &tid);

	return st_defer_hold(ev, req && req->cookie == ev->cookie ? &req->hold : NULL);
}

/*
 * A process the table walker has no tables for yet (just exec'ed, or not
 * loaded by user space yet): the event's own walk can fall back to a stack
 * copy unwound in user space (st_cfg.copy_fallback); a deferred one cannot.
 */
static __always_inline bool st_defer_unknown_process(__u32 pid)
{
	return st_cfg.unwind != ST_UNWIND_FP && !bpf_map_lookup_elem(&st_uprocs, &pid);
}

#endif
