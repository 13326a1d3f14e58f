/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every part of the BPF capture library shares: the run-time config,
 * the ring buffer, the per-CPU record under construction, the counters.
 *
 * The bottom of the header DAG (each compiles alone, also with -DST_COMPAT: `make
 * bpf-headers`, part of `make check`):
 *
 *   state.bpf.h    config, ring buffer, scratch record, counters
 *   ucache.bpf.h   the exact walk cache: a task's last walk, reused when nothing it read changed
 *   ustack.bpf.h   THE user-stack walker: table rows, frame pointers, signal frames  (ucache)
 *   ucopy.bpf.h    a copy of the user stack for user space to unwind   (state, ustack)
 *   aggregate.bpf.h in-kernel exact aggregation                       (state)
 *   defer_hold.bpf.h deferred events held, joined to their walk, counted (state, aggregate)
 *   deferred.bpf.h the cookie, the task_work request and its callback (state, ustack, ucopy,
 *                  defer_hold)
 *   compat.bpf.h   the build for kernels without bpf_loop(): the kernel's fp walk  (state)
 *   capture.bpf.h  the kernel stack and the sync-or-defer decision     (all of the above)
 *   proc_events.bpf.h fork / exec / mmap / munmap / exit records        (state, ustack)
 */
#ifndef ST_STATE_BPF_H
#define ST_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "bpf/record.h"

#ifndef ST_PF_KTHREAD
#define ST_PF_KTHREAD 0x00200000 /* include/linux/sched.h PF_KTHREAD */
#endif

/* Ring buffer size: user space resizes it before load (--ringbuf-kb). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} st_events SEC(".maps");

/*
 * Non-zero while user space is behind: the records it drained from the ring
 * are queued past a mark (lib/session/pump.c, ring_pump__new()). Events
 * that can be counted in the kernel then are, as when the ring is over half
 * full (st_agg_ring_above()), so the records that have no other way (a
 * process's exec, mappings, exit) never wait behind a backlog of them.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} st_backlog SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ST_STAT_MAX);
	__type(key, __u32);
	__type(value, __u64);
} st_stats SEC(".maps");

const volatile struct st_config st_cfg = {
	.filter_cpu = -1,
	.kstack = 1,
	.ustack = 1,
	.kdepth_max = ST_MAX_KSTACK,
	.udepth_max = ST_MAX_USTACK,
};

/*
 * The record under construction; ips[] must directly follow ev (both
 * 8-aligned). Room for each stack's extra truncation-probe frame, plus the
 * verifier's view of the user stack's start (it cannot see that kd <= 127
 * survives the bpf_get_stack() byte count: two spare slots keep it happy).
 */
struct st_scratch {
	__u32 busy;
	__u32 want_copy;   /* the walk met code not loaded yet: attach a copy */
	__u32 check_bytes; /* the stack bytes the walk read (for --unwind-check's copy) */
	__u32 at_entry;    /* a uprobe at a function's first instruction (st_capture_at_entry()) */
	__u32 uhash_ok;    /* uhash holds the user part of the aggregation's hash (st_walk_user()) */
	__u64 uhash;
	struct st_event ev;
	__u64 ips[ST_MAX_KSTACK + 1 + ST_MAX_USTACK + 1 + 2];
	/* An st_ucopy and the stack bytes land right after the last frame used. */
	__u8 copy[sizeof(struct st_ucopy) + ST_COPY_MAX + 4096]; /* + a page of slack for the verifier */
};

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

/* True when the current task passes the pid/tid/cpu/cgroup filters. */
static __always_inline bool st_wanted(__u32 pid, __u32 tid, __u32 cpu)
{
	if (st_cfg.filter_cgroup && bpf_get_current_cgroup_id() != st_cfg.filter_cgroup)
		return false;
	if (st_cfg.filter_pid && pid != st_cfg.filter_pid)
		return false;
	if (st_cfg.filter_tid && tid != st_cfg.filter_tid)
		return false;
	if (st_cfg.filter_cpu >= 0 && cpu != (__u32)st_cfg.filter_cpu)
		return false;
	return true;
}

#endif
