/* SPDX-License-Identifier: GPL-2.0 */
/*
 * speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json):
 * one sampled profile per process (or per thread, where the stacks carry
 * threads), each sample a list of frame indices root first, weighted by the
 * count (events, samples) or the time (off-CPU, in nanoseconds).
 */
#ifndef ST_OUT_SPEEDSCOPE_H
#define ST_OUT_SPEEDSCOPE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/report/report.h"

struct speedscope_opts {
	const char *name;  /* the file's name, e.g. "stacktap profile"; NULL: "stacktap" */
	bool per_thread;   /* one profile per thread where stacks have one (tid >= 0) */
	bool weight;       /* weights: the stacks' weights in ns, not their counts */
};

/**
 * out_speedscope() - write @r as one speedscope file.
 *
 * Return: 0, -ENOMEM, or -EIO when @f could not be written.
 */
int out_speedscope(FILE *f, struct report *r, const struct speedscope_opts *o);

#endif
