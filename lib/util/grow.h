/* SPDX-License-Identifier: GPL-2.0 */
/* Growing a realloc()ed array: one place for the doubling and its overflow checks. */
#ifndef ST_GROW_H
#define ST_GROW_H

#include <stddef.h>

/**
 * array_reserve() - make *@v (*@cap elements of @size bytes) hold at least
 * @need elements, doubling from 16; *@v and *@cap are left as they were on
 * failure, so the caller still owns (and frees) the old array.
 *
 * Return: 0, or -ENOMEM (out of memory, or @need elements would overflow size_t).
 */
int array_reserve(void **v, size_t *cap, size_t need, size_t size);

#endif
