/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The end of a counting tool's run (count, profile, offcpu): the counts the
 * kernel holds join the raw stacks, the stacks are named into one report,
 * and the report is rendered in the format asked for. The tools differ only
 * in what they pass here.
 */
#ifndef ST_TOOL_REPORT_H
#define ST_TOOL_REPORT_H

#include <stdio.h>

#include "lib/out/render.h"
#include "lib/pipeline/raw_stacks.h"

struct tool_report {
	const char *tool;          /* "count": names the error lines */
	struct raw_stacks *raw;
	struct agg_reader *agg;    /* NULL: nothing was counted in the kernel */
	agg_fn on_agg;             /* takes the kernel's counts into raw */
	void *ctx;                 /* on_agg's */
	struct symbolizer *sym;
	unsigned report_flags;     /* REPORT_BY_PID, ... */
	const struct report_info *info;
	FILE *out;
	const char *output;        /* -o FILE (CTF's directory), or NULL: stdout */
	enum out_format format;
	const struct out_opts *oo;
};

/**
 * tool_report__print() - read @tr->agg's counts into @tr->raw, build the
 * report and render it.
 *
 * Return: 0, or a negative errno; each failure is said on stderr in one line
 * naming @tr->tool. The report is still rendered when only the kernel's
 * counts could not be read.
 */
int tool_report__print(const struct tool_report *tr);

#endif
