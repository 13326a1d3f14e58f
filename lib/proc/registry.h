/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process registry: the one owner of what each process maps, over time
 * (lib/proc/timeline.h), and of the file model of every mapped file
 * (lib/elf/elf_cache.h), each opened once through lib/proc/proc_file.h.
 *
 * It learns from /proc/PID/maps when a process is first seen, and from the
 * lifecycle records of bpf/proc_events.bpf.h (lib/proc/lifecycle.c): exec,
 * mmap and munmap of code, fork (a child starts with its parent's
 * mappings) and exit. An event's user frames are resolved with the mappings
 * live at the event's own time (procs__resolve), so a library dlclose()d, a
 * new one at the same address, or an exec change the answer from that
 * moment on, however late the event is read.
 *
 * The BPF walker's tables and the copy unwinder are views of it: a listener
 * hears each process's live mappings whenever they change, and finds the
 * file model of a mapping with procs__file() (lib/session/run.c wires them).
 */
#ifndef ST_PROC_REGISTRY_H
#define ST_PROC_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/proc/maps.h"
#include "lib/util/safe_open.h"

struct elf_file;
struct proc_registry;

/* What one user address of a process was at a moment. Strings live as long as the registry. */
struct proc_loc {
	const char *path;      /* the mapping's path as the process named it; "" anonymous */
	struct elf_file *file; /* its file model; NULL: anonymous, or the file could not be used */
	uint64_t file_off;     /* the address as an offset in the mapped file */
	bool file_backed;      /* a file or the vDSO: file_off names a place in it */
	uint8_t why;           /* file NULL though file_backed: why (enum safe_open_why) */
};

/* Who hears about changes: the views of the mappings. */
struct procs_listener {
	/* @pid's live executable mappings, sorted, after any change. */
	void (*maps)(void *ctx, int pid, const struct proc_map *maps, size_t n);
	/* @child was forked from @parent; its mappings (the parent's) come next. */
	void (*forked)(void *ctx, int parent, int child);
	/* @pid exited (its mappings stay here for events still to be read). */
	void (*exited)(void *ctx, int pid);
	/* exited @pid was forgotten (procs__forget_gone()): what a view keeps of it can go. */
	void (*forgotten)(void *ctx, int pid);
	void *ctx;
};

struct procs_stats {
	uint64_t pid_gone;                         /* exited before any mapping was known */
	uint64_t refused[SAFE_OPEN_WHY_MAX];       /* mapped files not used, by reason */
	const char *refused_path[SAFE_OPEN_WHY_MAX]; /* the first such file, for the message */
	uint64_t not_elf;                          /* mapped files that are not ELF */
	uint64_t forgotten;                        /* exited processes dropped, stacks resolved */
	uint64_t exits_found;                      /* exits whose record was lost, found later */
	uint64_t gone_mapless;                     /* procs__find_mapless_exits()'s finds */
	uint64_t desc_short;                       /* descriptions with records lost */
	uint64_t described_first;                  /* processes first known from a description */
};

/* Resolve now what is held of exited @pids: the registry forgets them when this returns. */
typedef void (*procs_settle_fn)(void *ctx, const int *pids, size_t n);

/** procs__new() - an empty registry. Return: it, or NULL with errno set. */
struct proc_registry *procs__new(void);

/** procs__listen() - @l hears every later change (copied; NULL stops). */
void procs__listen(struct proc_registry *r, const struct procs_listener *l);

/**
 * procs_now() - now on the clock of events and records (CLOCK_MONOTONIC, ns),
 * through the proc source: a report's now is the recording's.
 * Return: it.
 */
uint64_t procs_now(void);

/**
 * procs__see() - an event of @pid at @ts: read /proc/PID/maps unless its
 * image is known (a pid that exited before @ts belongs to someone new) and
 * read (procs__read_exec_late()).
 *
 * Return: 0; -ESRCH when the process is gone and nothing of it is known;
 * -EINVAL for pid 0.
 */
