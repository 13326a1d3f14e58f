/* SPDX-License-Identifier: GPL-2.0 */
/* .eh_frame / .debug_frame call-frame information → compact unwind rows, through libdw. */
#ifndef ST_UNWIND_CFI_H
#define ST_UNWIND_CFI_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>
#include <libelf.h>

#include "lib/unwind/rows.h"

/* What a walk over one CFI section saw, beyond the rows themselves. */
struct cfi_stats {
	uint64_t cies, fdes;   /* entries read */
	uint64_t bad_entries;  /* entries libdw or we could not decode: skipped, no rows */
	uint64_t signal_fdes;  /* "S" augmentation (signal trampolines, e.g. __restore_rt) */
	uint64_t skipped_fdes; /* left out because the caller's filter said so */
	uint64_t bad_rows;     /* addresses inside an FDE for which libdw gave no frame */
};

/*
 * A filter: return true to leave out the FDE for link-time [lo, hi) (the table
 * builder uses it to add only the .eh_frame FDEs that .sframe does not cover).
 */
typedef bool (*cfi_skip_fn)(uint64_t lo, uint64_t hi, void *ctx);

struct cfi_source {
	const char *name;     /* file name for messages */
	uint64_t base;        /* table base: rows get pc = vaddr - base */
	cfi_skip_fn skip;     /* may be NULL */
	void *skip_ctx;
	/*
	 * .eh_frame: let libdw find FDEs by reading the section from its start,
	 * without our search table (cfi_search.h): the same rows, with libdw's
	 * cache of every FDE read held to the end; tests compare the two.
	 */
	bool linear;
};

/**
 * cfi__read_eh_frame() - turn the .eh_frame of @elf into rows.
 * @elf: the ELF file (its .eh_frame section must be present)
 * @src: name, base and optional FDE filter
 * @out: rows are appended; the caller finishes the vector
 * @st: statistics, added to (may be NULL)
 *
 * Every FDE is walked row by row with dwarf_cfi_addrframe(); the end of each
 * FDE gets a UNWIND_CFA_NONE row so gaps between functions have no rule.
 *
 * Return: 0, -ENOENT when there is no .eh_frame, -EINVAL when libdw cannot
 * read it at all, -ENOMEM. The reason is logged once, naming the file.
 */
int cfi__read_eh_frame(Elf *elf, const struct cfi_source *src, struct unwind_rows *out,
		       struct cfi_stats *st);

/**
 * cfi__read_debug_frame() - the same for the .debug_frame of @elf (the file
 * itself or its separate debug file; addresses are link-time in both).
 *
 * Return: 0, -ENOENT when there is no .debug_frame, -EINVAL, -ENOMEM.
 */
int cfi__read_debug_frame(Elf *elf, const struct cfi_source *src, struct unwind_rows *out,
			  struct cfi_stats *st);

/**
 * cfi__frame_to_row() - express one libdw frame state as a row.
 * @frame: from dwarf_cfi_addrframe()
 * @row: filled in, except row->pc
 * @why: set to the unsupported reason when the row is UNSUPPORTED or its rbp
 *       rule could not be expressed (UNW_UNSUP_MAX otherwise)
 *
 * An rbp rule the row cannot hold becomes UNWIND_RBP_UNDEFINED (the caller's
 * rbp is then unknown, never guessed) and is reported through @why with the
 * CFA rule kept.
 *
 * Return: 0, or -EINVAL when libdw fails on the frame.
 */
int cfi__frame_to_row(Dwarf_Frame *frame, struct unwind_row *row, enum unwind_unsupported *why);

#endif
