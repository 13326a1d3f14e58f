/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function symbols of one ELF file, merged from .symtab and .dynsym (or
 * a separate debug file's .symtab), sorted by address and indexed by name.
 */
#ifndef ST_ELF_SYMTAB_H
#define ST_ELF_SYMTAB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/elf/elf_file.h"

struct elf_symtab;

/** elf_symtab__new() - @name is for messages. Return: an empty table, or NULL (ENOMEM). */
struct elf_symtab *elf_symtab__new(const char *name);

/**
 * elf_symtab__add() - add the function symbols of @elf's .symtab, and of its
 * .dynsym when @dynsym; *has_symtab tells whether a .symtab was there.
 *
 * Names point into @elf's string sections: @elf must outlive the table.
 * Return: 0, -EINVAL for an unreadable table, -ENOMEM.
 */
int elf_symtab__add(struct elf_symtab *st, Elf *elf, bool dynsym, bool *has_symtab);

/** elf_symtab__finish() - sort, drop duplicates, index names. Return: 0 or -ENOMEM. */
int elf_symtab__finish(struct elf_symtab *st);

/**
 * elf_symtab__find() - the symbol containing @vaddr; a size-0 symbol reaches
 * to the next symbol or the end of its segment in @segs.
 *
 * Return: the symbol or NULL.
 */
const struct elf_sym *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr,
				       const struct elf_seg *segs, size_t nsegs);

/**
 * elf_symtab__by_name() - the preferred symbol called @name (the name index
 * is built on the first call).
 *
 * Return: the symbol, or NULL.
 */
const struct elf_sym *elf_symtab__by_name(struct elf_symtab *st, const char *name);

/** elf_symtab__len() - Return: the number of symbols. */
size_t elf_symtab__len(const struct elf_symtab *st);

/** elf_symtab__free() - NULL is fine. */
void elf_symtab__free(struct elf_symtab *st);

#endif
