/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire format between the BPF capture library and user space: the event
 * record sent through the ring buffer, and the per-reason counters.
 * Fixed-width types only; both sides include this file.
 */
#ifndef ST_RECORD_H
#define ST_RECORD_H

#ifndef __BPF__
#include <linux/types.h>
#endif

/*
 * The version of these wire structs (and of the tools' own in tools/TOOL/TOOL.h)
 * as a recording stores them: bump it with any change of their layout, and
 * teach lib/record/replay.c to read the old one (docs/recording.md).
 * 2: st_event.ustop (the walker's stop reason) and offcpu's blocks paired in
 * BPF; version 1 predates both and was never released, so none is read.
 */
#define ST_WIRE_VERSION 2

/*
 * Depth limits. 127 is the kernel's default kernel.perf_event_max_stack:
 * bpf_get_stack() never returns more, whatever the buffer. The user-space
 * twin is the --max-*-depth range check in lib/session/options.c.
 */
#define ST_MAX_KSTACK 127
#define ST_MAX_USTACK 1024 /* the walker's ceiling (--max-user-depth) */
/*
 * The default user depth: deep enough for interpreter stacks (a Python or
 * Perl program 300 frames deep), and free for shallow ones: the walk is one
 * loop iteration per frame found, the record is as long as the stack.
 * Twin: st_common_opts__init() in lib/session/cli.c.
 */
#define ST_USTACK_DEFAULT 512

/*
 * Marks on user frames (user addresses never have these bits set); user
 * space strips them before a frame is looked up.
 * ST_FRAME_FP: found by following frame pointers (no unwind row for the pc
 * of the frame below it).
 * ST_FRAME_EXACT: the address is an exact pc, not a return address: a
 * signal trampoline that a handler returns into, or the pc a signal
 * interrupted. It is looked up as is, not at address - 1.
 */
#define ST_FRAME_FP (1ull << 63)
#define ST_FRAME_EXACT (1ull << 62)
#define ST_FRAME_MARKS (ST_FRAME_FP | ST_FRAME_EXACT)

enum st_unwind_mode {
	ST_UNWIND_FP = 0,    /* frame pointers only (and signal frames, found by their code) */
	ST_UNWIND_TABLE = 1, /* unwind tables only; stop where there is none */
	ST_UNWIND_AUTO = 2,  /* tables where they exist, else frame pointers */
	ST_UNWIND_COPY = 3,  /* copy the stack into the record; user space unwinds it */
};

/* Stack bytes a record may carry (--stack-copy-kb). Twin: the range in lib/session/cli.c. */
#define ST_COPY_MAX 65536
#define ST_COMM_LEN 16

enum st_rec_kind {
	ST_REC_EVENT = 1,  /* one event: header + kernel frames + user frames */
	ST_REC_USTACK = 2, /* a deferred user stack: struct st_ustack + frames */
	ST_REC_PROC = 3,   /* a process execs, maps code, or exits: struct st_proc_event */
};

enum st_proc_what {
	ST_PROC_EXEC = 1,  /* the process exec'ed: its mappings are new */
	ST_PROC_FORK = 2,  /* it was forked from ppid: it maps what its parent maps */
	ST_PROC_EXIT = 3,  /* its last thread exited */
	ST_PROC_MAP = 4,   /* it mapped a file executable (the loader, dlopen): in full */
	ST_PROC_UNMAP = 5, /* it unmapped [start, end), which held code (munmap, dlclose) */
	/*
	 * A description from BPF at the process's first meeting (bpf/met.bpf.h):
	 * like a /proc read, "at ts this file mapping was there", not a new
	 * mapping at ts. One record per executable file mapping, laid out as
	 * ST_PROC_MAP, then an ST_PROC_DESC_END whose count says how many were
	 * sent: user space only adds what the records list (a lost one leaves
	 * a mapping out, never ends one) and counts a description that came short.
	 */
	ST_PROC_DESC = 6,
	ST_PROC_DESC_END = 7,
};

/*
 * A file path as dentry names, leaf first (the BPF side cannot call d_path
 * from a tracepoint). 16 levels of 64 bytes cover library paths; a longer
 * one is flagged and user space falls back to /proc.
 */
