/* SPDX-License-Identifier: GPL-2.0 */
/* JSON Lines output: one object per event or stack. */
#ifndef ST_OUT_JSON_H
#define ST_OUT_JSON_H

#include <stdint.h>
#include <stdio.h>

#include "lib/out/frame_label.h"
#include "lib/report/report.h"

/** json_string() - write @s as a JSON string literal, escaped. */
void json_string(FILE *f, const char *s);

/** json_string_html() - json_string(), with <, > and & escaped too: safe inside an HTML <script>. */
void json_string_html(FILE *f, const char *s);

/**
 * out_json_event() - one event as one line:
 * {"time":T,"comm":C,"pid":P,"tid":T,"cpu":C,"probe":S,"kernel":[...],"user":[...]}
 * @time_s: seconds since the start of tracing; frames as frame_label() writes them
 */
void out_json_event(FILE *f, double time_s, const char *probe, const struct report_stack *s,
		    const struct frame_label_opts *lo);

#endif
