/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The replay: `stacktap report`'s side of a run. It reads a recording and
 * hands the session its actions (ring records, ticks, the drain) one by
 * one, after stashing the side entries written while each was handled; it
 * stands in the proc source door and answers the pipeline's reads from the
 * stash: /proc texts and liveness in recorded order, kernel symbols as
 * recorded, and mapped files found by build ID (archive, --symfs, perf's
 * build-ID cache, the recorded path, debug directories), never by a path
 * alone. See docs/recording.md.
 */
#ifndef ST_RECORD_REPLAY_H
#define ST_RECORD_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/record/reader.h"

struct replay_opts {
	const char *path;
	const char *const *symfs;      /* --symfs DIR..., searched first */
	size_t nsymfs;
	const char *const *debug_dirs; /* --debug-dir DIR..., before /usr/lib/debug */
	size_t ndebug_dirs;
	bool progress;                 /* progress on stderr for large recordings */
	bool no_default_dirs;          /* not $HOME/.debug, /usr/lib/debug (tests, the fuzzer) */
	bool no_recorded_paths;        /* not the paths the recording names (the fuzzer) */
};

struct replay;

/**
 * replay__open() - open a recording, check it can be replayed, read what
 * comes before its first action, and become the process-wide replay
 * (replay_active()) and proc source.
 * @buf, @len: with @o->path NULL, replay these bytes instead (the fuzzer)
 *
 * Return: the replay, or NULL with errno set and one line logged.
 */
struct replay *replay__open(const struct replay_opts *o, const void *buf, size_t len);

/** replay_active() - Return: the process-wide replay, or NULL when running live. */
struct replay *replay_active(void);

/** replay__command() - Return: the recorded command's name ("profile"). */
const char *replay__command(const struct replay *rp);

/** replay__args() - the recorded command's arguments. Return: their number. */
size_t replay__args(const struct replay *rp, const char *const **argv);

/** replay__meta() - Return: the first value recorded for @key, or NULL. */
const char *replay__meta(const struct replay *rp, const char *key);

/**
 * replay__next() - the next action (REC_RING, REC_TICK, REC_INTERVAL,
 * REC_DRAIN, REC_FLUSH), with every side entry up to the action after it
 * already stashed.
 *
 * Return: 1 with *e set (valid until the next call), 0 at the end, or
 * -EBADMSG when the recording is damaged here (logged once).
 */
int replay__next(struct replay *rp, struct rec_entry *e);

/**
 * replay__stats() - the capture library's counters as recorded at the end.
 *
 * Return: the number of counters copied into @out (0 when the recording
 * has none, e.g. it was cut short).
 */
size_t replay__stats(const struct replay *rp, uint64_t *out, size_t n);

/**
 * replay__ustats() - the user-stack walker's counters as recorded at the
 * end (format 2.1 on).
 *
 * Return: the number of counters copied into @out (0 when the recording
 * has none: older, or cut short).
 */
size_t replay__ustats(const struct replay *rp, uint64_t *out, size_t n);

/**
 * replay__damaged() - read what is left, then say whether the recording is
 * damaged or cut short. Return: true when it is.
 */
bool replay__damaged(struct replay *rp);

/**
 * replay__report() - read what is left, then one stderr line per file not
 * found or not matching, and one when the recording is cut short between
 * chunks (the reader already said so for other damage).
 */
void replay__report(struct replay *rp);

/* A recorded perf map: @pid's /tmp/perf-PID.map text, @len bytes (not NUL-terminated). */
typedef int (*replay_perf_map_fn)(void *ctx, int pid, const char *text, size_t len);

/**
 * replay__on_perf_map() - give each perf map the recording kept to @fn, as
 * it is read (at its process's exit or the run's end: before the names of
 * count, profile and offcpu are made, after snoop's events).
 */
void replay__on_perf_map(struct replay *rp, replay_perf_map_fn fn, void *ctx);

/**
 * replay__naming() - a symbolizer_progress_fn (@rp the replay): after the
 * recording is read, a large one's report says how far naming its stacks
 * is, as reading was shown.
 */
void replay__naming(void *rp, size_t done, size_t total);

/** replay__close() - stop being the replay and the proc source, free; NULL is fine. */
void replay__close(struct replay *rp);

#endif
