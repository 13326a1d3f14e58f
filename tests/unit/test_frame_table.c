// SPDX-License-Identifier: GPL-2.0
/*
 * The report's frame table: a frame equal in every field is one entry, a
 * frame differing in any one field is another (also when every frame is
 * forced onto one hash), padding bytes never split one, and stacks of a
 * report read their frames back exactly, shared frames at one address.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/frame_table.h"
#include "lib/report/report.h"
#include "tests/unit/check.h"

/* Strings stand for interned ones: the table compares them by pointer. */
static const char name_a[] = "main", name_b[] = "work", mod_a[] = "/bin/a", mod_b[] = "/bin/b",
		  id_a[] = "abcd", id_b[] = "dcba", src_a[] = "a.c", src_b[] = "b.c";

static struct report_frame base(void)
{
	struct report_frame f;

	memset(&f, 0, sizeof(f));
	f.name = name_a;
	f.module = mod_a;
	f.build_id = id_a;
	f.src_file = src_a;
	f.addr = 0x401000;
	f.file_off = 0x1000;
	f.sym_off = 0x10;
	f.line = 7;
	f.kind = REPORT_FRAME_USER;
	f.flags = REPORT_FRAME_HAS_OFF | REPORT_FRAME_HAS_SYM;
	return f;
}

/* base() with field @which changed; 0: unchanged. */
static struct report_frame variant(int which)
{
	struct report_frame f = base();

	switch (which) {
	case 1: f.name = name_b; break;
	case 2: f.module = mod_b; break;
	case 3: f.build_id = id_b; break;
	case 4: f.src_file = src_b; break;
	case 5: f.addr++; break;
	case 6: f.file_off++; break;
	case 7: f.sym_off++; break;
	case 8: f.line++; break;
	case 9: f.kind = REPORT_FRAME_INLINE; break;
	case 10: f.flags = 0; break;
	case 11: f.module = NULL; break;
	}
	return f;
}

#define VARIANTS 12

static uint64_t one_hash(const void *key, size_t len)
{
	return 42;
}

static void test_every_field_counts(bool forced)
{
	struct frame_table t;
	uint32_t idx[VARIANTS], again;
	int i, j;

	CHECK((forced ? frame_table__init_hashed(&t, one_hash) : frame_table__init(&t)) == 0);
	for (i = 0; i < VARIANTS; i++) {
		struct report_frame f = variant(i);

		CHECK(frame_table__index(&t, &f, &idx[i]) == 0);
		CHECK_EQ_U64(idx[i], i); /* new frames take the next index */
	}
	CHECK_EQ_U64(t.n, VARIANTS);
	for (j = 0; j < 3; j++)
		for (i = 0; i < VARIANTS; i++) {
			struct report_frame f = variant(i);

			CHECK(frame_table__index(&t, &f, &again) == 0);
			CHECK_EQ_U64(again, idx[i]);
		}
	CHECK_EQ_U64(t.n, VARIANTS);
	for (i = 0; i < VARIANTS; i++) {
		struct report_frame f = variant(i);

		CHECK(memcmp(&t.v[idx[i]], &f, sizeof(f)) == 0);
	}
	frame_table__fini(&t);
}

static void test_padding_ignored(void)
{
	struct report_frame clean = base(), dirty;
	struct frame_table t;
	uint32_t a = 1, b = 2;

	memset(&dirty, 0xa5, sizeof(dirty));
	dirty.name = clean.name;
	dirty.module = clean.module;
	dirty.build_id = clean.build_id;
	dirty.src_file = clean.src_file;
	dirty.addr = clean.addr;
	dirty.file_off = clean.file_off;
	dirty.sym_off = clean.sym_off;
	dirty.line = clean.line;
	dirty.kind = clean.kind;
	dirty.flags = clean.flags;
	CHECK(frame_table__init(&t) == 0);
	CHECK(frame_table__index(&t, &dirty, &a) == 0);
	CHECK(frame_table__index(&t, &clean, &b) == 0);
	frame_table__clear(&t); /* and the memory of recent frames forgets too */
	CHECK(frame_table__index(&t, &clean, &b) == 0);
	CHECK_EQ_U64(a, 0);
	CHECK_EQ_U64(b, 0);
	CHECK_EQ_U64(t.n, 1);
	frame_table__fini(&t);
	frame_table__fini(&t); /* twice is fine */
}

