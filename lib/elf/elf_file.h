/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF file model: one per file, opened once (libelf), known by its
 * (device, inode) in lib/elf/elf_cache.h and by its build ID.
 *
 * At open only what is cheap is read: the header, the PT_LOAD segments and
 * the build ID (PT_NOTE first, then SHT_NOTE). Everything else is built on
 * first use and lives as long as the file:
 *   - symbols: .symtab + .dynsym, or the debug file's .symtab (lib/elf/symtab.c);
 *   - the separate debug file: by build ID, then .gnu_debuglink (lib/elf/debug_file.c);
 *   - parts other layers build from it and hang here, so that they too are
 *     built once per file: the unwind table (lib/unwind/table.c).
 *
 * Name sources plug in per file, in this order (docs/frames.md; the modules
 * are i9names's, docs/names.md):
 *   1. elf_file__find_sym(): .symtab + .dynsym, else the debug file's .symtab,
 *      else .dynsym merged with the .symtab of MiniDebugInfo
 *      (lib/elf/minidebug.h: .gnu_debugdata), in elf_file__load_syms();
 *   2. lib/sym/gopclntab.h for a Go file without .symtab
 *      (elf_file__has_symtab(); kept as ELF_PART_GOPCLNTAB);
 *   3. lib/sym/dwarf_inline.h on the Dwarf of elf_file__dwarf_elf(), with
 *      its dwz file elf_file__dwarf_alt() (kept as ELF_PART_DWARF), one batch
 *      per run of sorted offsets of this file.
 * lib/sym/sources.c builds 2 and 3; lib/sym/symbolizer.c calls them all,
 * grouped by file and sorted by offset.
 *
 * The content is hostile: every length is checked against the file, and a
 * file an unprivileged user could change is read with pread, not mmap, so
 * truncating it under us gives a short read, not SIGBUS.
 */
#ifndef ST_ELF_FILE_H
#define ST_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ELF_BUILD_ID_MAX 20

struct elf_sym {
	uint64_t addr; /* st_value: link-time virtual address */
	uint64_t size;
	const char *name;
};

/* A PT_LOAD segment. */
struct elf_seg {
	uint64_t off, filesz, vaddr, memsz;
	bool exec; /* PF_X */
};

/* Parts other layers build from a file; the file frees them with itself. */
enum elf_part {
	ELF_PART_UNWIND,    /* struct unwind_table (lib/unwind/table.c) */
	ELF_PART_DWARF,     /* the file's DWARF reader (lib/sym/sources.c) */
	ELF_PART_GOPCLNTAB, /* its Go function table (lib/sym/sources.c) */
	ELF_PART_MAX,
};

/* elf_file__open_fd() flags */
#define ELF_OPEN_QUIET 1u /* log nothing on failure: the caller counts it */

struct elf_file;

/**
 * elf_file__open() - open @path (named by the user, e.g. a uprobe target).
 *
 * Return: the file, or NULL with errno set; the reason is logged once, naming @path.
 */
struct elf_file *elf_file__open(const char *path);

/**
 * elf_file__open_fd() - the same over an open fd (dup'ed; the caller keeps @fd).
 * @name: what to call the file in messages and output, and where its
 *        .gnu_debuglink is looked for
 * @flags: ELF_OPEN_*
 *
 * Return: the file, or NULL with errno set (ENOEXEC: not ELF, EINVAL: broken).
 */
struct elf_file *elf_file__open_fd(int fd, const char *name, unsigned flags);

/** elf_file__name() - Return: the name it was opened with. */
const char *elf_file__name(const struct elf_file *ef);

/** elf_file__is_dyn() - Return: true for ET_DYN (PIE, shared objects): load bias applies. */
bool elf_file__is_dyn(const struct elf_file *ef);

/**
 * elf_file__build_id() - the NT_GNU_BUILD_ID note.
 *
 * Return: its length (0 when there is none); *id points into the model.
 */
size_t elf_file__build_id(const struct elf_file *ef, const uint8_t **id);

/** elf_file__build_id_hex() - Return: the build ID in lowercase hex, or NULL without one. */
const char *elf_file__build_id_hex(const struct elf_file *ef);

/**
 * elf_file__identity() - what names the file's content: its build ID, else
 * a 16-byte hash of the whole file (computed on first call).
 * @is_hash: receives whether it is the hash
 *
 * Return: its length (0 only when the file cannot be read whole).
 */
size_t elf_file__identity(struct elf_file *ef, const uint8_t **id, bool *is_hash);

/** elf_file__segments() - Return: the PT_LOAD segments in header order, *n of them. */
const struct elf_seg *elf_file__segments(const struct elf_file *ef, size_t *n);

/**
 * elf_file__offset_to_vaddr() - map a file offset to a link-time vaddr via PT_LOAD.
 *
 * Return: 0, or -ENOENT when no loadable segment covers @off.
 */
int elf_file__offset_to_vaddr(const struct elf_file *ef, uint64_t off, uint64_t *vaddr);

/** elf_file__vaddr_to_offset() - Return: 0, or -ENOENT outside every PT_LOAD. */
int elf_file__vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr, uint64_t *off);

