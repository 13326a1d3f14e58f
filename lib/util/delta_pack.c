// SPDX-License-Identifier: GPL-2.0
/* Delta-packed 64-bit sequences: zigzag differences, byte counts as nibbles up front. */
#include <string.h>

#include "lib/util/delta_pack.h"
#include "lib/util/varint.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "delta_pack stores a value's low bytes by a whole-word copy: little-endian only"
#endif

size_t delta_pack(uint8_t *out, const uint64_t *v, size_t n)
{
	uint8_t *nib = out, *at = out + (n + 1) / 2;
	uint64_t prev = 0, z;
	unsigned int nb;
	size_t i;

	memset(nib, 0, (n + 1) / 2);
	for (i = 0; i < n; i++) {
		z = zigzag((int64_t)(v[i] - prev));
		nb = (64 - (unsigned int)__builtin_clzll(z | 1) + 7) / 8; /* 1..8 */
		prev = v[i];
		nib[i / 2] |= (uint8_t)((nb - 1) << (4 * (i & 1)));
		memcpy(at, &z, 8); /* its low nb bytes, the rest overwritten or past the end */
		at += nb;
	}
	return (size_t)(at - out);
}

void delta_unpack(const uint8_t *in, size_t len, uint64_t *v, size_t n)
{
	const uint8_t *at = in + (n + 1) / 2, *end = in + len;
	uint64_t prev = 0, w;
	unsigned int nb;
	size_t i;

	for (i = 0; i < n; i++) {
		nb = ((in[i / 2] >> (4 * (i & 1))) & 7) + 1;
		w = 0;
		if (end - at >= 8)
			memcpy(&w, at, 8);
		else /* never past the pack: the last values' words are read short */
			memcpy(&w, at, (size_t)(end - at));
		w &= ~0ull >> (64 - 8 * nb);
		at += nb;
		prev += (uint64_t)unzigzag(w);
		v[i] = prev;
	}
}
