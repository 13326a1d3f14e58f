/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qsort_r() on two threads: each half sorted on its own CPU, then merged.
 * With a comparator that orders every pair (no two items compare equal),
 * the order is qsort_r()'s, item for item; with ties it is a stable sort's.
 */
#ifndef ST_SORT_TWO_H
#define ST_SORT_TWO_H

#include <stddef.h>

typedef int (*sort_two_cmp)(const void *a, const void *b, void *arg);

/**
 * sort_two() - sort @n items of @size bytes at @base by @cmp(a, b, @arg),
 * as qsort_r(). Few items, one usable CPU, STACKTAP_ONE_THREAD=1, or no
 * memory or thread for the halves: qsort_r() on the caller's thread.
 */
void sort_two(void *base, size_t n, size_t size, sort_two_cmp cmp, void *arg);

#endif
