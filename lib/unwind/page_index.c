// SPDX-License-Identifier: GPL-2.0
/* The page index of a file's unwind rows: pc block -> the rows a search must look at. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/page_index.h"

/* Blocks of 1 << @shift bytes that cover pcs [0, @last_pc]. */
static uint64_t index__blocks(uint32_t last_pc, uint32_t shift)
{
	return ((uint64_t)last_pc >> shift) + 1;
}

/* The smallest block with at most one slot per PAGE_INDEX_ROWS_PER_BLOCK rows. */
static uint32_t index__shift(uint32_t last_pc, size_t n)
{
	uint32_t shift = PAGE_INDEX_MIN_SHIFT;

	while (shift < PAGE_INDEX_MAX_SHIFT &&
	       index__blocks(last_pc, shift) * PAGE_INDEX_ROWS_PER_BLOCK > n)
		shift++;
	return shift;
}

int page_index__build(const struct unwind_row *rows, size_t n, struct page_index *ix)
{
	uint64_t b, nblocks, edge;
	size_t i, below;

	memset(ix, 0, sizeof(*ix));
	if (n > UINT32_MAX)
		return -EINVAL;
	for (i = 1; i < n; i++)
		if (rows[i].pc < rows[i - 1].pc)
			return -EINVAL; /* the index, like the search, needs sorted rows */
	if (n < PAGE_INDEX_ROWS_PER_BLOCK * 2)
		return 0;
	ix->shift = index__shift(rows[n - 1].pc, n);
	nblocks = index__blocks(rows[n - 1].pc, ix->shift);
	ix->slots = calloc(nblocks, sizeof(*ix->slots));
	if (!ix->slots)
		return -ENOMEM;
	/* below = rows whose pc <= the block's first byte: its lo, and the previous block's hi. */
	for (b = 0, below = 0; b <= nblocks; b++) {
		edge = b << ix->shift;
		while (below < n && rows[below].pc <= edge)
			below++;
		if (b < nblocks)
			ix->slots[b].lo = (uint32_t)below;
		if (b)
			ix->slots[b - 1].hi = (uint32_t)below;
	}
	ix->nblocks = (uint32_t)nblocks;
	return 0;
}

size_t page_index__find(const struct page_index *ix, const struct unwind_row *rows, size_t n,
			uint32_t pc)
{
	size_t lo = 0, hi = n, mid;
	uint32_t b = ix->nblocks ? pc >> ix->shift : 0;

	if (ix->nblocks && b >= ix->nblocks)
		return n; /* above every row: the last one covers it */
	if (ix->nblocks && ix->slots[b].lo <= ix->slots[b].hi && ix->slots[b].hi <= n) {
		lo = ix->slots[b].lo;
		hi = ix->slots[b].hi;
	}
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void page_index__release(struct page_index *ix)
{
	free(ix->slots);
	memset(ix, 0, sizeof(*ix));
}
