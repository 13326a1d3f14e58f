// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap offcpu: at a task's switch-out (sched_switch, in the task
 * itself) the capture library takes its stacks, the user stack deferred to
 * its return to user space, and the record is kept per task; at its
 * switch-in the time it was off the CPU becomes the record's weight and
 * the record is counted in the kernel (bpf/aggregate.bpf.h) or sent: one
 * record per block, paired here, never in user space.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpf/capture.bpf.h"
#include "bpf/proc_events.bpf.h"
#include "tools/offcpu/offcpu.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load by tools/offcpu/offcpu.c. */
const volatile __u32 offcpu_states = 0;                    /* bits of enum offcpu_state; 0: all */
const volatile __u32 offcpu_threads = OFFCPU_ALL_THREADS; /* -u / -k */
const volatile __u64 offcpu_min_ns = 0;                    /* -m */
const volatile __u64 offcpu_max_ns = ~0ull;                /* -M */

/*
 * Tasks off the CPU now, by tid: the switch-out's record (its time in
 * ev.ts, its stacks), until the switch-in brings the time off the CPU.
 * Full: the switch-out is not recorded, and counted (ST_DROP_BLOCK_FULL).
 * Allocated as used.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, struct offcpu_block);
} offcpu_start SEC(".maps");

/*
 * The same blocks in task storage where the kernel has it (set before load,
 * probed; the map is then not created and this code is dead): a task's block
 * is allocated once and reused at every switch-out, where the hash above
 * allocates a 2 KiB element at each switch-out and frees it at the switch-in
 * (and bpf_mem_alloc refills and frees its per-CPU caches by irq_work, a VM
 * exit here, as a task's switch-outs and switch-ins land on different CPUs).
 * A block is pending while its ev.ts is not 0.
 */
const volatile __u32 offcpu_by_task = 0;

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct offcpu_block);
} offcpu_blocks SEC(".maps");

#ifndef BPF_LOCAL_STORAGE_GET_F_CREATE
#define BPF_LOCAL_STORAGE_GET_F_CREATE 1
#endif

#define OFFCPU_TASK_INTERRUPTIBLE 0x1 /* include/linux/sched.h */
#define OFFCPU_TASK_UNINTERRUPTIBLE 0x2
#define OFFCPU_TASK_STOPPED 0x4
#define OFFCPU_TASK_TRACED 0x8
#define OFFCPU_TASK_NOLOAD 0x400

static __always_inline int offcpu__class(bool preempt, unsigned int state)
{
	if (preempt || !state)
		return OFFCPU_RUNNABLE;
	if (state & OFFCPU_TASK_INTERRUPTIBLE)
		return OFFCPU_SLEEPING;
	if (state & OFFCPU_TASK_UNINTERRUPTIBLE)
		return state & OFFCPU_TASK_NOLOAD ? OFFCPU_IDLE : OFFCPU_UNINTERRUPTIBLE;
	if (state & (OFFCPU_TASK_STOPPED | OFFCPU_TASK_TRACED))
		return OFFCPU_STOPPED;
	return -1; /* dead or parked: it will not come back */
}

static __always_inline bool offcpu__wanted(bool preempt, struct task_struct *prev,
					   unsigned int state)
{
	bool kthread = prev->flags & ST_PF_KTHREAD;
	int class = offcpu__class(preempt, state);

	if (!prev->pid || class < 0)
		return false;
	if (offcpu_threads == OFFCPU_USER_THREADS && kthread)
		return false;
	if (offcpu_threads == OFFCPU_KERNEL_THREADS && !kthread)
		return false;
	if (offcpu_states && !(offcpu_states & (1u << class)))
		return false;
	return st_wanted(prev->tgid, prev->pid, bpf_get_smp_processor_id());
}

/*
 * A block whose record found no room, counted in the kernel (st_agg_rescue()).
 * The first of its key is only made there, to be sent; the ring has just
 * refused it, so it is counted with a second call. A rescue may cut the
 * frames (st_agg_cut()): the block's count hash is forgotten.
 * Return: true when counted.
 */
