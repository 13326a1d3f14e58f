/* SPDX-License-Identifier: GPL-2.0 */
/* Folded stacks ("comm;root;...;leaf N"), as flamegraph.pl reads them. */
#ifndef ST_OUT_FOLDED_H
#define ST_OUT_FOLDED_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/report/report.h"

struct folded_opts {
	bool annotate_kernel; /* "_[k]" after kernel frames (-a), as bcc does */
	bool weight;          /* print the weight instead of the count */
};

/** out_folded_stack() - one line: comm, user frames root first, kernel frames, count. */
void out_folded_stack(FILE *f, const struct report_stack *s, const struct folded_opts *o);

/** out_folded() - every stack, least frequent first. */
void out_folded(FILE *f, struct report *r, const struct folded_opts *o);

#endif
