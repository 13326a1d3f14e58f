/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-script text, as `perf script -F comm,pid,tid,cpu,time,period,event,ip,sym,symoff,dso`
 * prints it:
 *
 *   comm pid/tid [cpu] time: period event:
 *   \t        ADDR SYMBOL+0xOFF (DSO)
 *   ...
 *   (blank line)
 *
 * which stackcollapse-perf.pl, speedscope and the Firefox Profiler import.
 * A merged report has no event times: each of a stack's events becomes one
 * record, on a timeline from 0 where each record lasts its period (an
 * event 1 us), so a
 * reader that counts records (stackcollapse-perf) and one that weighs them
 * by the time to the next (speedscope, Firefox Profiler) both see what we
 * counted.
 */
#ifndef ST_OUT_PERF_SCRIPT_H
#define ST_OUT_PERF_SCRIPT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/report/report.h"

struct perf_script_opts {
	const char *event; /* the event column; NULL: the report's event, else "stacktap" */
};

/**
 * out_perf_script_record() - one record of @s: header, frames, blank line.
 * @period: the period column (perf's weight of this record)
 * @event: the event column
 */
void out_perf_script_record(FILE *f, const struct report_stack *s, uint64_t period,
			    const char *event);

/**
 * out_perf_script() - every event of every stack of @r, least frequent
 * stack first. Periods: 1 per event; period_ns per sample; for off-CPU, each
 * block's share of the stack's time, the remainder on the first, so the
 * periods of a stack add up to its weight exactly.
 *
 * Return: 0, or -EIO when @f could not be written.
 */
int out_perf_script(FILE *f, struct report *r, const struct perf_script_opts *o);

#endif
