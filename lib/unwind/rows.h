/* SPDX-License-Identifier: GPL-2.0 */
/* A growable vector of unwind rows plus the counts of what could not be expressed. */
#ifndef ST_UNWIND_ROWS_H
#define ST_UNWIND_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_row.h"

/* Why a source rule became an UNSUPPORTED row (or was skipped); counted per kind. */
enum unwind_unsupported {
	UNW_UNSUP_CFA_REG,      /* CFA based on a register other than rsp/rbp */
	UNW_UNSUP_CFA_EXPR,     /* CFA given by a DWARF expression (not the PLT one) */
	UNW_UNSUP_CFA_RANGE,    /* CFA offset fits neither 16 bits nor 16 bits of 8-byte units */
	UNW_UNSUP_RA_RULE,      /* return address not at CFA - 8 */
	UNW_UNSUP_RBP_RULE,     /* rbp restored by an expression or from another register */
	UNW_UNSUP_RBP_RANGE,    /* rbp offset does not fit */
	UNW_UNSUP_PC_RANGE,     /* pc outside the 32-bit range above the table base */
	UNW_UNSUP_MAX,
};

struct unwind_rows {
	struct unwind_row *rows;
	size_t n, cap;
	uint64_t unsupported[UNW_UNSUP_MAX];
};

/**
 * unwind_row_set_cfa() - set @row's CFA rule to @off bytes above rsp, or above
 * rbp when @from_rbp; an offset beyond 16 bits is kept in 8-byte units.
 *
 * Return: 0, or -1 when the offset cannot be expressed (the row is unchanged).
 */
int unwind_row_set_cfa(struct unwind_row *row, bool from_rbp, int64_t off);

/**
 * unwind_rows__push() - append one row.
 *
 * Return: 0 or -ENOMEM (the vector is unchanged then).
 */
int unwind_rows__push(struct unwind_rows *v, const struct unwind_row *row);

/**
 * unwind_rows__finish() - sort by pc (stable) and merge consecutive rows that
 * say the same thing. At the same pc a later row wins, except that a
 * UNWIND_CFA_NONE row (the end of a function's range) never hides a real one.
 */
void unwind_rows__finish(struct unwind_rows *v);

/**
 * unwind_rows__find() - the row covering @pc in a finished vector.
 *
 * Return: the row, or NULL when @pc is below the first row.
 */
const struct unwind_row *unwind_rows__find(const struct unwind_rows *v, uint32_t pc);

/** unwind_rows__release() - free the storage; the struct itself is the caller's. */
void unwind_rows__release(struct unwind_rows *v);

/** unwind_unsupported_name() - short name of a reason, for tables and summaries. */
const char *unwind_unsupported_name(enum unwind_unsupported why);

#endif
