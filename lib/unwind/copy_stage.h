/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copy stage: what happens to a record that carries a copied user stack
 * (ST_EV_UCOPY) before a tool sees it. In --unwind=copy mode the copy is
 * unwound here and becomes the record's user frames; with --unwind-check the
 * BPF walk is kept and compared with the user-space walk of the same copy.
 */
#ifndef ST_UNWIND_COPY_STAGE_H
#define ST_UNWIND_COPY_STAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/unwind/unwinder.h"

struct copy_unwinder;
struct copy_stage;

struct copy_stage_stats {
	uint64_t unwound;    /* copies unwound in user space */
	uint64_t compared;   /* --unwind-check: events compared */
	uint64_t differ;     /* --unwind-check: events whose two walks differ */
	uint64_t unloaded;   /* --unwind-check: not compared, the walker met unloaded code */
	uint64_t switched;   /* --unwind-check: not compared, the walk moved to another stack */
	uint64_t past_copy;  /* --unwind-check: not compared, the copy ends first */
	uint64_t rescued;    /* fallback: events whose user stack came from the copy */
	uint64_t stops[UNWIND_STOP_MAX]; /* copy walks by why they stopped */
	/* Walker walks that stopped early whose stack came from the copy instead, by
	 * their enum st_ustop: the walker's "stopped early" count less these. */
	uint64_t replaced[ST_USTOP_MAX];
};

enum copy_stage_mode {
	COPY_STAGE_REPLACE,  /* --unwind=copy: the copy's walk is the user stack */
	COPY_STAGE_COMPARE,  /* --unwind-check: keep the BPF walk, count differences */
	COPY_STAGE_FALLBACK, /* the BPF walk met unloaded code: use the copy's walk if deeper */
};

/** copy_stage__new() - a stage; @max_frames bounds the user-space walk. */
struct copy_stage *copy_stage__new(struct copy_unwinder *cu, enum copy_stage_mode mode,
				   uint32_t max_frames);

/**
 * copy_stage__process() - pass a record through the stage.
 * @ips: in: the record's frames; out: the frames the tool should use
 *
 * Return: the record the tool should use (@ev itself, or a rebuilt one that
 * stays valid until the next call), or NULL when out of memory.
 */
const struct st_event *copy_stage__process(struct copy_stage *cs, const struct st_event *ev,
					   const uint64_t **ips);

/** copy_stage__stats() - the figures so far. */
const struct copy_stage_stats *copy_stage__stats(const struct copy_stage *cs);

/** copy_stage__report() - stderr lines: the check's verdict, copy walks that stopped early. */
void copy_stage__report(const struct copy_stage *cs);

/** copy_stage__free() - NULL is fine. */
void copy_stage__free(struct copy_stage *cs);

#endif