/* Enough frames to grow the slots several times: every index stays. */
static void test_many(void)
{
	const uint32_t n = 200000;
	struct frame_table t;
	uint32_t i, idx;
	int bad = 0;

	CHECK(frame_table__init(&t) == 0);
	for (i = 0; i < 2 * n; i++) {
		struct report_frame f = base();

		f.addr = 0x400000 + (i % n) * 4;
		bad += frame_table__index(&t, &f, &idx) != 0 || idx != i % n;
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(t.n, n);
	CHECK_EQ_U64(t.v[n - 1].addr, 0x400000 + (n - 1) * 4);
	frame_table__fini(&t);
}

/*
 * Batches of frames, some equal within one batch of 16 and across batches,
 * many more than the first slots hold (the table grows inside a batch):
 * the same indexes as frames added one at a time.
 */
static void test_index_all(bool forced)
{
	enum { N = 3000, M = 41 };
	struct frame_table all, one;
	struct report_frame f[M];
	uint32_t got[M], want;
	int bad = 0, i, j;

	CHECK((forced ? frame_table__init_hashed(&all, one_hash) : frame_table__init(&all)) == 0);
	CHECK(frame_table__init(&one) == 0);
	for (i = 0; i < N; i += M) {
		for (j = 0; j < M; j++) {
			f[j] = base();
			/* frame j repeats frame j - 5 of this stack, and frames of the stack before */
			f[j].addr = 0x400000 + (uint64_t)(i + j - (j % 7 == 6 ? 5 : 0) - (j % 3 == 1 ? M : 0)) * 4;
		}
		CHECK(frame_table__index_all(&all, f, M, got) == 0);
		for (j = 0; j < M; j++) {
			CHECK(frame_table__index(&one, &f[j], &want) == 0);
			bad += got[j] != want || all.v[got[j]].addr != f[j].addr;
		}
	}
	CHECK_EQ_U64(bad, 0);
	CHECK_EQ_U64(all.n, one.n);
	frame_table__fini(&all);
	frame_table__fini(&one);
}

/* Two stacks of one report: their equal frames are one entry, each reads back as added. */
static void test_report_stacks(void)
{
	struct report *r = report__new(REPORT_ADDRS);
	struct report_frame one[3] = { variant(0), variant(1), variant(5) };
	struct report_frame two[2] = { variant(2), variant(1) };
	const struct report_frame *x, *y;
	struct report_stack **v;
	size_t n = 0;

	CHECK(r && report__add(r, 0, "a", one, 1, 2, 3, 30, 0) == 0);
	CHECK(r && report__add(r, 0, "a", two, 0, 2, 1, 10, 0) == 0);
	v = r ? report__sorted(r, &n) : NULL;
	CHECK_EQ_U64(n, 2);
	if (n != 2 || !v) {
		report__free(r);
		return;
	}
	/* ascending count: two, then one */
	CHECK_EQ_U64(v[0]->count, 1);
	CHECK_EQ_U64(v[0]->nk + v[0]->nu, 2);
	CHECK_EQ_U64(v[1]->count, 3);
	CHECK_EQ_U64(v[1]->nk, 1);
	CHECK_EQ_U64(v[1]->nu, 2);
	x = report_stack__frame(v[1], 1);
	y = report_stack__frame(v[0], 1);
	CHECK(x == y);
	CHECK_STR(x->name, "work");
	CHECK_STR(report_stack__frame(v[0], 0)->module, "/bin/b");
	CHECK_STR(report_stack__frame(v[1], 0)->module, "/bin/a");
	CHECK_STR(report_stack__frame(v[1], 0)->build_id, "abcd");
	CHECK_EQ_U64(report_stack__frame(v[1], 2)->addr, 0x401001);
	CHECK_EQ_U64(report_stack__frame(v[1], 2)->sym_off, 0x10);
	report__free(r);
}

int main(void)
{
	test_every_field_counts(false);
	test_every_field_counts(true);
	test_padding_ignored();
	test_many();
	test_index_all(false);
	test_index_all(true);
	test_report_stacks();
	return CHECK_DONE();
}
