/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unsigned LEB128 varints for the tool's own compact in-memory records and
 * the protobuf it writes (a value below 128 in one byte, any 64-bit value
 * in at most ten), and zigzag for signed differences (small either way,
 * small in bytes). varint_get() is only for bytes this process wrote
 * itself: it trusts its input (outside data goes through a bounded reader,
 * as in lib/unwind/cfi_check.c).
 */
#ifndef ST_VARINT_H
#define ST_VARINT_H

#include <stdint.h>

/* The most bytes varint_put() writes. */
#define VARINT_MAX 10

/** varint_put() - @v at @p. Return: the byte after it. */
static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/** varint_get() - the value at @p into *@v. Return: the byte after it. */
static inline const uint8_t *varint_get(const uint8_t *p, uint64_t *v)
{
	unsigned int shift = 0;
	uint64_t x = 0;
	uint8_t b;

	do {
		b = *p++;
		x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*v = x;
	return p;
}

/** zigzag() - the signed @d as an unsigned value small when |@d| is: 0, -1, 1, -2 -> 0, 1, 2, 3. */
static inline uint64_t zigzag(int64_t d)
{
	return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

/** unzigzag() - the inverse of zigzag(). */
static inline int64_t unzigzag(uint64_t z)
{
	return (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
}

#endif