#define ST_PATH_COMPS 16
#define ST_COMP_LEN 64
#define ST_MAP_PATH_CUT 1 /* st_proc_event.map_flags: path incomplete */
/*
 * st_proc_event.map_flags of an ST_PROC_EXIT that user space wrote into a
 * recording: the process was found gone, its own record lost (ring buffer
 * full), so the replay ends it where the live run did (procs__find_exits()).
 */
#define ST_EXIT_FOUND 2
/* ... and one of a process met only in its exit, found gone (procs__find_mapless_exits()). */
#define ST_EXIT_MAPLESS 4

/*
 * Process lifecycle, so unwind tables and mappings follow fork, exec,
 * dlopen, dlclose and exit, each at its time (ts, the clock of st_event.ts:
 * an event is resolved with the mappings live at its own moment).
 * ST_PROC_MAP records carry the mapping itself, so a process that has
 * exited by the time user space reads the record is still described.
 */
struct st_proc_event {
	__u16 kind;  /* ST_REC_PROC */
	__u16 what;  /* enum st_proc_what */
	__u32 pid;
	__u64 ts;    /* bpf_ktime_get_ns() */
	__u32 ppid;  /* ST_PROC_FORK: the parent */
	__u32 count; /* ST_PROC_DESC_END: the ST_PROC_DESC records before it */
	/* ST_PROC_MAP, ST_PROC_DESC and ST_PROC_UNMAP: */
	__u64 start, end; /* [start, end) */
	/* ST_PROC_MAP and ST_PROC_DESC only: */
	__u64 pgoff;      /* file offset of start, bytes */
	__u64 ino;
	__u32 dev;        /* the kernel's dev_t: major << 20 | minor */
	__u16 ncomps;
	__u16 map_flags;  /* ST_MAP_PATH_CUT */
	char comps[ST_PATH_COMPS][ST_COMP_LEN];
};

/*
 * A process record's fixed part before its path, set to @what of @pid at
 * @ts and the rest zero: every maker of one starts here (the lifecycle
 * probes, a description, a fork sent late; also user space writing one).
 */
static inline void st_proc_head(struct st_proc_event *pe, __u32 pid, __u16 what, __u64 ts)
{
	pe->kind = ST_REC_PROC;
	pe->what = what;
	pe->pid = pid;
	pe->ts = ts;
	pe->ppid = pe->count = 0;
	pe->start = pe->end = pe->pgoff = pe->ino = 0;
	pe->dev = pe->ncomps = pe->map_flags = 0;
}

/* Records laid out as a mapping, with its path: sent up to their last name. */
static inline int st_proc_has_path(__u16 what)
{
	return what == ST_PROC_MAP || what == ST_PROC_DESC;
}

/*
 * An ST_PROC_MAP record is sent up to its last path name (most paths use
 * 3-5 of the 16 slots); older recordings hold it in full. The bytes a map
 * record of @ncomps names takes, at most the full record.
 */
static inline __u64 st_proc_map_size(__u64 ncomps)
{
	if (ncomps > ST_PATH_COMPS)
		ncomps = ST_PATH_COMPS;
	return __builtin_offsetof(struct st_proc_event, comps) + ncomps * ST_COMP_LEN;
}

/* st_event.flags */
#define ST_EV_KTRUNC (1u << 0)   /* kernel stack reached the depth limit */
#define ST_EV_UTRUNC (1u << 1)   /* user stack reached the depth limit */
#define ST_EV_UFAIL (1u << 2)    /* user stack wanted but not captured */
#define ST_EV_KFAIL (1u << 3)    /* kernel stack wanted but not captured */
#define ST_EV_KTHREAD (1u << 4)  /* kernel thread: it has no user stack */
#define ST_EV_UDEFERRED (1u << 5) /* user stack comes later in an st_ustack with this cookie */
#define ST_EV_UCOPY (1u << 6)     /* an st_ucopy and its stack bytes follow the frames */
#define ST_EV_UNLOADED (1u << 7)  /* the walker met code user space had not loaded yet */
#define ST_EV_USWITCHED (1u << 8) /* the user walk moved to another stack (see ustack.bpf.h) */