int procs__see(struct proc_registry *r, int pid, uint64_t ts);

/**
 * procs__count_gone() - an event of @pid needed its mappings (it has a user
 * stack) and procs__see() found it gone with nothing known: counted once,
 * and no more if its description comes after all. An event without a user
 * stack (kernel-only, or sampled past exit_mm()) misses nothing.
 */
void procs__count_gone(struct proc_registry *r, int pid);

/* procs__see_ending(): what is known of the process comes from its records alone. */
#define PROCS_RECORDS_ONLY 1

/**
 * procs__see_ending() - procs__see() for an event of a process whose exit
 * is already on its way (lib/session/exits_ahead.h): the read an exec put
 * off (procs__read_exec_late()) is not made. The exit record comes right
 * before the kernel tears the mappings down (exit_mm()): by the time it is
 * read, /proc/PID/maps is empty or gone, and the records' mappings are all
 * there is, as once the exit is handled.
 *
 * Return: PROCS_RECORDS_ONLY when no /proc read of the process was made
 * (its records name files only: no anonymous code of it is known), else as
 * procs__see().
 */
int procs__see_ending(struct proc_registry *r, int pid, uint64_t ts);

/**
 * procs__read_exec_late() - with @late, an exec does not read /proc/PID/maps:
 * the exec's records (the binary, its interpreter, every later mapping of
 * code) describe the new image, and /proc is read at the process's first
 * event (procs__see()) for what they miss (the vDSO). A system-wide sampler
 * meets few of the processes a busy machine execs, and that read was a
 * quarter of its own CPU. Off by default; never when recording or replaying
 * (a replay must make the live run's /proc reads).
 */
void procs__read_exec_late(struct proc_registry *r, bool late);

/**
 * procs__mapless() - Return: whether @pid is unknown or known with no
 * mapping at all: its /proc read found no memory map (a kernel thread, or
 * a process past its exit_mm(), a zombie).
 */
bool procs__mapless(const struct proc_registry *r, int pid);

/**
 * procs__exited() - Return: whether @pid's process is known and its exit
 * was heard: its events now are late ones, not signs that it lives.
 */
bool procs__exited(const struct proc_registry *r, int pid);

/**
 * procs__exec() - @pid exec'd at @ts: its mappings end; the new ones are read
 * (or come from records, see procs__read_exec_late()).
 */
void procs__exec(struct proc_registry *r, int pid, uint64_t ts);

/**
 * procs__describe() - @m (executable) was mapped in @pid at @ts, as BPF
 * described the process at its first meeting (bpf/met.bpf.h): like a /proc
 * read listing it, it is added if not known, from the image's start, and
 * nothing else ends. A later time than the pid's last exit makes the pid's
 * new owner. Idempotent. The listener hears of what it added at
 * procs__describe_done().
 *
 * Return: 0 or -ENOMEM (logged).
 */
int procs__describe(struct proc_registry *r, int pid, uint64_t ts, const struct proc_map *m);

/** procs__describe_done() - tell the listener what descriptions of @pid added. */
void procs__describe_done(struct proc_registry *r, int pid);

/**
 * procs__describe_record() - procs__describe() for an ST_PROC_DESC record in
 * the records' order, counted toward its description's end record.
 */
void procs__describe_record(struct proc_registry *r, int pid, uint64_t ts,
			    const struct proc_map *m);

/**
 * procs__describe_end() - the description of @pid at @ts ended, with @count
 * records sent: fewer came (the ring buffer was full) is counted.
 */
void procs__describe_end(struct proc_registry *r, int pid, uint64_t ts, uint32_t count);

/** procs__map() - @pid mapped @m (executable) at @ts. */
void procs__map(struct proc_registry *r, int pid, uint64_t ts, const struct proc_map *m);

