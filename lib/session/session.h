/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session: the run loop every tool shares. It polls the capture ring
 * buffer, joins deferred user stacks to their events (lib/session/joiner.h)
 * and hands each complete event to the tool, keeps time (duration,
 * interval), stops on Ctrl-C/SIGTERM or when the traced process exits, and
 * reports the capture library's loss counters at the end.
 */
#ifndef ST_SESSION_H
#define ST_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/record.h"
#include "lib/session/pump.h" /* ring_pump_fn */

struct bpf_object;

struct session_opts {
	uint64_t duration_ns;  /* 0 = until interrupted */
	uint64_t interval_ns;  /* 0 = no periodic output */
	uint64_t max_events;   /* 0 = no limit */
	int target_pid;        /* stop once this process has exited (0 = none) */
	/* Return non-zero to stop the run (e.g. -n N reached). */
	int (*on_event)(void *ctx, const struct st_event *ev, const uint64_t *ips);
	/*
	 * A tool's own record in the capture ring buffer (a kind other than
	 * ST_REC_*; e.g. offcpu's switch-in). NULL: such records are ignored.
	 * Return non-zero to stop the run.
	 */
	int (*on_record)(void *ctx, const void *data, size_t size);
	void (*on_interval)(void *ctx);
	/* Once, as session__run() starts: the tool has attached and said so. May be NULL. */
	void (*on_start)(void *ctx);
	/* A process exec'ed, mapped code or exited (an ST_REC_PROC record); may be NULL. */
	void (*on_proc)(void *ctx, const struct st_proc_event *pe);
	/*
	 * After each poll of the ring buffer: room for deferred work; may be
	 * NULL. Return true when work is left, so the next poll comes soon.
	 */
	bool (*on_poll)(void *ctx);
	/*
	 * These processes exited a while ago and are about to be forgotten by
	 * the process registry (lib/session/run.c): resolve now what the tool
	 * holds of them (raw_stacks__settle()). NULL: the registry keeps every
	 * exited process until the end.
	 */
	void (*on_gone)(void *ctx, const int *pids, size_t n);
	/*
	 * A replay reached a forget the live run recorded (REC_FORGET): forget
	 * the processes that exited before @before, as it did. May be NULL.
	 */
	void (*on_forget)(void *ctx, uint64_t before);
	void *ctx;
	/*
	 * The tool's events never carry a stack copy (offcpu: a block is sent at
	 * its switch-in, and a copy does not fit in it): the walker cannot wait
	 * for tables, which lib/session/run.c then builds before the banner.
	 */
	bool no_copies;
	/*
	 * Build a process's unwind tables only once an event of it arrives (a
	 * sampling tool: a system-wide profile samples few of the programs the
	 * machine runs); until then its events come with stack copies, unwound
	 * in user space. System-wide runs only (a -p target is loaded at start).
	 */
	bool tables_when_met;
	/* stacktap record: every record and decision is written here too (lib/record/recorder.h). */
	struct recorder *rec;
};

struct session;

/**
 * session_set_ringbuf_size() - size the capture ring buffer before load.
 * @bytes: rounded up to a power of two of at least one page
 *
 * Return: 0 or -errno.
 */
int session_set_ringbuf_size(struct bpf_object *obj, size_t bytes);

/**
 * session__new() - a session over a loaded object's capture maps.
 *
 * Return: the session, or NULL with errno set (logged).
 */
struct session *session__new(struct bpf_object *obj, const struct session_opts *opts);

struct replay;

/**
 * session__new_replay() - a session whose records come from a recording
 * (stacktap report): the same dispatch, joiner and drain as a live one, fed
 * by @rp's actions instead of a ring buffer.
 *
 * Return: the session, or NULL with errno set.
 */
struct session *session__new_replay(struct replay *rp, const struct session_opts *opts);

/**
 * session__run() - poll until duration, signal, event limit or target exit,
 * then drain what the ring buffer still holds. Replayed: act on every
 * recorded action in order.
 *
 * Return: 0, or -errno of a failed poll (-EBADMSG: the recording is damaged
 * and what came before the damage was delivered; -EIO: writing the
 * recording failed).
 */
int session__run(struct session *s);

/**
 * session__handled_before() - on the thread running @s: every record stamped
 * (bpf_ktime_get_ns()) before the answer has been handled (UINT64_MAX once
 * session__run() returned, and for a replay). A count made in the kernel
 * later than that may have its first record, and the mappings that name
 * it, still on the way.
 */
uint64_t session__handled_before(const struct session *s);

/**
 * session__draining() - true once the run stopped and only the records
 * already in the ring buffer are read. Return: whether it is.
 */
bool session__draining(const struct session *s);

/**
 * session__exit_ahead() - on the thread running @s: is the exit of the
 * process @pid had at @ts (an event's time) already queued behind the
 * record being handled (lib/session/exits_ahead.h)? Live runs that do not
 * record only; false otherwise, and for a NULL @s.
 */
bool session__exit_ahead(const struct session *s, int pid, uint64_t ts);

/**
 * session__look_ahead() - on the thread running @s, in a live run that does
 * not record: hand @fn every queued record behind the one being handled
 * (ring_pump__peek()).
 *
 * Return: 0, or -EOPNOTSUPP (replaying, recording, or a NULL @s).
 */
int session__look_ahead(struct session *s, ring_pump_fn fn, void *ctx);

/**
 * session__look_ahead_sync() - session__look_ahead() once everything the
 * ring buffer holds now is in the queue (ring_pump__sync()).
 *
 * Return: 0, or -EOPNOTSUPP.
 */
int session__look_ahead_sync(struct session *s, ring_pump_fn fn, void *ctx);

/** session__interrupted() - true when a signal ended the run. */
bool session__interrupted(const struct session *s);

/** session__stats() - the summed per-CPU counters. Return: 0 or -errno. */
int session__stats(const struct session *s, uint64_t out[ST_STAT_MAX]);

/**
 * session__forget_pids() - @pids are gone and forgotten: what the joiner
 * keeps of them for late events goes (joiner__forget_pids()).
 */
void session__forget_pids(struct session *s, const int *pids, size_t n);

/** session__report_joiner() - the joiner's memory line (joiner__report_memory()). */
void session__report_joiner(const struct session *s);

/**
 * session__take_back_stops() - walks the walker counted as stopped early whose
 * user stack a copy's walk replaced, by enum st_ustop (ST_USTOP_MAX counts,
 * kept by the caller and read at each report): the loss lines leave them out.
 */
void session__take_back_stops(struct session *s, const uint64_t *replaced);

/**
 * session__report_losses() - one stderr line per nonzero loss reason over
 * the whole run, then how many deferred walks served how many events.
 */
void session__report_losses(const struct session *s);

/**
 * session__print_time() - when what a tool prints now is as of: the end of
 * the interval being printed, or the stop; live and in a report alike (the
 * recorded times), so a time of day printed with it is the live run's.
 *
 * Return: CLOCK_MONOTONIC ns on the events' machine.
 */
uint64_t session__print_time(const struct session *s);

/**
 * session__report_interval_losses() - the losses since the previous call
 * (or the start), one stderr line per nonzero reason, each after @prefix:
 * an interval's losses beside that interval's output (-i).
 */
void session__report_interval_losses(struct session *s, const char *prefix);

/** session__free() - NULL is fine. */
void session__free(struct session *s);

/** session_install_signals() - make SIGINT/SIGTERM/SIGHUP stop the run loop (st_run__prepare() does). */
void session_install_signals(void);

#endif
