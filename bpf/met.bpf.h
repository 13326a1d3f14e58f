/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "met" filter: lifecycle records (bpf/proc_events.bpf.h) only for the
 * processes an event met. System-wide, most processes are never sampled,
 * and a record of their exec, mappings and exit was work on both sides for
 * nothing (docs/bench-cost.md, "The floor of the BPF-side filter").
 *
 * A process is met at its first captured event (st_capture_begin() calls
 * st_met_meet()): an entry in st_met by tgid, deleted when its last thread
 * exits, so a reused pid starts unmet. From the meeting on its exec, code
 * mmap/munmap and exit go as records; before it nothing went, so the
 * meeting also describes the process: its executable file mappings, walked
 * with the open-coded VMA iterator and sent as ST_PROC_DESC records ending
 * with an ST_PROC_DESC_END (bpf/record.h). The iterator refuses callers with
 * irqs off (-EBUSY: a perf sample), so the walk runs in a bpf_task_work
 * callback of the task that met it (st_met_cb(), on its way to user space),
 * or at the exit of a process still undescribed (st_met_exit(): the exit
 * tracepoint runs before the mm goes). Either way the description is in
 * the ring before /proc/PID/maps stops answering, which user space relies
 * on to describe a process gone before its first event is read.
 *
 * Races:
 *   - mmap/munmap between meeting and walk: the entry is made first, so
 *     the syscall's record goes (an exec mmap is noted at its entry whether
 *     met or not); the walk may list the same mapping (user space takes a
 *     description as "there at ts", idempotent) and skips a VMA being
 *     changed, which that syscall's own record covers.
 *   - exec between meeting and walk: a meeting inside execve whose user
 *     stack is walked at the event is described then and there
 *     (st_met_in_execve()). Where the iterator refuses (irqs off), a child
 *     not exec'ed yet gets its fork record (st_met_late_fork()); otherwise
 *     the walk describes the new image, after the exec's records, and the
 *     old image's frames of the meeting event are only known from a /proc
 *     read made in time (else unknown and counted as such, never resolved
 *     with the new image: the exec record ends what a later guess added).
 *   - threads: the entry is the process's (tgid); the walk may run in any
 *     of its threads. A thread exiting with its task_work still queued
 *     walks with no mm: the state goes back to undescribed, asked again.
 *   - pid reuse: the entry goes with the last thread (signal->live == 0),
 *     and deleting it cancels a queued walk; an exiting task never makes one.
 *   - a full st_met: from then on every record goes, as without the filter
 *     (ST_STAT_MET_FULL), so nothing is missed silently.
 */
#ifndef ST_MET_BPF_H
#define ST_MET_BPF_H

#include "bpf/state.bpf.h"
#include "bpf/deferred.bpf.h" /* the task_work kfuncs */
#include "bpf/proc_path.bpf.h"

extern int bpf_iter_task_vma_new(struct bpf_iter_task_vma *it, struct task_struct *task,
				 __u64 addr) __weak __ksym;
extern struct vm_area_struct *bpf_iter_task_vma_next(struct bpf_iter_task_vma *it) __weak __ksym;
extern void bpf_iter_task_vma_destroy(struct bpf_iter_task_vma *it) __weak __ksym;

#ifndef ENOENT
#define ENOENT 2
#endif
#ifndef EEXIST
#define EEXIST 17
#endif
#ifndef ST_VM_EXEC
#define ST_VM_EXEC 0x4 /* include/linux/mm.h VM_EXEC */
#endif
#ifndef ST_PF_KTHREAD
#define ST_PF_KTHREAD 0x00200000 /* include/linux/sched.h PF_KTHREAD */
#endif

/* Processes met at once: as many as tasks may have a deferred walk (ST_DEFER_MAX_TASKS). */
#ifndef ST_MET_MAX
#define ST_MET_MAX 32768
#endif

enum st_met_state {
	ST_MET_UNDESCRIBED = 0,
	ST_MET_ASKED = 1,     /* its walk is queued as task_work */
	ST_MET_DESCRIBED = 2,
};

