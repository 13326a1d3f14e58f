// SPDX-License-Identifier: GPL-2.0
/* The frame names of one captured event, kernel then user. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/event_frames.h"
#include "lib/session/joiner.h"

/* Long enough for a demangled C++ name with its template arguments cut short. */
#define FRAME_NAME_MAX 512

static int frames__push(struct event_frames *ef, size_t i, const char *name)
{
	ef->names[i] = strdup(name);
	return ef->names[i] ? 0 : -ENOMEM;
}

int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid,
			const uint64_t *ips, size_t kd, size_t ud, unsigned flags, bool addrs)
{
	char buf[FRAME_NAME_MAX];
	bool lost = (flags & ST_EV_UFAIL) && !ud;
	size_t i, n = kd + ud + lost;
	int err = 0;

	memset(ef, 0, sizeof(*ef));
	ef->names = calloc(n + 1, sizeof(char *));
	if (!ef->names)
		return -ENOMEM;
	for (i = 0; i < kd && !err; i++)
		err = frames__push(ef, i, symbolizer__kernel(sz, ips[i], i > 0, addrs, buf,
							     sizeof(buf)));
	/* ST_FRAME_FP marks frames the BPF walker found by frame pointer; not part of the pc. */
	for (i = 0; i < ud && !err; i++)
		err = frames__push(ef, kd + i, symbolizer__user(sz, pid, ips[kd + i] & ~ST_FRAME_FP,
								i > 0, addrs, buf, sizeof(buf)));
	if (!err && lost)
		err = frames__push(ef, kd, joiner_lost_frame(flags) ?: "[user stack lost: unavailable]");
	ef->nk = kd;
	ef->nu = ud + lost;
	if (err)
		event_frames__release(ef);
	return err;
}

void event_frames__release(struct event_frames *ef)
{
	size_t i;

	for (i = 0; ef->names && i < ef->nk + ef->nu; i++)
		free(ef->names[i]);
	free(ef->names);
	memset(ef, 0, sizeof(*ef));
}
