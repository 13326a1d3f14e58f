/* SPDX-License-Identifier: GPL-2.0 */
/* What a probe spec names: binaries, symbols, and whether fentry is allowed. */
#ifndef ST_PROBE_RESOLVE_H
#define ST_PROBE_RESOLVE_H

#include <stdint.h>

/**
 * probe_resolve_binary() - turn "c", "libc", "pthread", "bash" or a path into a path.
 * @pid: look in this process's mappings first (0 = our own)
 *
 * Order: a name with a '/' as is; a mapped library of @pid (then of ourselves)
 * named lib<name>.so* or <name>; an executable on $PATH; lib<name>.so* in the
 * system library directories.
 * Return: a malloc'ed path, or NULL with errno ENOENT.
 */
char *probe_resolve_binary(const char *name, int pid);

/**
 * probe_not_elf() - can @path be probed? It must be a regular file with an
 * ELF header. Opened non-blocking, so a FIFO never hangs the caller.
 *
 * Return: NULL when it can, else a static one-phrase reason ("not an ELF file").
 */
const char *probe_not_elf(const char *path);

/**
 * probe_symbol_offset() - file offset of function @sym in the ELF file @path.
 *
 * Return: 0, -ENOENT when the symbol is not there, or another -errno.
 */
int probe_symbol_offset(const char *path, const char *sym, uint64_t *off);

/**
 * probe_fentry_allowed() - load a minimal fentry program against @func.
 *
 * Return: 0 when the kernel accepts it, -ENOENT when @func is not in the
 * kernel's BTF, or the load error (-EPERM on this project's CI machines).
 */
int probe_fentry_allowed(const char *func);

#endif
