/* SPDX-License-Identifier: GPL-2.0 */
/* One ELF file opened with libelf: build ID, segments, symbols (.symtab + .dynsym). */
#ifndef ST_ELF_FILE_H
#define ST_ELF_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 20

struct elf_sym {
	uint64_t addr; /* st_value: link-time virtual address */
	uint64_t size;
	const char *name;
};

struct elf_file;

/**
 * elf_file__open() - open @path read-only and index it.
 *
 * Return: the file, or NULL with errno set; the reason is logged once, naming @path.
 */
struct elf_file *elf_file__open(const char *path);

/**
 * elf_file__open_fd() - the same over an open fd (dup'ed; the caller keeps @fd).
 * @name: what to call the file in messages and output
 */
struct elf_file *elf_file__open_fd(int fd, const char *name);

const char *elf_file__name(const struct elf_file *ef);

/** elf_file__is_dyn() - true for ET_DYN (PIE, shared objects): load bias applies. */
bool elf_file__is_dyn(const struct elf_file *ef);

/**
 * elf_file__build_id() - the NT_GNU_BUILD_ID note.
 *
 * Return: its length (0 when there is none); *id points into the file's memory.
 */
size_t elf_file__build_id(const struct elf_file *ef, const uint8_t **id);

/**
 * elf_file__offset_to_vaddr() - map a file offset to a link-time vaddr via PT_LOAD.
 *
 * Return: 0, or -ENOENT when no loadable segment covers @off.
 */
int elf_file__offset_to_vaddr(const struct elf_file *ef, uint64_t off, uint64_t *vaddr);

/** elf_file__vaddr_to_offset() - the inverse; -ENOENT outside every PT_LOAD. */
int elf_file__vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr, uint64_t *off);

/**
 * elf_file__find_sym() - the function symbol containing @vaddr.
 *
 * Symbols of size 0 match up to the next symbol. Return: the symbol or NULL.
 */
const struct elf_sym *elf_file__find_sym(const struct elf_file *ef, uint64_t vaddr);

/**
 * elf_file__sym_by_name() - a defined function symbol by exact name.
 *
 * Return: the symbol or NULL.
 */
const struct elf_sym *elf_file__sym_by_name(const struct elf_file *ef, const char *name);

/** elf_file__nr_syms() - Return: the number of function symbols after merging. */
size_t elf_file__nr_syms(const struct elf_file *ef);

/** elf_file__free() - close the file; NULL is fine. */
void elf_file__free(struct elf_file *ef);

#endif
