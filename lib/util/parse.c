// SPDX-License-Identifier: GPL-2.0
/* The one place command-line numbers are parsed: whole string, range, errno. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/parse.h"

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	int base = 10;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	/* Base 10 unless "0x": a pid written "010" is 10, not octal 8. */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!isxdigit((unsigned char)*s))
			return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, uint64_t *ns)
{
	double v;
	char *end;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	/* Decimal only: strtod would also read "0x1p3" as 8. */
	if (strpbrk(s, "xX"))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || isnan(v))
		return -EINVAL;
	/* A year is more than any trace wants; it keeps the ns product in range. */
	if (errno == ERANGE || v < 0 || v > 365.0 * 24 * 3600)
		return -ERANGE;
	*ns = (uint64_t)(v * 1e9);
	return 0;
}
