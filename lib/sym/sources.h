/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The name sources of one file model that lib/sym reads beyond its symbol
 * table, built on first use and kept with the file (as enum elf_part):
 * its Go function table, and its DWARF (the file's own or its debug
 * file's, with the dwz file it shares) indexed for inline chains and lines.
 * A file without one remembers that, so the search runs once per file.
 */
#ifndef ST_SYM_SOURCES_H
#define ST_SYM_SOURCES_H

struct elf_file;
struct gopclntab;
struct dwarf_inline;

/**
 * sources__go() - the .gopclntab of @ef, for a file without .symtab.
 *
 * Return: the table, or NULL when @ef has a .symtab or is not Go.
 */
const struct gopclntab *sources__go(struct elf_file *ef);

/**
 * sources__dwarf() - the DWARF of @ef, indexed (lib/sym/dwarf_inline.h).
 *
 * Return: the reader, or NULL when there is no DWARF (or its dwz file is
 * missing: then the reason is said once with --debug).
 */
struct dwarf_inline *sources__dwarf(struct elf_file *ef);

#endif
