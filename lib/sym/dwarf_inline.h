/* SPDX-License-Identifier: GPL-2.0 */
/* Inline frames and source lines from DWARF (libdw), in batches of addresses. */
#ifndef ST_DWARF_INLINE_H
#define ST_DWARF_INLINE_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * For an address of a file with DWARF, the chain of frames the code at that
 * address stands for, as perf and `eu-addr2line -f -i` show it:
 *
 *   [0]  the innermost function, inlined or not, at the address's own line
 *   [1]  the function [0] was inlined into, at the line of that call
 *   ...
 *   [n-1] the real (out-of-line) function, at the line of the call of [n-2]
 *
 * Addresses are link-time virtual addresses of the file (what its symbols
 * and DWARF use), already adjusted by the caller (pc - 1 for return
 * addresses). The DWARF may come from the file itself or from its separate
 * debug file: both use the same addresses.
 *
 * Speed: the units are found through one sorted table of their pc ranges,
 * built when the file is opened; each unit's DIE tree is walked once, the
 * first time an address falls in it (dwarf_scopes.h), and its line table is
 * libdw's, read once. Sorted batches keep hitting the unit already at hand.
 * Not thread-safe: one object per thread, or a lock around it.
 */

/* Deepest chain reported; deeper inlining keeps its innermost frames. */
#define DWARF_INLINE_MAX_FRAMES 64

struct dwarf_frame {
	const char *func; /* linkage name (mangled) if the DWARF has one, else DW_AT_name;
			     NULL when unknown. Valid while the Dwarf is open. */
	const char *file; /* source file as the DWARF names it, NULL when unknown */
	const char *comp_dir; /* the unit's DW_AT_comp_dir (or NULL): a relative @file is
				 relative to it, as eu-addr2line shows it */
	uint32_t line;    /* 0 when unknown */
	uint32_t column;  /* 0 when unknown */
	bool inlined;     /* true for every frame but the last (the real function) */
};

struct dwarf_inline;

/**
 * dwarf_inline__new() - index the units of @dw.
 * @dw: an open Dwarf (borrowed: it must outlive the object), its dwz
 *      alternate already set when there is one
 * @name: the file, for messages
 *
 * Return: the object, or NULL with errno ENOMEM, or EINVAL when the DWARF's
 * string sections are damaged (logged once, naming @name).
 */
struct dwarf_inline *dwarf_inline__new(Dwarf *dw, const char *name);

/**
 * dwarf_inline__open() - open @path's DWARF and index it.
 * @path: an ELF file with DWARF (a -g build, or a separate debug file)
 *
 * libdw also finds a dwz alternate file (.gnu_debugaltlink) by itself.
 *
 * Return: the object, owning the file, or NULL with errno set (ENODATA when
 * the file has no DWARF); the reason is logged once, naming @path.
 */
struct dwarf_inline *dwarf_inline__open(const char *path);

/**
 * dwarf_inline__lookup() - the frames at one address.
 * @addr: a link-time address
 * @out:  room for @max frames, innermost first
 *
 * Return: the number of frames written: 0 when no unit covers @addr; one
 * frame with a NULL func and the line when a unit covers it but no function
 * does (hand-written assembly, say).
 */
size_t dwarf_inline__lookup(struct dwarf_inline *di, uint64_t addr, struct dwarf_frame *out,
			    size_t max);

/**
 * typedef dwarf_inline_cb - receives the frames of one address of a batch.
 * @ctx:     the caller's context
 * @idx:     the address's index in the batch
 * @frames:  innermost first (valid during the call only)
 * @nframes: as dwarf_inline__lookup() returns
 *
 * Return: 0 to go on, non-zero to stop the batch with that value.
 */
typedef int (*dwarf_inline_cb)(void *ctx, size_t idx, const struct dwarf_frame *frames,
			       size_t nframes);

/**
 * dwarf_inline__batch() - the frames of many addresses.
 * @addrs: link-time addresses, sorted ascending for speed (any order is answered right)
 * @n:     how many
 * @lines: also their files, lines and columns; without, no line table is
 *         read (libdw keeps each one it reads until dwarf_end()), the frames
 *         have no place, and an address no function covers gets no frame
 * @cb:    called once per address, in order
 *
 * Return: 0, or the first non-zero value @cb returned.
 */
int dwarf_inline__batch(struct dwarf_inline *di, const uint64_t *addrs, size_t n, bool lines,
			dwarf_inline_cb cb, void *ctx);

/** dwarf_inline__nr_units() - Return: the units with code found in the DWARF. */
size_t dwarf_inline__nr_units(const struct dwarf_inline *di);

/** dwarf_inline__free() - release the index (and the file, if opened here); NULL is fine. */
void dwarf_inline__free(struct dwarf_inline *di);

#endif
