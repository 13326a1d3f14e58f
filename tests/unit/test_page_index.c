// SPDX-License-Identifier: GPL-2.0
/*
 * The page index finds exactly the row the binary search over all rows finds:
 * at every row boundary (pc - 1, pc, pc + 1) and every block edge (- 1, + 0,
 * + 1) of real files' tables (libc, libstdc++, python3, the test workloads)
 * and of hand-made edge cases. Prints each file's index size.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/unwind/page_index.h"
#include "lib/unwind/rows.h"
#include "lib/unwind/table.h"
#include "tests/unit/check.h"

/* The binary search's answer as a count of rows at or below @pc (0: none). */
static size_t count_by_search(const struct unwind_rows *v, uint32_t pc)
{
	const struct unwind_row *r = unwind_rows__find(v, pc);

	return r ? (size_t)(r - v->rows) + 1 : 0;
}

/* @pc, and its neighbours that fit 32 bits: a mismatch is counted, the first one told. */
static void compare_around(const struct page_index *ix, const struct unwind_rows *v, uint64_t pc,
			   uint64_t *checked, uint64_t *bad, const char *what)
{
	uint64_t p;

	for (p = pc ? pc - 1 : 0; p <= pc + 1 && p <= UINT32_MAX; p++) {
		size_t want = count_by_search(v, (uint32_t)p);
		size_t got = page_index__find(ix, v->rows, v->n, (uint32_t)p);

		(*checked)++;
		if (got != want && !(*bad)++)
			fprintf(stderr, "%s: pc 0x%" PRIx64 ": index says row count %zu, search %zu\n",
				what, p, got, want);
	}
}

/* Every row boundary and block edge of @v; Return: the number of pcs that differed. */
static uint64_t compare_all(const struct unwind_rows *v, const char *what, uint64_t *checked)
{
	struct page_index ix;
	uint64_t bad = 0, b;
	size_t i;

	if (page_index__build(v->rows, v->n, &ix)) {
		fprintf(stderr, "%s: no index\n", what);
		return 1;
	}
	*checked = 0;
	compare_around(&ix, v, 0, checked, &bad, what);
	compare_around(&ix, v, UINT32_MAX, checked, &bad, what);
	for (i = 0; i < v->n; i++)
		compare_around(&ix, v, v->rows[i].pc, checked, &bad, what);
	for (b = 0; b <= ix.nblocks; b++)
		compare_around(&ix, v, b << ix.shift, checked, &bad, what);
	page_index__release(&ix);
	return bad;
}

static void check_file(const char *path)
{
	struct unwind_table *t;
	struct page_index ix;
	uint64_t checked;

	if (access(path, R_OK)) {
		CHECK_SKIP(path, "not here");
		return;
	}
	t = unwind_table__build(path);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(t->rows.n > 0);
	CHECK_EQ_U64(compare_all(&t->rows, path, &checked), 0);
	CHECK(checked >= t->rows.n * 3);
	CHECK_EQ_U64(page_index__build(t->rows.rows, t->rows.n, &ix), 0);
	/* Memory: at most one 8-byte slot per PAGE_INDEX_ROWS_PER_BLOCK rows. */
	CHECK(!t->rows.n || ix.nblocks <= t->rows.n / PAGE_INDEX_ROWS_PER_BLOCK + 1);
	fprintf(stderr, "%s: %zu rows (%zu B), index %u blocks of %u B: %zu B (%.1f%% of the rows), "
			"%" PRIu64 " pcs compared\n",
		path, t->rows.n, t->rows.n * sizeof(struct unwind_row), ix.nblocks, 1u << ix.shift,
		(size_t)ix.nblocks * sizeof(*ix.slots),
		t->rows.n ? 100.0 * ix.nblocks / t->rows.n : 0.0, checked);
	page_index__release(&ix);
	unwind_table__free(t);
}

/* Rows at the given pcs (sorted by the caller), each a distinct rule. */
static void make_rows(struct unwind_rows *v, const uint32_t *pcs, size_t n)
{
	size_t i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < n; i++) {
		struct unwind_row r = { .pc = pcs[i], .cfa = UNWIND_CFA_RSP, .cfa_off = (__s16)(8 + i) };

		CHECK_EQ_U64(unwind_rows__push(v, &r), 0);
	}
}

/* Hand-made tables: duplicates, pc 0, pcs near 2^32, few rows, sparse and dense parts. */
static void check_edges(void)
{
	static const uint32_t dup[] = { 0, 0, 16, 16, 16, 17, 32, 33, 64, 64, 4096, 4096, 4097 };
	static const uint32_t high[] = { 1, 2, 3, 100, 0x7fffffff, 0x80000000, 0x80000001,
					 0xfffffff0, 0xfffffffe, 0xffffffff };
	static const uint32_t few[] = { 10, 20, 30 };
	uint32_t mixed[600];
	struct unwind_rows v;
	struct page_index ix;
	uint64_t checked;
	size_t i;

	for (i = 0; i < 500; i++)
		mixed[i] = 0x1000 + (uint32_t)i * 3; /* dense: many rows a block */
	for (; i < 600; i++)
		mixed[i] = 0x100000 + (uint32_t)(i - 500) * 0x10000; /* sparse: empty blocks */
	make_rows(&v, dup, sizeof(dup) / sizeof(dup[0]));
	CHECK_EQ_U64(compare_all(&v, "duplicates", &checked), 0);
	unwind_rows__release(&v);
	make_rows(&v, high, sizeof(high) / sizeof(high[0]));
	CHECK_EQ_U64(compare_all(&v, "high pcs", &checked), 0);
	CHECK_EQ_U64(page_index__build(v.rows, v.n, &ix), 0);
	CHECK(ix.nblocks > 0 && ix.nblocks * PAGE_INDEX_ROWS_PER_BLOCK <= v.n);
	page_index__release(&ix);
	unwind_rows__release(&v);
	make_rows(&v, few, 3);
	CHECK_EQ_U64(compare_all(&v, "three rows", &checked), 0);
	CHECK_EQ_U64(page_index__build(v.rows, v.n, &ix), 0);
	CHECK_EQ_U64(ix.nblocks, 0); /* too few to index: the search covers them all */
	unwind_rows__release(&v);
	make_rows(&v, mixed, 600);
	CHECK_EQ_U64(compare_all(&v, "dense and sparse", &checked), 0);
	/* Out of order: refused, not indexed wrongly. */
	v.rows[10].pc = 0;
	CHECK_EQ_U64(page_index__build(v.rows, v.n, &ix), (uint64_t)-EINVAL);
	CHECK(ix.slots == NULL);
	unwind_rows__release(&v);
}

int main(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";
	static const char *const sys[] = {
		"/usr/lib/x86_64-linux-gnu/libc.so.6",
		"/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/x86_64-linux-gnu/libm.so.6",
	};
	static const char *const workloads[] = { "qsort_chain_nofp", "qsort_chain_sframe",
						 "qsort_chain_dwarf", "deep_nofp" };
	char path[PATH_MAX], *py;
	size_t i;

	check_edges();
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++)
		check_file(sys[i]);
	py = realpath("/usr/bin/python3", NULL);
	if (py)
		check_file(py);
	free(py);
	for (i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		snprintf(path, sizeof(path), "%s/workloads/%s", o, workloads[i]);
		check_file(path);
	}
	return CHECK_DONE();
}