struct st_met {
	struct bpf_task_work tw; /* the description's walk */
	__u64 start;             /* the group leader's start_time: which process of the pid */
	__u32 state;             /* enum st_met_state */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ST_MET_MAX);
	__type(key, __u32); /* tgid */
	__type(value, struct st_met);
} st_met SEC(".maps");

/* Set once a process could not be marked met: every record goes from then on. */
__u32 st_met_full;

/*
 * The description's record and path walk, apart from the lifecycle probes'
 * scratch: the callback is preemptible, and a tracepoint of another task on
 * this CPU would write over a shared one.
 */
struct st_met_scratch {
	struct st_proc_event pe;
	struct st_path_state ps;
	__u64 ts;   /* the walk's start: every mapping listed was there then or later */
	__u32 busy; /* a walk preempted by another on this CPU */
	__u32 sent; /* ST_PROC_DESC records made (in map memory: a counter on the BPF
		     * stack made every iteration a new verifier state) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct st_met_scratch);
} st_met_scratch SEC(".maps");

/* Does the process @pid get lifecycle records? */
static __always_inline bool st_met_heard(__u32 pid)
{
	return !st_cfg.met_filter || st_met_full || bpf_map_lookup_elem(&st_met, &pid);
}

/* Is the filter holding records back (a fork then sends nothing)? */
static __always_inline bool st_met_filtering(void)
{
	return st_cfg.met_filter && !st_met_full;
}

/* No wake-up: a description is read with the samples that follow it (3x the walk's cost). */
static __always_inline void st_met_output(struct st_met_scratch *s, __u64 size)
{
	if (bpf_ringbuf_output(&st_events, &s->pe, size, BPF_RB_NO_WAKEUP))
		st_stat_inc(ST_DROP_PROC_RINGBUF);
}

static __always_inline void st_met_send_vma(struct st_met_scratch *s, __u32 pid,
					    struct vm_area_struct *vma)
{
	struct st_proc_event *pe = &s->pe;
	struct inode *ino = BPF_CORE_READ(vma, vm_file, f_inode);

