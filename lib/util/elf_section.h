/* SPDX-License-Identifier: GPL-2.0 */
/* Finding an ELF section by name with libelf: one helper for every reader. */
#ifndef ST_ELF_SECTION_H
#define ST_ELF_SECTION_H

#include <gelf.h>

/**
 * elf_section_by_name() - the section called @want, with its header in *shdr.
 *
 * Return: the section, or NULL when there is none or it has no bytes in the
 * file (SHT_NOBITS, as in a separate debug file's stripped copies).
 */
Elf_Scn *elf_section_by_name(Elf *elf, const char *want, GElf_Shdr *shdr);

#endif
