/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What libdw may be given: a CFI section's entries checked one by one, and a
 * private copy of the section in which every entry that failed is hidden.
 */
#ifndef ST_UNWIND_CFI_CHECK_H
#define ST_UNWIND_CFI_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libelf.h>

#include "lib/unwind/cfi.h"

/* One FDE that passed the checks: its link-time [lo, hi), and where it is in the section. */
struct cfi_fde_span {
	uint64_t lo, hi;
	uint64_t off;
};

/*
 * The checked section. @elf is a private ELF image holding only that section
 * (same bytes, same address) with each refused FDE rewritten as a CIE, so no
 * lookup libdw makes can reach an entry the checks refused. Its only
 * .eh_frame_hdr, when @searchable, is our own table of the FDEs that passed
 * (cfi_search.h), so nothing points libdw anywhere else.
 */
struct cfi_checked {
	Elf *elf;
	void *image;
	struct cfi_fde_span *fdes; /* in section order */
	size_t nfdes;
	bool searchable; /* libdw finds FDEs by our search table, not by reading from the start */
};

/**
 * cfi_check__section() - check the CFI section @secname of @elf.
 * @eh: .eh_frame rules (pc-relative pointers, CIE id 0) or .debug_frame's
 * @search: give an .eh_frame a search table where it finds the same FDEs
 *          (cfi_search__build()); false keeps libdw's linear search
 * @name: the file, for messages
 * @st: cies, fdes and bad_entries are added to
 *
 * Why: libdw sizes a frame state by the highest register number an entry
 * names (one hostile DW_CFA_offset_extended makes it allocate gigabytes), and
 * its lookups may use any entry of the section, not only the one asked about.
 *
 * Return: 0, -ENOENT (no such section), -EINVAL (not a 64-bit ELF, or
 * unreadable; logged once, naming the file), -ENOMEM.
 */
int cfi_check__section(Elf *elf, const char *secname, bool eh, bool search, const char *name,
		       struct cfi_checked *out, struct cfi_stats *st);

void cfi_check__free(struct cfi_checked *c);

#endif
