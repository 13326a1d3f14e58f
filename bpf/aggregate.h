/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire structs of in-kernel exact aggregation (bpf/aggregate.bpf.h), read
 * by user space from the maps (lib/session/aggregate.c). Fixed-width types.
 */
#ifndef ST_AGGREGATE_H
#define ST_AGGREGATE_H

#ifndef __BPF__
#include <linux/types.h>
#endif

#include "bpf/record.h"

/*
 * Frames (kernel + user) a stored stack holds; a power of two, as the BPF
 * side masks indices with it. A deeper stack travels as a record, exactly
 * as before (ST_STAT_AGG_DEEP). 128 frames make a 1.1 KiB value; user space
 * reads the same struct (lib/session/aggregate.c).
 */
#ifndef ST_AGG_FRAMES
#define ST_AGG_FRAMES 128
#endif

/* Mappings generation slots (st_agg_gens, bpf/aggregate.bpf.h): pids modulo this; a power of two. */
#define ST_AGG_GENS 65536

/* Distinct (stack, process, comm) counts the kernel holds by default (--agg-entries). */
#define ST_AGG_ENTRIES_DEFAULT 65536

/* A count: one stack of one process (and thread, when split) under one comm. */
struct st_agg_key {
	__u64 hash;  /* of the stack, st_agg_cfg.hash_mask applied: names st_agg_stacks' entry */
	__u32 pid;
	__u32 tid;   /* 0 unless st_agg_cfg.per_tid */
	__u16 flags; /* ST_EV_UFAIL | ST_EV_KTHREAD: the same frames, another meaning */
	__u16 ustop; /* why the user walk ended: the same frames, another end mark */
	__u32 gen;   /* the process's mappings generation: the same addresses, other code */
	char comm[ST_COMM_LEN];
};

struct st_agg_val {
	__u64 count;    /* events merged here (the first one of the key travels as a record) */
	__u64 weight;   /* their summed weights */
	__u64 first_ts; /* when the key was made: the mappings that held then name the frames */
};

/* A stored stack, once per hash: the capture's record header, then its frames. */
struct st_agg_stack {
	struct st_event ev; /* kdepth and udepth count the frames; the rest is the first event's */
	__u64 ips[ST_AGG_FRAMES];
};

/* The state of one hash and comparison (bpf/aggregate.bpf.h). */
struct st_agg_tmp {
	__u64 hash;
	__u64 uhash;  /* the user frames' part of it (bpf/stack_hash.bpf.h) */
	__u32 n;      /* frames of the event */
	__u32 kd;     /* of which kernel frames */
	__u32 differ; /* the comparison found a frame that differs */
	__u32 full;   /* a rescue found a map full (st_agg_drop_in()) */
};

/* Set in .rodata before load. */
struct st_agg_config {
	__u32 on;        /* aggregate eligible events instead of sending them */
	__u32 per_tid;   /* count each thread apart */
	__u64 hash_mask; /* ~0; tests keep a few bits to force collisions (exact anyway) */
};

#endif
