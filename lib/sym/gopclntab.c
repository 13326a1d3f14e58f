// SPDX-License-Identifier: GPL-2.0
/* Function names of Go binaries from .gopclntab, for binaries stripped of .symtab. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/gopclntab.h"
#include "lib/util/elf_section.h"

#define GO12_MAGIC 0xfffffffbU
#define GO116_MAGIC 0xfffffffaU
#define GO118_MAGIC 0xfffffff0U
#define GO120_MAGIC 0xfffffff1U

/* The raw table being read: every access goes through pcln__u32/pcln__uptr. */
struct pcln {
	const uint8_t *d;
	size_t len;
	bool be;
	unsigned int ptrsize;
	int version;
	uint64_t text_start;
	uint64_t nfunc;
	size_t functab, funcdata, funcnametab; /* offsets into d */
	unsigned int fsz;                      /* functab field size */
};

struct gopclntab {
	struct go_func *funcs;
	size_t n, dropped;
	char *names;
	int version;
};

static bool pcln__u32(const struct pcln *p, uint64_t off, uint32_t *v)
{
	const uint8_t *b = p->d + off;

	if (off > p->len || p->len - off < 4)
		return false;
	*v = p->be ? (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]
		   : (uint32_t)b[3] << 24 | (uint32_t)b[2] << 16 | (uint32_t)b[1] << 8 | b[0];
	return true;
}

/* A pointer-sized field; also the functab fields of layouts before 1.18. */
static bool pcln__uptr(const struct pcln *p, uint64_t off, unsigned int size, uint64_t *v)
{
	uint32_t lo, hi;

	if (size == 4) {
		if (!pcln__u32(p, off, &lo))
			return false;
		*v = lo;
		return true;
	}
	if (off > UINT64_MAX - 4 || !pcln__u32(p, off, &lo) || !pcln__u32(p, off + 4, &hi))
		return false;
	*v = p->be ? (uint64_t)lo << 32 | hi : (uint64_t)hi << 32 | lo;
	return true;
}

/* Header word @i after the 8-byte prefix, as an offset inside the table. */
static bool pcln__offset(const struct pcln *p, unsigned int i, size_t *off)
{
	uint64_t v;

	if (!pcln__uptr(p, 8 + (uint64_t)i * p->ptrsize, p->ptrsize, &v) || v > p->len)
		return false;
	*off = (size_t)v;
	return true;
}

static int pcln__magic(struct pcln *p)
{
	static const struct {
		uint32_t magic;
		int version;
	} magics[] = { { GO12_MAGIC, 12 },
		       { GO116_MAGIC, 116 },
		       { GO118_MAGIC, 118 },
		       { GO120_MAGIC, 120 } };
	const uint8_t *d = p->d;
	uint32_t le, be;
	size_t i;

	if (p->len < 16 || d[4] || d[5] || (d[6] != 1 && d[6] != 2 && d[6] != 4) ||
	    (d[7] != 4 && d[7] != 8))
		return -EINVAL;
	p->ptrsize = d[7];
	le = (uint32_t)d[3] << 24 | (uint32_t)d[2] << 16 | (uint32_t)d[1] << 8 | d[0];
	be = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
	for (i = 0; i < sizeof(magics) / sizeof(magics[0]); i++) {
		if (le == magics[i].magic || be == magics[i].magic) {
			p->be = be == magics[i].magic;
			p->version = magics[i].version;
			return 0;
		}
	}
	return -EINVAL;
}

/* Where the function table and names are, and how many functions; all checked. */
static int pcln__header(struct pcln *p, uint64_t text_start)
{
	uint64_t room;

	if (pcln__magic(p))
		return -EINVAL;
	p->fsz = p->version >= 118 ? 4 : p->ptrsize;
	if (p->version == 12) {
		if (!pcln__uptr(p, 8, p->ptrsize, &p->nfunc))
			return -EINVAL;
		p->functab = 8 + p->ptrsize;
		p->funcdata = p->funcnametab = 0;
	} else if (p->version == 116) {
		if (!pcln__uptr(p, 8, p->ptrsize, &p->nfunc) || !pcln__offset(p, 2, &p->funcnametab) ||
		    !pcln__offset(p, 6, &p->functab))
			return -EINVAL;
		p->funcdata = p->functab;
	} else {
		if (!pcln__uptr(p, 8, p->ptrsize, &p->nfunc) ||
		    !pcln__uptr(p, 8 + 2 * p->ptrsize, p->ptrsize, &p->text_start) ||
		    !pcln__offset(p, 3, &p->funcnametab) || !pcln__offset(p, 7, &p->functab))
			return -EINVAL;
		p->funcdata = p->functab;
		if (text_start)
			p->text_start = text_start;
	}
	/* 2 * nfunc + 1 fields: (pc, funcoff) pairs and the end pc of the last function. */
	if (p->functab > p->len)
		return -EINVAL;
	room = (p->len - p->functab) / p->fsz;
	if (room < 1 || !p->nfunc || p->nfunc > (room - 1) / 2)
		return -EINVAL;
	return 0;
}

/* The pc in functab field @i (an even index): absolute for every layout. */
static bool pcln__pc(const struct pcln *p, uint64_t i, uint64_t *pc)
{
	if (!pcln__uptr(p, p->functab + i * p->fsz, p->fsz, pc))
		return false;
	if (p->version >= 118)
		*pc += p->text_start;
	return true;
}

/*
 * Function @i: its _func must exist, start at the pc functab gives, and name
 * a NUL-terminated string inside the table. Return: the name's offset, or 0.
 */
