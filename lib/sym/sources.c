// SPDX-License-Identifier: GPL-2.0
/* A file's Go table and DWARF, built once and hung on its model. */
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdlib.h>

#include "lib/elf/elf_file.h"
#include "lib/sym/dwarf_inline.h"
#include "lib/sym/gopclntab.h"
#include "lib/sym/sources.h"
#include "lib/util/log.h"

/* What a part holds once looked for and not found: the search is not repeated. */
static char none;

static void go__release(void *p)
{
	gopclntab__free(p);
}

const struct gopclntab *sources__go(struct elf_file *ef)
{
	void *part = elf_file__part(ef, ELF_PART_GOPCLNTAB);
	struct gopclntab *t;
	size_t n = 0;

	if (part)
		return part == &none ? NULL : part;
	t = elf_file__has_symtab(ef) ? NULL : gopclntab__from_elf(elf_file__elf(ef));
	if (t && gopclntab__funcs(t, &n))
		st_info("go: %s: %zu functions from .gopclntab", elf_file__name(ef), n);
	elf_file__set_part(ef, ELF_PART_GOPCLNTAB, t ? (void *)t : &none, t ? go__release : NULL);
	return t;
}

/* The DWARF reader and the libdw handles under it, freed together with the file. */
struct file_dwarf {
	struct dwarf_inline *di;
	Dwarf *dw, *alt;
};

static void dwarf__release(void *p)
{
	struct file_dwarf *fd = p;

	dwarf_inline__free(fd->di);
	if (fd->dw)
		dwarf_end(fd->dw);
	if (fd->alt)
		dwarf_end(fd->alt);
	free(fd);
}

/*
 * The dwz file is given to libdw before any DIE is read (dwarf_setalt), so
 * libdw never opens the path the file names by itself. Return: the DWARF, or
 * NULL.
 */
static struct file_dwarf *dwarf__open(struct elf_file *ef)
{
	struct file_dwarf *fd = calloc(1, sizeof(*fd));
	Elf *alt_elf;

	if (!fd)
		return NULL;
	fd->dw = dwarf_begin_elf(elf_file__dwarf_elf(ef), DWARF_C_READ, NULL);
	if (!fd->dw || elf_file__dwarf_alt(ef, &alt_elf))
		goto err_free;
	if (alt_elf) {
		fd->alt = dwarf_begin_elf(alt_elf, DWARF_C_READ, NULL);
		if (!fd->alt)
			goto err_free;
		dwarf_setalt(fd->dw, fd->alt);
	}
	fd->di = dwarf_inline__new(fd->dw, elf_file__name(ef));
	if (!fd->di)
		goto err_free;
	st_info("dwarf: %s: %zu units", elf_file__name(ef), dwarf_inline__nr_units(fd->di));
	return fd;
err_free:
	dwarf__release(fd);
	return NULL;
}

struct dwarf_inline *sources__dwarf(struct elf_file *ef)
{
	void *part = elf_file__part(ef, ELF_PART_DWARF);
	struct file_dwarf *fd;

	if (part)
		return part == &none ? NULL : ((struct file_dwarf *)part)->di;
	fd = dwarf__open(ef);
	elf_file__set_part(ef, ELF_PART_DWARF, fd ? (void *)fd : &none, fd ? dwarf__release : NULL);
	return fd ? fd->di : NULL;
}
