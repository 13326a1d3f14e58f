// SPDX-License-Identifier: GPL-2.0
/* Where libdw's strings live, so each is known to end before anyone calls strlen on it. */
#include <errno.h>
#include <gelf.h>
#include <string.h>

#include "lib/sym/dwarf_strings.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"

/* Sections a string from libdw can point into; the first two are read by libdw itself. */
static const char *const string_sections[] = { ".debug_str", ".debug_line_str", ".debug_info",
					       ".debug_types" };
#define NR_TERMINATED 2

/* Add the sections of one Dwarf; -EINVAL when a string section does not end in NUL. */
static int strings__add(struct dwarf_strings *s, Dwarf *dw, const char *name)
{
	Elf *elf = dwarf_getelf(dw);
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	size_t i;

	for (i = 0; elf && i < sizeof(string_sections) / sizeof(string_sections[0]); i++) {
		scn = elf_section_by_name(elf, string_sections[i], &sh);
		/* libdw decompressed what it uses: this is the buffer it reads. */
		d = scn ? elf_getdata(scn, NULL) : NULL;
		if (!d || !d->d_buf || !d->d_size)
			continue;
		if (i < NR_TERMINATED && ((const char *)d->d_buf)[d->d_size - 1] != '\0') {
			st_warn("dwarf: %s: %s does not end in a NUL byte (damaged?): DWARF not used",
				name, string_sections[i]);
			return -EINVAL;
		}
		if (s->n < DWARF_STRINGS_MAX_SECTIONS) {
			s->sec[s->n].lo = d->d_buf;
			s->sec[s->n].hi = (const char *)d->d_buf + d->d_size;
			s->n++;
		}
	}
	return 0;
}

int dwarf_strings__init(struct dwarf_strings *s, Dwarf *dw, const char *name)
{
	Dwarf *alt = dwarf_getalt(dw);

	memset(s, 0, sizeof(*s));
	return strings__add(s, dw, name) ?: (alt ? strings__add(s, alt, name) : 0);
}

const char *dwarf_strings__check(const struct dwarf_strings *s, const char *str)
{
	size_t i;

	if (!str)
		return NULL;
	for (i = 0; i < s->n; i++)
		if (str >= s->sec[i].lo && str < s->sec[i].hi)
			return memchr(str, '\0', (size_t)(s->sec[i].hi - str)) ? str : NULL;
	return NULL;
}

const char *dwarf_strings__form(const struct dwarf_strings *s, Dwarf_Attribute *attr)
{
	return attr ? dwarf_strings__check(s, dwarf_formstring(attr)) : NULL;
}
