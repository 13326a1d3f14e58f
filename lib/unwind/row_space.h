/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Free space of the BPF row table (st_urows): which index ranges hold no
 * file's rows. A file's rows take one contiguous range for as long as a
 * live process maps the file (lib/unwind/bpf_tables.c) and give it back
 * after; ranges are found first-fit and merged with their neighbours when
 * freed, so a table that files come and go in does not fragment for good.
 */
#ifndef ST_UNWIND_ROW_SPACE_H
#define ST_UNWIND_ROW_SPACE_H

#include <stddef.h>
#include <stdint.h>

struct row_range {
	uint32_t first, n;
};

struct row_space {
	struct row_range *free; /* sorted by first, never adjacent, never empty */
	size_t nfree, cap;
	uint32_t total, used;
};

/**
 * row_space__init() - all of [0, @total) free.
 *
 * Return: 0 or -ENOMEM.
 */
int row_space__init(struct row_space *s, uint32_t total);

/**
 * row_space__alloc() - take @n contiguous rows (first fit).
 *
 * Return: 0 with *first set, -ENOSPC when no free range holds @n
 * (or @n is 0).
 */
int row_space__alloc(struct row_space *s, uint32_t n, uint32_t *first);

/**
 * row_space__free() - give back [@first, @first + @n), taken before.
 *
 * Return: 0, -EINVAL for a range not wholly taken, -ENOMEM when the free
 * list cannot grow (the rows stay taken: lost, never handed out twice).
 */
int row_space__free(struct row_space *s, uint32_t first, uint32_t n);

/** row_space__largest() - Return: the longest free range, in rows. */
uint32_t row_space__largest(const struct row_space *s);

/** row_space__release() - free the list; the struct itself is the caller's. */
void row_space__release(struct row_space *s);

#endif
