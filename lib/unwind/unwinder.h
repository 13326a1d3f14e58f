/* SPDX-License-Identifier: GPL-2.0 */
/* User-space unwinder over a copy of a thread's stack, driven by compact unwind tables. */
#ifndef ST_UNWIND_UNWINDER_H
#define ST_UNWIND_UNWINDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/unwind/table.h"

/* One mapping of the process, as the unwinder needs it. */
struct unwind_map {
	uint64_t start, end;  /* [start, end) in the process */
	uint64_t pgoff;       /* file offset of @start */
	uint64_t vaddr;       /* link-time vaddr of file offset @pgoff (see unwind_map__set_table) */
	const struct unwind_table *table; /* NULL: no table (anonymous, JIT, failed build) */
	const char *path;
};

/* The registers a walk starts from: those of the interrupted (innermost) frame. */
struct unwind_regs {
	uint64_t ip, sp, bp;
};

/* A copy of the stack: bytes of [base, base + len) of the process. */
struct unwind_stack {
	uint64_t base;
	const uint8_t *data;
	size_t len;
};

struct unwind_frame {
	uint64_t addr;     /* the pc: ip for frame 0, the return address for the others */
	bool exact;        /* @addr is an exact pc: frame 0, a signal trampoline, an interrupted pc */
	bool by_fp;        /* found by frame pointer (unwind_opts.fp_fallback) */
	int map;           /* index into the mappings, -1 when no mapping holds @addr */
	uint64_t file_off; /* @addr as an offset in the mapped file */
	const uint8_t *build_id; /* the table's ID (NULL without a table) */
	size_t build_id_len;
};

/* Why a walk ended; every walk ends with exactly one. */
enum unwind_stop {
	UNWIND_STOP_OUTERMOST,   /* the table said the stack ends here (or RA was 0) */
	UNWIND_STOP_NO_MAPPING,  /* pc in no mapping */
	UNWIND_STOP_NO_TABLE,    /* pc's file has no table, or no row covers pc */
	UNWIND_STOP_BAD_CFA,     /* CFA misaligned, overflowed, or based on an unknown rbp */
	UNWIND_STOP_STACK_DOWN,  /* CFA not above sp: the stack would not move up */
	UNWIND_STOP_OUTSIDE,     /* a read outside the stack snapshot */
	UNWIND_STOP_DEPTH,       /* the frame array is full */
	UNWIND_STOP_UNSUPPORTED, /* the row's rule is UNSUPPORTED */
	UNWIND_STOP_MAX,
};

/**
 * unwind_map__set_table() - attach @t to @m and derive m->vaddr from m->pgoff.
 *
 * Return: 0, or -ENOENT when the table's file has no PT_LOAD at m->pgoff
 * (m->table is then left NULL).
 */
int unwind_map__set_table(struct unwind_map *m, const struct unwind_table *t);

/* How a walk may go beyond the rows. */
struct unwind_opts {
	bool fp_fallback; /* a pc without a row: follow the frame pointer (--unwind=auto) */
};

/**
 * unwinder__walk() - unwind a stack copy by its rows alone: unwinder__walk_opts()
 * with no options.
 * @maps: mappings sorted by start, not overlapping
 * @nmaps: their number
 * @regs: registers of the innermost frame
 * @stack: the stack copy (starting at or below regs->sp)
 * @frames: receives up to @max frames, innermost first
 * @max: capacity of @frames
 * @n: receives the number of frames stored
 *
 * Return: why the walk stopped (never fails otherwise).
 */
enum unwind_stop unwinder__walk(const struct unwind_map *maps, size_t nmaps,
				const struct unwind_regs *regs, const struct unwind_stack *stack,
				struct unwind_frame *frames, size_t max, size_t *n);

/**
 * unwinder__walk_opts() - unwinder__walk() with @o.
 *
 * Return: why the walk stopped (never fails otherwise).
 */
enum unwind_stop unwinder__walk_opts(const struct unwind_map *maps, size_t nmaps,
				     const struct unwind_regs *regs,
				     const struct unwind_stack *stack, const struct unwind_opts *o,
				     struct unwind_frame *frames, size_t max, size_t *n);

/** unwind_stop_name() - "outermost", "no-table", ... for summaries and tests. */
const char *unwind_stop_name(enum unwind_stop why);

#endif
