/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding a file's separate debug file, as gdb does: by build ID under
 * /usr/lib/debug/.build-id/, then by its .gnu_debuglink name (CRC checked)
 * next to the file, in .debug/ there, and under /usr/lib/debug/. Candidates
 * next to a traced file are in a directory its owner controls: they are
 * opened with lib/util/safe_open.h like any file a traced process names.
 */
#ifndef ST_ELF_DEBUG_FILE_H
#define ST_ELF_DEBUG_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* gdb's default debug-file-directory, where Debian's -dbg and -dbgsym packages install. */
#define DEBUG_ROOT "/usr/lib/debug"

/*
 * Asked of each candidate, open on @fd, before its CRC is checked (the CRC
 * reads the whole file): false skips it. The candidate finally returned is
 * the last one accepted.
 */
typedef bool (*debug_file_accept)(int fd, void *ctx);

/*
 * The debug-file door, twin of the proc source (lib/proc/source.h): where
 * the debug file of a build ID is. Live: DEBUG_ROOT/.build-id/xx/yyyy.debug;
 * a report looks in its recording, --debug-dir and --symfs first.
 */
struct debug_source {
	/* An fd on the debug file of build ID @id and its path (malloc'ed), or -1. */
	int (*open_by_id)(void *ctx, const uint8_t *id, size_t len, char **path);
	void *ctx;
};

/** debug_file_set_source() - find by build ID through @s (copied), or live with NULL. */
void debug_file_set_source(const struct debug_source *s);

/**
 * debug_file__open() - open the separate debug file of @elf.
 * @name: the file's path (where its .gnu_debuglink is looked for)
 * @id: its build ID (@id_len bytes, 0 for none)
 * @self: stat of the file itself: a candidate that is the file is skipped
 * @accept: NULL, or asked first of each candidate (see debug_file_accept)
 * @ctx: for @accept
 * @path: receives the path of the file found (malloc'ed; the caller frees it)
 *
 * Return: an fd, or -1 when there is none (not an error: nothing is logged).
 */
int debug_file__open(Elf *elf, const char *name, const uint8_t *id, size_t id_len,
		     const struct stat *self, debug_file_accept accept, void *ctx, char **path);

/* Longest build ID a .gnu_debugaltlink may carry (SHA-1 is 20 bytes). */
#define DEBUG_ALT_ID_MAX 20

/**
 * debug_file__open_alt() - open the dwz file the DWARF of @dbg shares
 * (its .gnu_debugaltlink), as libdw would but through safe_open(): by
 * build ID under /usr/lib/debug/.build-id/ (through the debug-file door
 * instead when one is set: a report), then by the name it gives
 * (relative to @dbg_path's directory when not absolute).
 * @id: receives the build ID the link names (DEBUG_ALT_ID_MAX bytes of room)
 * @id_len: receives its length (0: none given; the file is not checked)
 * @path: receives the path opened, or the name looked for (malloc'ed; the
 *        caller frees it; may be NULL when out of memory)
 *
 * The caller checks the file's build ID against @id.
 * Return: an fd; -ENODATA when @dbg has no .gnu_debugaltlink; -ENOENT when
 * none was found; -ENOMEM.
 */
int debug_file__open_alt(Elf *dbg, const char *dbg_path, uint8_t *id, size_t *id_len,
			 char **path);

#endif
