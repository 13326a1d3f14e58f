/* SPDX-License-Identifier: GPL-2.0 */
/* Why a user-stack walk ended (enum st_ustop): its words, and the mark frame that shows it. */
#ifndef ST_UNWIND_USTOP_H
#define ST_UNWIND_USTOP_H

#include <stdbool.h>

#include "bpf/record.h"

/**
 * ustop_reason() - the reason in words, e.g. "reading the stack failed",
 * for the loss lines on stderr and the "[unwind stopped: ...]" marks.
 *
 * Return: a static string ("unknown" for a value out of range).
 */
const char *ustop_reason(unsigned why);

/**
 * ustop_early() - did a walk that ended for @why stop early? Not when it
 * reached the outermost frame (complete), hit the depth limit (truncated,
 * counted apart), or was no walk at all.
 *
 * Return: true for a loss.
 */
bool ustop_early(unsigned why);

/**
 * ustop_mark() - the mark frame that ends a user stack whose walk ended for
 * @why: "[truncated]" at the depth limit, "[unwind stopped: REASON]" where
 * it stopped early.
 *
 * Return: a static string, or NULL for a complete stack (or no walk).
 */
const char *ustop_mark(unsigned why);

#endif
