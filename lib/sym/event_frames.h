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
 * @lost: when the user stack was lost, the mark frame that stands for it
 *        ("[user stack lost: REASON]", see joiner_lost_frame()); else NULL
 *
 * Names are the frames' own (freed by event_frames__release()); module, build
 * ID and source strings belong to the symbolizer and live as long as it.
 *
 * Return: 0 or -ENOMEM.
 */
int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid,
			const uint64_t *ips, size_t kd, size_t ud, const char *lost);

/** event_frames__release() - free the frames and their names. */
void event_frames__release(struct event_frames *ef);

#endif
