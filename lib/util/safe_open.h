/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Opening a file someone else named (a traced process, a debug link inside
 * a traced file): read-only, never blocking, never through a symbolic link,
 * and only when it is a regular file of a plausible size and, when asked,
 * the very inode that was mapped. The checks run before open() (so a FIFO
 * or a link to /etc/shadow is never opened) and again on the open file (so a
 * swap between the two is caught).
 */
#ifndef ST_SAFE_OPEN_H
#define ST_SAFE_OPEN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Why a file was not opened; every refusal has a counter where it is used. */
enum safe_open_why {
	SAFE_OPEN_OK = 0,
	SAFE_OPEN_MISSING,     /* nothing there (ENOENT, ENOTDIR) */
	SAFE_OPEN_SYMLINK,     /* the path is, or passes through, a symbolic link */
	SAFE_OPEN_NOT_REGULAR, /* a FIFO, socket, device or directory */
	SAFE_OPEN_SIZE,        /* smaller than an ELF header, or implausibly large */
	SAFE_OPEN_CHANGED,     /* another file than the one expected (device, inode) */
	SAFE_OPEN_ERROR,       /* stat or open failed otherwise (EACCES, ...) */
	SAFE_OPEN_OTHER_BUILD, /* a report found only files of another build ID than recorded */
	SAFE_OPEN_NO_BUILD,    /* a report found no file of the recorded build ID */
	SAFE_OPEN_WHY_MAX,
};

/* The file expected: a mapping's device (major, minor) and inode. */
struct safe_open_id {
	uint32_t dev_major, dev_minor;
	uint64_t ino;
};

/* safe_open() flags */
#define SAFE_OPEN_FOLLOW 1u  /* follow a final link: only the kernel's own (/proc/PID/map_files) */
#define SAFE_OPEN_IN_ROOT 2u /* @dirfd is a process's root: resolve absolute links inside it */

/* The smallest ELF header (ELF32) and a bound no binary or debug file comes near. */
#define SAFE_OPEN_MIN_SIZE 52
#define SAFE_OPEN_MAX_SIZE (16ull << 30)

/**
 * safe_open() - open @path (relative to @dirfd) read-only, or refuse it.
 * @flags: SAFE_OPEN_*
 * @want: the file expected, or NULL for any regular file
 * @why: receives the reason when refused
 *
 * Return: an fd (O_CLOEXEC), or -1 with *why set; nothing is logged.
 */
int safe_open(int dirfd, const char *path, unsigned flags, const struct safe_open_id *want,
	      enum safe_open_why *why);

/**
 * safe_open_same_file() - is the open @fd (stat @st) the file @want names?
 *
 * The inode must match; the device too, except on overlayfs, whose stat()
 * reports its own device where /proc/PID/maps reports the layer's.
 *
 * Return: true when it is.
 */
bool safe_open_same_file(int fd, const struct stat *st, const struct safe_open_id *want);

/** safe_open_why_text() - Return: a reason as words, e.g. "not a regular file". */
const char *safe_open_why_text(enum safe_open_why why);

#endif
