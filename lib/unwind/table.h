/* SPDX-License-Identifier: GPL-2.0 */
/* One compact unwind table per ELF file (.sframe, .eh_frame and .debug_frame merged), and a cache. */
#ifndef ST_UNWIND_TABLE_H
#define ST_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/unwind/cfi.h"
#include "lib/unwind/rows.h"

struct elf_file;
struct proc_map;

/* A GNU build ID is 20 bytes (SHA-1); longer notes are cut, keys stay unique enough. */
#define UNWIND_ID_MAX 20

/*
 * Where rows come from, in order of precedence (lib/unwind/sources.c): a
 * function (an FDE) of a later source is used only where no earlier source
 * has a rule for any byte of it.
 */
enum unwind_source {
	UNWIND_SRC_NONE,        /* no unwind information: zero rows */
	UNWIND_SRC_SFRAME,      /* .sframe */
	UNWIND_SRC_EH_FRAME,    /* .eh_frame through libdw */
	UNWIND_SRC_DEBUG_FRAME, /* .debug_frame of the file or of its separate debug file */
	UNWIND_SRC_MAX,
};

/* A PT_LOAD segment, to turn file offsets of a mapping into link-time vaddrs. */
struct unwind_seg {
	uint64_t vaddr, offset, filesz;
	bool exec;
};

/* Link-time [base + lo, base + hi) has its rows from @source (one or more FDEs). */
struct unwind_span {
	uint32_t lo, hi;
	uint32_t source; /* enum unwind_source */
};

struct unwind_table {
	char *path;      /* the ELF file the table describes */
	char *cfi_path;  /* the separate debug file .debug_frame rows came from, or NULL */
	uint8_t id[UNWIND_ID_MAX];
	size_t id_len;
	bool id_is_hash; /* no build-ID note: @id is a content hash of the file */
	uint64_t base;   /* lowest executable PT_LOAD vaddr; row pc = vaddr - base */
	enum unwind_source source; /* the first source (by precedence) that gave rows */
	struct unwind_rows rows; /* finished: sorted, merged; includes unsupported counts */
	void *rows_map;          /* the cache file @rows point into, mapped read-only; NULL: */
	size_t rows_map_len;     /* @rows are malloc'ed (lib/unwind/table_cache.c) */
	struct cfi_stats cfi;    /* of the .eh_frame and .debug_frame walks together */
	uint64_t src_fdes[UNWIND_SRC_MAX]; /* FDEs each source gave rows for */
	struct unwind_span *spans; /* sorted, not overlapping: which source each range is from */
	bool go;                 /* Go toolchain output: its .debug_frame is not used (sources.c) */
	size_t nspans;
	uint64_t exec_bytes;     /* bytes of executable sections */
	uint64_t covered_bytes;  /* of those, bytes with a usable rule (not NONE/UNSUPPORTED) */
	struct unwind_seg *segs;  /* the model's PT_LOAD segments */
	size_t nsegs;
	struct elf_file *file;    /* the file model it was built from (lib/elf/elf_file.h) */
	bool owns_file;           /* built standalone: freeing the table frees the model */
};

/**
 * unwind_table__of() - the table of a file model, built on first use from
 * the model's own libelf handle, identity and segments, and kept with the
 * model (freed with it). A file without any unwind section gets a table with
 * source UNWIND_SRC_NONE and no rows.
 *
 * Return: the table, or NULL when none can be built (not x86-64, broken;
 * logged once, and not tried again).
 */
const struct unwind_table *unwind_table__of(struct elf_file *ef);

/**
 * unwind_table__build() - read @path and build its table (standalone: the
 * table owns its file model).
 *
 * A file without any unwind section gets a table with source UNWIND_SRC_NONE
 * and no rows (so a cache remembers it).
 *
 * Return: the table, or NULL with errno set (ENOENT, EACCES, ENOEXEC for a
 * file that is not an x86-64 ELF executable or library, EINVAL for a broken
 * one, ENOMEM). The reason is logged once, naming @path.
 */
struct unwind_table *unwind_table__build(const char *path);