/** elf_file__elf() - Return: the file's own libelf handle (owned by the model). */
Elf *elf_file__elf(const struct elf_file *ef);

/**
 * elf_file__debug_elf() - the separate debug file, found on first call.
 * @path: receives its path (may be NULL)
 *
 * Return: its libelf handle (owned by the model), or NULL when there is none.
 */
Elf *elf_file__debug_elf(struct elf_file *ef, const char **path);

/**
 * elf_file__debug_elf_with() - the separate debug file, if it has @section.
 * @section: e.g. ".debug_frame"
 * @path: receives its path (may be NULL)
 *
 * Before the debug file is known, only candidates with @section get their
 * .gnu_debuglink CRC checked (which reads the whole file): every file's
 * unwind table asks for a .debug_frame when it is built, and most debug
 * files have none. A debug file found so is the file's debug file for every
 * later use; when none is found, nothing is remembered and
 * elf_file__debug_elf() looks again without @section.
 *
 * Return: its libelf handle (owned by the model), or NULL.
 */
Elf *elf_file__debug_elf_with(struct elf_file *ef, const char *section, const char **path);

/**
 * elf_file__dwarf_elf() - where DWARF for this file lives: the debug file
 * when there is one, else the file itself (libdw reads it: lib/sym/sources.c).
 *
 * Return: a libelf handle owned by the model.
 */
Elf *elf_file__dwarf_elf(struct elf_file *ef);

/**
 * elf_file__dwarf_alt() - the dwz file (.gnu_debugaltlink) of the DWARF of
 * elf_file__dwarf_elf(), found on first call as the debug file is (build ID
 * under /usr/lib/debug/.build-id/, then the path it names, through
 * lib/util/safe_open.h) and checked to have the build ID the link names.
 * libdw would otherwise open that path itself, with a plain open().
 * @alt: receives its libelf handle (owned by the model), or NULL
 *
 * Return: 0 (*alt NULL: the DWARF needs none), or -ENOENT when the DWARF
 * names one that was not found: do not read that DWARF.
 */
int elf_file__dwarf_alt(struct elf_file *ef, Elf **alt);

/**
 * elf_file__find_sym() - the function symbol containing @vaddr; the symbol
 * tables are read on first call.
 *
 * Symbols of size 0 match up to the next symbol. Return: the symbol or NULL.
 */
const struct elf_sym *elf_file__find_sym(struct elf_file *ef, uint64_t vaddr);

/** elf_file__sym_by_name() - Return: a defined function symbol by exact name, or NULL. */
const struct elf_sym *elf_file__sym_by_name(struct elf_file *ef, const char *name);

/** elf_file__nr_syms() - Return: the number of function symbols after merging. */
size_t elf_file__nr_syms(struct elf_file *ef);

/**
 * elf_file__has_symtab() - whether a full symbol table (.symtab) named the
 * functions: the file's own, its debug file's or MiniDebugInfo's, not
 * only .dynsym.
 *
 * Return: true when one did.
 */
bool elf_file__has_symtab(struct elf_file *ef);

/** elf_file__part() - Return: a part set with elf_file__set_part(), or NULL. */
void *elf_file__part(const struct elf_file *ef, enum elf_part which);

/**
 * elf_file__set_part() - hang @part on the file; @release frees it with the
 * file (may be NULL for a part that needs no freeing, e.g. a marker).
 */
void elf_file__set_part(struct elf_file *ef, enum elf_part which, void *part,
			void (*release)(void *));

/**
 * elf_file__drop_pages() - the pages of the mapped file read so far leave
 * this process's memory (read again from the page cache when needed): after
 * a one-off pass such as building an unwind table. A file read into memory
 * (not mapped) keeps them.
 */
void elf_file__drop_pages(struct elf_file *ef);

/**
 * elf_file__unlinked() - has the file no name left (deleted since it was
 * opened, or a memory image): no process can map it anew.
 *
 * Return: true when its link count is 0; false when it has one, or when
 * it cannot be asked.
 */
bool elf_file__unlinked(const struct elf_file *ef);

/** elf_file__free() - close the file and free its parts; NULL is fine. */
void elf_file__free(struct elf_file *ef);

#endif
