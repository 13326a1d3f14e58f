/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire format of stacktap offcpu, beside the capture library's records in
 * the same ring buffer. A switch-out is an ordinary st_event whose weight is
 * its span id (the switch-out time); the switch-in names that span and
 * brings the time the task was off the CPU. User space pairs the two by
 * (tid, span), whichever comes first (tools/offcpu/offcpu.c).
 */
#ifndef ST_TOOLS_OFFCPU_H
#define ST_TOOLS_OFFCPU_H

#ifndef __BPF__
#include <linux/types.h>
#endif

/* Record kinds of this tool: above every ST_REC_* of bpf/record.h. */
#define OFFCPU_REC_WAKE 0x100

struct offcpu_wake {
	__u16 kind; /* OFFCPU_REC_WAKE */
	__u16 pad;
	__u32 tid;
	__u64 span;  /* the switch-out's weight: its time */
	__u64 delta; /* ns off the CPU */
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
