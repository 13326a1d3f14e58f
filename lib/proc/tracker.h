/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process tracker: what happens when a process is first seen, execs,
 * maps new executable code or exits. It keeps the symbolizer's registry and
 * the BPF walker's per-process tables in step.
 */
#ifndef ST_PROC_TRACKER_H
#define ST_PROC_TRACKER_H

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

/** proc_tracker__changed() - @pid exec'ed or mapped executable code: reload it. */
void proc_tracker__changed(struct proc_tracker *pt, int pid);

/** proc_tracker__exited() - @pid is gone: free its BPF tables (symbols stay). */
void proc_tracker__exited(struct proc_tracker *pt, int pid);

/** proc_tracker__free() - NULL is fine. */
void proc_tracker__free(struct proc_tracker *pt);

#endif
