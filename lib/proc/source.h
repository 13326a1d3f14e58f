/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The proc source: the one door through which the user-space pipeline
 * learns about the machine's processes — /proc/PID files, the files
 * processes map, their vDSO images, whether a thread still exists, and what
 * time it is on the clock of events. Live, the door reads the machine.
 * `stacktap record` wraps it and writes each answer down; `stacktap report`
 * answers from the recording. The pipeline behind it (registry, joiner,
 * copy unwinder) cannot tell them apart, which is what lets a report print
 * what the live command printed. Its twins: the kernel-symbol door
 * (lib/sym/ksyms.h, ksyms_source) and the debug-file door
 * (lib/elf/debug_file.h, debug_source), in the layers that use them.
 *
 * Only what the pipeline itself reads goes through here; live-only steps
 * (attaching probes, filling the BPF walker's tables) read /proc directly.
 */
#ifndef ST_PROC_SOURCE_H
#define ST_PROC_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/util/safe_open.h"

struct proc_map;
struct tm;

/*
 * The wall clock and name of the machine the events happened on, as the live
 * command saw them: what a tool prints as a time of day or a host name (a
 * report prints the recording machine's, not its own).
 */
struct proc_wall {
	int64_t real_minus_mono; /* CLOCK_REALTIME - CLOCK_MONOTONIC, ns */
	long utc_offset;         /* local time east of UTC, s */
	char host[65];           /* as uname() names it: at most 64 bytes */
};

struct proc_source_ops {
	/*
	 * /proc/PID/FILE as text (malloc'ed) and when it was read (CLOCK_MONOTONIC
	 * ns); -ESRCH when the process is gone.
	 */
	int (*read)(void *ctx, int pid, const char *file, char **text, size_t *len, uint64_t *ts);
	/* Does thread @tid of @pid still exist? */
	bool (*task_alive)(void *ctx, int pid, int tid);
	/* An fd on the very file mapped at @m in @pid, or -1 with *why set. */
	int (*open_mapped)(void *ctx, int pid, const struct proc_map *m, enum safe_open_why *why);
	/* The vDSO image mapped at @m in @pid (malloc'ed), or NULL. */
	void *(*read_vdso)(void *ctx, int pid, const struct proc_map *m, size_t *size);
	/* Now, on the clock of events (CLOCK_MONOTONIC ns). */
	uint64_t (*now)(void *ctx);
	/* The machine's wall clock, time zone and name. */
	void (*wall)(void *ctx, struct proc_wall *w);
	void *ctx;
};

/**
 * proc_source_set() - route the pipeline's reads through @ops (copied), or
 * back to the live machine with NULL.
 */
void proc_source_set(const struct proc_source_ops *ops);

/** proc_source_live() - Return: the live machine's door, for wrappers to call through. */
const struct proc_source_ops *proc_source_live(void);

/** proc_source_read() - /proc/@pid/@file through the door. Return: 0 or -errno. */
int proc_source_read(int pid, const char *file, char **text, size_t *len, uint64_t *ts);

/**
 * proc_source_maps() - @pid's mappings, read and parsed through the door,
 * and when they were read.
 *
 * Return: 0 with a malloc'ed array (proc_maps__free()), -ESRCH when the
 * process is gone, -EINVAL for text that does not parse, -ENOMEM.
 */
int proc_source_maps(int pid, struct proc_map **maps, size_t *n, uint64_t *ts);

/**
 * proc_pid_gone() - is @pid surely gone from the live machine (reaped)? A
 * signal 0 tells at a tenth of the cost of a failed open of one of its /proc
 * files, whose path walk makes and drops a dentry each time: under churn
 * most processes an event meets are gone when it is read, and each was
 * looked up in /proc two or three times. A zombie is not gone (its /proc
 * files still open), nor a process we may not signal (EPERM).
 *
 * Return: true only when the process does not exist now.
 */
bool proc_pid_gone(int pid);

/** proc_source_task_alive() - Return: whether thread @tid of @pid exists. */
bool proc_source_task_alive(int pid, int tid);

/** proc_source_open_mapped() - Return: an fd on the file of @m in @pid, or -1 with *why. */
int proc_source_open_mapped(int pid, const struct proc_map *m, enum safe_open_why *why);

/** proc_source_read_vdso() - Return: the vDSO image of @m in @pid (malloc'ed), or NULL. */
void *proc_source_read_vdso(int pid, const struct proc_map *m, size_t *size);

/** proc_source_now() - Return: now on the clock of events and records (CLOCK_MONOTONIC, ns). */
uint64_t proc_source_now(void);

/** proc_source_wall() - @w: the events' machine's wall clock, time zone and name. */
void proc_source_wall(struct proc_wall *w);

/**
 * proc_wall_local() - @tm: the local time of day, on @w's machine, at @mono
 * (CLOCK_MONOTONIC ns on that machine).
 *
 * Return: @tm, or NULL when it does not fit a struct tm.
 */
struct tm *proc_wall_local(const struct proc_wall *w, uint64_t mono, struct tm *tm);

#endif
