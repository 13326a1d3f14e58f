/* SPDX-License-Identifier: GPL-2.0 */
/* Where libdw's strings live, so each is known to end before anyone calls strlen on it. */
#ifndef ST_DWARF_STRINGS_H
#define ST_DWARF_STRINGS_H

#include <elfutils/libdw.h>
#include <stddef.h>

/*
 * libdw hands out strings as pointers into the file's sections and trusts
 * them to end in a NUL: dwarf_formstring() of an inline DW_FORM_string, and
 * its own line-table reader on .debug_str / .debug_line_str offsets. A
 * damaged file makes both read past the section. We check the string
 * sections' last byte once, and each inline string against its section.
 */
#define DWARF_STRINGS_MAX_SECTIONS 8

struct dwarf_strings {
	struct {
		const char *lo, *hi;
	} sec[DWARF_STRINGS_MAX_SECTIONS];
	size_t n;
};

/**
 * dwarf_strings__init() - learn the string-bearing sections of @dw and of its
 * dwz alternate file (dwarf_getalt()), if any.
 * @name: the file, for the message
 *
 * Return: 0, or -EINVAL when .debug_str or .debug_line_str does not end in a
 * NUL byte (logged once, naming @name): libdw would read past it, so nothing
 * of this DWARF may be used.
 */
int dwarf_strings__init(struct dwarf_strings *s, Dwarf *dw, const char *name);

/** dwarf_strings__check() - @str when it ends inside the section it lies in, else NULL. */
const char *dwarf_strings__check(const struct dwarf_strings *s, const char *str);

/** dwarf_strings__form() - dwarf_formstring(@attr), checked; NULL-safe. */
const char *dwarf_strings__form(const struct dwarf_strings *s, Dwarf_Attribute *attr);

#endif