/**
 * unwind_table__build_fd() - the same over an open fd (not closed; @name is for messages
 * and for finding a separate debug file next to it). Used by the fuzzer.
 *
 * Return: the table, or NULL with errno set.
 */
struct unwind_table *unwind_table__build_fd(int fd, const char *name);

/**
 * unwind_table__drop_pages() - the pages of @t's rows leave this process's
 * memory when they are a mapped cache file's (read again from the page
 * cache by the next lookup): once they are copied into the BPF row map,
 * the user-space unwinder's few lookups are all that read them.
 */
void unwind_table__drop_pages(const struct unwind_table *t);

/**
 * unwind_table__heap_rows() - Return: the rows @t holds in its own memory:
 * none when they are a mapped cache file's (dropped pages cost nothing).
 */
static inline size_t unwind_table__heap_rows(const struct unwind_table *t)
{
	return t->rows_map ? 0 : t->rows.n;
}

/** unwind_table__free() - free a table; NULL is fine. */
void unwind_table__free(struct unwind_table *t);

/**
 * unwind_table__find() - the row covering link-time @vaddr.
 *
 * Return: the row (possibly UNWIND_CFA_NONE), or NULL when @vaddr lies below
 * the first row or outside the 32-bit range above the base.
 */
const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t vaddr);

/**
 * unwind_table__map_vaddr() - link-time vaddr of the first byte of an
 * executable mapping of the file at page-aligned file offset @pgoff.
 *
 * The PT_LOAD is the executable one whose pages hold @pgoff: linkers that
 * do not page-align segments in the file (LLD, mold: text at offset 0x9e0,
 * vaddr 0x19e0) make the mapping start on a page the previous segment
 * shares, so "the segment holding @pgoff" would be the wrong one. Without
 * an executable segment there, any PT_LOAD holding @pgoff.
 *
 * Return: 0, or -ENOENT when no PT_LOAD segment holds @pgoff.
 */
int unwind_table__map_vaddr(const struct unwind_table *t, uint64_t pgoff, uint64_t *vaddr);

/**
 * unwind_table__source_at() - where the row covering link-time @vaddr came from.
 *
 * Return: the source, or UNWIND_SRC_NONE where no source has a row.
 */
enum unwind_source unwind_table__source_at(const struct unwind_table *t, uint64_t vaddr);

/**
 * unwind_table__id_hex() - the build ID (or content hash) in hex, NUL-terminated.
 *
 * Return: @buf.
 */
char *unwind_table__id_hex(const struct unwind_table *t, char *buf, size_t len);

/** unwind_source_name() - "sframe", "eh_frame", "debug_frame" or "none". */
const char *unwind_source_name(enum unwind_source s);

/*
 * Where the views of the tables (lib/unwind/bpf_tables.c for the BPF
 * walker, lib/unwind/copy_unwind.c for copied stacks) get the table of a
 * mapped file: from the process registry's file model, so that every file is
 * opened once, safely, and its table built once for all of them.
 */
struct unwind_table_source {
	/* Return: the table of the file @m maps in @pid, or NULL (anonymous, unusable, none). */
	const struct unwind_table *(*table)(void *ctx, int pid, const struct proc_map *m);
	void *ctx;
};

/* --- cache: tables by path, for tools and tests that name files ------------ */

struct unwind_cache;

/**
 * unwind_cache__new() - an empty cache of file models and their tables.
 *
 * Return: the cache, or NULL with errno = ENOMEM.
 */
struct unwind_cache *unwind_cache__new(void);

/**
 * unwind_cache__get() - the table of @path, built on first use.
 *
 * A file seen before (same device and inode), or one with the build ID of a
 * file seen before, is not opened again and its table not rebuilt. The
 * cache owns the table.
 *
 * Return: the table, or NULL with errno set (see unwind_table__build()).
 */
struct unwind_table *unwind_cache__get(struct unwind_cache *c, const char *path);

/** unwind_cache__stats() - lookups answered from the cache, and tables built. */
void unwind_cache__stats(const struct unwind_cache *c, uint64_t *hits, uint64_t *builds);

/** unwind_cache__free() - free the cache and every table in it; NULL is fine. */
void unwind_cache__free(struct unwind_cache *c);

#endif
