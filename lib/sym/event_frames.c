// SPDX-License-Identifier: GPL-2.0
/* The frames of one captured event, kernel then user: decoded here, named in batches. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf_file.h"
#include "lib/proc/registry.h"
#include "lib/sym/event_frames.h"
#include "lib/unwind/ustop.h"
#include "lib/util/arena.h"

static void frames__kernel(struct report_frame *f, uint64_t addr, bool is_return)
{
	*f = (struct report_frame){ .name = "[unknown]", .addr = addr, .kind = REPORT_FRAME_KERNEL,
				    .flags = is_return ? REPORT_FRAME_RETURN : 0 };
}

/* A user frame's file and offset from @loc, the mapping that held it (NULL: none did). */
static void frames__user(struct report_frame *f, struct frame_src *src,
			 const struct proc_loc *loc, uint64_t addr, bool is_return)
{
	*f = (struct report_frame){ .name = "[unknown]", .addr = addr, .kind = REPORT_FRAME_USER,
				    .flags = is_return ? REPORT_FRAME_RETURN : 0 };
	*src = (struct frame_src){ .kind = FRAME_SRC_NO_MAP };
	if (!loc)
		return;
	f->module = loc->path[0] ? loc->path : NULL;
	if (!loc->file_backed) {
		src->kind = FRAME_SRC_ANON;
		return;
	}
	src->kind = FRAME_SRC_FILE;
	src->file = loc->file;
	src->why = loc->why;
	f->file_off = loc->file_off;
	f->flags |= REPORT_FRAME_HAS_OFF;
	f->build_id = loc->file ? elf_file__build_id_hex(loc->file) : NULL;
}

static void frames__mark(struct report_frame *f, const char *text)
{
	*f = (struct report_frame){ .name = text, .kind = REPORT_FRAME_MARK };
}

/* The mark after the user frames: why they end there, or NULL for a whole stack. */
static const char *frames__end(size_t ud, const char *lost, unsigned ustop)
{
	return ud ? ustop_mark(ustop) : lost;
}

/* Where user frames are: looked up in the registry at the event's time, or given. */
struct frames_where {
	const struct proc_registry *procs;
	uint64_t ts;
	const struct proc_loc *locs; /* given: one per user frame, a NULL path for none */
};

static const struct proc_loc *frames__where(const struct frames_where *w, int pid, size_t i,
					    uint64_t addr, struct proc_loc *tmp)
{
	if (w->locs)
		return w->locs[i].path ? &w->locs[i] : NULL;
	return procs__resolve(w->procs, pid, w->ts, addr, tmp) ? NULL : tmp;
}

/* @n of @size bytes each, from @mem or else malloc(); not zeroed. */
static void *frames__alloc(struct arena *mem, size_t n, size_t size)
{
	if (n > SIZE_MAX / size)
		return NULL;
	return mem ? arena__alloc(mem, n * size) : malloc(n * size);
}

static int frames__decode(struct event_frames *ef, struct arena *mem,
			  const struct frames_where *w, int pid, const uint64_t *ips, size_t kd,
			  size_t ud, const char *lost, unsigned ustop)
{
	const char *end = frames__end(ud, lost, ustop);
	size_t i, n = kd + ud + (end != NULL);
	struct proc_loc tmp;

	memset(ef, 0, sizeof(*ef));
	ef->pid = pid;
	ef->mem = mem;
	/* Every frame is written below: only the end and what is no user frame are zeroed. */
	ef->v = frames__alloc(mem, n + 1, sizeof(*ef->v));
	ef->src = frames__alloc(mem, n + 1, sizeof(*ef->src));
	if (!ef->v || !ef->src) {
		event_frames__release(ef);
		return -ENOMEM;
	}
	memset(&ef->v[n], 0, sizeof(*ef->v));
	memset(ef->src, 0, kd * sizeof(*ef->src));
	memset(&ef->src[kd + ud], 0, (n + 1 - kd - ud) * sizeof(*ef->src));
	for (i = 0; i < kd; i++)
		frames__kernel(&ef->v[i], ips[i], i > 0);
	/*
	 * ST_FRAME_MARKS are the walker's notes, not part of the pc. Every user
	 * frame but the first is a return address, except an exact one: a
	 * signal trampoline, or the pc a signal interrupted (the frame after a
	 * signal frame), looked up at its own address.
	 */
	for (i = 0; i < ud; i++) {
		uint64_t ip = ips[kd + i], addr = ip & ~ST_FRAME_MARKS;

		frames__user(&ef->v[kd + i], &ef->src[kd + i], frames__where(w, pid, i, addr, &tmp),
			     addr, i > 0 && !(ip & ST_FRAME_EXACT));
	}
	if (end)
		frames__mark(&ef->v[kd + ud], end);
	ef->nk = kd;
	ef->nu = n - kd;
	return 0;
}

int event_frames__decode(struct event_frames *ef, struct arena *mem, struct symbolizer *sz,
			 int pid, uint64_t ts, const uint64_t *ips, size_t kd, size_t ud,
			 const char *lost, unsigned ustop)
{
	const struct frames_where w = { .procs = symbolizer__procs(sz), .ts = ts };

	return frames__decode(ef, mem, &w, pid, ips, kd, ud, lost, ustop);
}

