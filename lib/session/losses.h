/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The loss summary: one stderr line per nonzero reason, for the whole run
 * or for one interval (-i), with the counts the session gathered.
 */
#ifndef ST_SESSION_LOSSES_H
#define ST_SESSION_LOSSES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/record.h"
#include "lib/session/joiner.h"

/* Every counter the summary reports, at one moment. */
struct session_losses {
	uint64_t stats[ST_STAT_MAX];    /* the capture library's per-CPU counters, summed */
	uint64_t lost[JOINER_LOST_MAX]; /* events that left without their user stack */
	uint64_t stops[ST_USTOP_MAX];   /* deferred walks that stopped early, by reason */
	uint64_t duplicates;            /* second deferred stacks for one cookie */
	uint64_t foreign;               /* records of an unknown kind */
	uint64_t deferred_events;       /* events that took a deferred stack */
};

/**
 * session_losses_print() - one line per nonzero count of @now - @since.
 * @since: the counts at the start of the interval; NULL for the whole run
 * @prefix: put after "stacktap: " on every line (e.g. "12:00:01: "); "" for none
 * @losses_only: leave out the lines that are not losses (how many walks
 *               served how many events, stacks taken synchronously)
 */
void session_losses_print(FILE *f, const struct session_losses *now,
			  const struct session_losses *since, const char *prefix, bool losses_only);

#endif
