/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One call renders a report in any format: what a command (count, profile,
 * offcpu, report) calls once it has built its report. Each writer's options
 * sit in their own struct; a command fills those it has opinions about.
 */
#ifndef ST_OUT_RENDER_H
#define ST_OUT_RENDER_H

#include <stdio.h>

#include "lib/out/ctf.h"
#include "lib/out/flamegraph.h"
#include "lib/out/folded.h"
#include "lib/out/format.h"
#include "lib/out/perf_script.h"
#include "lib/out/pprof.h"
#include "lib/out/speedscope.h"
#include "lib/out/text.h"
#include "lib/report/report.h"

struct out_opts {
	struct text_opts text;
	struct folded_opts folded;
	struct pprof_opts pprof;
	struct speedscope_opts speedscope;
	struct perf_script_opts perf_script;
	struct flamegraph_opts flamegraph;
	struct ctf_opts ctf;
};

/**
 * out_render() - write @r in @fmt.
 * @f: the stream (every format but CTF)
 * @dir: CTF's directory
 *
 * Return: 0, or a negative errno (-EIO: the output could not be written).
 */
int out_render(FILE *f, const char *dir, struct report *r, enum out_format fmt,
	       const struct out_opts *o);

/*
 * Instead of writing, hand each report to @fn (NULL: write again): how
 * `stacktap report --diff` gets the report models of two replays to render
 * one diff from. @fn's return is out_render()'s.
 */
typedef int (*out_render_capture_fn)(void *ctx, struct report *r, const struct out_opts *o);

/** out_render_capture() - send what out_render() is given to @fn. */
void out_render_capture(out_render_capture_fn fn, void *ctx);

#endif
