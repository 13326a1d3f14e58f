/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf map of each process (lib/sym/perf_map.h): what names its JIT
 * code. A process's map is read when it is first seen, re-read before a
 * report (and when a lookup misses and the file changed: the JIT keeps
 * appending), read a last time when it exits, and kept after that for
 * events still to be named.
 *
 * The file is the process's own /tmp/perf-NSPID.map: inside its root (a
 * container's /tmp, its pid in its own namespace), opened through an fd on
 * /proc/PID/root taken at first sight, so it can still be read after the
 * process is gone; trusted only when owned by the process's user or root.
 */
#ifndef ST_JIT_MAPS_H
#define ST_JIT_MAPS_H

#include <stdint.h>

struct jit_maps;
struct perf_map;
struct perf_map_sym;

struct jit_maps_stats {
	uint64_t maps_read; /* perf map files read (first reads and re-reads) */
	uint64_t refused;   /* files refused by the trust check (warned once each) */
	uint64_t held;      /* processes with an entry now */
	uint64_t dropped;   /* entries of gone processes without a map freed (forget, lookup) */
};

/** jit_maps__new() - Return: an empty set, or NULL (ENOMEM). */
struct jit_maps *jit_maps__new(void);

/**
 * jit_maps__recorded_only() - from now on, only the maps jit_maps__set()
 * gives: /proc is never asked (a replay: its pids are not this machine's).
 */
void jit_maps__recorded_only(struct jit_maps *jm);

/** jit_maps__see() - @pid was seen: its map is read the first time. */
void jit_maps__see(struct jit_maps *jm, int pid);

/** jit_maps__exited() - @pid exited: its map is read a last time and kept. */
void jit_maps__exited(struct jit_maps *jm, int pid);

/**
 * jit_maps__keep() - a settled stack of @pid has code outside a file, which
 * @pid's map names at the report: its entry outlives jit_maps__forget().
 */
void jit_maps__keep(struct jit_maps *jm, int pid);

/**
 * jit_maps__forget() - @pid exited and is forgotten, its stacks settled:
 * its entry is freed unless it holds a map (of this process or of one
 * before it with the pid) or jit_maps__keep() asked for it. A later event
 * of @pid is a new process, which jit_maps__see() reads afresh either way.
 */
void jit_maps__forget(struct jit_maps *jm, int pid);

/**
 * jit_maps__set() - @pm is @pid's perf map, as a recording kept it: never read
 * from /proc (the process is not this machine's now).
 * @pm: taken over (freed with the set, or now on failure)
 *
 * Return: 0 or -ENOMEM.
 */
int jit_maps__set(struct jit_maps *jm, int pid, struct perf_map *pm);

/** jit_maps__refresh() - re-read every map whose file changed (before a report). */
void jit_maps__refresh(struct jit_maps *jm);

/**
 * jit_maps__find() - the perf map line of @pid covering @addr (a run-time
 * address, pc - 1 already applied to return addresses).
 *
 * Return: the entry (valid until the next call on @jm), or NULL.
 */
const struct perf_map_sym *jit_maps__find(struct jit_maps *jm, int pid, uint64_t addr);

/** jit_maps__stats() - Return: what was read and refused. */
const struct jit_maps_stats *jit_maps__stats(const struct jit_maps *jm);

/** jit_maps__free() - NULL is fine. */
void jit_maps__free(struct jit_maps *jm);

#endif
