/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The frames of one captured event, kernel then user, as the report model
 * holds them: the one place where an event's frames are assembled.
 *
 * Decoding gives each user frame its file and offset at once (lib/proc:
 * the mapping live at the event's time), so a frame means the same thing
 * after its process is gone; naming comes after, in one batch over many
 * events (symbolizer__name()). Marks that stand for no code ("[user stack
 * lost: R]", and where a walk was cut or stopped) are added here too.
 * Inline frames found by naming become REPORT_FRAME_INLINE frames of their
 * own above the frame they were inlined into, here
 * (event_frames__add_inline()).
 */
#ifndef ST_EVENT_FRAMES_H
#define ST_EVENT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"
#include "lib/report/report.h"
#include "lib/sym/symbolizer.h"

struct arena;
struct elf_file;

/* Where a user frame's address was at the event. */
enum frame_src_kind {
	FRAME_SRC_NONE = 0, /* not a user frame (kernel frames, marks) */
	FRAME_SRC_NO_MAP,   /* in no mapping known at that time */
	FRAME_SRC_ANON,     /* in anonymous code (JIT, trampolines): the module, if any, names it */
	FRAME_SRC_FILE,     /* in a file (or the vDSO) at file_off */
};

struct frame_src {
	struct elf_file *file; /* FRAME_SRC_FILE: the file model; NULL when it could not be used */
	uint8_t kind;          /* enum frame_src_kind */
	uint32_t inl_first, inl_n; /* set by naming: its inline frames, in the namer's pool */
	uint8_t why;           /* file NULL: why (enum safe_open_why) */
};

struct event_frames {
	struct report_frame *v; /* nk kernel frames, then nu user frames; innermost first */
	struct frame_src *src;  /* one per frame */
	size_t nk, nu;
	int pid;
	struct arena *mem; /* where v and src live: NULL for malloc() */
};

/**
 * event_frames__decode() - the frames of @kd kernel and @ud user addresses
 * of @pid at @ts, not named yet: user frames carry their file, build ID and
 * offset; every frame but the first of each part is marked a return
 * address, except user frames the walker found exact (ST_FRAME_EXACT: a
 * signal trampoline, the pc a signal interrupted).
 * @lost: when the user stack was lost, the mark frame that stands for it
 *        ("[user stack lost: REASON]", see joiner_lost_frame()); else NULL
 * @ustop: why the user walk ended (st_event.ustop, enum st_ustop): a stack
 *         cut at the depth limit ends in a "[truncated]" mark, one whose walk
 *         stopped early in "[unwind stopped: REASON]" (ustop_mark())
 *
 * @mem: the arena the frames are taken from (they go with it), or NULL for
 *       malloc(): a batch of thousands of stacks spent a sixth of its naming
 *       time in malloc() and free() of their frames
 *
 * Strings belong to the symbolizer and its registry and live as long as they do.
 * Return: 0 or -ENOMEM.
 */
int event_frames__decode(struct event_frames *ef, struct arena *mem, struct symbolizer *sz,
			 int pid, uint64_t ts, const uint64_t *ips, size_t kd, size_t ud,
			 const char *lost, unsigned ustop);

struct proc_loc;
struct proc_registry;

/**
 * event_frames__locate() - where each of @ud user addresses of @pid was at
 * @ts (procs__resolve()), kept so the stack can be decoded after the
 * registry forgot the process (event_frames__decode_at()).
 * @locs: receives @ud places; a NULL path where no mapping held the address
 */
void event_frames__locate(const struct proc_registry *procs, int pid, uint64_t ts,
			  const uint64_t *uips, size_t ud, struct proc_loc *locs);

/**
 * event_frames__decode_at() - event_frames__decode() with the user frames'
 * places given (from event_frames__locate()) instead of looked up.
 *
 * Return: 0 or -ENOMEM.
 */
int event_frames__decode_at(struct event_frames *ef, struct arena *mem, int pid,
			    const uint64_t *ips, size_t kd, size_t ud, const char *lost,
			    unsigned ustop, const struct proc_loc *locs);

/**
 * event_frames__build() - decode and name one event's frames (snoop).
 *
 * Return: 0 or -ENOMEM.
 */
int event_frames__build(struct event_frames *ef, struct symbolizer *sz, int pid, uint64_t ts,
			const uint64_t *ips, size_t kd, size_t ud, const char *lost, unsigned ustop);

/**
 * event_frames__add_inline() - put each frame's inline frames (src[i].inl_n
 * of them from @pool at src[i].inl_first, innermost first) above it.
 *
 * Return: 0 or -ENOMEM (the frames are left as they were).
 */
int event_frames__add_inline(struct event_frames *ef, const struct report_frame *pool);

/**
 * event_frames__trim_plumbing() - once named, drop leading kernel frames of
 * a tracepoint's iterator (__traceiter_*): the capture's fixed skip leaves
 * one there on some stacks and not on others (the kernel's unwinder sees it
 * or not), which would split one kernel stack in two.
 */
void event_frames__trim_plumbing(struct event_frames *ef);

/** event_frames__release() - free the frames (those of an arena go with it). */
void event_frames__release(struct event_frames *ef);

#endif
