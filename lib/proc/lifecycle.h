/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process lifecycle records of bpf/proc_events.bpf.h (exec, fork, mmap
 * and munmap of code, exit), applied to the process registry at the time
 * each happened.
 */
#ifndef ST_PROC_LIFECYCLE_H
#define ST_PROC_LIFECYCLE_H

#include "bpf/record.h"

struct proc_registry;

/** procs__on_record() - apply one ST_REC_PROC record. */
void procs__on_record(struct proc_registry *r, const struct st_proc_event *pe);

#endif
