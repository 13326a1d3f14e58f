/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interactive flame graph: one self-contained HTML page (no network, no
 * outside script) with our own small script (lib/out/flamegraph.html): click
 * to zoom, reset, search by regular expression with the matched percentage,
 * a tooltip with the value and percentage, kernel, user, inlined and mark
 * frames coloured apart, frames too narrow to see merged. The diff graph
 * takes its widths from AFTER and colours each frame by how its share of the
 * total changed from BEFORE.
 */
#ifndef ST_OUT_FLAMEGRAPH_H
#define ST_OUT_FLAMEGRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/report/report.h"

struct flamegraph_opts {
	const char *title;    /* NULL: "stacktap" */
	const char *subtitle; /* NULL: the report's event */
	bool weight;          /* widths: weight / weight_div, not counts */
	uint64_t weight_div;  /* e.g. 1000 for ns shown as us (0 = 1) */
	const char *unit;     /* what a value counts; NULL: from the report's info */
	bool lines;           /* " at FILE:LINE" in frame names, when known */
};

/**
 * out_flamegraph() - @r as one HTML page.
 *
 * Return: 0, -ENOMEM, or -EIO when @f could not be written.
 */
int out_flamegraph(FILE *f, struct report *r, const struct flamegraph_opts *o);

/**
 * out_flamegraph_diff() - the change from @before to @after as one page:
 * widths from @after, colour by the change of each frame's share.
 *
 * Return: 0, -ENOMEM, or -EIO when @f could not be written.
 */
int out_flamegraph_diff(FILE *f, struct report *before, struct report *after,
			const struct flamegraph_opts *o);

#endif
