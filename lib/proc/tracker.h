/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process tracker: the one place that knows each traced process's
 * executable mappings, and keeps the symbolizer's registry, the BPF walker's
 * tables and the copy unwinder in step with them.
 *
 * Mappings come from /proc/PID/maps when a process is first seen or execs,
 * and from ST_PROC_MAP records (bpf/proc_events.bpf.h) when it maps code:
 * those describe the mapping in full, so a process that lived a millisecond
 * and is gone when user space reads its records is still described.
 */
#ifndef ST_PROC_TRACKER_H
#define ST_PROC_TRACKER_H

#include "bpf/record.h"

struct symbolizer;
struct bpf_tables;
struct copy_unwinder;
struct proc_tracker;

/**
 * proc_tracker__new() - @tables (BPF walker) and @cu (copied stacks) may be NULL.
 *
 * Return: the tracker, or NULL (ENOMEM).
 */
struct proc_tracker *proc_tracker__new(struct symbolizer *sz, struct bpf_tables *tables,
				       struct copy_unwinder *cu);

/** proc_tracker__saw() - an event of @pid: load it if this is the first sight. */
void proc_tracker__saw(struct proc_tracker *pt, int pid);

/** proc_tracker__on_record() - apply an exec, map or exit record. */
void proc_tracker__on_record(struct proc_tracker *pt, const struct st_proc_event *pe);

/** proc_tracker__free() - NULL is fine. */
void proc_tracker__free(struct proc_tracker *pt);

#endif
