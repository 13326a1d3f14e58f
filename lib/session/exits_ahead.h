/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exits ahead: the processes whose exit record already waits in the pump's
 * queue, behind the records being handled. Under churn most processes an
 * event meets are gone before the event is read; what the run loop would
 * do at such a process's first event to prepare for its later ones (read
 * /proc/PID/maps, probe its perf map, load its tables for the BPF walker)
 * only fails or is undone at the exit a moment later. Noted at each take
 * from a look at the queue (ring_pump__peek()); live only: a recording's
 * reads must be the same ones its report makes.
 */
#ifndef ST_EXITS_AHEAD_H
#define ST_EXITS_AHEAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct exit_ahead {
	int pid;
	uint64_t ts; /* of the exit record */
};

struct exits_ahead {
	struct exit_ahead *v; /* sorted by pid, then ts, after exits_ahead__seal() */
	size_t n, cap;
};

/** exits_ahead__clear() - forget the exits noted; the memory stays for the next look. */
void exits_ahead__clear(struct exits_ahead *ea);

/**
 * exits_ahead__note() - a ring_pump_fn for ring_pump__peek() with @ctx an
 * exits_ahead: notes the record at @data if it is a process's exit.
 *
 * Return: 0, or -ENOMEM (the look stops; what was noted stays).
 */
int exits_ahead__note(void *ctx, void *data, size_t size);

/** exits_ahead__seal() - sort what was noted, for exits_ahead__has(). */
void exits_ahead__seal(struct exits_ahead *ea);

/**
 * exits_ahead__has() - Return: whether the process @pid had at @ts (an
 * event's time) has an exit noted: one of @pid at or after @ts (an earlier
 * one ended an earlier process of that pid).
 */
bool exits_ahead__has(const struct exits_ahead *ea, int pid, uint64_t ts);

/** exits_ahead__free() - free @ea's memory; @ea is then empty. */
void exits_ahead__free(struct exits_ahead *ea);

#endif
