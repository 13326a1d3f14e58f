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

/* The block of @next is over: its time off the CPU is the record's weight. */
static __always_inline void offcpu__switch_in(struct task_struct *next)
{
	__u32 tid = next->pid, n;
	struct offcpu_block *b = bpf_map_lookup_elem(&offcpu_start, &tid);
	__u64 delta;

	if (!b)
		return;
	delta = bpf_ktime_get_ns() - b->ev.ts;
	if (delta >= offcpu_min_ns && delta <= offcpu_max_ns) {
		b->ev.weight = delta;
		n = (__u32)b->ev.kdepth + b->ev.udepth;
		if (n > OFFCPU_FRAMES)
			n = OFFCPU_FRAMES;
		/* Deferred: held for the entry's walk, which joins and counts it. */
		if (!((b->ev.flags & ST_EV_UDEFERRED) && st_defer_hold_event(&b->ev)) &&
		    !st_agg_event(&b->ev, false)) {
			if (!bpf_ringbuf_output(&st_events, &b->ev, sizeof(b->ev) + n * 8,
						st_rb_flags()))
				st_stat_inc(ST_STAT_SENT);
			else if (st_agg_rescue(&b->ev) != ST_AGG_COUNTED &&
				 st_agg_rescue(&b->ev) != ST_AGG_COUNTED)
				st_stat_inc(ST_DROP_RINGBUF_FULL); /* a key made, then counted */
		}
	}
	bpf_map_delete_elem(&offcpu_start, &tid);
}

/*
 * Keeps the switch-out's record of @s for the switch-in. Frames beyond a
 * block's room are cut from the user stack and counted as truncated.
 */
static __always_inline void offcpu__switch_out(struct st_scratch *s)
{
	__u32 tid = s->ev.tid;

	if ((__u32)s->ev.kdepth + s->ev.udepth > OFFCPU_FRAMES) {
		s->ev.udepth = s->ev.kdepth < OFFCPU_FRAMES ? OFFCPU_FRAMES - s->ev.kdepth : 0;
		s->ev.flags |= ST_EV_UTRUNC;
		st_stat_inc(ST_STAT_UTRUNC);
	}
	/* The record's header is followed by its frames in the scratch: a block's layout. */
	if (bpf_map_update_elem(&offcpu_start, &tid, &s->ev, BPF_ANY))
		st_stat_inc(ST_DROP_BLOCK_FULL);
	s->busy = 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(st_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct st_scratch *s;

	offcpu__switch_in(next);
	if (!offcpu__wanted(preempt, prev, prev_state))
		return 0;
	/* prev is the current task here: the capture library sees its stacks. */
	s = st_capture_stacks(ctx, 0, 0);
	if (s)
		offcpu__switch_out(s);
	return 0;
}
