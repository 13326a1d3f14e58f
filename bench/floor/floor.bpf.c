// SPDX-License-Identifier: GPL-2.0
/*
 * The physical floor of bench/bench_count.sh and bench/bench_offcpu.sh: the
 * least a tracer can do to get the kernel and the user stack of an event. A
 * program that calls bpf_get_stack for the kernel stack and for the user
 * stack (the kernel's frame-pointer walk) into a per-CPU buffer and keeps
 * nothing but a per-CPU count of the stacks it got, so the bench can check
 * it saw every event. No map of stacks, no ring buffer, no time stamp:
 * whatever a real tracer does beyond this is its distance from the floor.
 *
 * Two events, one loaded (floor.c): syscalls:sys_enter_getppid filtered to
 * one process (bench_count.sh), or every sched_switch of the machine, as
 * tp_btf like stacktap offcpu's (bench_offcpu.sh). At a switch the current
 * task is prev, the one going off the CPU, whose stacks an off-CPU tracer
 * wants.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#define FLOOR_MAX_DEPTH 127 /* kernel.perf_event_max_stack */

const volatile __u32 floor_tgid;
const volatile __u8 floor_kernel = 1;
const volatile __u8 floor_user = 1;

struct stacks {
	__u64 kernel[FLOOR_MAX_DEPTH];
	__u64 user[FLOOR_MAX_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stacks);
} floor_buf SEC(".maps");

/* [0] events, [1] empty kernel stacks, [2] empty user stacks: floor.c's twin */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 3);
	__type(key, __u32);
	__type(value, __u64);
} floor_counts SEC(".maps");

static __always_inline void floor_count(__u32 which)
{
	__u64 *c = bpf_map_lookup_elem(&floor_counts, &which);

	if (c)
		(*c)++;
}

/* The current task's stacks into this CPU's buffer, counted. */
static __always_inline void floor_stacks(void *ctx)
{
	__u32 zero = 0;
	struct stacks *s;

	s = bpf_map_lookup_elem(&floor_buf, &zero);
	if (!s)
		return;
	floor_count(0);
	if (floor_kernel && bpf_get_stack(ctx, s->kernel, sizeof(s->kernel), 0) <= 0)
		floor_count(1);
	if (floor_user &&
	    bpf_get_stack(ctx, s->user, sizeof(s->user), BPF_F_USER_STACK) <= 0)
		floor_count(2);
}

SEC("tracepoint/syscalls/sys_enter_getppid")
int floor_getppid(void *ctx)
{
	if (bpf_get_current_pid_tgid() >> 32 == floor_tgid)
		floor_stacks(ctx);
	return 0;
}

SEC("tp_btf/sched_switch")
int floor_switch(void *ctx)
{
	floor_stacks(ctx);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
