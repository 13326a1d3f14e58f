// SPDX-License-Identifier: GPL-2.0
/* GNU build IDs spelt out. */
#include <errno.h>
#include <stdio.h>

#include "lib/util/build_id.h"

char *build_id__hex(const uint8_t *id, size_t len, char *buf)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		buf[2 * i] = digits[id[i] >> 4];
		buf[2 * i + 1] = digits[id[i] & 15];
	}
	buf[2 * len] = '\0';
	return buf;
}

int build_id__path(const char *dir, const uint8_t *id, size_t len, const char *suffix,
		   char *buf, size_t size)
{
	char hex[2 * BUILD_ID_MAX + 1];
	int n;

	if (len < 2 || len > BUILD_ID_MAX)
		return -EINVAL;
	build_id__hex(id, len, hex);
	n = snprintf(buf, size, "%s/.build-id/%.2s/%s%s", dir, hex, hex + 2, suffix);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
