/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a whole file whose size is not known in advance (/proc files report 0). */
#ifndef ST_READ_FILE_H
#define ST_READ_FILE_H

#include <stddef.h>
#include <sys/types.h>

/**
 * read_file_all() - read @path to its end into a malloc'ed buffer.
 * @max: refuse files longer than this (-EFBIG)
 * @out: receives the bytes, NUL-terminated one past @len for text users
 *
 * Return: 0, or -errno of the open or read (-ENOENT: no such file).
 */
int read_file_all(const char *path, size_t max, char **out, size_t *len);

/**
 * read_fd_chunks() - feed @fd's bytes, from its start, to @fn a chunk at a
 * time: read (pread), not mapped, so a file that shrinks under us ends the
 * reading where a mapping would raise SIGBUS, and no page of it stays
 * resident. Stops at @max bytes, at the file's end, or at a read error.
 * @fn: gets each chunk in order, @ctx passed through
 *
 * Return: the bytes fed to @fn, or -ENOMEM.
 */
ssize_t read_fd_chunks(int fd, size_t max, void (*fn)(void *ctx, const void *p, size_t n),
		       void *ctx);

#endif
