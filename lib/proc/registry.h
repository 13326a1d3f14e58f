/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The process registry: the executable mappings of each pid as first seen,
 * with their ELF files held open (through /proc/PID/map_files) so frames of
 * a process that has exited still resolve to (build ID, file offset, symbol).
 */
#ifndef ST_PROC_REGISTRY_H
#define ST_PROC_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/proc/maps.h"
#include "lib/sym/elf_file.h"

/* What one user address resolves to. Strings live as long as the registry. */
struct user_frame {
	const char *path;          /* mapped file as /proc/PID/maps names it; NULL if none */
	const uint8_t *build_id;   /* NULL when the file has none or is unknown */
	size_t build_id_len;
	uint64_t file_off;         /* offset of the address in the file */
	const char *sym;           /* function name, NULL when unknown */
	uint64_t sym_off;          /* address - symbol start */
};

struct proc_registry;

/** procs__new() - an empty registry. Return: it, or NULL with errno set. */
struct proc_registry *procs__new(void);

/**
 * procs__see() - record @pid's executable mappings if not already known.
 *
 * Opens each mapped file once (shared between processes by device+inode).
 * Return: 0; -ESRCH when the process is already gone (counted by the caller).
 */
int procs__see(struct proc_registry *r, int pid);

/**
 * procs__refresh() - re-read @pid's mappings (after an exec or a new mmap).
 *
 * Return: 0 or -ESRCH.
 */
int procs__refresh(struct proc_registry *r, int pid);

/**
 * procs__set_maps() - install @maps (sorted, from /proc or from lifecycle
 * records) as @pid's mappings; files are opened through map_files while the
 * process lives, else by path with the inode checked.
 *
 * Return: 0 or -ENOMEM.
 */
int procs__set_maps(struct proc_registry *r, int pid, const struct proc_map *maps, size_t n);

/**
 * procs__resolve() - resolve @addr in @pid's address space.
 *
 * Return: 0 with *out filled (sym may be NULL: no symbol covers it),
 * -ENOENT when no known mapping covers @addr, -ESRCH when @pid was never seen.
 */
int procs__resolve(struct proc_registry *r, int pid, uint64_t addr, struct user_frame *out);

/**
 * procs__find_elf() - the ELF file mapped at @addr in @pid, with the load bias
 * (runtime address - link-time vaddr). Return: the file or NULL.
 */
struct elf_file *procs__find_elf(struct proc_registry *r, int pid, uint64_t addr,
				 uint64_t *bias);

/** procs__free() - close every file; NULL is fine. */
void procs__free(struct proc_registry *r);

#endif
