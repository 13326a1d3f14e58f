// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the compact integer codecs (lib/util/varint.h,
 * lib/util/delta_pack.c): exact bytes for known values (zero, the varint
 * and byte-count boundaries, the largest difference), and 5,000 made-up
 * sequences of 0-300 values (a fixed seed: near and far neighbours, the
 * extremes) packed into exactly their length and unpacked value for value.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/delta_pack.h"
#include "lib/util/varint.h"
#include "tests/unit/check.h"

/* Does packing @v (@n values) give exactly the @len bytes @want? */
static int packs_to(const uint64_t *v, size_t n, const uint8_t *want, size_t len)
{
	uint8_t out[64];
	uint64_t back[4];
	size_t got = delta_pack(out, v, n);

	if (got != len || memcmp(out, want, len))
		return 0;
	delta_unpack(out, got, back, n);
	return !memcmp(back, v, n * sizeof(*v));
}

static void check_known(void)
{
	const uint64_t one[] = { 0 }, up[] = { 1, 3 }, top[] = { UINT64_MAX };
	const uint64_t user[] = { 0x7fff12345678ull }, far[] = { 0, 1ull << 63 };
	const uint8_t p_one[] = { 0x00, 0x00 }, p_up[] = { 0x00, 0x02, 0x04 };
	const uint8_t p_top[] = { 0x00, 0x01 };
	const uint8_t p_user[] = { 0x05, 0xf0, 0xac, 0x68, 0x24, 0xfe, 0xff };
	const uint8_t p_far[] = { 0x70, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t b[VARINT_MAX], out[8];
	uint64_t x;

	CHECK_EQ_U64(delta_pack(out, NULL, 0), 0);
	CHECK(packs_to(one, 1, p_one, sizeof(p_one)));
	CHECK(packs_to(up, 2, p_up, sizeof(p_up)));
	CHECK(packs_to(top, 1, p_top, sizeof(p_top)));
	CHECK(packs_to(user, 1, p_user, sizeof(p_user)));
	CHECK(packs_to(far, 2, p_far, sizeof(p_far)));

	CHECK_EQ_U64(varint_put(b, 0) - b, 1);
	CHECK_EQ_U64(varint_put(b, 127) - b, 1);
	CHECK_EQ_U64(b[0], 0x7f);
	CHECK_EQ_U64(varint_put(b, 128) - b, 2);
	CHECK(b[0] == 0x80 && b[1] == 0x01);
	CHECK_EQ_U64(varint_put(b, UINT64_MAX) - b, 10);
	CHECK_EQ_U64(b[9], 0x01);
	CHECK_EQ_U64(varint_get(b, &x) - b, 10);
	CHECK_EQ_U64(x, UINT64_MAX);
	CHECK_EQ_U64(zigzag(0), 0);
	CHECK_EQ_U64(zigzag(-1), 1);
	CHECK_EQ_U64(zigzag(1), 2);
	CHECK_EQ_U64(zigzag(INT64_MIN), UINT64_MAX);
	CHECK_EQ_U64(zigzag(INT64_MAX), UINT64_MAX - 1);
	CHECK(unzigzag(UINT64_MAX) == INT64_MIN && unzigzag(UINT64_MAX - 1) == INT64_MAX);
}

/* xorshift64: the same made-up sequences every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_many(void)
{
	static uint64_t v[300], back[300];
	static uint8_t scratch[(300 + 1) / 2 + 8 * 300 + 8];
	uint64_t seed = 0x2545f4914f6cdd1dull;
	size_t i, j, n, len, bad = 0;
	uint8_t *exact;

	for (i = 0; i < 5000; i++) {
		n = next(&seed) % 301;
		for (j = 0; j < n; j++) {
			switch (next(&seed) % 4) {
			case 0: v[j] = next(&seed); break;
			case 1: v[j] = next(&seed) % 2 ? 0 : UINT64_MAX; break;
			default: v[j] = (j ? v[j - 1] : 0) + (next(&seed) >> (next(&seed) % 64)); break;
			}
		}
		len = delta_pack(scratch, v, n);
		exact = malloc(len ? len : 1); /* exactly its length: no read past it */
		if (!exact || len > delta_pack_max(n)) {
			bad++;
			free(exact);
			continue;
		}
		memcpy(exact, scratch, len);
		memset(back, 0xa5, sizeof(back));
		delta_unpack(exact, len, back, n);
		bad += memcmp(back, v, n * sizeof(*v)) != 0;
		free(exact);
	}
	CHECK_EQ_U64(bad, 0);
}

int main(void)
{
	check_known();
	check_many();
	return CHECK_DONE();
}
