/* SPDX-License-Identifier: GPL-2.0 */
/* The rows of a table from every unwind source of a file, merged by precedence (table.c's part). */
#ifndef ST_UNWIND_SOURCES_H
#define ST_UNWIND_SOURCES_H

#include <libelf.h>

#include "lib/unwind/table.h"

/**
 * unwind_sources__read() - fill @t's rows, spans and per-source counts from
 * @elf's .sframe, .eh_frame and .debug_frame, and from the .debug_frame of
 * its separate debug file when @elf has none. t->path, t->base and the build
 * ID must be set; the rows come out finished.
 *
 * Return: 0 (also when no source exists: no rows), -EINVAL when a source
 * could not be read and no other gave rows (logged), -ENOMEM.
 */
int unwind_sources__read(Elf *elf, struct unwind_table *t);

#endif
