/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire structs of the BPF unwind tables, shared with user space
 * (lib/unwind/bpf_tables.c fills them, bpf/ustack.bpf.h walks them).
 *
 * st_urows:  ARRAY of struct unwind_row, the rows of every file a live
 *            process maps, each file's back to back (written by batch
 *            updates). A file's table is [first_row, first_row + nrows),
 *            followed by its page index: ix_blocks slots of struct
 *            st_urow_ix at keys [ix_row, ix_row + ix_blocks).
 * st_uprocs: HASH tgid -> struct st_uproc, the executable mappings of one
 *            process sorted by start, each pointing at its file's rows.
 */
#ifndef ST_UNWIND_MAPS_H
#define ST_UNWIND_MAPS_H

#ifndef __BPF__
#include <linux/types.h>
#endif

/*
 * Executable mappings per process. 256 covers python3 with its extension
 * modules loaded several times over; a process with more gets the first 256
 * by address and the rest counted as "mapping unknown". A power of two: the
 * binary search masks indexes with it. Twin: BPF_TABLES_MAX_MAPS.
 */
#define ST_UNW_MAX_MAPS 256
#define ST_UNW_MAP_STEPS 9   /* log2(ST_UNW_MAX_MAPS) + 1 */
#define ST_UNW_ROW_STEPS 25  /* binary search over up to 2^24 rows per file */

/*
 * The page index of one file (in the manner of the kernel's ORC lookup
 * table): its row pcs cut into blocks of 1 << ix_shift bytes, one slot a
 * block. The slot of block b says which rows can cover a pc in it: with
 * lo = the number of rows whose pc <= b << ix_shift and hi = the number
 * whose pc <= (b + 1) << ix_shift, the last row at or below any pc of the
 * block is one of rows [lo - 1, hi), so the binary search runs over
 * [lo, hi) and finds exactly the row it would over the whole file. A pc at
 * or beyond ix_blocks << ix_shift lies above every row: the last row covers it.
 * One slot is one row's 8 bytes: the index lives in st_urows after the rows.
 * Built by lib/unwind/page_index.c.
 */
struct st_urow_ix {
	__u32 lo, hi; /* rows of the file, 0-based: the search's bounds */
};

struct st_umap {
	__u64 start, end; /* [start, end) in the process */
	__u64 bias;       /* row pc = address - bias */
	__u32 first_row;  /* index in st_urows */
	__u32 nrows;      /* 0: no table for this file (frame pointers only) */
	__u32 ix_row;     /* st_urows key of the page index's first slot */
	__u32 ix_blocks;  /* slots of the page index; 0: none, search all rows */
	__u32 ix_shift;   /* log2 of the block size in bytes */
	__u32 pad;
};

struct st_uproc {
	__u32 n;    /* mappings in use */
	__u32 gen;  /* new at every load by user space, never 0: the walk cache keys on it */
	struct st_umap maps[ST_UNW_MAX_MAPS];
};

#endif
