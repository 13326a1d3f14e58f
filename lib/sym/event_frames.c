// SPDX-License-Identifier: GPL-2.0
/* The frames of one captured event, kernel then user: decoded here, named in batches. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf_file.h"
#include "lib/proc/registry.h"
#include "lib/sym/event_frames.h"

static void frames__kernel(struct report_frame *f, uint64_t addr, bool is_return)
{
	*f = (struct report_frame){ .name = "[unknown]", .addr = addr, .kind = REPORT_FRAME_KERNEL,
				    .flags = is_return ? REPORT_FRAME_RETURN : 0 };
}

/* A user frame's file and offset: the mapping that held it at @ts. */
static void frames__user(struct report_frame *f, struct frame_src *src,
			 const struct proc_registry *procs, int pid, uint64_t ts, uint64_t addr,
			 bool is_return)
{
	struct proc_loc loc;

	*f = (struct report_frame){ .name = "[unknown]", .addr = addr, .kind = REPORT_FRAME_USER,
				    .flags = is_return ? REPORT_FRAME_RETURN : 0 };
	*src = (struct frame_src){ .kind = FRAME_SRC_NO_MAP };
	if (procs__resolve(procs, pid, ts, addr, &loc))
		return;
	f->module = loc.path[0] ? loc.path : NULL;
	if (!loc.file_backed) {
		src->kind = FRAME_SRC_ANON;
		return;
	}
	src->kind = FRAME_SRC_FILE;
	src->file = loc.file;
	src->why = loc.why;
	f->file_off = loc.file_off;
	f->flags |= REPORT_FRAME_HAS_OFF;
	f->build_id = loc.file ? elf_file__build_id_hex(loc.file) : NULL;
}

static void frames__mark(struct report_frame *f, const char *text)
{
	*f = (struct report_frame){ .name = text, .kind = REPORT_FRAME_MARK };
}

int event_frames__decode(struct event_frames *ef, struct symbolizer *sz, int pid, uint64_t ts,
			 const uint64_t *ips, size_t kd, size_t ud, const char *lost)
{
	const struct proc_registry *procs = symbolizer__procs(sz);
	size_t i, n = kd + ud + (lost != NULL);

	memset(ef, 0, sizeof(*ef));
	ef->pid = pid;
	ef->v = calloc(n + 1, sizeof(*ef->v));
	ef->src = calloc(n + 1, sizeof(*ef->src));
	if (!ef->v || !ef->src) {
		event_frames__release(ef);
		return -ENOMEM;
	}
	for (i = 0; i < kd; i++)
		frames__kernel(&ef->v[i], ips[i], i > 0);
	/* ST_FRAME_FP marks frames the BPF walker found by frame pointer; not part of the pc. */
	for (i = 0; i < ud; i++)
		frames__user(&ef->v[kd + i], &ef->src[kd + i], procs, pid, ts,
			     ips[kd + i] & ~ST_FRAME_FP, i > 0);
	if (lost)
		frames__mark(&ef->v[kd + ud], lost);
	ef->nk = kd;
	ef->nu = n - kd;
	return 0;
}

int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid, uint64_t ts,
			const uint64_t *ips, size_t kd, size_t ud, const char *lost)
{
	int err = event_frames__decode(ef, sz, pid, ts, ips, kd, ud, lost);

	if (!err)
		err = symbolizer__name(sz, ef, 1);
	if (err)
		event_frames__release(ef);
	return err;
}

void event_frames__release(struct event_frames *ef)
{
	free(ef->v);
	free(ef->src);
	memset(ef, 0, sizeof(*ef));
}
