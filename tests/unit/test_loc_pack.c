// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of packed frame locations (lib/pipeline/loc_pack.c): what is
 * packed unpacks field for field (no mapping, anonymous code, a file used
 * and one refused, the same path with another model; offsets above their
 * address, the walker's marks in an address's top bits, biases going up and
 * down), each place is kept once however many frames and stacks name it,
 * an empty stack packs, a block's length is read back exactly
 * (loc_places__packed_len()), and 2,000 stacks of made-up frames (a fixed
 * seed) come back exactly, from a copy of exactly that length. Made-up paths and file models (never dereferenced).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/pipeline/loc_pack.h"
#include "tests/unit/check.h"

static int same(const struct proc_loc *a, const struct proc_loc *b)
{
	return a->path == b->path && a->file == b->file && a->file_off == b->file_off &&
	       a->file_backed == b->file_backed && a->why == b->why;
}

/* xorshift64: the same made-up stacks every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 2,000 stacks of 0-40 frames over 4 places, addresses and offsets anywhere. */
static void check_many(struct loc_places *lp)
{
	static const char p0[] = "/a", p1[] = "/b";
	const struct proc_loc kinds[] = {
		{ .path = p0, .file = (struct elf_file *)0x10, .file_backed = true },
		{ .path = p1, .file = (struct elf_file *)0x20, .file_backed = true },
		{ .path = NULL },
		{ .path = p1, .why = 2, .file_backed = true },
	};
	struct proc_loc in[40], out[40];
	uint64_t ips[40], seed = 0x9e3779b97f4a7c15ull;
	size_t i, j, n, len, bad = 0;
	void *b, *exact;

	for (i = 0; i < 2000; i++) {
		n = next(&seed) % 41;
		for (j = 0; j < n; j++) {
			in[j] = kinds[next(&seed) % 4];
			ips[j] = next(&seed) >> (next(&seed) % 64);
			in[j].file_off = j && next(&seed) % 2 ? in[j - 1].file_off + (ips[j] - ips[j - 1])
							     : next(&seed) >> (next(&seed) % 64);
		}
		b = loc_places__pack(lp, ips, in, n);
		len = b ? loc_places__packed_len(b, n) : 0;
		exact = b ? malloc(len ? len : 1) : NULL; /* an overread shows under ASan */
		if (!exact) {
			free(b);
			bad++;
			continue;
		}
		memcpy(exact, b, len);
		memset(out, 0xa5, sizeof(out));
		loc_places__unpack(lp, exact, ips, n, out);
		free(exact);
		for (j = 0; j < n; j++)
			bad += !same(&out[j], &in[j]);
		free(b);
	}
	CHECK_EQ_U64(bad, 0);
}

int main(void)
{
	static const char libc[] = "/usr/lib/libc.so.6", anon[] = "";
	struct elf_file *m1 = (struct elf_file *)0x1000, *m2 = (struct elf_file *)0x2000;
	const struct proc_loc a[] = {
		{ .path = libc, .file = m1, .file_off = 0x29d90, .file_backed = true },
		{ .path = NULL },
		{ .path = anon, .file_off = 0 },
		{ .path = libc, .file = m1, .file_off = 0x1234, .file_backed = true },
		{ .path = libc, .file = NULL, .file_off = 0x77, .file_backed = true, .why = 3 },
		{ .path = libc, .file = m2, .file_off = 0x29d90, .file_backed = true },
	};
	const uint64_t ia[] = { 0x7f0000029d90ull, 0x1234, 0x4000, 0x7f0000001234ull, 0x77,
				0x8000000000029d90ull };
	const struct proc_loc b[] = {
		{ .path = libc, .file = m1, .file_off = 0xffffffffffffull, .file_backed = true },
		{ .path = anon, .file_off = 0 },
	};
	const uint64_t ib[] = { 0x10, 0xffffffffffffffffull };
	struct loc_places *lp = loc_places__new(NULL);
	struct proc_loc out[6];
	void *pa, *pb, *pe;
	size_t i;

	CHECK(lp != NULL);
	if (!lp)
		return CHECK_DONE();
	pa = loc_places__pack(lp, ia, a, 6);
	pb = loc_places__pack(lp, ib, b, 2);
	pe = loc_places__pack(lp, NULL, NULL, 0);
	CHECK(pa && pb && pe);
	CHECK_EQ_U64(loc_places__len(lp), 5); /* libc+m1, none, anon, libc refused, libc+m2 */
	/* b: place 0, a 7-byte bias (0xffff000000000011); place 2, 7 bytes (+0xffffffffffee) */
	CHECK_EQ_U64(pb ? loc_places__packed_len(pb, 2) : 0, 16);
	CHECK_EQ_U64(pe ? loc_places__packed_len(pe, 0) : 1, 0);
	if (pa && pb) {
		loc_places__unpack(lp, pa, ia, 6, out);
		for (i = 0; i < 6; i++)
			CHECK(same(&out[i], &a[i]));
		loc_places__unpack(lp, pb, ib, 2, out);
		for (i = 0; i < 2; i++)
			CHECK(same(&out[i], &b[i]));
	}
	free(pa);
	free(pb);
	free(pe);
	check_many(lp);
	CHECK_EQ_U64(loc_places__len(lp), 8); /* 3 more: none was there */
	loc_places__free(lp);
	return CHECK_DONE();
}
