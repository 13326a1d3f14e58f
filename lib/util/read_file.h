/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a whole file whose size is not known in advance (/proc files report 0). */
#ifndef ST_READ_FILE_H
#define ST_READ_FILE_H

#include <stddef.h>

/**
 * read_file_all() - read @path to its end into a malloc'ed buffer.
 * @max: refuse files longer than this (-EFBIG)
 * @out: receives the bytes, NUL-terminated one past @len for text users
 *
 * Return: 0, or -errno of the open or read (-ENOENT: no such file).
 */
int read_file_all(const char *path, size_t max, char **out, size_t *len);

#endif
