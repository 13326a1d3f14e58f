/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process lifecycle probes: exec, executable mmap and exit, sent as
 * st_proc_event records through the capture ring buffer, in order with the
 * events. User space (lib/proc/tracker.c) reloads a process's mappings and
 * unwind tables on exec and mmap, and frees its BPF tables on exit. A tool
 * includes this header once; lib/session/proc_events.c attaches the
 * programs by name.
 */
#ifndef ST_PROC_EVENTS_BPF_H
#define ST_PROC_EVENTS_BPF_H

#include "bpf/capture.bpf.h"

#ifndef ST_PROT_EXEC
#define ST_PROT_EXEC 0x4 /* PROT_EXEC */
#endif

/* Threads inside an mmap(PROT_EXEC) call, so its exit can report it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u8);
} st_exec_mmaps SEC(".maps");

static __always_inline bool st_proc_wanted(__u32 pid)
{
	return !st_cfg.filter_pid || pid == st_cfg.filter_pid;
}

static __always_inline void st_proc_send(__u32 pid, __u16 what)
{
	struct st_proc_event pe = {
		.kind = ST_REC_PROC, .what = what, .pid = pid, .ts = bpf_ktime_get_ns(),
	};

	if (bpf_ringbuf_output(&st_events, &pe, sizeof(pe), 0))
		st_stat_inc(ST_DROP_RINGBUF_FULL);
}

SEC("tracepoint/sched/sched_process_exec")
int st_proc_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	if (st_proc_wanted(pid))
		st_proc_send(pid, ST_PROC_EXEC);
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int st_proc_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;

	/* The leader exits last in the common case; its exit ends the process for us. */
	if (pid == (__u32)id && st_proc_wanted(pid))
		st_proc_send(pid, ST_PROC_EXIT);
	return 0;
}

struct st_mmap_enter {
	__u64 pad;
	__s32 nr;
	__u32 pad2;
	__u64 addr, len, prot, flags, fd, off;
};

SEC("tracepoint/syscalls/sys_enter_mmap")
int st_proc_mmap_enter(struct st_mmap_enter *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u8 one = 1;

	if ((ctx->prot & ST_PROT_EXEC) && st_proc_wanted(bpf_get_current_pid_tgid() >> 32))
		bpf_map_update_elem(&st_exec_mmaps, &tid, &one, BPF_ANY);
	return 0;
}

struct st_sys_exit {
	__u64 pad;
	__s32 nr;
	__u32 pad2;
	__s64 ret;
};

SEC("tracepoint/syscalls/sys_exit_mmap")
int st_proc_mmap_exit(struct st_sys_exit *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;

	if (!bpf_map_lookup_elem(&st_exec_mmaps, &tid))
		return 0;
	bpf_map_delete_elem(&st_exec_mmaps, &tid);
	if (ctx->ret >= 0 || ctx->ret < -4095)
		st_proc_send(id >> 32, ST_PROC_MMAP);
	return 0;
}

#endif
