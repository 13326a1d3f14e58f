/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading the in-kernel aggregation (bpf/aggregate.bpf.h): the counts the
 * kernel merged since the last read, each with its stack, as events with a
 * count. The kernel never resets a count (a reset would race with a program
 * adding to it); the reader keeps the last value of each and hands out the
 * difference, so -i intervals and the final read each see their own events.
 */
#ifndef ST_SESSION_AGGREGATE_H
#define ST_SESSION_AGGREGATE_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/record.h"

struct bpf_object;
struct agg_reader;
struct session;

/* One count: @ev's identity and depths, @ips its frames; @count events of total @weight. */
typedef int (*agg_fn)(void *ctx, const struct st_event *ev, const uint64_t *ips,
		      uint64_t count, uint64_t weight);

/**
 * agg_size() - size the aggregation maps of @obj (opened, not loaded) to
 * @entries distinct counts and stacks.
 *
 * Return: 0 or -errno (logged).
 */
int agg_size(struct bpf_object *obj, uint32_t entries);

/**
 * agg_reader__new() - a reader of @obj's aggregation maps (loaded), whose
 * records @s handles: a count is handed out only once @s has handled the
 * record of its key's first event (session__handled_before()).
 *
 * Return: the reader, or NULL with errno set (logged).
 */
struct agg_reader *agg_reader__new(struct bpf_object *obj, const struct session *s);

/**
 * agg_reader__read() - call @fn once per count that grew since the last
 * read, with the growth. A count whose stack cannot be found is counted
 * (agg_reader__report()) and skipped; only a stack deleted with the counts
 * of exited processes (agg_reader__read_gone()) can be missing.
 *
 * Return: 0, -ENOMEM, or the first non-zero return of @fn.
 */
int agg_reader__read(struct agg_reader *ar, agg_fn fn, void *ctx);

/**
 * agg_reader__read_gone() - agg_reader__read(), and the counts of the
 * exited processes @pids read a last time and deleted from
 * the kernel's map, so that on a busy machine the map holds the processes
 * alive, not every process the run has seen; so are the stored stacks no
 * other count names. Exact: no event adds to them
 * any more, as the kernel starts a process's counts anew (a new mappings
 * generation) at its fork and at its exit, and the caller passes a process
 * only well after its exit (a program that read the old generation has
 * long finished).
 *
 * Return: as agg_reader__read().
 */
int agg_reader__read_gone(struct agg_reader *ar, const int *pids, size_t n, agg_fn fn,
			  void *ctx);

/**
 * agg_reader__report() - at exit: a warning if counts were lost (their
 * stack not found), with --debug how many events the kernel counted and
 * how many came as records, and with @memory (-v) the maps' bound and
 * kernel memory. NULL @ar is fine.
 */
void agg_reader__report(const struct agg_reader *ar, const struct session *s, const char *tool,
			bool memory);

/** agg_reader__free() - NULL is fine. */
void agg_reader__free(struct agg_reader *ar);

#endif
