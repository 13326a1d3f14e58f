/* SPDX-License-Identifier: GPL-2.0 */
/* The user-stack walker's counters (bpf/ustack.bpf.h st_ustats): how walks ended. */
#ifndef ST_SESSION_USTATS_H
#define ST_SESSION_USTATS_H

#include <stdint.h>

#include "bpf/record.h"

struct bpf_object;

/**
 * ustats__read() - the walker's counters of @obj, summed over CPUs: stop
 * reasons (enum st_ustop) then enum st_ustat_extra.
 *
 * Return: 0, -ENOENT when @obj has no walker, or -errno.
 */
int ustats__read(struct bpf_object *obj, uint64_t out[ST_USTAT_MAX]);

/**
 * ustats__report() - one stderr line per reason walks stopped early
 * ("N user stacks stopped early: REASON"); with --debug, how many walks were
 * complete, truncated, crossed signal frames or switched stacks.
 */
void ustats__report(struct bpf_object *obj);

#endif
