/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a settled stack's user frames were (struct proc_loc each), packed:
 * a frame's mapping (path, file model, whether file-backed, why not used)
 * is one of few for all the stacks of a run, so it is kept once in a table
 * of places, and a frame holds the place's number and where its mapping was
 * loaded (its address less its offset, the same along a run of frames in
 * one mapping), as small varints: 2-3 bytes a frame instead of 32. The
 * frames' addresses, which the stack's key holds anyway, give the offsets
 * back. Under a churn of short processes the settled stacks of the gone
 * ones are most of what a profile holds. Unpacking gives back exactly the
 * struct proc_loc that was packed.
 */
#ifndef ST_LOC_PACK_H
#define ST_LOC_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "lib/proc/registry.h"

struct loc_places;

/**
 * loc_places__new() - an empty table.
 * @procs: the registry whose file models the places name: each is held from
 *         its first place on, for the registry's life (NULL: not held)
 *
 * Return: the table, or NULL (ENOMEM).
 */
struct loc_places *loc_places__new(struct proc_registry *procs);

/**
 * loc_places__pack() - @n locations (@n may be 0) of the frames at @ips as
 * one malloc'ed block (free() it), their places added to @lp.
 *
 * Return: the block, or NULL (ENOMEM).
 */
void *loc_places__pack(struct loc_places *lp, const uint64_t *ips, const struct proc_loc *locs,
		       size_t n);

/**
 * loc_places__unpack() - the @n locations of @packed into @out; @ips: the
 * same addresses as were packed.
 */
void loc_places__unpack(const struct loc_places *lp, const void *packed, const uint64_t *ips,
			size_t n, struct proc_loc *out);

/** loc_places__packed_len() - Return: the bytes of @packed, a block of @n locations. */
size_t loc_places__packed_len(const void *packed, size_t n);

/** loc_places__len() - Return: the distinct places held. */
size_t loc_places__len(const struct loc_places *lp);

/** loc_places__free() - NULL is fine. */
void loc_places__free(struct loc_places *lp);

#endif
