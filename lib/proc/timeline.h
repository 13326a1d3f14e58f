/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One process's executable mappings over time: every mapping with the span
 * [from, to) in which it was mapped, so an event is resolved with the
 * mappings live at its own moment even when user space reads it after a
 * dlclose(), an exec, or a new library at the same address.
 *
 * Two kinds of knowledge meet here. Lifecycle records (bpf/proc_events.bpf.h)
 * say exactly when a mapping came or went. A read of /proc/PID/maps says
 * only what is mapped at the moment of the read: such a mapping is
 * "guessed", its @from a lower bound, until a record names its start. Rules:
 *   - a record that maps M at t: ends what overlaps M at t; an identical
 *     guessed mapping learns that it started at t;
 *   - a record that unmaps a range at t (munmap, exec, and fork for the pid's
 *     previous owner): ends what overlaps it at t, keeping the parts outside
 *     the range; a guessed mapping seen mapped after t is not ended (it was
 *     mapped after t: its @from moves up to t);
 *   - a /proc read at t: adds what it lists that is not known (guessed, from
 *     the pid's image start or the end of what was there before), and ends
 *     at t what is known live but not listed;
 *   - a description at t (BPF's walk at a first meeting): adds as a /proc
 *     read does, and ends nothing.
 * Records may arrive late and out of order (they come from every CPU); the
 * rules give the same answer in any order for records more than a moment
 * apart. Times are CLOCK_MONOTONIC ns, the clock of bpf_ktime_get_ns().
 */
#ifndef ST_PROC_TIMELINE_H
#define ST_PROC_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TL_LIVE UINT64_MAX /* tl_map.to of a mapping still mapped */

struct tl_map {
	uint64_t start, end, pgoff; /* [start, end) at file offset pgoff */
	uint64_t from, to;          /* mapped over [from, to) */
	uint64_t seen;              /* a moment it was known to be mapped */
	uint64_t dev, ino;          /* dev: major << 32 | minor; ino 0: no file */
	const char *path;           /* the caller's (interned): "" anonymous */
	void *file;                 /* the caller's: its file */
	uint8_t why;                /* the caller's: why file is NULL (enum safe_open_why) */
	bool guessed;               /* @from is a lower bound (from a /proc read) */
};

struct timeline {
	struct tl_map *v;  /* sorted by start, then from */
	size_t n, cap;
	uint64_t max_len;  /* the longest mapping ever: bounds a lookup's backward scan */
	uint64_t *marks;   /* sorted moments where any mapping came or went */
	size_t nmarks, cap_marks;
};

/**
 * timeline__map() - a record: @m was mapped at @ts (its times are set here).
 *
 * Return: 0 or -ENOMEM.
 */
int timeline__map(struct timeline *tl, uint64_t ts, const struct tl_map *m);

/** timeline__unmap() - a record: [@start, @end) was unmapped at @ts. Return: 0 or -ENOMEM. */
int timeline__unmap(struct timeline *tl, uint64_t ts, uint64_t start, uint64_t end);

/** timeline__end_all() - everything was unmapped at @ts (exec). Return: 0 or -ENOMEM. */
int timeline__end_all(struct timeline *tl, uint64_t ts);

/**
 * timeline__snapshot() - a /proc read at @now listed @maps (their times are
 * set here); what it adds starts no earlier than @floor (the image's start).
 *
 * Return: 0 or -ENOMEM.
 */
int timeline__snapshot(struct timeline *tl, uint64_t now, uint64_t floor,
		       const struct tl_map *maps, size_t n);

/**
 * timeline__describe() - timeline__snapshot() that only adds: at @now
 * @maps were there, and nothing is said of what they do not list (a
 * description from BPF, bpf/met.bpf.h, whose records may be lost). Known
 * mappings are only seen again, so a repeated description changes nothing.
 *
 * Return: how many mappings it added, or -ENOMEM.
 */
int timeline__describe(struct timeline *tl, uint64_t now, uint64_t floor,
		       const struct tl_map *maps, size_t n);

/**
 * timeline__fork() - @dst (a child) starts at @ts with what @src (its
 * parent) had mapped then; what @dst held before (a previous owner of the
 * pid) ends there.
 *
 * Return: 0 or -ENOMEM.
 */
int timeline__fork(struct timeline *dst, const struct timeline *src, uint64_t ts);

/**
 * timeline__find() - the mapping holding @addr at @ts; where two claim it
 * (a guess and a record not yet reconciled), the record wins.
 *
 * Return: it, or NULL.
 */
const struct tl_map *timeline__find(const struct timeline *tl, uint64_t ts, uint64_t addr);

/**
 * timeline__live() - the mappings live now, sorted and not overlapping.
 * @out: receives up to @max of them
 *
 * Return: how many there are (may exceed @max).
 */
size_t timeline__live(const struct timeline *tl, const struct tl_map **out, size_t max);

/**
 * timeline__epoch() - the last moment at or before @ts where anything
 * changed: events with equal epochs saw the same mappings.
 *
 * Return: it, 0 when nothing changed before @ts.
 */
uint64_t timeline__epoch(const struct timeline *tl, uint64_t ts);

/** timeline__release() - free what @tl holds (not the paths or files). */
void timeline__release(struct timeline *tl);

#endif
