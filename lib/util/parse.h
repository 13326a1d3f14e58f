/* SPDX-License-Identifier: GPL-2.0 */
/* The one place command-line numbers are parsed: whole string, range, errno. */
#ifndef ST_PARSE_H
#define ST_PARSE_H

#include <stdint.h>

/**
 * parse_u64() - parse a whole decimal (or 0x hex) number within [min, max];
 * a leading 0 is not octal.
 * @s: text; leading/trailing junk, a sign or overflow are rejected
 *
 * Return: 0 and *out set, or -EINVAL (not a number) / -ERANGE (outside range).
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * parse_seconds() - parse a non-negative decimal duration in seconds, fractions
 * and exponents allowed ("0.5", "1e-3"), at most a year.
 *
 * Return: 0 and *ns set, or -EINVAL / -ERANGE.
 */
int parse_seconds(const char *s, uint64_t *ns);

#endif
