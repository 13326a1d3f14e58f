// SPDX-License-Identifier: GPL-2.0
/*
 * Event probes shared by `count` and `snoop`: one program per attach kind,
 * attached once per matching probe spec; the attach cookie carries the
 * spec's index so a record says which probe fired (the compat build has no
 * cookies, and user space attaches one spec there: bpf/compat.bpf.h).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/usdt.bpf.h>

#include "bpf/capture.bpf.h"
#include "bpf/proc_events.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("tracepoint")
int st_tracepoint(void *ctx)
{
	return st_capture_tp(ctx, (__u32)st_attach_cookie(ctx), 1);
}

/* u:PATH:SYMBOL is a function's first instruction: a symbol is a function (lib/elf/symtab.c). */
SEC("uprobe")
int st_uprobe(struct pt_regs *ctx)
{
	return st_capture_at_entry(ctx, (__u32)st_attach_cookie(ctx), 1);
}

/* At a function's return: its caller's frame is the innermost; the walker puts back the
 * return addresses the uretprobe trampoline stands in for. */
SEC("uretprobe")
int st_uretprobe(struct pt_regs *ctx)
{
	return st_capture(ctx, (__u32)st_attach_cookie(ctx), 1);
}

SEC("usdt")
int st_usdt(struct pt_regs *ctx)
{
	return st_capture(ctx, (__u32)bpf_usdt_cookie(ctx), 1);
}

SEC("kprobe")
int st_kprobe(struct pt_regs *ctx)
{
	return st_capture(ctx, (__u32)st_attach_cookie(ctx), 1);
}
