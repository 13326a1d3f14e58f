/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching the process lifecycle probes of bpf/proc_events.bpf.h. */
#ifndef ST_PROC_EVENTS_H
#define ST_PROC_EVENTS_H

struct bpf_object;
struct proc_events;

/**
 * proc_events__attach() - attach the st_proc_* programs (exec, exit, fork, mmap, munmap).
 *
 * Return: the links, or NULL with errno set (logged).
 */
struct proc_events *proc_events__attach(struct bpf_object *obj);

/** proc_events__free() - detach; NULL is fine. */
void proc_events__free(struct proc_events *pe);

#endif
