/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwinding copied user stacks (records with ST_EV_UCOPY) in user space,
 * with the same tables the BPF walker uses: the slow, exact oracle of
 * --unwind=copy and --unwind-check.
 */
#ifndef ST_UNWIND_COPY_H
#define ST_UNWIND_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/unwind/table.h"
#include "lib/unwind/unwinder.h"

struct copy_unwinder;

/**
 * copy_unwinder__new() - @src: where a mapped file's table comes from (copied).
 * @fp_fallback: follow frame pointers where a pc has no row, as the BPF
 *               walker does in auto mode.
 *
 * Return: an unwinder, or NULL (ENOMEM).
 */
struct copy_unwinder *copy_unwinder__new(const struct unwind_table_source *src, bool fp_fallback);

/**
 * copy_unwinder__see() - (re)read @pid's executable mappings and their tables.
 *
 * Return: 0, or -ESRCH when the process is gone (what was read before stays).
 */
int copy_unwinder__see(struct copy_unwinder *cu, int pid);

struct proc_map;

/** copy_unwinder__set_maps() - @pid's mappings as the process registry knows them. */
int copy_unwinder__set_maps(struct copy_unwinder *cu, int pid, const struct proc_map *maps,
			    size_t n);

/**
 * copy_unwinder__walk() - unwind a copied stack of @pid.
 * @c: registers and length; the stack bytes follow it in the record
 * @out: receives up to @max frames, innermost first, with the BPF walker's
 *       ST_FRAME_* marks
 *
 * Return: why the walk stopped; *n frames were stored.
 */
enum unwind_stop copy_unwinder__walk(struct copy_unwinder *cu, int pid, const struct st_ucopy *c,
				     uint64_t *out, size_t max, size_t *n);

/** copy_unwinder__forget() - drop what is kept of @pid's mappings (its process is gone). */
void copy_unwinder__forget(struct copy_unwinder *cu, int pid);

/** copy_unwinder__free() - NULL is fine. */
void copy_unwinder__free(struct copy_unwinder *cu);

#endif
