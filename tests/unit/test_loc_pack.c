// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of packed frame locations (lib/pipeline/loc_pack.c): what is
 * packed unpacks field for field (no mapping, anonymous code, a file used
 * and one refused, the same path with another model), each place is kept
 * once however many frames and stacks name it, and an empty stack packs.
 * Made-up paths and file models (never dereferenced).
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib/pipeline/loc_pack.h"
#include "tests/unit/check.h"

static int same(const struct proc_loc *a, const struct proc_loc *b)
{
	return a->path == b->path && a->file == b->file && a->file_off == b->file_off &&
	       a->file_backed == b->file_backed && a->why == b->why;
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
	const struct proc_loc b[] = {
		{ .path = libc, .file = m1, .file_off = 0xffffffffffffull, .file_backed = true },
		{ .path = anon, .file_off = 0 },
	};
	struct loc_places *lp = loc_places__new(NULL);
	struct proc_loc out[6];
	void *pa, *pb, *pe;
	size_t i;

	CHECK(lp != NULL);
	if (!lp)
		return CHECK_DONE();
	pa = loc_places__pack(lp, a, 6);
	pb = loc_places__pack(lp, b, 2);
	pe = loc_places__pack(lp, NULL, 0);
	CHECK(pa && pb && pe);
	CHECK_EQ_U64(loc_places__len(lp), 5); /* libc+m1, none, anon, libc refused, libc+m2 */
	if (pa && pb) {
		loc_places__unpack(lp, pa, 6, out);
		for (i = 0; i < 6; i++)
			CHECK(same(&out[i], &a[i]));
		loc_places__unpack(lp, pb, 2, out);
		for (i = 0; i < 2; i++)
			CHECK(same(&out[i], &b[i]));
	}
	free(pa);
	free(pb);
	free(pe);
	loc_places__free(lp);
	return CHECK_DONE();
}
