/* SPDX-License-Identifier: GPL-2.0 */
/* Build IDs as the lowercase hex strings frames carry, made once per ID. */
#ifndef ST_SYM_BUILD_ID_HEX_H
#define ST_SYM_BUILD_ID_HEX_H

#include <stddef.h>
#include <stdint.h>

struct build_id_hex;

/** build_id_hex__new() - Return: an empty cache, or NULL (ENOMEM). */
struct build_id_hex *build_id_hex__new(void);

/**
 * build_id_hex__get() - @id (@len bytes) in hex.
 *
 * Return: a string that lives as long as the cache; NULL when @len is 0 or
 * out of memory.
 */
const char *build_id_hex__get(struct build_id_hex *c, const uint8_t *id, size_t len);

/** build_id_hex__free() - NULL is fine. */
void build_id_hex__free(struct build_id_hex *c);

#endif
