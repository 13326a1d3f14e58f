// SPDX-License-Identifier: GPL-2.0
/* A growable vector of unwind rows plus the counts of what could not be expressed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/rows.h"

int unwind_row_set_cfa(struct unwind_row *row, bool from_rbp, int64_t off)
{
	if (off >= INT16_MIN && off <= INT16_MAX) {
		row->cfa = from_rbp ? UNWIND_CFA_RBP : UNWIND_CFA_RSP;
		row->cfa_off = (int16_t)off;
		return 0;
	}
	if (off % 8 || off / 8 < INT16_MIN || off / 8 > INT16_MAX)
		return -1;
	row->cfa = from_rbp ? UNWIND_CFA_RBP8 : UNWIND_CFA_RSP8;
	row->cfa_off = (int16_t)(off / 8);
	return 0;
}

int unwind_rows__push(struct unwind_rows *v, const struct unwind_row *row)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1024;
		struct unwind_row *r;

		if (cap < v->cap || cap > SIZE_MAX / sizeof(*r))
			return -ENOMEM;
		r = realloc(v->rows, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		v->rows = r;
		v->cap = cap;
	}
	v->rows[v->n++] = *row;
	return 0;
}

static int row__same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->rbp == b->rbp &&
	       a->rbp_off == b->rbp_off;
}

/* The end of the run of rows sorted by pc that starts at @i. */
static size_t rows__run_end(const struct unwind_row *r, size_t i, size_t n)
{
	while (++i < n && r[i - 1].pc <= r[i].pc)
		;
	return i;
}

/* Merges sorted [lo, mid) and [mid, hi) of @src into @dst; on equal pcs the left row first. */
static void rows__merge(const struct unwind_row *src, struct unwind_row *dst, size_t lo,
			size_t mid, size_t hi)
{
	size_t a = lo, b = mid, o = lo;

	while (a < mid && b < hi)
		dst[o++] = src[b].pc < src[a].pc ? src[b++] : src[a++];
	memcpy(dst + o, src + a, (mid - a) * sizeof(*dst));
	o += mid - a;
	memcpy(dst + o, src + b, (hi - b) * sizeof(*dst));
}

/* One pass: each pair of neighbouring runs of @src merged into @dst. Return: runs left. */
static size_t rows__merge_pass(const struct unwind_row *src, struct unwind_row *dst, size_t n)
{
	size_t lo = 0, runs = 0, mid, hi;

	while (lo < n) {
		mid = rows__run_end(src, lo, n);
		hi = mid < n ? rows__run_end(src, mid, n) : n;
		rows__merge(src, dst, lo, mid, hi);
		runs++;
		lo = hi;
	}
	return runs;
}

/*
 * Stable sort by pc (so "a later row at the same pc wins" holds), merging
 * the runs the rows came in: FDEs mostly follow the code, so there are few,
 * and the one extra buffer is the rows' size (a sort of (row, index) pairs
 * by qsort took four times that: 32 MB at the peak for libclang-cpp's 1M rows).
 * Without memory for the buffer, an insertion sort in place: slow but exact.
 */
static void rows__sort(struct unwind_row *r, size_t n)
{
	struct unwind_row *tmp, *src = r, *dst, *t;
	size_t i, j;

	if (rows__run_end(r, 0, n) == n)
		return;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp) {
		for (i = 1; i < n; i++) {
			struct unwind_row x = r[i];

			for (j = i; j && r[j - 1].pc > x.pc; j--)
				r[j] = r[j - 1];
			r[j] = x;
		}
		return;
	}
	dst = tmp;
	while (rows__merge_pass(src, dst, n) > 1) {
		t = src;
		src = dst;
		dst = t;
	}
	if (dst != r)
		memcpy(r, dst, n * sizeof(*r));
	free(tmp);
}

void unwind_rows__finish(struct unwind_rows *v)
{
	size_t i, out = 0;

	if (!v->n)
		return;
	rows__sort(v->rows, v->n);
	for (i = 0; i < v->n; i++) {
		if (out && v->rows[out - 1].pc == v->rows[i].pc) {
			if (v->rows[i].cfa != UNWIND_CFA_NONE)
				v->rows[out - 1] = v->rows[i];
		} else if (out && row__same_rule(&v->rows[out - 1], &v->rows[i])) {
			continue;
		} else {
			v->rows[out++] = v->rows[i];
		}
		/* A replaced row may now repeat its predecessor's rule. */
		if (out >= 2 && row__same_rule(&v->rows[out - 2], &v->rows[out - 1]))
			out--;
	}
	v->n = out;
}

const struct unwind_row *unwind_rows__find(const struct unwind_rows *v, uint32_t pc)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &v->rows[lo - 1] : NULL;
}

void unwind_rows__release(struct unwind_rows *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}

const char *unwind_unsupported_name(enum unwind_unsupported why)
{
	static const char *const names[UNW_UNSUP_MAX] = {
		[UNW_UNSUP_CFA_REG] = "cfa-register",  [UNW_UNSUP_CFA_EXPR] = "cfa-expression",
		[UNW_UNSUP_CFA_RANGE] = "cfa-offset-range", [UNW_UNSUP_RA_RULE] = "ra-rule",
		[UNW_UNSUP_RBP_RULE] = "rbp-rule",     [UNW_UNSUP_RBP_RANGE] = "rbp-offset-range",
		[UNW_UNSUP_PC_RANGE] = "pc-range",
	};

	return (unsigned)why < UNW_UNSUP_MAX ? names[why] : "unknown";
}
