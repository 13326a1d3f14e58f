// SPDX-License-Identifier: GPL-2.0
/* Finding an ELF section by name with libelf: one helper for every reader. */
#include <string.h>

#include "lib/util/elf_section.h"

Elf_Scn *elf_section_by_name(Elf *elf, const char *want, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	const char *name;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr->sh_name);
		if (name && !strcmp(name, want))
			return shdr->sh_type == SHT_NOBITS ? NULL : scn;
	}
	return NULL;
}
