// SPDX-License-Identifier: GPL-2.0
/* The frames of one captured event, kernel then user. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/event_frames.h"

/* Long enough for a demangled C++ name with its template arguments cut short. */
#define FRAME_NAME_MAX 512

/* The frame's name becomes its own copy. Return: 0 or -ENOMEM. */
static int frames__own_name(struct report_frame *f)
{
	f->name = strdup(f->name);
	return f->name ? 0 : -ENOMEM;
}

static int frames__mark(struct report_frame *f, const char *text)
{
	*f = (struct report_frame){ .name = text, .kind = REPORT_FRAME_MARK };
	return frames__own_name(f);
}

int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid,
			const uint64_t *ips, size_t kd, size_t ud, const char *end)
{
	char buf[FRAME_NAME_MAX];
	size_t i, n = kd + ud + (end != NULL);
	int err = 0;

	memset(ef, 0, sizeof(*ef));
	ef->v = calloc(n + 1, sizeof(*ef->v));
	if (!ef->v)
		return -ENOMEM;
	for (i = 0; i < kd && !err; i++) {
		symbolizer__kernel_frame(sz, ips[i], i > 0, &ef->v[i], buf, sizeof(buf));
		err = frames__own_name(&ef->v[i]);
		ef->nk = i + 1;
	}
	/*
	 * ST_FRAME_MARKS are the walker's notes, not part of the pc. Every user
	 * frame but the first is a return address, except an exact one (a
	 * signal trampoline, the pc a signal interrupted).
	 */
	for (i = 0; i < ud && !err; i++) {
		uint64_t ip = ips[kd + i];

		symbolizer__user_frame(sz, pid, ip & ~ST_FRAME_MARKS, i > 0 && !(ip & ST_FRAME_EXACT),
				       &ef->v[kd + i], buf, sizeof(buf));
		err = frames__own_name(&ef->v[kd + i]);
		ef->nu = i + 1;
	}
	if (!err && end) {
		err = frames__mark(&ef->v[kd + ud], end);
		ef->nu = ud + 1;
	}
	if (err)
		event_frames__release(ef);
	return err;
}

void event_frames__release(struct event_frames *ef)
{
	size_t i;

	for (i = 0; ef->v && i < ef->nk + ef->nu; i++)
		free((char *)ef->v[i].name);
	free(ef->v);
	memset(ef, 0, sizeof(*ef));
}
