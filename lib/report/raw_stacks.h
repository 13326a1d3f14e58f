/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw stacks: events deduplicated exactly on their identity and addresses
 * as they arrive, symbolized once per distinct stack when the report is
 * built. A user stack the joiner gave up on is kept apart by its reason and
 * shown as one "[user stack lost: REASON]" frame.
 */
#ifndef ST_RAW_STACKS_H
#define ST_RAW_STACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/report/report.h"
#include "lib/sym/symbolizer.h"

struct raw_stacks;

/** raw_stacks__new() - Return: an empty set, or NULL (ENOMEM). */
struct raw_stacks *raw_stacks__new(void);

/**
 * raw_stacks__add() - count @ev (kernel then user @ips) once with @weight.
 *
 * Return: 0 or -ENOMEM.
 */
int raw_stacks__add(struct raw_stacks *rs, const struct st_event *ev, const uint64_t *ips,
		    uint64_t weight);

/**
 * raw_stacks__report() - symbolize every distinct stack into @r.
 *
 * Return: 0 or -ENOMEM.
 */
int raw_stacks__report(struct raw_stacks *rs, struct symbolizer *sym, struct report *r);

/** raw_stacks__total() - events added since the last clear. */
uint64_t raw_stacks__total(const struct raw_stacks *rs);

/** raw_stacks__clear() - forget every stack (interval output). */
void raw_stacks__clear(struct raw_stacks *rs);

/** raw_stacks__free() - NULL is fine. */
void raw_stacks__free(struct raw_stacks *rs);

#endif