struct st_event {
	__u16 kind;     /* enum st_rec_kind */
	__u16 kdepth;   /* kernel frames in ips[0 .. kdepth) */
	__u16 udepth;   /* user frames in ips[kdepth .. kdepth + udepth) */
	__u16 flags;    /* ST_EV_* */
	__u32 pid;      /* tgid */
	__u32 tid;
	__u32 cpu;
	__u32 probe_id; /* index of the probe spec that fired (attach cookie) */
	__u64 ts;       /* bpf_ktime_get_ns() */
	__u64 weight;   /* 1 for an event; ns for time-weighted tools */
	__u64 cookie;   /* with ST_EV_UDEFERRED: names the kernel entry; else 0 */
	__u16 ustop;    /* enum st_ustop: why the user walk ended (NONE: no walk yet) */
	__u16 pad[3];
	char comm[ST_COMM_LEN];
	/* Then __u64 ips[kdepth + udepth]: innermost first, kernel then user. */
};

/* Registers and a copy of the user stack, for unwinding in user space. */
struct st_ucopy {
	__u64 ip, sp, bp; /* user registers of the innermost frame */
	__u32 len;        /* stack bytes that follow, from sp up */
	__u32 want;       /* bytes asked for (len is less near the stack's top) */
};

/*
 * Why a user-stack walk ended (st_event.ustop, st_ustack.stop, and the
 * walker's per-reason counters). OUTERMOST is a complete stack; DEPTH is a
 * stack cut at the limit ("[truncated]"); every other reason is a walk that
 * stopped early ("[unwind stopped: REASON]"). Names: lib/unwind/ustop.c.
 */
enum st_ustop {
	ST_USTOP_NONE = 0,       /* walk not done or not applicable */
	ST_USTOP_OUTERMOST,      /* the outermost frame: RA undefined or 0, frame pointer 0 */
	ST_USTOP_NO_TABLE,       /* table mode: no row for the pc */
	ST_USTOP_BAD_CFA,        /* a row's CFA not above sp (on the same stack), or misaligned */
	ST_USTOP_READ_FAILED,    /* reading the stack failed */
	ST_USTOP_DEPTH,          /* depth limit: more frames follow */
	ST_USTOP_UNSUPPORTED,    /* the row's rule is one the format cannot express */
	ST_USTOP_FP_END,         /* frame-pointer chain broken: rbp misaligned or not above sp */
	ST_USTOP_NO_MAPPING,     /* pc in no mapping known to the walker (mapped just now?) */
	ST_USTOP_BAD_SWITCH,     /* next frame on a stack left below it (a loop), or too many switches */
	ST_USTOP_BAD_RA,         /* a return address that points at no executable mapping */
	ST_USTOP_MAX,
};

/*
 * The walker's counters beyond the stop reasons (st_ustats keys, summed by
 * user space over CPUs).
 */
enum st_ustat_extra {
	ST_USTAT_FP_FRAMES = ST_USTOP_MAX, /* frames found by frame pointer */
	ST_USTAT_NO_PROC,                  /* process not (yet) loaded: no tables at all */
	ST_USTAT_WALKS,                    /* walks done */
	ST_USTAT_SIGNAL_FRAMES,            /* signal frames crossed */
	ST_USTAT_SWITCHES,                 /* moves to another stack */
	ST_USTAT_URETPROBE,                /* uretprobe trampolines replaced by the real address */
	ST_USTAT_UCACHE_HITS,              /* walks taken from the task's walk cache */
	ST_USTAT_UCACHE_KEPT,              /* walks made and kept in it */
	ST_USTAT_UCACHE_UNKEPT,            /* walks made that could not be kept (bpf/ucache.bpf.h) */
	ST_USTAT_UCACHE_SPLICES,           /* walks that took their outer frames from the walk before */
	ST_USTAT_MAX,
};

/* A deferred user stack: sent once per kernel entry, joined to events by cookie. */
struct st_ustack {
	__u16 kind;     /* ST_REC_USTACK */
	__u16 udepth;
	__u16 flags;    /* ST_EV_UTRUNC / ST_EV_UFAIL */
	__u16 stop;     /* enum st_ustop */
	__u32 pid;
	__u32 tid;
	__u64 cookie;
	__u64 ts;
	/* Then __u64 ips[udepth], innermost first. */
};

