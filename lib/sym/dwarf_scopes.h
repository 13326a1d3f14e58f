/* SPDX-License-Identifier: GPL-2.0 */
/* The function scopes of one DWARF compile unit, indexed once for many address lookups. */
#ifndef ST_DWARF_SCOPES_H
#define ST_DWARF_SCOPES_H

#include <elfutils/libdw.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/sym/dwarf_strings.h"

/*
 * libdw's dwarf_getscopes() walks a compile unit's DIE tree from its root
 * for every address: what eu-addr2line -i pays per address. We walk each CU
 * once, keep its subprogram and inlined-subroutine DIEs with their pc ranges,
 * sort the ranges, and answer each address with a binary search plus a short
 * climb: DWARF nests the ranges of a function's inlined calls inside it, so
 * the last range starting at or before the address either holds it or is
 * inside a range that does (each range records the one enclosing it).
 */

struct dwarf_scope {
	Dwarf_Die die;       /* a DW_TAG_subprogram or DW_TAG_inlined_subroutine */
	int32_t parent;      /* the enclosing scope, or -1 */
	bool inlined;        /* DW_TAG_inlined_subroutine */
	bool named;          /* name resolved (it may still be NULL) */
	uint32_t call_file;  /* DW_AT_call_file + 1 (0: none), line, column of an inlined scope */
	uint32_t call_line;
	uint32_t call_column;
	const char *name;    /* linkage name, else DW_AT_name; points into the DWARF */
};

struct dwarf_scopes {
	struct dwarf_scope *scopes;
	size_t nscopes;
	struct dwarf_scope_range *ranges; /* sorted by (lo, -hi, depth, -DIE order) */
	size_t nranges;
	const struct dwarf_strings *strs; /* names are checked against these */
};

/**
 * dwarf_scopes__build() - index the scopes of the unit whose DIE is @cudie.
 * @s:     zeroed by the caller; filled here
 * @cudie: the unit's DIE (its Dwarf must outlive @s)
 * @strs:  the Dwarf's string sections (must outlive @s)
 *
 * Visits every DIE of the unit once. Subprograms without pc ranges
 * (declarations, abstract instances) are left out with their children,
 * which cannot hold code.
 *
 * Return: 0, or -ENOMEM (then dwarf_scopes__free() @s anyway).
 */
int dwarf_scopes__build(struct dwarf_scopes *s, Dwarf_Die *cudie,
			const struct dwarf_strings *strs);

/**
 * dwarf_scopes__find() - the innermost scope whose ranges hold @addr.
 *
 * Return: its index in @s->scopes, or -1 when no function of the unit holds @addr.
 */
int32_t dwarf_scopes__find(const struct dwarf_scopes *s, uint64_t addr);

/**
 * dwarf_scopes__name() - the name of scope @i, resolved once.
 *
 * The linkage name (mangled, for C++ and Rust) when the DWARF has one, else
 * DW_AT_name, following DW_AT_abstract_origin and DW_AT_specification.
 *
 * Return: the name, or NULL when the DWARF gives none (or one that does not
 * end inside its section).
 */
const char *dwarf_scopes__name(struct dwarf_scopes *s, int32_t i);

/** dwarf_scopes__free() - release the index (not the DWARF); NULL-safe fields. */
void dwarf_scopes__free(struct dwarf_scopes *s);

#endif
