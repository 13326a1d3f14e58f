/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The settled log: stacks of gone processes, resolved (raw_stacks__settle())
 * and out of the dedup store, packed one after another in an arena. A gone
 * process's stack takes no new events (the kernel's counts are read before
 * its settling, and a late event after the registry forgot it has another
 * key: epoch 0), so it needs no hash slot, no place in the store's order,
 * no first-event time and no malloc'ed block of places: its header, its
 * delta-packed frames and its packed places, ~60% of what it cost in the
 * store. Records keep their rank among the raw stacks (seq), so the report
 * meets them in the order the store met them.
 */
#ifndef ST_SETTLED_LOG_H
#define ST_SETTLED_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/util/arena.h"

struct settled_rec {
	uint64_t count, weight;
	uint64_t seq; /* its rank among the raw stacks by first event: the report's order */
	uint32_t pid;
	uint16_t kd, ud, flags, ustop; /* as struct raw_key's */
	uint16_t flen, plen;           /* bytes of packed frames, then of packed places, in b */
	char comm[ST_COMM_LEN];
	uint8_t b[];
};

/* Zero-initialised is empty. */
struct settled_log {
	struct arena mem;
	struct settled_rec **v; /* in the order appended */
	size_t n, cap;
};

/**
 * settled_log__append() - a record with @h's fields (its flen and plen
 * included) and the bytes at @frames and @places after it.
 *
 * Return: the record, stable until settled_log__reset(), or NULL (ENOMEM).
 */
struct settled_rec *settled_log__append(struct settled_log *l, const struct settled_rec *h,
					const void *frames, const void *places);

/** settled_rec__frames() - Return: @r's delta-packed frames, flen bytes. */
static inline const uint8_t *settled_rec__frames(const struct settled_rec *r)
{
	return r->b;
}

/** settled_rec__places() - Return: @r's packed places (lib/pipeline/loc_pack.h), plen bytes. */
static inline const uint8_t *settled_rec__places(const struct settled_rec *r)
{
	return r->b + r->flen;
}

/** settled_log__reset() - forget every record; @l is empty again. */
void settled_log__reset(struct settled_log *l);

#endif
