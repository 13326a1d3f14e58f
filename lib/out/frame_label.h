/* SPDX-License-Identifier: GPL-2.0 */
/* A frame as one line of text, the same way in every text-like writer. */
#ifndef ST_OUT_FRAME_LABEL_H
#define ST_OUT_FRAME_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/report/report.h"

struct frame_label_opts {
	bool addrs; /* "0xADDR " before the name (-v) */
	bool lines; /* " at FILE:LINE" after it, when known (--lines) */
	bool no_inline_mark; /* leave out " (inlined)" (folded: -a says it with "_[i]") */
};

/**
 * frame_label() - "[0xADDR ]NAME[ [MODULE]][ (inlined)][ at FILE:LINE]": the
 * module only for kernel frames (user frames name their function alone, as
 * bcc and perf print them).
 *
 * Return: @buf, always NUL-terminated (cut at @len).
 */
const char *frame_label(const struct report_frame *f, const struct frame_label_opts *o, char *buf,
			size_t len);

/**
 * frame_pc() - the address frame @i of @s stands at: its own, but an
 * inlined frame's is that of the frame it was inlined into (the next
 * non-inline one), and a mark has none.
 *
 * Return: the address, or 0.
 */
uint64_t frame_pc(const struct report_stack *s, size_t i);

/* Enough for a long demangled name, its module and a source path. */
#define FRAME_LABEL_MAX 1024

#endif
