/* SPDX-License-Identifier: GPL-2.0 */
/* The frames of one captured event, kernel then user, as the report model holds them. */
#ifndef ST_EVENT_FRAMES_H
#define ST_EVENT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/report/report.h"
#include "lib/sym/symbolizer.h"

struct event_frames {
	struct report_frame *v; /* nk kernel frames, then nu user frames; innermost first */
	size_t nk, nu;
};

/**
 * event_frames__build() - symbolize @kd kernel and @ud user addresses of @pid.
 * @end: a mark frame after the user frames saying why the user stack ends
 *       there: it was lost ("[user stack lost: REASON]", joiner_lost_frame()),
 *       cut at the depth limit ("[truncated]") or its walk stopped early
 *       ("[unwind stopped: REASON]", ustop_mark()); NULL for a whole stack
 *
 * Names are the frames' own (freed by event_frames__release()); module, build
 * ID and source strings belong to the symbolizer and live as long as it.
 *
 * Return: 0 or -ENOMEM.
 */
int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid,
			const uint64_t *ips, size_t kd, size_t ud, const char *end);

/** event_frames__release() - free the frames and their names. */
void event_frames__release(struct event_frames *ef);

#endif