static __always_inline bool offcpu__rescue(struct offcpu_block *b)
{
	int r = st_agg_rescue(&b->ev);

	if (r == ST_AGG_FIRST)
		r = st_agg_rescue(&b->ev);
	b->agg_hash = 0;
	return r == ST_AGG_COUNTED;
}

/* The current task's time on the CPU so far. */
static __always_inline __u64 offcpu__ran_ns(void)
{
#ifdef ST_COMPAT
	return BPF_CORE_READ(st_compat_task(), se.sum_exec_runtime);
#else
	return bpf_get_current_task_btf()->se.sum_exec_runtime;
#endif
}

/* The pending block of @next, or NULL. */
static __always_inline struct offcpu_block *offcpu__pending(struct task_struct *next, __u32 tid)
{
	struct offcpu_block *b;

	if (!offcpu_by_task)
		return bpf_map_lookup_elem(&offcpu_start, &tid);
	b = bpf_task_storage_get(&offcpu_blocks, next, NULL, 0);
	return b && b->ev.ts ? b : NULL;
}

/* The block of @next is counted or sent: no longer pending. */
static __always_inline void offcpu__done(struct offcpu_block *b, __u32 tid)
{
	if (offcpu_by_task)
		b->ev.ts = 0;
	else
		bpf_map_delete_elem(&offcpu_start, &tid);
}

/*
 * Counts @b in the kernel where it can be. Frames the last switch-in
 * matched (b->agg_hash) are counted under that hash again; otherwise the
 * whole way, keeping the hash for the next time (task storage only: the
 * hash's element is freed at each switch-in). Return: true when counted.
 */
static __always_inline bool offcpu__count(struct offcpu_block *b)
{
	__u64 hash;
	bool counted;

	/* A hash element is a copy of the scratch: its agg_hash is not this block's. */
	if (!offcpu_by_task)
		return st_agg_event(&b->ev, false);
	if (b->agg_hash && st_agg_event_again(&b->ev, b->agg_hash))
		return true;
	counted = st_agg_event_keyed(&b->ev, &hash);
	b->agg_hash = hash;
	return counted;
}

/*
 * @b's block ended at @end: its time off the CPU is the record's weight. A
 * static subprogram: the switch-in and a missed one (offcpu__no_switch_in())
 * share one verified copy of the counting.
 */
static __noinline void offcpu__end(struct offcpu_block *b, __u64 end)
{
	__u64 delta;
	__u32 n;

	if (!b)
		return;
	delta = end - b->ev.ts;
	if (delta < offcpu_min_ns || delta > offcpu_max_ns)
		return;
	b->ev.weight = delta;
	n = (__u32)b->ev.kdepth + b->ev.udepth;
	if (n > OFFCPU_FRAMES)
		n = OFFCPU_FRAMES;
	/* Deferred: held for the entry's walk, which joins and counts it. */
	if (st_capture_held(&b->ev) || offcpu__count(b))
		return;
	if (!bpf_ringbuf_output(&st_events, &b->ev, sizeof(b->ev) + n * 8, st_rb_flags()))
		st_stat_inc(ST_STAT_SENT);
	else if (!offcpu__rescue(b))
		st_agg_drop();
}

/* The block of @next is over. */
static __always_inline void offcpu__switch_in(struct task_struct *next, __u64 now)
{
	__u32 tid = next->pid;
	struct offcpu_block *b = offcpu__pending(next, tid);

	if (!b)
		return;
	offcpu__end(b, now);
	offcpu__done(b, tid);
}

/*
 * @prev, switched out at @now, still has a pending block: the kernel traced
 * no switch-in since (ftrace shows the same gap, a wakeup then nothing, on
 * this kernel). It came back when it had @now less the time it ran since its
 * block began; later if it also waited runnable in between. Counted, so that
 * no block is lost unsaid.
 */
static __always_inline void offcpu__no_switch_in(struct task_struct *prev, __u64 now)
{
	__u32 tid = prev->pid;
	struct offcpu_block *b = offcpu__pending(prev, tid);
	__u64 ran;

	if (!b)
		return;
	ran = prev->se.sum_exec_runtime - b->ran_ns;
	st_stat_inc(ST_STAT_BLOCK_NO_IN);
	offcpu__end(b, ran < now - b->ev.ts ? now - ran : b->ev.ts);
	offcpu__done(b, tid);
}

