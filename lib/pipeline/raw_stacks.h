/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw stacks, the sink of the capture pipeline: events deduplicated exactly
 * on their identity, addresses and the mappings their process had at the
 * event (its epoch in the process registry: the same addresses after a
 * dlclose() and a new library at the same place are another stack), then
 * decoded and named in one batch when the report is built. A user stack the
 * joiner gave up on is kept apart by its reason and shown as one
 * "[user stack lost: REASON]" frame.
 */
#ifndef ST_RAW_STACKS_H
#define ST_RAW_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/report/report.h"
#include "lib/session/aggregate.h"
#include "lib/sym/symbolizer.h"

struct raw_stacks;

/**
 * raw_stacks__new() - an empty set whose user stacks are resolved with
 * @sym's process registry.
 *
 * Return: the set, or NULL (ENOMEM).
 */
struct raw_stacks *raw_stacks__new(struct symbolizer *sym);

/**
 * raw_stacks__add() - count @ev (kernel then user @ips) once with @weight.
 *
 * Return: 0 or -ENOMEM.
 */
int raw_stacks__add(struct raw_stacks *rs, const struct st_event *ev, const uint64_t *ips,
		    uint64_t weight);

/**
 * raw_stacks__merge() - count @ev @count times at once, with @weight in
 * all (@count > 0): a count the kernel aggregated (lib/session/aggregate.h).
 *
 * Return: 0 or -ENOMEM.
 */
int raw_stacks__merge(struct raw_stacks *rs, const struct st_event *ev, const uint64_t *ips,
		      uint64_t count, uint64_t weight);

/**
 * raw_stacks__report() - decode every distinct stack, name them in batches
 * (symbolizer__name()) with @sym (the one given to raw_stacks__new()), and
 * add them to @r.
 *
 * Return: 0 or -ENOMEM.
 */
int raw_stacks__report(struct raw_stacks *rs, struct symbolizer *sym, struct report *r);

/**
 * raw_stacks__settle() - resolve now the user frames of @pid's stacks, its
 * process gone, with the mappings it had at each event (file model and
 * offset, event_frames__locate()), so the registry can forget it
 * (procs__forget_gone()); decoding and naming still wait for the report.
 *
 * Return: 0 or -ENOMEM (what was not resolved stays pending).
 */
int raw_stacks__settle(struct raw_stacks *rs, int pid);

/**
 * raw_stacks__settle_gone() - a tool's answer to session_opts.on_gone: the
 * counts the kernel holds come in first through @agg (when there is one;
 * @fn adds them, as at the report), then each of @pids is settled.
 * @tool: the command's name, for the message when reading the counts fails
 *
 * Return: 0, or the first error (logged when it is the counts' read).
 */
int raw_stacks__settle_gone(struct raw_stacks *rs, struct agg_reader *agg, agg_fn fn, void *ctx,
			    const int *pids, size_t n, const char *tool);

/**
 * raw_stacks__fold_for() - let settled stacks of gone processes merge when
 * a report made with @report_flags (REPORT_*) could not tell them apart:
 * not split by process (no REPORT_BY_PID); with REPORT_ADDRS only where the
 * addresses agree too. Off until called. raw_stacks__settle_gone() folds
 * every so often.
 */
void raw_stacks__fold_for(struct raw_stacks *rs, unsigned report_flags);

/**
 * raw_stacks__fold() - merge now each settled stack into the earliest
 * settled stack whose frames will read the same in the report (the same
 * comm, flags, kernel addresses and, per user frame, the same file, offset
 * and walker marks; never code outside a file, which each process's perf
 * map names): the report is the same, the entries of a storm of short
 * processes are not kept one per process. Nothing merges unless
 * raw_stacks__fold_for() allowed it.
 *
 * Return: 0 or -ENOMEM (nothing changed).
 */
int raw_stacks__fold(struct raw_stacks *rs);

/** raw_stacks__settled() - Return: stacks resolved early by raw_stacks__settle(). */
uint64_t raw_stacks__settled(const struct raw_stacks *rs);

/** raw_stacks__folded() - Return: settled stacks merged into another by raw_stacks__fold(). */
uint64_t raw_stacks__folded(const struct raw_stacks *rs);

/** raw_stacks__len() - Return: the distinct stacks held now. */
size_t raw_stacks__len(const struct raw_stacks *rs);

/** raw_stacks__total() - events added since the last clear. */
uint64_t raw_stacks__total(const struct raw_stacks *rs);

/** raw_stacks__clear() - forget every stack (interval output). */
void raw_stacks__clear(struct raw_stacks *rs);

/** raw_stacks__free() - NULL is fine. */
void raw_stacks__free(struct raw_stacks *rs);

#endif
