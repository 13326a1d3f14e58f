/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page index of a file's unwind rows (struct st_urow_ix in
 * bpf/unwind_maps.h): pc block -> the slice of rows a binary search for a
 * pc in that block must look at. The BPF walker reads one slot and searches
 * a few rows instead of the whole file; page_index__find() is the same
 * lookup in C, the twin tests hold against unwind_rows__find().
 */
#ifndef ST_UNWIND_PAGE_INDEX_H
#define ST_UNWIND_PAGE_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "bpf/unwind_maps.h"
#include "bpf/unwind_row.h"

/*
 * Rows a block should hold on average, at least: the block is the smallest
 * power of two of bytes with no more than one slot per this many rows, so
 * the index takes at most 1/4 of the rows' memory (one 8-byte slot per 4
 * 8-byte rows) and a search runs ~2-3 steps instead of log2(rows).
 */
#define PAGE_INDEX_ROWS_PER_BLOCK 4
#define PAGE_INDEX_MIN_SHIFT 4 /* 16-byte blocks: a denser index buys no step */
#define PAGE_INDEX_MAX_SHIFT 31

struct page_index {
	struct st_urow_ix *slots;
	uint32_t nblocks;
	uint32_t shift;
};

/**
 * page_index__build() - the index of @n sorted rows (unwind_rows__finish()
 * order). Fewer than PAGE_INDEX_ROWS_PER_BLOCK * 2 rows get no index
 * (nblocks 0: the search covers them all).
 *
 * Return: 0, -EINVAL for rows out of order or more than UINT32_MAX of them,
 * -ENOMEM.
 */
int page_index__build(const struct unwind_row *rows, size_t n, struct page_index *ix);

/**
 * page_index__find() - the lookup of the BPF walker (st_search_row()) in C:
 * one slot, then a binary search of its rows.
 *
 * Return: the number of rows whose pc <= @pc (the row covering @pc is the
 * one before; 0: @pc lies below the first row).
 */
size_t page_index__find(const struct page_index *ix, const struct unwind_row *rows, size_t n,
			uint32_t pc);

/** page_index__release() - free the slots; the struct itself is the caller's. */
void page_index__release(struct page_index *ix);

#endif