	st_proc_head(pe, pid, ST_PROC_DESC, s->ts);
	pe->start = BPF_CORE_READ(vma, vm_start);
	pe->end = BPF_CORE_READ(vma, vm_end);
	pe->pgoff = BPF_CORE_READ(vma, vm_pgoff) << 12;
	pe->ino = BPF_CORE_READ(ino, i_ino);
	pe->dev = BPF_CORE_READ(ino, i_sb, s_dev);
	s->ps.file = (__u64)BPF_CORE_READ(vma, vm_file);
	st_proc_path(pe, &s->ps);
	s->sent++;
	st_met_output(s, st_proc_map_size(pe->ncomps));
}

/*
 * Describes @task's process @pid: its executable file mappings, then the
 * end record with their count. Return: 0, or -errno (-ENOENT: no mm any
 * more; -EBUSY: the iterator or this CPU's scratch was busy): nothing sent.
 */
static __always_inline int st_met_describe(struct task_struct *task, __u32 pid)
{
	__u32 zero = 0;
	struct st_met_scratch *s = bpf_map_lookup_elem(&st_met_scratch, &zero);
	struct bpf_iter_task_vma it;
	struct vm_area_struct *vma;
	int err;

	if (!s || !bpf_iter_task_vma_new)
		return -ENOENT;
	if (s->busy)
		return -EBUSY;
	s->busy = 1;
	s->sent = 0;
	s->ts = bpf_ktime_get_ns();
	err = bpf_iter_task_vma_new(&it, task, 0);
	while ((vma = bpf_iter_task_vma_next(&it)))
		if ((BPF_CORE_READ(vma, vm_flags) & ST_VM_EXEC) && BPF_CORE_READ(vma, vm_file))
			st_met_send_vma(s, pid, vma);
	bpf_iter_task_vma_destroy(&it);
	if (!err) {
		st_proc_head(&s->pe, pid, ST_PROC_DESC_END, s->ts);
		s->pe.count = s->sent;
		st_met_output(s, offsetof(struct st_proc_event, comps));
	}
	s->busy = 0;
	return err;
}

/* The task_work callback: in the task that met its process, on its way to user space. */
static int st_met_cb(struct bpf_map *map, void *key, void *value)
{
	struct st_met *m = value;
	__u32 pid = *(__u32 *)key;

	if (bpf_get_current_pid_tgid() >> 32 != pid)
		return 0;
	if (!st_met_describe(bpf_get_current_task_btf(), pid)) {
		m->state = ST_MET_DESCRIBED;
	} else if (m->state == ST_MET_ASKED) {
		m->state = ST_MET_UNDESCRIBED;
		st_stat_inc(ST_STAT_MET_RETRY);
	}
	return 0;
}

static __always_inline long st_met_ask(struct task_struct *task, struct st_met *m)
{
	return st_task_work_schedule(task, &m->tw, &st_met, st_met_cb);
}

/*
 * Marks @pid met as the process that started at @start, if it is not yet.
 * A full table turns the filter off (every record goes from then on):
 * counted. Return: false then.
 */
static __always_inline bool st_met_mark(__u32 pid, __u64 start)
{
	struct st_met fresh = { .start = start };
	long err = bpf_map_update_elem(&st_met, &pid, &fresh, BPF_NOEXIST);

	if (err && err != -EEXIST) {
		st_met_full = 1;
		st_stat_inc(ST_STAT_MET_FULL);
		return false;
	}
	return true;
}

/*
 * Has the current process not exec'ed since its fork from its parent? Its
 * leader's exec count is still the one it was forked with, the parent's
 * has not moved either, and both run the same executable: a parent that
 * exited leaves its child to a reaper whose count may match by chance.
 */
static __always_inline bool st_met_unexeced_child(struct task_struct *task,
						  struct task_struct *parent)
{
	struct task_struct *leader = BPF_CORE_READ(task, group_leader);
	__u64 forked_at = BPF_CORE_READ(leader, parent_exec_id);

	return BPF_CORE_READ(leader, self_exec_id) == forked_at &&
	       BPF_CORE_READ(parent, group_leader, self_exec_id) == forked_at &&
	       BPF_CORE_READ(task, mm, exe_file, f_inode) ==
		       BPF_CORE_READ(parent, mm, exe_file, f_inode);
}

/*
 * A first meeting, inside its execve with irqs off (a sample, a switch-out),
 * of a child that has not exec'ed yet: the iterator refused to describe it
 * now, and the task_work would describe the image the exec makes. Its frames
 * are its parent's code: the fork record forks held back goes now, so user
 * space copies the parent's mappings (reading the parent from /proc if it
 * never met it), and the parent is marked met so that its own records (code
 * it maps, its exit) go from now on and user space can let it go. A record
 * lost is counted.
 */
static __always_inline void st_met_late_fork(struct task_struct *task, __u32 pid)
{
	struct task_struct *parent = BPF_CORE_READ(task, real_parent);
	struct st_proc_event *pe;
	__u32 ppid = BPF_CORE_READ(parent, tgid);

	if (!ppid || ppid == pid || !st_met_unexeced_child(task, parent))
		return;
	st_met_mark(ppid, BPF_CORE_READ(parent, group_leader, start_time));
	/* Reserved, not built in a scratch: a sample may interrupt a probe using one. */
	pe = bpf_ringbuf_reserve(&st_events, offsetof(struct st_proc_event, comps), 0);
	if (!pe) {
		st_stat_inc(ST_DROP_PROC_RINGBUF);
		return;
	}
	st_proc_head(pe, pid, ST_PROC_FORK, bpf_ktime_get_ns());
	pe->ppid = ppid;
	bpf_ringbuf_submit(pe, BPF_RB_NO_WAKEUP);
}

#define ST_NR_EXECVE 59    /* x86-64 __NR_execve */
#define ST_NR_EXECVEAT 322 /* x86-64 __NR_execveat */

/*
 * Is @task in execve() at an event whose user stack is walked now? Its
 * frames are then those of the image the exec replaces, while the
 * description's task_work, on its way back to user space, would walk the
 * image the exec makes: a shell's child on its way to execve, or a process
 * met at its own exec (env, nice, `exec prog`). A user stack deferred to
 * that return is the new image's, which the task_work describes.
 */
static __always_inline bool st_met_in_execve(struct task_struct *task)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(task);
	long nr = BPF_CORE_READ(regs, orig_ax);

