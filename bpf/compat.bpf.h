/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture on kernels that lack the helpers the library is built on
 * (5.10: no bpf_loop() or bpf_find_vma(), 5.17; no
 * bpf_get_current_task_btf(), 5.11; no bpf_task_pt_regs() or
 * bpf_get_attach_cookie(), 5.15). A third build of every object
 * (Makefile's *.compat.bpf.o, -DST_COMPAT) takes these paths instead; user
 * space opens it where lib/session/features.c's feature_compat() says so,
 * and sends the same records (bpf/record.h), so nothing after the ring
 * buffer knows which build ran.
 *
 * What it costs: one bpf_loop() callback left in a program makes the whole
 * object fail to load there (the verifier counts its subprograms without
 * callbacks), so everything that loops by callback is left out, not only
 * switched off. The user stack is the kernel's own frame-pointer walk
 * (bpf_get_stack(BPF_F_USER_STACK)): no unwind tables, so a stack ends at
 * the first frame without a frame pointer, and at perf_event_max_stack
 * frames (127 by default); nothing is deferred, cached or counted in the
 * kernel; no stack copies; and, without attach cookies, a record cannot say
 * which probe spec fired: user space attaches one spec only.
 */
#ifndef ST_COMPAT_BPF_H
#define ST_COMPAT_BPF_H

#include "bpf/state.bpf.h"
#include <bpf/bpf_tracing.h>

/* The probe spec that fired (lib/probe/attach.c sets it): one spec, 0, in the compat build. */
#ifdef ST_COMPAT
#define st_attach_cookie(ctx) 0ull
#else
#define st_attach_cookie(ctx) bpf_get_attach_cookie(ctx)
#endif

/* The current task, read through CO-RE: a plain pointer, not a BTF one. */
static __always_inline struct task_struct *st_compat_task(void)
{
	return (struct task_struct *)bpf_get_current_task();
}

/* The current task for code that reads it through BPF_CORE_READ() only, in either build. */
#ifdef ST_COMPAT
#define st_current_task() st_compat_task()
#else
#define st_current_task() bpf_get_current_task_btf()
#endif

/* As st_kframes(), for the user stack: @max frames at most, cut when more came. */
static __always_inline __u32 st_compat_uframes(long bytes, __u32 max, struct st_event *ev)
{
	__u32 n = bytes > 0 ? (__u64)bytes / 8 : 0;

	/* At the kernel's ceiling (perf_event_max_stack, 127 by default) it may have been cut. */
	if (n > max || n == ST_MAX_KSTACK) {
		ev->flags |= ST_EV_UTRUNC;
		ev->ustop = ST_USTOP_DEPTH;
		st_stat_inc(ST_STAT_UTRUNC);
		if (n > max)
			n = max;
	}
	return n;
}

/*
 * At a uprobe on a function's first instruction rbp is still the caller's:
 * the kernel's walk goes from the probed pc to the caller's return address,
 * and the caller itself, whose return address is at [sp], is missing.
 * Kernels from 6.11 put it back themselves. So the walk lands one slot up,
 * and [sp] goes in front of its second frame unless that frame is [sp]
 * already; then the walk is taken again in place (only where the kernel
 * already does it). Return: the frames at @ips.
 */
static __always_inline __u32 st_compat_at_entry(struct pt_regs *regs, __u64 *ips,
						struct st_event *ev)
{
	__u32 max = st_cfg.udepth_max;
	__u64 ret = 0;
	long bytes;
	__u32 n;

	if (bpf_probe_read_user(&ret, sizeof(ret), (void *)PT_REGS_SP(regs)))
		ret = 0;
	bytes = bpf_get_stack(regs, ips + 1, (max + 1) * 8, BPF_F_USER_STACK);
	n = st_compat_uframes(bytes, max, ev);
	if (!n)
		return 0;
	if (!ret || (n > 1 && ips[2] == ret)) {
		ev->flags &= ~ST_EV_UTRUNC;
		ev->ustop = ST_USTOP_NONE;
		bytes = bpf_get_stack(regs, ips, (max + 1) * 8, BPF_F_USER_STACK);
		return st_compat_uframes(bytes, max, ev);
	}
	ips[0] = ips[1];
	ips[1] = ret;
	if (n < max)
		return n + 1;
	ev->flags |= ST_EV_UTRUNC;
	ev->ustop = ST_USTOP_DEPTH;
	return max;
}

/*
 * st_compat_ustack() - the user stack of the current event by the kernel's
 * frame-pointer walk, into @ips (right after the kernel's frames).
 * @ctx: the program's context; for @at_entry, a uprobe's registers
 *
 * Return: the frames, 0 with ST_EV_UFAIL when none came.
 */
static __always_inline __u32 st_compat_ustack(void *ctx, __u64 *ips, struct st_event *ev,
					      bool at_entry)
{
	__u32 n;

	if (at_entry)
		n = st_compat_at_entry(ctx, ips, ev);
	else
		n = st_compat_uframes(bpf_get_stack(ctx, ips, (st_cfg.udepth_max + 1) * 8,
						    BPF_F_USER_STACK),
				      st_cfg.udepth_max, ev);
	if (!n) {
		ev->flags |= ST_EV_UFAIL;
		st_stat_inc(ST_STAT_UFAIL);
	}
	return n;
}

#endif
