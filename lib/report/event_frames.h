/* SPDX-License-Identifier: GPL-2.0 */
/* The frame names of one captured event, kernel then user. */
#ifndef ST_EVENT_FRAMES_H
#define ST_EVENT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/sym/symbolizer.h"

struct event_frames {
	char **names; /* nk kernel names, then nu user names */
	size_t nk, nu;
};

/**
 * event_frames__build() - symbolize @kd kernel and @ud user addresses of @pid.
 * @flags: the record's ST_EV_* flags; a lost user stack becomes one
 *         "[user stack lost: REASON]" frame so it is never silently empty
 *
 * Return: 0 or -ENOMEM.
 */
int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid,
			const uint64_t *ips, size_t kd, size_t ud, unsigned flags, bool addrs);

/** event_frames__release() - free the names. */
void event_frames__release(struct event_frames *ef);

#endif
