/* SPDX-License-Identifier: GPL-2.0 */
/* Names of JIT code from /tmp/perf-PID.map ("START SIZE NAME" lines), read as perf does. */
#ifndef ST_PERF_MAP_H
#define ST_PERF_MAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The file is written by the JIT of the process itself (node --perf-basic-prof,
 * `jcmd PID Compiler.perfmap`, LuaJIT, .NET, ...), one line per code blob, in
 * hex: "START SIZE NAME\n", START and SIZE with or without "0x". Lines are only
 * ever appended, and a JIT reuses freed code space, so a later line describes
 * the code at its addresses now: later lines win where ranges overlap.
 *
 * Everything about the file is hostile: the owner, the type, the size, each
 * line. What is refused is counted, never trusted.
 */

/* Default cap on the bytes read: a long-running node writes ~100 MiB. */
#define PERF_MAP_MAX_BYTES (512UL << 20)
/* Longest line we take; a JVM signature stays far below. Longer ones are counted bad. */
#define PERF_MAP_MAX_LINE 65536

struct perf_map_sym {
	uint64_t start, end; /* [start, end): run-time addresses in the process */
	const char *name;    /* owned by the map */
};

struct perf_map_stats {
	size_t lines;     /* complete lines seen */
	size_t bad_lines; /* malformed, empty name, zero size, overflowing, too long */
	size_t partial;   /* a last line without '\n' (the JIT may be mid-write): skipped */
	size_t shadowed;  /* lines whose whole range a later line took over */
	size_t truncated; /* bytes past the cap, not read (0 when the file fit) */
};

struct perf_map;

/**
 * perf_map__open() - read a perf map file, after perf's trust check.
 * @path:      usually "/proc/PID/root/tmp/perf-NSPID.map" (the process's own /tmp)
 * @owner:     the uid of the process the map describes
 * @max_bytes: cap on the bytes read, 0 for PERF_MAP_MAX_BYTES
 *
 * Opens with O_NOFOLLOW | O_NONBLOCK (a symlink is refused, a FIFO cannot
 * block us) and checks the open file: it must be a regular file owned by
 * @owner or by root, as perf requires, so another user cannot name the
 * process's code. A refused file is logged once here (a warning naming it and
 * the reason); a missing one is not (most processes have no JIT).
 *
 * Return: the map, or NULL with errno: ENOENT (no file), ELOOP (a symlink),
 * EINVAL (not a regular file), EPERM (owned by someone else), ENOMEM, or the
 * error of open/read.
 */
struct perf_map *perf_map__open(const char *path, uid_t owner, size_t max_bytes);

/**
 * perf_map__read_fd() - perf_map__open() of a file the caller opened (with
 * O_NOFOLLOW | O_NONBLOCK, e.g. inside a process's root: lib/sym/jit_maps.c).
 * @fd:   the open file (the caller keeps and closes it)
 * @name: what to call it in messages
 *
 * The same trust check and caps as perf_map__open().
 * Return: the map, or NULL with errno EINVAL, EPERM, ENOMEM or that of read.
 */
struct perf_map *perf_map__read_fd(int fd, const char *name, uid_t owner, size_t max_bytes);

/**
 * perf_map__read_text_fd() - the bytes of a map file the caller opened, after
 * the same trust check as perf_map__read_fd(), unparsed (a recording keeps them).
 * @len:  gets the bytes read
 * @over: gets the bytes past the cap, left unread
 *
 * Return: the bytes (malloc'd, the caller frees), or NULL with errno EINVAL,
 * EPERM, ENOMEM or that of read.
 */
char *perf_map__read_text_fd(int fd, const char *name, uid_t owner, size_t max_bytes,
			    size_t *len, size_t *over);

/**
 * perf_map__parse() - build a map from text already in memory.
 * @text: the file's bytes (need not be NUL-terminated); copied
 * @len:  bytes at @text
 *
 * Return: the map (possibly empty: bad lines are counted, not fatal), or NULL
 * with errno ENOMEM.
 */
struct perf_map *perf_map__parse(const char *text, size_t len);

/**
 * perf_map__find() - the symbol covering @addr.
 *
 * Return: the entry of the last line whose range holds @addr (its start and
 * end trimmed to the part no later line took), or NULL.
 */
const struct perf_map_sym *perf_map__find(const struct perf_map *pm, uint64_t addr);

/**
 * perf_map__syms() - all entries, sorted by start, disjoint.
 * @n: set to the number of entries
 *
 * A line partly covered by later ones appears once per piece it kept.
 *
 * Return: the array, owned by the map.
 */
const struct perf_map_sym *perf_map__syms(const struct perf_map *pm, size_t *n);

/** perf_map__stats() - Return: what the parse saw and refused. */
const struct perf_map_stats *perf_map__stats(const struct perf_map *pm);

/** perf_map__free() - release the map; NULL is fine. */
void perf_map__free(struct perf_map *pm);

#endif
