/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sequence of 64-bit values (a stack's frames) packed for memory: each as
 * the zigzag of its difference from the one before (from 0 for the first),
 * in as many bytes as that needs, the byte counts up front a nibble each.
 * Frames of one stack lie close together, so a frame takes ~3.6 bytes
 * instead of 8, and packing takes no branch that depends on the values (a
 * varint's loop mispredicts at each length change: it cost the report a
 * few percent). One-to-one for a given count: equal packs, equal values.
 * Only for bytes this process wrote itself: the reader trusts them.
 */
#ifndef ST_DELTA_PACK_H
#define ST_DELTA_PACK_H

#include <stddef.h>
#include <stdint.h>

/** delta_pack_max() - Return: the room delta_pack() needs for @n values (7 bytes of slack). */
static inline size_t delta_pack_max(size_t n)
{
	return (n + 1) / 2 + 8 * n + 8;
}

/**
 * delta_pack() - @n values at @v into @out (delta_pack_max(@n) bytes of room;
 * bytes past the returned length are scratch).
 *
 * Return: the packed length.
 */
size_t delta_pack(uint8_t *out, const uint64_t *v, size_t n);

/** delta_unpack() - the @n values of the @len bytes at @in (delta_pack()'s) into @v. */
void delta_unpack(const uint8_t *in, size_t len, uint64_t *v, size_t n);

#endif