/** procs__unmap() - @pid unmapped [@start, @end) at @ts. */
void procs__unmap(struct proc_registry *r, int pid, uint64_t ts, uint64_t start, uint64_t end);

/** procs__fork() - @child was forked from @parent at @ts and maps what it maps. */
void procs__fork(struct proc_registry *r, int parent, int child, uint64_t ts);

/** procs__exit() - @pid's last thread exited at @ts. */
void procs__exit(struct proc_registry *r, int pid, uint64_t ts);

/* Told of each exit procs__find_exits() finds, before the registry applies it. */
typedef void (*procs_found_fn)(void *ctx, int pid, uint64_t ts);

/**
 * procs__find_exits() - the processes known alive that are gone, exited at
 * @ts for all that follows (procs__exit()): what the exit records said,
 * for those whose record was lost (the ring buffer was full), so that they
 * are settled and forgotten like the others, their tables and in-kernel
 * counts freed. A pid reused since is alive and stays as it is.
 * @found: if not NULL, told of each (a recording writes the exit down)
 * @ctx: passed to @found
 *
 * Return: how many were found.
 */
size_t procs__find_exits(struct proc_registry *r, uint64_t ts, procs_found_fn found, void *ctx);

/** procs__exit_found() - procs__exit(), for an exit found rather than recorded (counted). */
void procs__exit_found(struct proc_registry *r, int pid, uint64_t ts);

/**
 * procs__find_mapless_exits() - procs__find_exits() among the processes
 * known from their events alone, no mapping ever known: met only past
 * exit_mm() (a short process sampled in its exit), where BPF neither
 * describes it nor marks it met, so no exit record ever comes for it, and,
 * its /proc read failed, nothing else ends it. Without this each stayed
 * known to the end, its stacks never settled: under a churn of short
 * processes, a few every second. Cheap enough for every second: only
 * such processes are looked up in /proc. Each found counts in
 * procs_stats.gone_mapless, not as a lost exit record.
 *
 * Return: how many were found.
 */
size_t procs__find_mapless_exits(struct proc_registry *r, uint64_t ts, procs_found_fn found,
				 void *ctx);

/** procs__exit_mapless() - procs__exit(), for one procs__find_mapless_exits() found. */
void procs__exit_mapless(struct proc_registry *r, int pid, uint64_t ts);

/**
 * procs__push_met_only() - whether the listener's maps() hears only of
 * processes an event met (procs__see()): one met later is told its
 * mappings then, unless it has exited by then. Most processes of a busy
 * machine are never sampled, and each change of each one's mappings (a
 * fork, an exec, the libraries it maps) was copied to every view. Off by
 * default.
 */
void procs__push_met_only(struct proc_registry *r, bool on);

/**
 * procs__settle_met_only() - whether only the processes an event met
 * (procs__see()) can hold stacks to settle: then procs__forget_gone()
 * forgets the others without @settle hearing of them. Off by default.
 */
void procs__settle_met_only(struct proc_registry *r, bool on);

/**
 * procs__unseen_events() - events may have been counted by @ts that no
 * procs__see() told of (their records found no room): the processes based
 * by then (exec'ed, forked or read) are settled even if no event met them.
 */
void procs__unseen_events(struct proc_registry *r, uint64_t ts);

/**
 * procs__gone_ready() - how many queued exits happened before @before.
 * @settle: receives how many of them procs__forget_gone() would settle
 * (alive again since, or left out by procs__settle_met_only(): not)
 *
 * Return: their number.
 */
size_t procs__gone_ready(const struct proc_registry *r, uint64_t before, size_t *settle);

/**
 * procs__forget_gone() - forget the processes that exited before @before
 * and whose pid was not reused since: @settle first hears them all (it
 * resolves whatever stacks of theirs it holds; only those an event met under
 * procs__settle_met_only(); not called when none), then their mappings are
 * dropped and the listener's forgotten() hears each. An event of such a
 * process read after this finds nothing known of it (procs__see() reads
 * /proc again): call it only for exits older than any event still in flight.
 *
 * Return: 0, or -ENOMEM (nothing forgotten).
 */
