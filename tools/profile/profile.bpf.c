// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap profile: one program on a perf cpu-clock event per CPU; every
 * sample goes through the capture library (kernel stack now, user stack
 * synchronous or deferred to the return to user space).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "bpf/capture.bpf.h"
#include "bpf/proc_events.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Set before load by tools/profile/profile.c. */
const volatile bool profile_idle = false; /* -I: keep samples of the idle tasks */

SEC("perf_event")
int st_profile_sample(struct bpf_perf_event_data *ctx)
{
	/* The idle tasks are pid 0, one per CPU. */
	if (!profile_idle && !(__u32)bpf_get_current_pid_tgid())
		return 0;
	return st_capture(ctx, 0, 1);
}
