// SPDX-License-Identifier: GPL-2.0
/* The function symbols of one ELF file: merged, sorted, indexed by name. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/symtab.h"
#include "lib/util/log.h"

/*
 * Symbols: STT_FUNC and STT_GNU_IFUNC with a section, from .symtab and
 * .dynsym merged. The table is sorted by (address, binding, name) with
 * GLOBAL before WEAK before LOCAL, and exact (address, name) duplicates
 * (the same symbol in both tables) are dropped. Aliases at one address are
 * all kept so each can be found by name, but elf_symtab__find() returns the
 * first of them: the global name, which is the one a user links against.
 *
 * Names point into libelf's string sections (elf_strptr() checks they are
 * in bounds and terminated), so they live as long as the Elf handle.
 */

struct elf_symtab {
	const char *name;
	struct elf_sym *syms;
	uint8_t *rank;     /* binding rank of syms[i] while sorting */
	size_t n, cap;
	uint32_t *by_name; /* indexes into syms sorted by (name, index); built on first use */
};

static int symtab__fail(const struct elf_symtab *st, int err, const char *why)
{
	st_err("elf: %s: %s", st->name, why);
	return err;
}

struct elf_symtab *elf_symtab__new(const char *name)
{
	struct elf_symtab *st = calloc(1, sizeof(*st));

	if (st)
		st->name = name;
	return st;
}

static int symtab__push(struct elf_symtab *st, const struct elf_sym *s, uint8_t rank)
{
	struct elf_sym *ns;
	uint8_t *nr;
	size_t c;

	if (st->n == st->cap) {
		c = st->cap ? st->cap * 2 : 1024;
		if (c > UINT32_MAX || c > SIZE_MAX / sizeof(*ns))
			return -ENOMEM;
		ns = realloc(st->syms, c * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		st->syms = ns;
		nr = realloc(st->rank, c);
		if (!nr)
			return -ENOMEM;
		st->rank = nr;
		st->cap = c;
	}
	st->rank[st->n] = rank;
	st->syms[st->n++] = *s;
	return 0;
}

static uint8_t sym__rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 1;
	default: return 2;
	}
}

static int symtab__load_section(struct elf_symtab *st, Elf *elf, Elf_Scn *scn,
				const GElf_Shdr *sh)
{
	struct elf_sym s;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n, esz;
	const char *name;
	int type;

	data = elf_getdata(scn, NULL);
	esz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !esz)
		return symtab__fail(st, -EINVAL, "unreadable symbol table");
	n = data->d_size / esz;
	for (i = 1; i < n; i++) {
		if (i > INT32_MAX || !gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s = (struct elf_sym){ sym.st_value, sym.st_size, name };
		if (symtab__push(st, &s, sym__rank(sym.st_info)))
			return symtab__fail(st, -ENOMEM, "out of memory");
	}
	return 0;
}

int elf_symtab__add(struct elf_symtab *st, Elf *elf, bool dynsym, bool *has_symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return symtab__fail(st, -EINVAL, "bad section header");
		if (sh.sh_type != SHT_SYMTAB && (sh.sh_type != SHT_DYNSYM || !dynsym))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*has_symtab = true;
		err = symtab__load_section(st, elf, scn, &sh);
		if (err)
			return err;
	}
	return 0;
}

/* Sorting moves syms and ranks together; an index array keeps that simple. */
struct sym_key {
	struct elf_sym sym;
	uint8_t rank;
};

static int sym_key__cmp_dedup(const void *pa, const void *pb)
{
	const struct sym_key *a = pa, *b = pb;
	int c;

	if (a->sym.addr != b->sym.addr)
		return a->sym.addr < b->sym.addr ? -1 : 1;
	c = strcmp(a->sym.name, b->sym.name);
	if (c)
		return c;
	return (int)a->rank - (int)b->rank;
}

static int sym_key__cmp(const void *pa, const void *pb)
{
	const struct sym_key *a = pa, *b = pb;

	if (a->sym.addr != b->sym.addr)
		return a->sym.addr < b->sym.addr ? -1 : 1;
	if (a->rank != b->rank)
		return (int)a->rank - (int)b->rank;
	return strcmp(a->sym.name, b->sym.name);
}

struct name_key {
	const char *name;
	uint32_t ix;
};