/*
 * @s's record into the current task's block: its header, and its frames
 * unless they are the block's already, compared in full (then the block
 * keeps the count hash they matched, offcpu__count()).
 */
static __always_inline long offcpu__keep_by_task(struct st_scratch *s)
{
	struct offcpu_block *b = bpf_task_storage_get(&offcpu_blocks, st_current_task(), NULL,
						      BPF_LOCAL_STORAGE_GET_F_CREATE);
	__u64 size = sizeof(s->ev) + ((__u32)s->ev.kdepth + s->ev.udepth) * 8ull;

	/* The bound must sit on the register that is used: keep clang from copying it. */
	barrier_var(size);
	/* Never past the frames: agg_hash is the block's own. */
	if (size > offsetof(struct offcpu_block, agg_hash))
		size = offsetof(struct offcpu_block, agg_hash);
	if (!b)
		return -1;
	if (b->agg_hash && st_agg_same_frames(&s->ev, &b->ev))
		size = sizeof(s->ev);
	else
		b->agg_hash = 0;
	b->ran_ns = offcpu__ran_ns();
	return bpf_probe_read_kernel(b, size, &s->ev);
}

/* @s's record into the hash of blocks, with the task's run time. Return: 0 or -errno. */
static __always_inline long offcpu__keep_by_tid(struct st_scratch *s)
{
	__u32 tid = s->ev.tid;
	struct offcpu_block *b;
	long err = bpf_map_update_elem(&offcpu_start, &tid, &s->ev, BPF_ANY);

	if (err)
		return err;
	b = bpf_map_lookup_elem(&offcpu_start, &tid);
	if (b)
		b->ran_ns = offcpu__ran_ns();
	return 0;
}

/*
 * Keeps the switch-out's record of @s for the switch-in. Frames beyond a
 * block's room are cut from the user stack and counted as truncated.
 */
static __always_inline void offcpu__switch_out(struct st_scratch *s)
{
	if ((__u32)s->ev.kdepth + s->ev.udepth > OFFCPU_FRAMES) {
		s->ev.udepth = s->ev.kdepth < OFFCPU_FRAMES ? OFFCPU_FRAMES - s->ev.kdepth : 0;
		s->ev.flags |= ST_EV_UTRUNC;
		st_stat_inc(ST_STAT_UTRUNC);
	}
	/* The record's header is followed by its frames in the scratch: a block's layout. */
	if (offcpu_by_task ? offcpu__keep_by_task(s) : offcpu__keep_by_tid(s))
		st_stat_inc(ST_DROP_BLOCK_FULL);
	s->busy = 0;
}

/* The switch; @prev_state: the state @prev leaves the CPU in. */
static __always_inline int offcpu__switch(void *ctx, bool preempt, struct task_struct *prev,
					  struct task_struct *next, unsigned int prev_state)
{
	__u64 now = bpf_ktime_get_ns();
	struct st_scratch *s;

	offcpu__switch_in(next, now);
	offcpu__no_switch_in(prev, now);
	if (!offcpu__wanted(preempt, prev, prev_state))
		return 0;
	/* prev is the current task here: the capture library sees its stacks. */
	s = st_capture_stacks(ctx, 0, 0);
	if (s)
		offcpu__switch_out(s);
	return 0;
}

#ifdef ST_COMPAT
/* Before 5.18 the tracepoint has no prev_state, and before 5.14 the field is task->state. */
struct task_struct___st_old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int offcpu__state(struct task_struct *t)
{
	struct task_struct___st_old *old = (void *)t;

	if (bpf_core_field_exists(old->state))
		return BPF_CORE_READ(old, state);
	return BPF_CORE_READ(t, __state);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(st_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return offcpu__switch(ctx, preempt, prev, next, offcpu__state(prev));
}
#else
SEC("tp_btf/sched_switch")
int BPF_PROG(st_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	return offcpu__switch(ctx, preempt, prev, next, prev_state);
}
#endif