	if (st_cfg.user_mode == ST_USER_DEFERRED && !st_cfg.defer_faults)
		return false;
	return nr == ST_NR_EXECVE || nr == ST_NR_EXECVEAT;
}

/*
 * st_met_meet() - the current task's process is met: marked, and its
 * description asked for if none was made yet. Kernel threads have nothing
 * to describe, nor has a task past exit_mm(). An exiting task before it
 * still has its user stack: met, and described at its exit probe (its
 * task_work would run after exit_mm()). An entry made in the moment between
 * the last exit probe and exit_mm() would outlive its process: the leader's
 * start time tells a later process of the pid from it.
 *
 * A global function: verified once on its own, not once for each path of
 * the sampler that reaches it (inlined, it added 26% to st_profile_sample's
 * verification). Return: 0.
 */
__noinline int st_met_meet(__u32 pid)
{
	struct task_struct *task;
	struct st_met *m;
	bool first = false;
	__u64 start;
	long err;

	if (!st_met_filtering() || !pid)
		return 0;
	task = bpf_get_current_task_btf();
	if ((BPF_CORE_READ(task, flags) & ST_PF_KTHREAD) || !BPF_CORE_READ(task, mm))
		return 0;
	start = BPF_CORE_READ(task, group_leader, start_time);
	m = bpf_map_lookup_elem(&st_met, &pid);
	if (m && m->start != start) {
		m->start = start;
		m->state = ST_MET_UNDESCRIBED;
	}
	if (!m) {
		if (!st_met_mark(pid, start))
			return 0;
		m = bpf_map_lookup_elem(&st_met, &pid);
		if (!m)
			return 0;
		first = true;
	}
	if (m->state != ST_MET_UNDESCRIBED)
		return 0;
	if (st_met_in_execve(task)) {
		/* Described before the exec goes on; with irqs off the iterator refuses. */
		if (!st_met_describe(task, pid)) {
			m->state = ST_MET_DESCRIBED;
			return 0;
		}
		if (first)
			st_met_late_fork(task, pid);
	}
	m->state = ST_MET_ASKED;
	err = st_met_ask(task, m);
	if (err && err != -EBUSY) {
		m->state = ST_MET_UNDESCRIBED;
		st_stat_inc(ST_STAT_MET_TW_FAIL);
	}
	return 0;
}

/*
 * st_met_exit() - the current thread of @pid exits (@leader: the group
 * leader; @last: the process's last thread). Its mm is still there: a
 * process met but not described yet is described now, before /proc stops
 * answering. Return: whether the process is heard of (st_met_heard()).
 */
static __always_inline bool st_met_exit(__u32 pid, bool leader, bool last)
{
	struct st_met *m;

	/* The compat build has no filter: it describes by iterator and task_work (compat.bpf.h). */
#ifdef ST_COMPAT
	return true;
#endif
	if (!st_met_filtering())
		return true;
	m = bpf_map_lookup_elem(&st_met, &pid);
	if (!m)
		return st_met_full;
	if ((leader || last) && m->state != ST_MET_DESCRIBED &&
	    !st_met_describe(bpf_get_current_task_btf(), pid))
		m->state = ST_MET_DESCRIBED;
	return true;
}

/* st_met_forget() - @pid's last thread has exited: a later process of the pid starts unmet. */
static __always_inline void st_met_forget(__u32 pid)
{
	if (st_met_filtering())
		bpf_map_delete_elem(&st_met, &pid);
}

#endif
