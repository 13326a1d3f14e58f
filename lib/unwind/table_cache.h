/* SPDX-License-Identifier: GPL-2.0 */
/* Built unwind tables kept on disk by build ID, so a later run loads rows instead of building them. */
#ifndef ST_UNWIND_TABLE_CACHE_H
#define ST_UNWIND_TABLE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/unwind/table_file.h"

struct elf_file;

/* Where the cache is, and how to turn it off: read once, at the first table (table_cache.c). */
#define TABLE_CACHE_ENV_DIR "STACKTAP_CACHE_DIR"     /* a directory; empty: no cache */
#define TABLE_CACHE_ENV_MAX "STACKTAP_CACHE_MAX_MB"  /* bound on the files (default 256) */

/* A cache file this large (bytes) is mapped, its rows read in place; a smaller one is copied. */
#define TABLE_CACHE_MAP_MIN (64u << 10)

/**
 * table_cache__disable() - no table cache for the rest of the process
 * (--no-table-cache): tables are built, never loaded or saved.
 */
void table_cache__disable(void);

/**
 * table_cache__key() - the key a table of model @ef is cached under: its
 * build ID, the table format, the builder (this program's own build ID) and
 * the sources the builder will read (which unwind sections the file has, and
 * the separate debug file whose .debug_frame it would use). t->id, t->id_is_hash
 * and t->base must be set. A file without a GNU build ID (a content hash
 * instead) is never cached.
 *
 * Return: 0, or -ENOENT when the table is not to be cached (no build ID, the
 * cache off).
 */
int table_cache__key(struct elf_file *ef, const struct unwind_table *t, struct table_key *key);

/**
 * table_cache__load() - fill @t's rows and figures from the cache file of
 * @key: a large table's rows are the file's own, mapped read-only
 * (t->rows_map, unmapped by unwind_table__free()), a small one's a copy.
 * @t has no rows yet. A file that fails any check (lib/unwind/table_file.c) is ignored: one
 * warning for the first in a run, a --debug line for the others; the caller
 * builds the table and saves it over the damaged one.
 *
 * Return: 0 (loaded), -ENOENT (not cached), -EINVAL (damaged or foreign),
 * -ENOMEM.
 */
int table_cache__load(const struct table_key *key, struct unwind_table *t);

/**
 * table_cache__save() - write @t for later runs: to a temporary file renamed
 * into place, so a reader sees the old file or the new one whole; then the
 * least recently used files beyond the size bound are removed. A failure
 * (read-only disk, full) is a --debug line only: the cache is an optimisation.
 *
 * Return: 0 when saved, else -errno (-ENOENT: the cache is off).
 */
int table_cache__save(const struct table_key *key, const struct unwind_table *t);

/**
 * table_cache__remap() - a large table just built and saved under @key
 * takes its rows from the cache file, mapped, as table_cache__load() gives
 * them (not counted as a load): the built copy is freed. On any failure the
 * built rows stay.
 */
void table_cache__remap(const struct table_key *key, struct unwind_table *t);

/** table_cache__stats() - tables loaded, built and saved, and damaged files met this run. */
void table_cache__stats(uint64_t *loaded, uint64_t *saved, uint64_t *damaged);

/**
 * table_cache__report() - one stderr line for -v: where the cache is and
 * what it did this run (loaded, saved, damaged), or why it is off.
 */
void table_cache__report(void);

#endif
