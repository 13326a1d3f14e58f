/* SPDX-License-Identifier: GPL-2.0 */
/* The rows of a table from every unwind source of a file, merged by precedence (table.c's part). */
#ifndef ST_UNWIND_SOURCES_H
#define ST_UNWIND_SOURCES_H

#include "lib/unwind/table.h"

struct elf_file;

/**
 * unwind_sources__read() - fill @t's rows, spans and per-source counts from
 * the .sframe, .eh_frame and .debug_frame of file model @ef, and from the
 * .debug_frame of its separate debug file (elf_file__debug_elf_with()) when
 * @ef has none. t->path, t->base and the build ID must be set; the rows come
 * out finished.
 *
 * Return: 0 (also when no source exists: no rows), -EINVAL when a source
 * could not be read and no other gave rows (logged), -ENOMEM.
 */
int unwind_sources__read(struct elf_file *ef, struct unwind_table *t);

#endif