int event_frames__decode_at(struct event_frames *ef, struct arena *mem, int pid,
			    const uint64_t *ips, size_t kd, size_t ud, const char *lost,
			    unsigned ustop, const struct proc_loc *locs)
{
	const struct frames_where w = { .locs = locs };

	return frames__decode(ef, mem, &w, pid, ips, kd, ud, lost, ustop);
}

void event_frames__locate(const struct proc_registry *procs, int pid, uint64_t ts,
			  const uint64_t *uips, size_t ud, struct proc_loc *locs)
{
	procs__resolve_each(procs, pid, ts, uips, ud, ST_FRAME_MARKS, locs);
}

int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid, uint64_t ts,
			const uint64_t *ips, size_t kd, size_t ud, const char *lost, unsigned ustop)
{
	int err = event_frames__decode(ef, NULL, sz, pid, ts, ips, kd, ud, lost, ustop);

	if (!err)
		err = symbolizer__name(sz, ef, 1);
	if (err)
		event_frames__release(ef);
	return err;
}

/* Room for @cap frames in @ef, its @n first kept. Return: 0 or -ENOMEM (@ef as it was). */
static int frames__grow(struct event_frames *ef, size_t cap)
{
	size_t n = ef->nk + ef->nu;
	struct report_frame *v;
	struct frame_src *src;

	if (!ef->mem) {
		v = cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(ef->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		ef->v = v;
		src = cap > SIZE_MAX / sizeof(*src) ? NULL : realloc(ef->src, cap * sizeof(*src));
		if (!src)
			return -ENOMEM;
		ef->src = src;
		return 0;
	}
	/* The arena's old blocks stay until it is rewound. */
	v = frames__alloc(ef->mem, cap, sizeof(*v));
	src = frames__alloc(ef->mem, cap, sizeof(*src));
	if (!v || !src)
		return -ENOMEM;
	memcpy(v, ef->v, n * sizeof(*v));
	memcpy(src, ef->src, n * sizeof(*src));
	ef->v = v;
	ef->src = src;
	return 0;
}

int event_frames__add_inline(struct event_frames *ef, const struct report_frame *pool)
{
	size_t i, n = ef->nk + ef->nu, extra = 0, at;
	struct report_frame *v;
	struct frame_src *src;

	for (i = 0; i < n; i++)
		extra += ef->src[i].inl_n;
	if (!extra)
		return 0;
	if (frames__grow(ef, n + extra + 1))
		return -ENOMEM;
	v = ef->v;
	src = ef->src;
	/* In place, from the outermost frame down: each frame moves up by the inline frames below it. */
	memset(&v[n + extra], 0, sizeof(*v));
	memset(&src[n + extra], 0, sizeof(*src));
	at = n + extra;
	for (i = n; i-- > 0;) {
		uint32_t first = src[i].inl_first, k = src[i].inl_n;

		v[--at] = v[i];
		src[at] = src[i];
		src[at].inl_n = 0;
		/* Inline frames stand for no code of their own: no source, no chain. */
		at -= k;
		memcpy(&v[at], &pool[first], k * sizeof(*v));
		memset(&src[at], 0, k * sizeof(*src));
	}
	ef->nu += extra; /* inline frames are user code: kernel frames have none */
	return 0;
}

/* A tracepoint's iterator: the probe's machinery, above the code that hit the tracepoint. */
#define TRACEITER_PREFIX "__traceiter_"

/*
 * Where the kernel stack was walked from inside the BPF program (a
 * tracepoint that handed over user registers: bpf/capture.bpf.h), the
 * program's own frames and the calls that ran it lead the stack. Frames a
 * leading bpf_prog_* frame says are plumbing; the last of them ends it.
 */
static const char *const bpf_plumbing[] = { "__bpf_get_stack", "bpf_get_task_stack", "bpf_prog_",
					     "trace_call_bpf", "perf_call_bpf_enter" };

static bool trim__is_bpf_plumbing(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(bpf_plumbing) / sizeof(bpf_plumbing[0]); i++)
		if (!strncmp(name, bpf_plumbing[i], strlen(bpf_plumbing[i])))
			return true;
	return false;
}

/* Return: how many leading frames are the BPF program's plumbing (0 without a bpf_prog_ frame). */
static size_t trim__bpf_frames(const struct event_frames *ef)
{
	size_t k = 0;
	bool prog = false;

	while (k < ef->nk && trim__is_bpf_plumbing(ef->v[k].name)) {
		prog |= !strncmp(ef->v[k].name, "bpf_prog_", 9);
		k++;
	}
	return prog ? k : 0;
}

void event_frames__trim_plumbing(struct event_frames *ef)
{
	size_t k = trim__bpf_frames(ef);

	while (k < ef->nk && ef->v[k].name &&
	       !strncmp(ef->v[k].name, TRACEITER_PREFIX, sizeof(TRACEITER_PREFIX) - 1))
		k++;
	if (!k)
		return;
	memmove(ef->v, ef->v + k, (ef->nk + ef->nu - k) * sizeof(*ef->v));
	memmove(ef->src, ef->src + k, (ef->nk + ef->nu - k) * sizeof(*ef->src));
	ef->nk -= k;
}

void event_frames__release(struct event_frames *ef)
{
	if (!ef->mem) {
		free(ef->v);
		free(ef->src);
	}
	memset(ef, 0, sizeof(*ef));
}
