/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process lifecycle probes: exec, fork, executable mmap, munmap of code and
 * exit, sent as st_proc_event records through the capture ring buffer, in
 * order with the events and stamped with their time. User space
 * (lib/proc/lifecycle.c) keeps each process's mappings over time in the
 * process registry, which reloads unwind tables on change and frees a
 * process's BPF tables on exit. A tool includes this header once;
 * lib/session/proc_events.c attaches the programs by name.
 */
#ifndef ST_PROC_EVENTS_BPF_H
#define ST_PROC_EVENTS_BPF_H

#include "bpf/state.bpf.h"
#include <bpf/bpf_tracing.h>

#include "bpf/ustack.bpf.h" /* st_uprocs: a fork copies its parent's entry, exec drops it */
#include "bpf/aggregate.bpf.h" /* st_agg_mappings_changed(): counts of changed code kept apart */
#include "bpf/proc_path.bpf.h"
#include "bpf/met.bpf.h" /* st_met_heard(): records only for processes met */
#include "bpf/compat.bpf.h"

#ifndef ST_PROT_EXEC
#define ST_PROT_EXEC 0x4 /* PROT_EXEC */
#endif
#define ST_MAP_FIXED 0x10 /* MAP_FIXED: the new mapping replaces what was there */
#define ST_EBUSY 16       /* bpf_find_vma(): the mm lock is contended */
/* VMAs looked at per munmap: a library is 4-5 (its segments and the gaps between them). */
#ifndef ST_UNMAP_SCAN
#define ST_UNMAP_SCAN 16
#endif

/* Threads inside a munmap (or a MAP_FIXED mmap) of code: the range, reported at its exit. */
struct st_unmap_range {
	__u64 start, end;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct st_unmap_range);
} st_unmaps SEC(".maps");

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

/* One record under construction per CPU: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_proc_event);
} st_proc_scratch SEC(".maps");

static __always_inline struct st_proc_event *st_proc_record(__u32 pid, __u16 what)
{
	__u32 zero = 0;
	struct st_proc_event *pe = bpf_map_lookup_elem(&st_proc_scratch, &zero);

	if (!pe)
		return NULL;
	/*
	 * Code came or went (exec, map, unmap): in-kernel counts start anew. So
	 * they do at a fork and at the exit, so that a reused pid never adds to
	 * an exited process's counts, which user space reads one last time and
	 * deletes (agg_reader__read_gone()).
	 */
	st_agg_mappings_changed(pid);
	st_proc_head(pe, pid, what, bpf_ktime_get_ns());
	return pe;
}

/*
 * System-wide, process records wake the reader in batches like samples do:
 * nothing waits on them (a sample's record comes after them in the buffer),
 * and a wake-up for each fork, exec, mapping and exit was a wake-up for each
 * short process on a machine that runs many. Traced alone (-p, -t), a
 * process's records each wake it: they are few, and a library it just
 * mapped gets its unwind table before its next events, rather than after
 * the process is gone (its events meanwhile take the stack-copy path).
 */
static __always_inline __u64 st_proc_rb_flags(void)
{
	return st_cfg.filter_pid || st_cfg.filter_tid ? 0 : st_rb_flags();
}

static __always_inline void st_proc_output(struct st_proc_event *pe, __u64 size)
{
	if (bpf_ringbuf_output(&st_events, pe, size, st_proc_rb_flags()))
		st_stat_inc(ST_DROP_PROC_RINGBUF);
}

static __always_inline void st_proc_send(__u32 pid, __u16 what)
{
	struct st_proc_event *pe = st_proc_record(pid, what);

	if (pe)
		st_proc_output(pe, offsetof(struct st_proc_event, comps));
}

static long st_proc_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct st_path_ctx *c = data;
	struct st_proc_event *pe = c->pe;
	struct file *f = vma->vm_file;
	struct inode *ino;

	if (!f)
		return 0;
	ino = BPF_CORE_READ(f, f_inode);
	pe->start = vma->vm_start;
	pe->end = vma->vm_end;
	pe->pgoff = vma->vm_pgoff << 12;
	pe->ino = BPF_CORE_READ(ino, i_ino);
	pe->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	c->s->file = (__u64)f; /* named after the lookup: bpf_loop() is not for callbacks */
	return 0;
}

