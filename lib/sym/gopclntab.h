/* SPDX-License-Identifier: GPL-2.0 */
/* Function names of Go binaries from .gopclntab, for binaries stripped of .symtab. */
#ifndef ST_GOPCLNTAB_H
#define ST_GOPCLNTAB_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The Go runtime keeps its own function table (the "pclntab") in every
 * binary, because it needs it to unwind and to print panics; `go build
 * -ldflags=-s` strips .symtab but must keep this. Its header says which of
 * four layouts follows (see Go's src/runtime/symtab.go and
 * src/debug/gosym/pclntab.go):
 *
 *   magic       Go       function table                 name offsets from
 *   0xfffffffb  1.2-1.15 (pc, funcoff) uintptr pairs    the table start
 *   0xfffffffa  1.16-17  (pc, funcoff) uintptr pairs    funcnametab
 *   0xfffffff0  1.18-19  (pc - textStart, funcoff) u32  funcnametab
 *   0xfffffff1  1.20-    as 1.18                        funcnametab
 *
 * then 2 zero bytes, the pc quantum (1, 2 or 4) and the pointer size (4 or
 * 8). Both byte orders are read. Every offset and count is checked against
 * the table's end; the function table must be sorted and each _func must
 * start at the pc its table entry names, else that function is dropped.
 */

/* Longest function name we keep (Go generics make long ones); longer are dropped. */
#define GOPCLNTAB_MAX_NAME 16384

struct go_func {
	uint64_t entry, end; /* [entry, end): link-time addresses */
	const char *name;    /* owned by the table */
};

struct gopclntab;

/**
 * gopclntab__parse() - read a pclntab held in memory.
 * @data:       the table's bytes (the .gopclntab section); not kept
 * @len:        bytes at @data
 * @text_start: where the text of the module starts (runtime.text), used by
 *              the 1.18+ layouts whose entries are offsets from it; 0 to use
 *              the value in the header
 *
 * Return: the table, or NULL with errno EINVAL (not a pclntab, or its header
 * or function table is out of bounds or unsorted) or ENOMEM.
 */
struct gopclntab *gopclntab__parse(const void *data, size_t len, uint64_t text_start);

/**
 * gopclntab__from_elf() - the pclntab of a Go ELF file.
 * @elf: an open ELF (borrowed; not kept)
 *
 * Looks for ".gopclntab" (executables) or ".data.rel.ro.gopclntab" (PIE).
 * The 1.18+ header's textStart is the link-time address of runtime.text;
 * it is used when the functions it gives lie in an executable segment, else
 * the address of .text is tried (as Go's own tools do).
 *
 * Return: the table, or NULL with errno ENOENT (no such section: not Go),
 * EINVAL (unreadable or hostile table) or ENOMEM.
 */
struct gopclntab *gopclntab__from_elf(Elf *elf);

/**
 * gopclntab__find() - the function holding @pc (a link-time address).
 *
 * Return: the function, or NULL.
 */
const struct go_func *gopclntab__find(const struct gopclntab *t, uint64_t pc);

/**
 * gopclntab__funcs() - all functions, sorted by entry, disjoint.
 * @n: set to the number of functions
 *
 * Return: the array, owned by the table.
 */
const struct go_func *gopclntab__funcs(const struct gopclntab *t, size_t *n);

/**
 * gopclntab__version() - which layout the table had.
 *
 * Return: 12, 116, 118 or 120 (for Go 1.2, 1.16, 1.18 and 1.20 layouts).
 */
int gopclntab__version(const struct gopclntab *t);

/**
 * gopclntab__dropped() - Return: functions refused as out of bounds or inconsistent.
 */
size_t gopclntab__dropped(const struct gopclntab *t);

/** gopclntab__free() - release the table; NULL is fine. */
void gopclntab__free(struct gopclntab *t);

#endif
