/* SPDX-License-Identifier: GPL-2.0 */
/* A built unwind table as bytes on disk (the table cache's file format), and back, checked. */
#ifndef ST_UNWIND_TABLE_FILE_H
#define ST_UNWIND_TABLE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "lib/unwind/table.h"

/*
 * Bump when the layout below changes. What the builder computes is covered
 * by the builder's own build ID in the key (lib/unwind/table_cache.c), so a
 * change to how rows are made never needs a bump here.
 */
#define TABLE_FILE_VERSION 1

/* What a cache file must be for: the file's build ID, its sources and the builder, its base. */
struct table_key {
	uint8_t id[UNWIND_ID_MAX];
	size_t id_len;
	uint64_t sig;  /* hash of the format version, the builder and the sources found */
	uint64_t base; /* the table base the model gives (lowest executable PT_LOAD) */
};

/**
 * table_file__encode() - @t's rows and figures (not its path, segments or
 * model: those come from the file) as one cache file for @key.
 * @len: set to the size
 *
 * Return: the bytes (malloc'ed; the caller frees them), or NULL on ENOMEM or
 * a table too large for the format (errno set).
 */
void *table_file__encode(const struct unwind_table *t, const struct table_key *key, size_t *len);

/**
 * table_file__decode() - check @len bytes at @buf in full and fill @t's rows,
 * spans, source, counts and cfi_path from them. Nothing in @t is changed
 * unless every check passes: magic, version, sizes, checksum, the key (when
 * @want is not NULL: build ID, signature and base must all be equal), rows
 * strictly sorted with known rules, spans sorted and apart, a path without
 * NULs.
 * @why: the first failed check, for the caller's one message
 *
 * Return: 0, -EINVAL (damaged or foreign: @why says how), -ENOMEM.
 */
int table_file__decode(const void *buf, size_t len, const struct table_key *want,
		       struct unwind_table *t, char *why, size_t why_len);

/**
 * table_file__decode_in_place() - table_file__decode(), except that @t's
 * rows are not copied: they point into @buf (with no capacity, so nothing
 * grows them), which must stay as it is as long as @t has them, and be
 * 8-byte aligned. For a cache file mapped read-only: only the pages a
 * lookup touches stay in memory.
 *
 * Return: as table_file__decode(); -EINVAL also for an unaligned @buf.
 */
int table_file__decode_in_place(const void *buf, size_t len, const struct table_key *want,
				struct unwind_table *t, char *why, size_t why_len);

#endif
