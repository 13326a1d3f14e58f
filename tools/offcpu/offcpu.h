/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire structs of stacktap offcpu: the per-task block the BPF side keeps
 * from a switch-out to its switch-in (tools/offcpu/offcpu.bpf.c). What
 * reaches user space is an ordinary st_event whose weight is the time off
 * the CPU, or a count of them (bpf/aggregate.bpf.h).
 */
#ifndef ST_TOOLS_OFFCPU_H
#define ST_TOOLS_OFFCPU_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#include "bpf/record.h"

/*
 * A blocked task's switch-out record: kernel frames (and user frames when
 * captured at the event) up to OFFCPU_FRAMES; a deeper user stack is cut
 * there and flagged ST_EV_UTRUNC. 256 frames: a 2 KiB block per task.
 */
#define OFFCPU_FRAMES 256

struct offcpu_block {
	struct st_event ev; /* ts: the switch-out; weight: the time off the CPU, at the switch-in */
	__u64 ips[OFFCPU_FRAMES];
	/*
	 * The count hash (bpf/aggregate.bpf.h) these frames matched at the last
	 * switch-in, compared in full; 0: none. Kept while each switch-out finds
	 * the same frames, so a task blocking where it blocked before is counted
	 * without hashing and comparing its stack again (task storage only).
	 */
	__u64 agg_hash;
	/*
	 * The task's time on a CPU (se.sum_exec_runtime) at the switch-out. A
	 * block still pending at the task's next switch-out had a switch-in the
	 * kernel never traced (seen on this kernel, by ftrace too): the time the
	 * task ran since then says when it came back (offcpu__no_switch_in()).
	 */
	__u64 ran_ns;
};

/* --state: which switch-outs count, one bit per class of prev's state. */
enum offcpu_state {
	OFFCPU_RUNNABLE,        /* preempted: R */
	OFFCPU_SLEEPING,        /* TASK_INTERRUPTIBLE: S */
	OFFCPU_UNINTERRUPTIBLE, /* TASK_UNINTERRUPTIBLE: D */
	OFFCPU_IDLE,            /* TASK_IDLE (D | NOLOAD): I */
	OFFCPU_STOPPED,         /* stopped or traced: T, t */
	OFFCPU_STATE_MAX,
};

/* -u / -k */
enum offcpu_threads {
	OFFCPU_ALL_THREADS,
	OFFCPU_USER_THREADS,
	OFFCPU_KERNEL_THREADS,
};

#endif
