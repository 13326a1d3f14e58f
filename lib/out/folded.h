/* SPDX-License-Identifier: GPL-2.0 */
/* Folded stacks ("comm;root;...;leaf N"), as flamegraph.pl reads them. */
#ifndef ST_OUT_FOLDED_H
#define ST_OUT_FOLDED_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/report/report.h"

struct folded_opts {
	bool annotate;       /* "_[k]" after kernel frames, "_[i]" after inlined ones (-a) */
	bool weight;         /* print the weight / weight_div instead of the count */
	uint64_t weight_div; /* e.g. 1000 for ns shown as us (0 = 1) */
	bool lines;          /* " at FILE:LINE" inside frames, when known */
	bool per_pid;        /* first field "comm-PID" (-P), as stackcollapse-perf.pl --pid */
};

/** out_folded_stack() - one line: comm, user frames root first, kernel frames, count. */
void out_folded_stack(FILE *f, const struct report_stack *s, const struct folded_opts *o);

/** out_folded() - every stack, least frequent first. */
void out_folded(FILE *f, struct report *r, const struct folded_opts *o);

#endif
