/* SPDX-License-Identifier: GPL-2.0 */
/* Text output in the layout of bcc's stackcount: frames, then the count. */
#ifndef ST_OUT_TEXT_H
#define ST_OUT_TEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/out/frame_label.h"
#include "lib/report/report.h"

struct text_opts {
	bool delimiter;       /* "--" between kernel and user frames (-d) */
	bool per_pid;         /* "comm [pid]" line (-P) */
	const char *unit;     /* NULL: print the count; else the weight / weight_div and this unit */
	uint64_t weight_div;  /* with unit: e.g. 1000 for ns shown as us (0 = 1) */
	struct frame_label_opts label;
};

/** out_text_frames() - the frames of @s, one "  FRAME" line each. */
void out_text_frames(FILE *f, const struct report_stack *s, const struct text_opts *o);

/** out_text_stack() - one stack block: frames, optional "comm [pid]", count. */
void out_text_stack(FILE *f, const struct report_stack *s, const struct text_opts *o);

/** out_text() - every stack, least frequent first (stackcount's order). */
void out_text(FILE *f, struct report *r, const struct text_opts *o);

#endif