/*
 * Sends the file mapping that holds @addr in the current process, if any.
 * Not in the compat build (no bpf_find_vma(), bpf/compat.bpf.h): there user
 * space reads /proc/PID/maps at the exec record (procs__exec()), and code a
 * process maps later is not described.
 */
#ifdef ST_COMPAT
static __always_inline void st_proc_send_map(__u32 pid, __u64 addr)
{
}
#else
static __always_inline void st_proc_send_map(__u32 pid, __u64 addr)
{
	__u32 zero = 0;
	struct st_path_ctx c = { .pe = st_proc_record(pid, ST_PROC_MAP),
				 .s = bpf_map_lookup_elem(&st_path_states, &zero) };

	if (!c.pe || !c.s)
		return;
	bpf_find_vma(bpf_get_current_task_btf(), addr, st_proc_vma_cb, &c, 0);
	if (c.pe->ino) {
		st_proc_path(c.pe, c.s);
		/* Up to its last path name: the unused slots were 3/4 of the bytes copied. */
		st_proc_output(c.pe, st_proc_map_size(c.pe->ncomps));
	}
}
#endif

SEC("tracepoint/sched/sched_process_exec")
int st_proc_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
#ifndef ST_COMPAT
	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs;
#endif

	if (!st_proc_wanted(pid))
		return 0;
	/* The walker's entry (a fork's copy, or the old image's) describes mappings gone now. */
	bpf_map_delete_elem(&st_uprocs, &pid);
	if (!st_met_heard(pid))
		return 0;
	st_proc_send(pid, ST_PROC_EXEC);
#ifndef ST_COMPAT
	/* The kernel mapped the binary and its interpreter itself: describe both now. */
	st_proc_send_map(pid, BPF_CORE_READ(task, mm, start_code));
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	st_proc_send_map(pid, regs->ip);
#endif
	return 0;
}

SEC("tracepoint/sched/sched_process_exit")
int st_proc_exit(void *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32;
	bool leader = pid == (__u32)id, heard;
	struct task_struct *task = st_current_task();
	bool last = !BPF_CORE_READ(task, signal, live.counter);

	/* Before the exit record, and while the mm is there (the tracepoint precedes exit_mm()). */
	heard = st_met_exit(pid, leader, last);
	/* The leader exits last in the common case; its exit ends the process for us. */
	if (leader && st_proc_wanted(pid)) {
		/* Gone even if the record is lost: the entry must not outlive the rows it names. */
		bpf_map_delete_elem(&st_uprocs, &pid);
		if (heard)
			st_proc_send(pid, ST_PROC_EXIT);
	}
	if (last)
		st_met_forget(pid);
	return 0;
}

/*
 * A child maps what its parent maps until it execs: the walk at its first
 * event (often the execve itself, a moment later) finds its parent's tables
 * under its own pid, and user space copies the parent's mappings from this
 * record. Threads share their process's entry and are not reported.
 */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(st_proc_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, pid = child->tgid;
	struct st_proc_event *pe;
	struct st_uproc *up;

	/*
	 * Under the met filter a child is unmet until its own first event, which
	 * describes it (bpf/met.bpf.h): no record, and no walker entry copied
	 * for a process user space would not hear of.
	 */
	if (pid == ppid || !st_proc_wanted(ppid) || st_met_filtering())
		return 0;
	pe = st_proc_record(pid, ST_PROC_FORK);
	if (!pe)
		return 0;
	pe->ppid = ppid;
	up = bpf_map_lookup_elem(&st_uprocs, &ppid);
	if (up)
		bpf_map_update_elem(&st_uprocs, &pid, up, BPF_ANY);
	/*
	 * User space frees a file's rows once no process it knows maps the file:
	 * a copy it never hears of could outlive them. Without the record the
	 * child is read from /proc at its first event instead.
	 */
	if (bpf_ringbuf_output(&st_events, pe, offsetof(struct st_proc_event, comps),
			       st_proc_rb_flags())) {
		st_stat_inc(ST_DROP_PROC_RINGBUF);
		bpf_map_delete_elem(&st_uprocs, &pid);
	}
	return 0;
}

struct st_vma_scan {
	__u64 next, end;
	bool exec;
	bool busy; /* the mm lock was contended */
};

static long st_vma_scan_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct st_vma_scan *s = data;

	if (BPF_CORE_READ(vma, vm_flags) & ST_VM_EXEC)
		s->exec = true;
	s->next = vma->vm_end;
	return 0;
}

