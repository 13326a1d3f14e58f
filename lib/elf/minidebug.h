/* SPDX-License-Identifier: GPL-2.0 */
/* MiniDebugInfo: the xz-compressed ELF in .gnu_debugdata, opened as an ELF in memory. */
#ifndef ST_MINIDEBUG_H
#define ST_MINIDEBUG_H

#include <gelf.h>
#include <stddef.h>

/*
 * Fedora and its kin strip .symtab from what they ship but keep the names of
 * functions that are not in .dynsym (static ones, mostly) in .gnu_debugdata:
 * an xz stream holding a small ELF with a .symtab (gdb's "MiniDebugInfo").
 * Its symbols have the link-time addresses of the file they came with, so
 * the symbol reader merges them with that file's .dynsym.
 */

/* Cap on the decompressed ELF: MiniDebugInfo is a symbol table, a few MiB at most. */
#define MINIDEBUG_MAX_BYTES (256UL << 20)
/* Cap on the decoder's memory (xz -9 needs 65 MiB; a hostile header may ask for 4 GiB). */
#define MINIDEBUG_MEMLIMIT (128UL << 20)

struct minidebug;

/**
 * minidebug_xz_decode() - decompress one xz stream into a new buffer.
 * @in:      the compressed bytes
 * @in_len:  bytes at @in
 * @max_out: cap on the output, 0 for MINIDEBUG_MAX_BYTES
 * @out:     set to a malloc'ed buffer the caller frees (only on success)
 * @out_len: set to the bytes at *@out
 *
 * Return: 0, -EINVAL (not xz, corrupt, truncated, or trailing bytes),
 * -EFBIG (the output would pass @max_out or the decoder would need more than
 * MINIDEBUG_MEMLIMIT), or -ENOMEM.
 */
int minidebug_xz_decode(const void *in, size_t in_len, size_t max_out, void **out,
			size_t *out_len);

/**
 * minidebug__open() - the MiniDebugInfo ELF of @elf.
 * @elf:  an open ELF file (borrowed; the result does not depend on it)
 * @name: what to call the file in messages
 *
 * Decompresses .gnu_debugdata and opens the result with elf_memory(). A
 * corrupt section is logged once here, naming @name; a missing one is not.
 *
 * Return: the object, or NULL with errno ENOENT (no .gnu_debugdata), EINVAL
 * (corrupt, or not an ELF of @elf's class inside), EFBIG, or ENOMEM.
 */
struct minidebug *minidebug__open(Elf *elf, const char *name);

/**
 * minidebug__elf() - Return: the ELF in memory (valid until minidebug__free()).
 */
Elf *minidebug__elf(const struct minidebug *md);

/**
 * minidebug__image() - the decompressed bytes.
 * @len: set to their length
 *
 * Return: the image (owned by @md), e.g. to hand to dwarf_begin_elf or to hash.
 */
const void *minidebug__image(const struct minidebug *md, size_t *len);

/** minidebug__free() - release the ELF and its image; NULL is fine. */
void minidebug__free(struct minidebug *md);

#endif
