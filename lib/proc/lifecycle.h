/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process lifecycle records of bpf/proc_events.bpf.h (exec, fork, mmap
 * and munmap of code, exit), applied to the process registry at the time
 * each happened.
 */
#ifndef ST_PROC_LIFECYCLE_H
#define ST_PROC_LIFECYCLE_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"

struct proc_registry;

/** procs__on_record() - apply one ST_REC_PROC record. */
void procs__on_record(struct proc_registry *r, const struct st_proc_event *pe);

/* A look ahead for the description of a process gone before its first event was read. */
struct desc_ahead {
	struct proc_registry *r;
	int pid;
	uint64_t ts;      /* of the event: a description before it was applied already */
	size_t described; /* mappings applied */
};

/**
 * procs__describe_ahead() - a ring_pump_fn for a look at the queued records
 * (ctx: a desc_ahead): applies the ST_PROC_DESC records of @pid queued
 * behind the event now, up to the pid's exit or exec (what follows is a
 * later image's). A description is idempotent: when its records come in
 * their turn they change nothing.
 *
 * Return: 0, or -1 to end the look.
 */
int procs__describe_ahead(void *ctx, void *data, size_t size);

#endif