static int name_key__cmp(const void *pa, const void *pb)
{
	const struct name_key *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->ix < b->ix ? -1 : a->ix > b->ix;
}

/*
 * Ties on a name go to the lowest index, i.e. the preferred symbol at the
 * lowest address. Only lookups by name (uprobe targets) need it: most
 * tables never build it.
 */
static int symtab__index_names(struct elf_symtab *st)
{
	struct name_key *k;
	size_t i;

	k = calloc(st->n, sizeof(*k));
	st->by_name = calloc(st->n, sizeof(*st->by_name));
	if (!k || !st->by_name) {
		free(k);
		free(st->by_name);
		st->by_name = NULL;
		return symtab__fail(st, -ENOMEM, "out of memory");
	}
	for (i = 0; i < st->n; i++)
		k[i] = (struct name_key){ st->syms[i].name, (uint32_t)i };
	qsort(k, st->n, sizeof(*k), name_key__cmp);
	for (i = 0; i < st->n; i++)
		st->by_name[i] = k[i].ix;
	free(k);
	return 0;
}

int elf_symtab__finish(struct elf_symtab *st)
{
	struct sym_key *k;
	size_t i, n = 0;

	if (!st->n)
		goto out;
	k = calloc(st->n, sizeof(*k));
	if (!k)
		return symtab__fail(st, -ENOMEM, "out of memory");
	for (i = 0; i < st->n; i++)
		k[i] = (struct sym_key){ st->syms[i], st->rank[i] };
	qsort(k, st->n, sizeof(*k), sym_key__cmp_dedup);
	for (i = 0; i < st->n; i++)
		if (!n || k[i].sym.addr != k[n - 1].sym.addr ||
		    strcmp(k[i].sym.name, k[n - 1].sym.name))
			k[n++] = k[i];
	qsort(k, n, sizeof(*k), sym_key__cmp);
	for (i = 0; i < n; i++)
		st->syms[i] = k[i].sym;
	st->n = n;
	free(k);
out:
	free(st->rank);
	st->rank = NULL;
	return 0;
}

/* End of the PT_LOAD segment holding @vaddr, or @vaddr + 1 when none does. */
static uint64_t seg_end(const struct elf_seg *segs, size_t nsegs, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < nsegs; i++)
		if (vaddr >= segs[i].vaddr && vaddr - segs[i].vaddr < segs[i].memsz)
			return segs[i].vaddr + segs[i].memsz;
	return vaddr + 1;
}

/* Index of the first symbol with addr > @vaddr (when @le) or addr >= @vaddr. */
static size_t symtab__bound(const struct elf_symtab *st, uint64_t vaddr, bool le)
{
	size_t lo = 0, hi = st->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (st->syms[mid].addr < vaddr || (le && st->syms[mid].addr == vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct elf_sym *elf_symtab__find(const struct elf_symtab *st, uint64_t vaddr,
				       const struct elf_seg *segs, size_t nsegs)
{
	const struct elf_sym *s;
	size_t after, first;
	uint64_t end;

	after = symtab__bound(st, vaddr, true);
	if (after == 0)
		return NULL;
	first = symtab__bound(st, st->syms[after - 1].addr, false);
	s = &st->syms[first];
	if (s->size) {
		end = s->addr + s->size < s->addr ? UINT64_MAX : s->addr + s->size;
	} else {
		end = seg_end(segs, nsegs, s->addr);
		if (after < st->n && st->syms[after].addr < end)
			end = st->syms[after].addr;
	}
	return vaddr < end ? s : NULL;
}

const struct elf_sym *elf_symtab__by_name(struct elf_symtab *st, const char *name)
{
	size_t lo = 0, hi = st->n, mid;

	if (!st->n || (!st->by_name && symtab__index_names(st)))
		return NULL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(st->syms[st->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < st->n && !strcmp(st->syms[st->by_name[lo]].name, name))
		return &st->syms[st->by_name[lo]];
	return NULL;
}

size_t elf_symtab__len(const struct elf_symtab *st)
{
	return st->n;
}

void elf_symtab__free(struct elf_symtab *st)
{
	if (!st)
		return;
	free(st->by_name);
	free(st->rank);
	free(st->syms);
	free(st);
}
