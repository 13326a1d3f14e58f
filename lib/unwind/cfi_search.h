/* SPDX-License-Identifier: GPL-2.0 */
/* A binary-search table over a checked .eh_frame, as a linker's .eh_frame_hdr holds one. */
#ifndef ST_UNWIND_CFI_SEARCH_H
#define ST_UNWIND_CFI_SEARCH_H

#include <stddef.h>
#include <stdint.h>

#include "lib/unwind/cfi_check.h"

/**
 * cfi_search__build() - the contents of an .eh_frame_hdr section for the
 * FDEs @fdes of an .eh_frame at @sec_vaddr, the header at that same address.
 * @out: set to the malloc'd bytes, @len to their size
 *
 * Why: without a search table libdw finds an FDE by reading the section
 * from its start and keeps every FDE it read until dwarf_cfi_end() (1-2 MB
 * for libLLVM). With one it reads only the FDEs asked for, so the walk can
 * end its Dwarf_CFI every few thousand FDEs, and reads none it skips.
 *
 * Only where the lookups give the same FDE either way: no two FDEs overlap
 * (libdw's cache of read FDEs would answer for another's range), and every
 * address and offset fits the table's signed 32-bit entries.
 *
 * Return: 0, -ENOTSUP where a table is not used (overlap, out of range, no
 * FDEs), -ENOMEM.
 */
int cfi_search__build(const struct cfi_fde_span *fdes, size_t n, uint64_t sec_vaddr,
		      uint8_t **out, size_t *len);

#endif