/*
 * One VMA of the scan. A bpf_loop() step rather than an open loop: the
 * verifier checks it once, not ST_UNMAP_SCAN times (~4k instructions in
 * each of two programs).
 */
static int st_range_scan_step(__u32 i, void *data)
{
	struct st_vma_scan *s = data;
	__u64 at = s->next;
	long err;

	if (at >= s->end)
		return 1;
	err = bpf_find_vma(bpf_get_current_task_btf(), at, st_vma_scan_cb, s, 0);
	if (err == -ST_EBUSY)
		s->busy = true;
	return err || s->exec || s->next <= at;
}

/*
 * Does [start, end) hold code? VMA by VMA from @start (a library's munmap
 * covers all its segments, the first of which is not executable). When the
 * mm lock is contended the answer is yes: user space ignores a range that
 * holds nothing it knows.
 */
static __always_inline bool st_range_has_exec(__u64 start, __u64 end)
{
	struct st_vma_scan s = { .next = start, .end = end };

	/* The compat build cannot look (bpf/compat.bpf.h): every range is noted. */
#ifdef ST_COMPAT
	return true;
#endif

	bpf_loop(ST_UNMAP_SCAN, st_range_scan_step, &s, 0);
	return s.exec || s.busy;
}

static __always_inline void st_proc_note_unmap(__u64 start, __u64 len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct st_unmap_range r = { .start = start, .end = start + len };

	if (r.end > r.start && st_range_has_exec(r.start, r.end))
		bpf_map_update_elem(&st_unmaps, &tid, &r, BPF_ANY);
}

/* The unmap noted at the call's entry, sent when the call succeeded. */
static __always_inline void st_proc_send_unmap(__u64 id, bool ok)
{
	__u32 tid = (__u32)id;
	struct st_unmap_range *r = bpf_map_lookup_elem(&st_unmaps, &tid);
	struct st_proc_event *pe;

	if (!r)
		return;
	pe = ok ? st_proc_record(id >> 32, ST_PROC_UNMAP) : NULL;
	if (pe) {
		pe->start = r->start;
		pe->end = r->end;
		st_proc_output(pe, offsetof(struct st_proc_event, comps));
	}
	bpf_map_delete_elem(&st_unmaps, &tid);
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
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, pid = id >> 32;
	__u8 one = 1;

	if (!st_proc_wanted(pid))
		return 0;
	/*
	 * Noted met or not: a process met while the call runs is described by
	 * a walk that may miss the mapping being made, so its exit sends it.
	 */
	if (ctx->prot & ST_PROT_EXEC)
		bpf_map_update_elem(&st_exec_mmaps, &tid, &one, BPF_ANY);
	/*
	 * A fixed mapping over code replaces it even when the new one is not
	 * code. Unmet, the scan is not made: a code mapping left "live" by it
	 * is ended by the record of whatever code is mapped there next.
	 */
	if ((ctx->flags & ST_MAP_FIXED) && st_met_heard(pid))
		st_proc_note_unmap(ctx->addr, ctx->len);
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
	bool ok = ctx->ret >= 0 || ctx->ret < -4095;

	st_proc_send_unmap(id, ok);
	if (!bpf_map_lookup_elem(&st_exec_mmaps, &tid))
		return 0;
	bpf_map_delete_elem(&st_exec_mmaps, &tid);
	if (ok && st_met_heard(id >> 32))
		st_proc_send_map(id >> 32, ctx->ret);
	return 0;
}

struct st_munmap_enter {
	__u64 pad;
	__s32 nr;
	__u32 pad2;
	__u64 addr, len;
};

/*
 * munmap of code (dlclose): from that moment frames at those addresses are
 * not that library's any more. Only ranges holding code are noted.
 */
SEC("tracepoint/syscalls/sys_enter_munmap")
int st_proc_munmap_enter(struct st_munmap_enter *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	/* Unmet: as for a fixed mmap above, the next code mapped there ends it. */
	if (st_proc_wanted(pid) && st_met_heard(pid))
		st_proc_note_unmap(ctx->addr, ctx->len);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_munmap")
int st_proc_munmap_exit(struct st_sys_exit *ctx)
{
	st_proc_send_unmap(bpf_get_current_pid_tgid(), ctx->ret == 0);
	return 0;
}

#endif