static size_t pcln__func(const struct pcln *p, uint64_t i, uint64_t pc)
{
	unsigned int sz0 = p->version >= 118 ? 4 : p->ptrsize;
	uint64_t funcoff, off, entry;
	uint32_t nameoff;
	size_t name, max;

	if (!pcln__uptr(p, p->functab + (2 * i + 1) * p->fsz, p->fsz, &funcoff) ||
	    funcoff > p->len - p->funcdata)
		return 0;
	off = p->funcdata + funcoff;
	if (!pcln__uptr(p, off, sz0, &entry) || !pcln__u32(p, off + sz0, &nameoff))
		return 0;
	if (p->version >= 118)
		entry = (uint32_t)entry + p->text_start;
	if (entry != pc || nameoff > p->len - p->funcnametab)
		return 0;
	name = p->funcnametab + nameoff;
	max = p->len - name < GOPCLNTAB_MAX_NAME + 1 ? p->len - name : GOPCLNTAB_MAX_NAME + 1;
	if (!max || !p->d[name] || strnlen((const char *)p->d + name, max) == max)
		return 0;
	return name;
}

/* Names copied out of the table, so it need not outlive us. */
static int gopclntab__copy_names(struct gopclntab *t, const struct pcln *p, const size_t *names)
{
	size_t i, total = 0, len;
	char *at;

	for (i = 0; i < t->n; i++)
		total += strlen((const char *)p->d + names[i]) + 1;
	t->names = malloc(total + 1);
	if (!t->names)
		return -ENOMEM;
	for (i = 0, at = t->names; i < t->n; i++) {
		len = strlen((const char *)p->d + names[i]) + 1;
		memcpy(at, p->d + names[i], len);
		t->funcs[i].name = at;
		at += len;
	}
	return 0;
}

static int gopclntab__funcs_of(struct gopclntab *t, const struct pcln *p)
{
	uint64_t i, pc, next;
	size_t *names, name;
	int err = -EINVAL;

	t->funcs = malloc(p->nfunc * sizeof(*t->funcs));
	names = malloc(p->nfunc * sizeof(*names));
	if (!t->funcs || !names) {
		err = -ENOMEM;
		goto out;
	}
	if (!pcln__pc(p, 0, &pc))
		goto out;
	for (i = 0; i < p->nfunc; i++, pc = next) {
		if (!pcln__pc(p, 2 * i + 2, &next) || next < pc)
			goto out; /* the runtime binary-searches it: unsorted is corrupt */
		name = next > pc ? pcln__func(p, i, pc) : 0;
		if (!name) {
			t->dropped++;
			continue;
		}
		t->funcs[t->n] = (struct go_func){ .entry = pc, .end = next };
		names[t->n++] = name;
	}
	err = gopclntab__copy_names(t, p, names);
out:
	free(names);
	return err;
}

struct gopclntab *gopclntab__parse(const void *data, size_t len, uint64_t text_start)
{
	struct pcln p = { .d = data, .len = len };
	struct gopclntab *t;
	int err;

	if (!data || pcln__header(&p, text_start)) {
		errno = EINVAL;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	t->version = p.version;
	err = gopclntab__funcs_of(t, &p);
	if (err) {
		gopclntab__free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

/* Whether [lo, hi) lies inside one executable PT_LOAD (true when there are no phdrs). */
static bool elf__in_exec_segment(Elf *elf, uint64_t lo, uint64_t hi)
{
	size_t i, n;
	GElf_Phdr ph;
	bool any = false;

	if (elf_getphdrnum(elf, &n))
		return true;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		any = true;
		if (lo >= ph.p_vaddr && hi <= ph.p_vaddr + ph.p_memsz && hi >= lo)
			return true;
	}
	return !any;
}

static bool gopclntab__fits(Elf *elf, const struct gopclntab *t)
{
	return t->n && elf__in_exec_segment(elf, t->funcs[0].entry, t->funcs[t->n - 1].end);
}

struct gopclntab *gopclntab__from_elf(Elf *elf)
{
	struct gopclntab *t;
	GElf_Shdr sh, text;
	Elf_Data *d;
	Elf_Scn *scn;

	scn = elf_section_by_name(elf, ".gopclntab", &sh);
	if (!scn)
		scn = elf_section_by_name(elf, ".data.rel.ro.gopclntab", &sh);
	if (!scn) {
		errno = ENOENT;
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf || d->d_size > sh.sh_size) {
		errno = EINVAL;
		return NULL;
	}
	t = gopclntab__parse(d->d_buf, d->d_size, 0);
	if (!t || gopclntab__fits(elf, t))
		return t;
	/* An unrelocated or odd header textStart: try .text, as Go's tools do. */
	if (t->version >= 118 && elf_section_by_name(elf, ".text", &text) && text.sh_addr) {
		gopclntab__free(t);
		t = gopclntab__parse(d->d_buf, d->d_size, text.sh_addr);
		if (!t || gopclntab__fits(elf, t))
			return t;
	}
	gopclntab__free(t);
	errno = EINVAL;
	return NULL;
}

const struct go_func *gopclntab__find(const struct gopclntab *t, uint64_t pc)
{
	size_t lo = 0, hi = t ? t->n : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->funcs[mid].end <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return t && lo < t->n && t->funcs[lo].entry <= pc ? &t->funcs[lo] : NULL;
}

const struct go_func *gopclntab__funcs(const struct gopclntab *t, size_t *n)
{
	*n = t->n;
	return t->funcs;
}

int gopclntab__version(const struct gopclntab *t)
{
	return t->version;
}

size_t gopclntab__dropped(const struct gopclntab *t)
{
	return t->dropped;
}

void gopclntab__free(struct gopclntab *t)
{
	if (!t)
		return;
	free(t->funcs);
	free(t->names);
	free(t);
}
