/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test helper: the function symbols of an ELF file's .symtab, read with
 * libelf directly (as `nm` lists them), so tests of the name sources do not
 * lean on the symbol reader they will be plugged into.
 */
#ifndef ST_TEST_ELF_SYMS_H
#define ST_TEST_ELF_SYMS_H

#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct test_sym {
	uint64_t addr, size;
	char *name;
};

struct test_syms {
	struct test_sym *v;
	size_t n;
};

static inline void test_syms__free(struct test_syms *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		free(ts->v[i].name);
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}

static inline int test_syms__add(struct test_syms *ts, Elf *elf, GElf_Shdr *sh, Elf_Data *d, size_t i)
{
	struct test_sym *v;
	const char *name;
	GElf_Sym sym;

	if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
	    sym.st_shndx == SHN_UNDEF)
		return 0;
	name = elf_strptr(elf, sh->sh_link, sym.st_name);
	if (!name || !*name)
		return 0;
	v = realloc(ts->v, (ts->n + 1) * sizeof(*v));
	if (!v)
		return -1;
	ts->v = v;
	v[ts->n].addr = sym.st_value;
	v[ts->n].size = sym.st_size;
	v[ts->n].name = strdup(name);
	return v[ts->n++].name ? 0 : -1;
}

/* Defined STT_FUNC symbols of @elf's .symtab with a name; Return: 0, or -1 (nothing to free). */
static inline int test_syms__read_elf(Elf *elf, struct test_syms *ts)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	int err;

	memset(ts, 0, sizeof(*ts));
	err = elf && elf_kind(elf) == ELF_K_ELF ? 0 : -1; /* no .symtab: no symbols */
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		err = d ? 0 : -1;
		for (size_t i = 0; d && !err && i < sh.sh_size / sh.sh_entsize; i++)
			err = test_syms__add(ts, elf, &sh, d, i);
		break;
	}
	if (err)
		test_syms__free(ts);
	return err;
}

/* The same for the file at @path. */
static inline int test_syms__read(const char *path, struct test_syms *ts)
{
	Elf *elf;
	int fd, err;

	memset(ts, 0, sizeof(*ts));
	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	err = test_syms__read_elf(elf, ts);
	elf_end(elf);
	close(fd);
	return err;
}

/* Return: the first symbol called @name, or NULL. */
static inline const struct test_sym *test_syms__find(const struct test_syms *ts, const char *name)
{
	for (size_t i = 0; i < ts->n; i++)
		if (!strcmp(ts->v[i].name, name))
			return &ts->v[i];
	return NULL;
}

#endif
