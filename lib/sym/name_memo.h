/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What one report's naming already found: (object, key) -> a 32-bit value,
 * an index the symbolizer gives meaning to (see symbolizer__remember()).
 * Open addressing over two flat arrays, so a million entries cost no
 * million allocations.
 */
#ifndef ST_NAME_MEMO_H
#define ST_NAME_MEMO_H

#include <stdbool.h>
#include <stdint.h>

struct name_memo;

/** name_memo__new() - Return: an empty memo, or NULL (ENOMEM). */
struct name_memo *name_memo__new(void);

/**
 * name_memo__find() - look up (@obj, @key).
 *
 * Return: true with *@val set when it was put, else false.
 */
bool name_memo__find(const struct name_memo *m, const void *obj, uint64_t key, uint32_t *val);

/**
 * name_memo__put() - remember @val for (@obj, @key), which is not there yet.
 *
 * Return: 0, or -ENOMEM (the memo is unchanged and still usable).
 */
int name_memo__put(struct name_memo *m, const void *obj, uint64_t key, uint32_t val);

/** name_memo__free() - NULL is fine. */
void name_memo__free(struct name_memo *m);

#endif
