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

#include "bpf/state.bpf.h"

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
	pe->kind = ST_REC_PROC;
	pe->what = what;
	pe->pid = pid;
	pe->ts = bpf_ktime_get_ns();
	pe->start = pe->end = pe->pgoff = pe->ino = 0;
	pe->dev = pe->ncomps = pe->map_flags = 0;
	return pe;
}

static __always_inline void st_proc_output(struct st_proc_event *pe, __u64 size)
{
	if (bpf_ringbuf_output(&st_events, pe, size, 0))
		st_stat_inc(ST_DROP_PROC_RINGBUF);
}

static __always_inline void st_proc_send(__u32 pid, __u16 what)
{
	struct st_proc_event *pe = st_proc_record(pid, what);

	if (pe)
		st_proc_output(pe, offsetof(struct st_proc_event, comps));
}

/*
 * The path of @f as dentry names, leaf first, crossing mount points up to
 * the root: the same walk d_path() does, bounded.
 */
static __always_inline void st_proc_path(struct st_proc_event *pe, struct file *f)
{
	struct dentry *d = BPF_CORE_READ(f, f_path.dentry), *parent, *root;
	struct vfsmount *vmnt = BPF_CORE_READ(f, f_path.mnt);
	struct mount *mnt = container_of(vmnt, struct mount, mnt), *up;
	__u32 n = 0, i;

	for (i = 0; i < ST_PATH_COMPS + 4; i++) {
		root = BPF_CORE_READ(vmnt, mnt_root);
		parent = BPF_CORE_READ(d, d_parent);
		if (d == root) {
			up = BPF_CORE_READ(mnt, mnt_parent);
			if (up == mnt)
				break;
			d = BPF_CORE_READ(mnt, mnt_mountpoint);
			mnt = up;
			vmnt = (struct vfsmount *)((void *)up + bpf_core_field_offset(struct mount, mnt));
			continue;
		}
		if (d == parent)
			break;
		if (n >= ST_PATH_COMPS) {
			pe->map_flags |= ST_MAP_PATH_CUT;
			break;
		}
		bpf_probe_read_kernel_str(pe->comps[n & (ST_PATH_COMPS - 1)], ST_COMP_LEN,
					  BPF_CORE_READ(d, d_name.name));
		n++;
		d = parent;
	}
	if (i == ST_PATH_COMPS + 4)
		pe->map_flags |= ST_MAP_PATH_CUT;
	pe->ncomps = n;
}

static long st_proc_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	struct st_proc_event *pe = *(struct st_proc_event **)data;
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
	st_proc_path(pe, f);
	return 0;
}

/* Sends the file mapping that holds @addr in the current process, if any. */
static __always_inline void st_proc_send_map(__u32 pid, __u64 addr)
{
	struct st_proc_event *pe = st_proc_record(pid, ST_PROC_MAP);

	if (!pe)
		return;
	bpf_find_vma(bpf_get_current_task_btf(), addr, st_proc_vma_cb, &pe, 0);
	if (pe->ino)
		st_proc_output(pe, sizeof(*pe));
}

SEC("tracepoint/sched/sched_process_exec")
int st_proc_exec(void *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;

	struct task_struct *task = bpf_get_current_task_btf();
	struct pt_regs *regs;

	if (!st_proc_wanted(pid))
		return 0;
	st_proc_send(pid, ST_PROC_EXEC);
	/* The kernel mapped the binary and its interpreter itself: describe both now. */
	st_proc_send_map(pid, BPF_CORE_READ(task, mm, start_code));
	regs = (struct pt_regs *)bpf_task_pt_regs(task);
	st_proc_send_map(pid, regs->ip);
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
		st_proc_send_map(id >> 32, ctx->ret);
	return 0;
}

#endif
