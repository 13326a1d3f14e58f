/* SPDX-License-Identifier: GPL-2.0 */
/* GNU build IDs spelt out: in hex, or as a path in a .build-id tree. */
#ifndef ST_BUILD_ID_H
#define ST_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

#define BUILD_ID_MAX 20

/** build_id__hex() - @id as lowercase hex into @buf (2 * @len + 1 bytes). Return: @buf. */
char *build_id__hex(const uint8_t *id, size_t len, char *buf);

/**
 * build_id__path() - "@dir/.build-id/xx/yyyy@suffix", the layout of
 * /usr/lib/debug and perf's ~/.debug.
 *
 * Return: 0, or -ENAMETOOLONG / -EINVAL (an ID under 2 bytes).
 */
int build_id__path(const char *dir, const uint8_t *id, size_t len, const char *suffix,
		   char *buf, size_t size);

#endif
