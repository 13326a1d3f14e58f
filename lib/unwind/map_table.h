/* SPDX-License-Identifier: GPL-2.0 */
/* The unwind table of one executable mapping of a process: its file's, or the vDSO's. */
#ifndef ST_UNWIND_MAP_TABLE_H
#define ST_UNWIND_MAP_TABLE_H

#include "lib/unwind/table.h"

struct proc_map;

/*
 * The largest vDSO image read from a process: x86-64's is two pages, and a
 * mapping bigger than this is not the kernel's vDSO.
 */
#define UNWIND_VDSO_MAX (1u << 20)

/**
 * unwind_cache__get_map() - the table for executable mapping @m of @pid.
 *
 * A file (a path starting with '/') is read through /proc/PID/map_files
 * while the process lives (the very file it maps), else by path. The vDSO
 * ("[vdso]") has no file: its image is read from /proc/PID/mem and its table
 * built from its own .eh_frame, cached by build ID like any file's, so every
 * process of one kernel shares it.
 *
 * Return: the table (owned by @c), or NULL with errno set: ENOENT for
 * anonymous code (JIT) and other pseudo-mappings, ESRCH when the vDSO
 * cannot be read (the process is gone), or the builder's errno.
 */
struct unwind_table *unwind_cache__get_map(struct unwind_cache *c, int pid,
					   const struct proc_map *m);

#endif