/* Counters, one slot per reason, in a per-CPU array summed by user space. */
enum st_stat {
	ST_STAT_EVENTS,         /* probe fired and passed the filters */
	ST_STAT_SENT,           /* records submitted to the ring buffer */
	ST_DROP_RINGBUF_FULL,   /* record lost: ring buffer full */
	ST_DROP_SCRATCH_BUSY,   /* record lost: per-CPU scratch in use (nested event) */
	ST_STAT_KTRUNC,         /* kernel stack cut at the depth limit */
	ST_STAT_UTRUNC,         /* user stack cut at the depth limit */
	ST_STAT_KFAIL,          /* kernel stack could not be read */
	ST_STAT_UFAIL,          /* user stack could not be read */
	/* Deferred user stacks (bpf/deferred.bpf.h); the user-side twins are in lib/session. */
	ST_STAT_UWALKS,         /* deferred user-stack walks done (task_work callbacks) */
	ST_STAT_USHARED,        /* events that shared the walk already requested for their entry */
	ST_STAT_USYNC,          /* captured synchronously by design: user-mode trap, exiting task */
	ST_STAT_TW_BUSY,        /* task_work request refused as busy: captured synchronously */
	ST_STAT_TW_FAIL,        /* task_work request failed otherwise: captured synchronously */
	ST_STAT_DEFER_FULL,     /* request table full: captured synchronously */
	ST_DROP_USTACK_RINGBUF, /* deferred user stack lost: ring buffer full */
	ST_DROP_PROC_RINGBUF,   /* process exec/map/exit record lost: ring buffer full */
	/* In-kernel aggregation (bpf/aggregate.bpf.h): not losses, each event is counted once. */
	ST_STAT_AGG,            /* events merged into a count in the kernel, no record sent */
	ST_STAT_AGG_FULL,       /* sent as a record: an aggregation map was full */
	ST_STAT_AGG_COLLIDE,    /* sent as a record: another stack holds its hash */
	ST_STAT_AGG_DEEP,       /* sent as a record: deeper than a stored stack holds */
	ST_DROP_BLOCK_FULL,     /* offcpu: a switch-out not kept, its tasks-off-CPU table full */
	ST_STAT_JOINED,         /* deferred events joined to their user stack in the kernel */
	ST_STAT_AGG_RESCUED,    /* counted in the kernel where its record found no room: not a loss */
	ST_STAT_AGG_CUT,        /* of those, too deep to store: counted with the user stack cut */
	ST_DROP_AGG_FULL,       /* record lost: no room in the ring, nor in the in-kernel count maps */
	ST_STAT_BLOCK_NO_IN,    /* offcpu: a block whose switch-in the kernel never traced, timed by run time */
	/* The met filter (bpf/met.bpf.h): */
	ST_STAT_MET_FULL,       /* a process could not be marked met: every record is sent from then on */
	ST_STAT_MET_TW_FAIL,    /* its description could not be requested: asked again at its next event */
	ST_STAT_MET_RETRY,      /* its description's walk failed (no mm, busy): asked again */
	ST_STAT_MAX,
};

/* Run-time options of the capture library, set in .rodata before load. */
struct st_config {
	__u32 filter_pid;  /* 0 = any */
	__u32 filter_tid;  /* 0 = any */
	__s32 filter_cpu;  /* -1 = any */
	__u32 kstack;      /* capture kernel stacks */
	__u32 ustack;      /* capture user stacks */
	__u32 kdepth_max;  /* <= ST_MAX_KSTACK */
	__u32 udepth_max;  /* <= ST_MAX_USTACK */
	__u32 kskip;       /* kernel frames to skip (the probe's own plumbing) */
	__u32 unwind;      /* enum st_unwind_mode */
	__u32 copy_bytes;  /* copy this much user stack into each record (0: none) */
	__u32 copy_fallback; /* ...or only when the walker met a mapping it does not know */
	__u32 user_mode;   /* ST_USER_SYNC or ST_USER_DEFERRED */
	__u32 wakeup_bytes; /* wake the consumer once this much is waiting (0: every record) */
	__u32 walk_cache;  /* keep walks at the event in task storage (bpf/ucache.bpf.h): probed */
	__u32 defer_faults; /* deferred mode: walk at the event, defer only a walk that met a page
			     * it could not read (bpf/capture.bpf.h st_capture_ustack()) */
	__u32 met_filter;  /* lifecycle records only for processes met (bpf/met.bpf.h): probed */
	__u64 filter_cgroup; /* 0 = any; else the cgroup v2 id (its directory's inode) of the task */
};

/* st_config.user_mode: when user stacks are captured. */
#define ST_USER_SYNC 0     /* at the event */
#define ST_USER_DEFERRED 1 /* on return to user space, by task_work; see bpf/deferred.bpf.h */

#endif
