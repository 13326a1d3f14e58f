// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap offcpu: at a task's switch-out (sched_switch, in the task
 * itself) its stacks go through the capture library, user stack deferred to
 * its return to user space; at its switch-in the time it was off the CPU
 * goes out as a struct offcpu_wake naming that switch-out.
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

/*
 * Tasks off the CPU now, by tid: their switch-out time. Full: the
 * switch-out is not recorded at all (no record without its switch-in).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u64);
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

static __always_inline void offcpu__switch_in(struct task_struct *next)
{
	__u32 tid = next->pid;
	struct offcpu_wake w = { .kind = OFFCPU_REC_WAKE, .tid = tid };
	__u64 *span = bpf_map_lookup_elem(&offcpu_start, &tid);

	if (!span)
		return;
	w.span = *span;
	w.delta = bpf_ktime_get_ns() - w.span;
	bpf_map_delete_elem(&offcpu_start, &tid);
	if (bpf_ringbuf_output(&st_events, &w, sizeof(w), 0))
		st_stat_inc(ST_DROP_RINGBUF_FULL);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(st_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	__u32 tid = prev->pid;
	__u64 span;

	offcpu__switch_in(next);
	if (!offcpu__wanted(preempt, prev, prev_state))
		return 0;
	span = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&offcpu_start, &tid, &span, BPF_ANY))
		return 0;
	/* prev is the current task here: the capture library sees its stacks. */
	return st_capture(ctx, 0, span);
}