int procs__forget_gone(struct proc_registry *r, uint64_t before, procs_settle_fn settle,
		       void *ctx);

/**
 * procs__forget_unmet() - forget at once, as procs__forget_gone() would, the
 * processes that exited before @before and that it would not settle
 * (procs__settle_met_only()); the others stay queued, in order. Under churn
 * most exits are of such processes: gone from the queue, they are not
 * looked at again at every poll while the met ones wait for their batch.
 */
void procs__forget_unmet(struct proc_registry *r, uint64_t before);

/**
 * procs__set_maps() - install @maps as what @pid mapped at @ts, as if read
 * from /proc then (for tests and recordings).
 *
 * Return: 0 or -ENOMEM.
 */
int procs__set_maps(struct proc_registry *r, int pid, uint64_t ts, const struct proc_map *maps,
		    size_t n);

/**
 * procs__epoch() - the last change at or before @ts of @pid's mappings:
 * two events of @pid with the same epoch resolve the same addresses alike.
 *
 * Return: it (0 when nothing is known).
 */
uint64_t procs__epoch(const struct proc_registry *r, int pid, uint64_t ts);

/**
 * procs__resolve() - @addr in @pid's address space at @ts.
 *
 * Return: 0 with *out filled, -ENOENT when no mapping held @addr then,
 * -ESRCH when nothing of @pid is known.
 */
int procs__resolve(const struct proc_registry *r, int pid, uint64_t ts, uint64_t addr,
		   struct proc_loc *out);

/**
 * procs__resolve_each() - procs__resolve() of @n addresses of one stack,
 * @pid looked up once (a settle resolves every frame of every stack of a
 * gone process): @out[i] is zeroed where @addrs[i] resolves to nothing.
 * @marks: bits of each address that are not address (masked off).
 */
void procs__resolve_each(const struct proc_registry *r, int pid, uint64_t ts,
			 const uint64_t *addrs, size_t n, uint64_t marks, struct proc_loc *out);

/**
 * procs__file() - the file model of @pid's live mapping @m (as a listener
 * heard it): the views get their tables through it.
 *
 * Return: the model, or NULL (anonymous, unusable, unknown).
 */
struct elf_file *procs__file(struct proc_registry *r, int pid, const struct proc_map *m);

/**
 * procs__find_elf() - the file model mapped at @addr in @pid at @ts, with
 * the load bias (run-time address - link-time vaddr).
 *
 * Return: the model, or NULL.
 */
struct elf_file *procs__find_elf(struct proc_registry *r, int pid, uint64_t ts, uint64_t addr,
				 uint64_t *bias);

/** procs__stats() - Return: what could not be read so far. */
const struct procs_stats *procs__stats(const struct proc_registry *r);

/** procs__report() - one stderr line per reason a mapped file was not used. */
void procs__report(const struct proc_registry *r);

/**
 * procs__report_memory() - two stderr lines: processes known now and exited
 * ones forgotten; file models open now and those closed once released.
 */
void procs__report_memory(const struct proc_registry *r);

/** procs__free() - close every file; NULL is fine. */
void procs__free(struct proc_registry *r);

/**
 * procs__hold_file() - keep @ef (a model the registry handed out; NULL is
 * ignored) open after every process mapping it is forgotten, until as many
 * procs__put_file()s: for a view that outlives the processes, such as the
 * BPF walker's idle tables or the places of settled stacks.
 */
void procs__hold_file(struct proc_registry *r, struct elf_file *ef);

/**
 * procs__put_file() - let go of @ef: freed now if no process maps it and
 * nothing else holds it (an unheld model is left alone).
 */
void procs__put_file(struct proc_registry *r, struct elf_file *ef);

#endif
