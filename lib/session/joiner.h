/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The joiner: events captured in deferred mode wait here for the user stack
 * of their kernel entry, named by a cookie, and leave joined. See joiner.c.
 */
#ifndef ST_JOINER_H
#define ST_JOINER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"

/*
 * Why an event left without its user stack. The joiner sets ST_EV_UFAIL and
 * puts the reason in the top four bits of st_event.flags, which the BPF side
 * never uses (its ST_EV_* flags stay below bit 12).
 */
enum joiner_lost {
	JOINER_LOST_NONE = 0,
	JOINER_LOST_WALK,    /* the walk ran but read nothing (st_ustack says why) */
	JOINER_LOST_RINGBUF, /* the walk's record did not fit in the ring buffer */
	JOINER_LOST_EXITED,  /* the task is gone and its stack never came */
	JOINER_LOST_PENDING, /* still in the kernel when the session ended */
	JOINER_LOST_MEMORY,  /* evicted: waiting events exceeded the memory bound */
	JOINER_LOST_MAX,
};

#define JOINER_LOST_SHIFT 12
#define JOINER_LOST_MASK (0xfu << JOINER_LOST_SHIFT)
#define JOINER_LOST_OF(flags) (((flags) & JOINER_LOST_MASK) >> JOINER_LOST_SHIFT)

/* Defaults; the memory bound covers held events and their bookkeeping. */
#define JOINER_MAX_BYTES_DEFAULT (64u << 20)
/* Answered cookies kept for late events, which come within microseconds of their stack. */
#define JOINER_DONE_KEEP_DEFAULT 4096

struct joiner_opts {
	size_t max_bytes;  /* 0: JOINER_MAX_BYTES_DEFAULT */
	size_t done_keep;  /* 0: JOINER_DONE_KEEP_DEFAULT */
	bool tick_answered; /* joiner__tick() forgets copied answered cookies of gone tasks too */
	/* A complete event: kernel ips then user ips. Non-zero stops emitting. */
	int (*emit)(void *ctx, const struct st_event *ev, const uint64_t *ips);
	/* Is this thread still there? NULL: look in /proc. */
	bool (*task_alive)(void *ctx, uint32_t pid, uint32_t tid);
	void *ctx;
};

struct joiner_stats {
	uint64_t held;        /* events that waited for their stack */
	uint64_t joined;      /* events that left with the stack they waited for */
	uint64_t late;        /* events whose stack had already come (joined at once) */
	uint64_t stacks;      /* user stacks received */
	uint64_t duplicates;  /* a second stack for an answered cookie: ignored */
	uint64_t unclaimed;   /* stacks that no event was waiting for when they came */
	uint64_t gone_done;   /* answered cookies of gone processes forgotten early */
	uint64_t lost[JOINER_LOST_MAX]; /* events emitted without their stack, by reason */
	uint64_t stops[ST_USTOP_MAX];   /* received stacks by stop reason */
	size_t bytes, peak_bytes;       /* memory held now, and at most */
};

struct joiner;

/**
 * joiner__report_memory() - one stderr line (--debug): the answered cookies
 * kept for late events and the waiting ones, those forgotten with their
 * process (joiner__forget_pids()), and the bytes held now and at most.
 */
void joiner__report_memory(const struct joiner *j);

/** joiner__new() - Return: a joiner, or NULL (ENOMEM, or EINVAL without @emit). */
struct joiner *joiner__new(const struct joiner_opts *o);

/**
 * joiner__add_event() - an event record. Without ST_EV_UDEFERRED it is
 * emitted as is; with it, it waits for its cookie's stack, or joins at once
 * when the stack already came.
 * @ips: the record's kernel frames
 *
 * Return: 0, -ENOMEM, or the emit callback's non-zero value.
 */
int joiner__add_event(struct joiner *j, const struct st_event *ev, const uint64_t *ips);

/**
 * joiner__add_ustack() - a deferred user stack: every event waiting for its
 * cookie is emitted, in arrival order.
 * @copy, @copy_len: with ST_EV_UCOPY, the struct st_ucopy and its stack
 *                   bytes; every joined event carries them behind its frames
 *                   (as an event-time copy would be); else NULL, 0
 *
 * Return: 0, -ENOMEM, or the emit callback's non-zero value.
 */
int joiner__add_ustack(struct joiner *j, const struct st_ustack *us, const uint64_t *ips,
		       const void *copy, size_t copy_len);

/**
 * joiner__lookup() - the user stack of @cookie.
 * @ips, @n: set to the stack (owned by the joiner; valid until the next call)
 *
 * Return: 0, -EAGAIN when events wait for it and it has not come yet,
 * -ENOENT for a cookie the joiner does not know (or has forgotten).
 */
int joiner__lookup(struct joiner *j, uint64_t cookie, const uint64_t **ips, size_t *n);

/**
 * joiner__tick() - give up on cookies whose task is gone: seen gone at two
 * ticks at least @min_gap_ns apart, with the ring buffer drained between;
 * with joiner_opts.tick_answered, forget answered cookies with a stack copy
 * whose task is gone alike (counted in gone_done, as joiner__forget_pids()).
 *
 * Return: 0 or the emit callback's non-zero value.
 */
int joiner__tick(struct joiner *j, uint64_t now_ns, uint64_t min_gap_ns);

/**
 * joiner__forget_pids() - the processes @pids exited long enough ago that
 * no event of theirs is still on its way (lib/session/run.c: a second,
 * when the registry forgets them): their answered cookies, kept for late
 * events that come within microseconds, go now with their stacks and
 * stack copies (a copy is a few KiB: under a churn of new processes,
 * which come with copies until their tables are built, done_keep of them
 * held ~25 MiB). Waiting cookies stay for joiner__tick().
 *
 * Return: the answered cookies forgotten (none when out of memory).
 */
size_t joiner__forget_pids(struct joiner *j, const int *pids, size_t n);

/**
 * joiner__flush() - emit every waiting event without its stack, flagged
 * with @reason (e.g. JOINER_LOST_PENDING at the end of a session).
 *
 * Return: 0 or the emit callback's non-zero value.
 */
int joiner__flush(struct joiner *j, enum joiner_lost reason);

/** joiner__waiting() - events waiting now. */
size_t joiner__waiting(const struct joiner *j);

/** joiner__stats() - the counters so far. */
const struct joiner_stats *joiner__stats(const struct joiner *j);

/** joiner_lost_reason() - text of a reason, e.g. "task exited". */
const char *joiner_lost_reason(enum joiner_lost reason);

/**
 * joiner_lost_frame() - the frame that stands for a lost user stack,
 * "[user stack lost: REASON]", for an event's flags; NULL when not lost.
 */
const char *joiner_lost_frame(unsigned flags);

/** joiner__free() - NULL is fine; waiting events are dropped unemitted. */
void joiner__free(struct joiner *j);

#endif
