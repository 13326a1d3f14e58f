// SPDX-License-Identifier: GPL-2.0
/*
 * What libdw may be given. Each CIE and FDE of a CFI section is decoded here
 * without libdw (pointer encodings, augmentation, every CFA instruction and
 * its operands) and refused when anything is unknown, truncated or names a
 * register no x86-64 CFI names. libdw then works on a private copy of the
 * section in which each refused FDE is rewritten as a CIE: its linear search
 * for the FDE of an address meets only entries that passed here.
 */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/cfi_check.h"
#include "lib/unwind/cfi_search.h"
#include "lib/util/grow.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"

/* DW_EH_PE_* pointer encodings (LSB "Linux Standard Base Core", 10.5). */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APPL 0x70
#define PE_INDIRECT 0x80
#define PE_PCREL 0x10

struct cfi_scan {
	Elf_Data *data;
	const unsigned char *ident;
	bool eh;
	uint64_t sec_vaddr;
	int addr_size;
	/* One-entry CIE cache: FDEs mostly share one CIE. */
	Dwarf_Off cie_off;
	int cie_enc;        /* -1: not cached; -2: CIE unusable */
	bool cie_z;         /* FDEs carry a sized augmentation block */
	size_t cie_fde_aug; /* else: this many augmentation bytes */
	/*
	 * An entry libdw's own reading stumbles on, or an FDE of no length (its
	 * cache of read FDEs would answer for a range it does not cover): the
	 * section is then searched libdw's way only, never by a table.
	 */
	bool irregular;
};

/*
 * libdw sizes a frame state by the highest register number the CFI names, so
 * one DW_CFA_offset_extended naming register 10^8 makes it allocate gigabytes.
 * x86-64 DWARF numbers stop at 130 (k7 is 125); anything above is hostile.
 */
#define CFI_MAX_REG 255

static int chk__uleb(const uint8_t **p, const uint8_t *end, uint64_t *v, bool sign)
{
	unsigned int shift = 0;
	uint8_t b;

	*v = 0;
	do {
		if (*p >= end || shift >= 64)
			return -EINVAL;
		b = *(*p)++;
		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sign && shift < 64 && (b & 0x40))
		*v |= ~0ULL << shift;
	return 0;
}

static int chk__fixed(const uint8_t **p, const uint8_t *end, size_t n, bool sign, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if ((size_t)(end - *p) < n)
		return -EINVAL;
	for (i = 0; i < n; i++)
		x |= (uint64_t)(*p)[i] << (8 * i); /* little-endian: x86-64 only */
	if (sign && n < 8 && (x >> (8 * n - 1)) & 1)
		x |= ~0ULL << (8 * n);
	*p += n;
	*v = x;
	return 0;
}

/*
 * Read one DW_EH_PE-encoded pointer at *p (whose link-time address is
 * @field_vaddr). Only absolute and pc-relative applications occur in FDE
 * headers of x86-64 code; the others are refused, never guessed.
 */
static int chk__read_encoded(const uint8_t **p, const uint8_t *end, int enc, int addr_size,
			     uint64_t field_vaddr, bool apply, uint64_t *out)
{
	static const struct { uint8_t size; bool sign; } fmt[16] = {
		[0x02] = { 2, false }, [0x03] = { 4, false }, [0x04] = { 8, false },
		[0x0a] = { 2, true },  [0x0b] = { 4, true },  [0x0c] = { 8, true },
	};
	int f = enc & PE_FORMAT, err;

	if (enc == PE_OMIT || (enc & PE_INDIRECT))
		return -ENOTSUP;
	if (apply && (enc & PE_APPL) != 0 && (enc & PE_APPL) != PE_PCREL)
		return -ENOTSUP;
	if (f == 0x00)
		err = chk__fixed(p, end, addr_size, false, out);
	else if (f == 0x01 || f == 0x09)
		err = chk__uleb(p, end, out, f == 0x09);
	else if (fmt[f].size)
		err = chk__fixed(p, end, fmt[f].size, fmt[f].sign, out);
	else
		return -ENOTSUP;
	if (!err && apply && (enc & PE_APPL) == PE_PCREL)
		*out += field_vaddr;
	return err;
}

/* The FDE pointer encoding a CIE declares ('R' in a "z..." augmentation). */
static int chk__cie_encoding(const struct cfi_scan *w, const Dwarf_CIE *cie)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	const char *a = cie->augmentation;
	uint64_t skip;
	int enc = 0x00; /* absptr */

	if (!a || !*a)
		return enc;
	if (!w->eh || a[0] != 'z' || !p)
		return -ENOTSUP; /* libdw would read it; we could not check what it reads */
	for (a++; *a; a++) {
		if (*a == 'R' || *a == 'L') {
			if (p >= end)
				return -EINVAL;
			if (*a == 'R')
				enc = *p;
			p++;
		} else if (*a == 'P') {
			if (p >= end)
				return -EINVAL;
			int penc = *p++;

			if (chk__read_encoded(&p, end, penc & PE_FORMAT, w->addr_size, 0, false, &skip))
				return -EINVAL;
		} else if (*a != 'S') {
			return -ENOTSUP; /* libdw reads on past unknown letters: refuse, never guess */
		}
	}
	return enc;
}

static int chk__skip(const uint8_t **p, const uint8_t *end, size_t n)
{
	if ((size_t)(end - *p) < n)
		return -EINVAL;
	*p += n;
	return 0;
}

/* One operand: a register number (checked against CFI_MAX_REG) or any LEB128. */
static int chk__operand(const uint8_t **p, const uint8_t *end, bool reg)
{
	uint64_t v;

	if (chk__uleb(p, end, &v, false))
		return -EINVAL;
	return reg && v > CFI_MAX_REG ? -ERANGE : 0;
}

/*
 * Walk a CFA instruction stream without executing it, to refuse what libdw
 * should not be given: unknown opcodes, truncated operands, huge registers.
 */
static int chk__check_insns(const struct cfi_scan *w, const uint8_t *p, const uint8_t *end,
			    int enc)
{
	uint64_t v;
	int err = 0;

	while (p < end && !err) {
		uint8_t op = *p++;

		if ((op & 0xc0) == 0x40 || (op & 0xc0) == 0xc0)
			continue; /* advance_loc, restore: operand in the low 6 bits */
		if ((op & 0xc0) == 0x80) {
			err = chk__operand(&p, end, false);
			continue;
		}
		switch (op) {
		case 0x00: case 0x0a: case 0x0b: case 0x2d: /* nop, remember/restore, window */
			break;
		case 0x01: /* set_loc */
			err = chk__read_encoded(&p, end, enc & ~PE_APPL, w->addr_size, 0, false, &v);
			break;
		case 0x02: case 0x03: case 0x04: /* advance_loc1/2/4 */
			err = chk__skip(&p, end, (size_t)1 << (op - 0x02));
			break;
		case 0x06: case 0x07: case 0x08: case 0x0d: /* one register */
			err = chk__operand(&p, end, true);
			break;
		case 0x05: case 0x09: case 0x0c: case 0x11: case 0x12: case 0x14: case 0x15:
		case 0x2f: /* register, then offset (or a second register for 0x09) */
			err = chk__operand(&p, end, true) ?: chk__operand(&p, end, op == 0x09);
			break;
		case 0x0e: case 0x13: case 0x2e: /* def_cfa_offset(_sf), GNU_args_size */
			err = chk__operand(&p, end, false);
			break;
		case 0x10: case 0x16: /* (val_)expression: register, then a block */
			err = chk__operand(&p, end, true);
			/* fallthrough */
		case 0x0f: /* def_cfa_expression: a block */
			if (!err)
				err = chk__uleb(&p, end, &v, false) ?: chk__skip(&p, end, v);
			break;
		default:
			err = -EINVAL;
		}
	}
	return err;
}

static int chk__fde_encoding(struct cfi_scan *w, Dwarf_Off cie_off)
{
	Dwarf_CFI_Entry cie;
	Dwarf_Off next;

	if (w->cie_enc != -1 && w->cie_off == cie_off)
		return w->cie_enc;
	w->cie_off = cie_off;
	if (dwarf_next_cfi(w->ident, w->data, w->eh, cie_off, &next, &cie) != 0 ||
	    !dwarf_cfi_cie_p(&cie))
		w->cie_enc = -2;
	else
		w->cie_enc = chk__cie_encoding(w, &cie.cie);
	if (w->cie_enc >= 0) {
		w->cie_z = cie.cie.augmentation && cie.cie.augmentation[0] == 'z';
		w->cie_fde_aug = cie.cie.fde_augmentation_data_size;
		if (chk__check_insns(w, cie.cie.initial_instructions,
				     cie.cie.initial_instructions_end, w->cie_enc))
			w->cie_enc = -2;
	}
	if (w->cie_enc < 0)
		w->cie_enc = -2;
	return w->cie_enc;
}

/* Link-time [lo, hi) of one FDE, once its instructions passed chk__check_insns(). */
static int chk__fde_range(struct cfi_scan *w, const Dwarf_FDE *fde, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *buf = w->data->d_buf, *p = fde->start, *end = fde->end;
	uint64_t range, aug;
	int enc = chk__fde_encoding(w, fde->CIE_pointer);

	if (enc < 0 || p < buf || end > buf + w->data->d_size || p > end)
		return -EINVAL;
	if (chk__read_encoded(&p, end, enc, w->addr_size, w->sec_vaddr + (uint64_t)(p - buf), true,
			      lo) ||
	    chk__read_encoded(&p, end, enc & PE_FORMAT, w->addr_size, 0, false, &range))
		return -EINVAL;
	if (range > UINT64_MAX - *lo)
		return -EINVAL;
	*hi = *lo + range;
	aug = w->cie_fde_aug;
	if (w->cie_z && chk__uleb(&p, end, &aug, false))
		return -EINVAL;
	return chk__skip(&p, end, aug) ?: chk__check_insns(w, p, end, enc);
}

/* Make the entry at @off read as a CIE (id 0 in .eh_frame, all ones in .debug_frame). */
static void chk__hide(uint8_t *sec, size_t size, Dwarf_Off off, bool eh)
{
	uint32_t len32;
	size_t id_at = off + 4, id_len = 4;

	if (off > size || size - off < 8)
		return;
	memcpy(&len32, sec + off, 4);
	if (len32 == 0xffffffff) {
		id_at = off + 12;
		id_len = eh ? 4 : 8;
	}
	if (id_at > size || size - id_at < id_len)
		return;
	memset(sec + id_at, eh ? 0x00 : 0xff, id_len);
}

/*
 * Pass over every entry of the section (in @sec, the private copy, not yet
 * changed): record the FDEs that pass, then hide those that did not. Hiding
 * comes after the pass so each FDE's CIE is read as libdw will read it.
 */
static int chk__entries(struct cfi_scan *w, uint8_t *sec, struct cfi_checked *c,
			struct cfi_stats *st)
{
	Dwarf_Off off = 0, next, *bad = NULL;
	size_t nbad = 0, cap = 0, bad_cap = 0, i;
	Dwarf_CFI_Entry e;
	uint64_t lo, hi;
	int ret, err = 0;

	while (off < w->data->d_size && !err) {
		next = off; /* left alone when the entry's length is bad: no progress, stop */
		ret = dwarf_next_cfi(w->ident, w->data, w->eh, off, &next, &e);
		if (ret > 0)
			break;
		if (ret < 0) {
			st->bad_entries++;
			w->irregular = true;
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
		} else if (dwarf_cfi_cie_p(&e)) {
			st->cies++;
		} else if (chk__fde_range(w, &e.fde, &lo, &hi)) {
			st->bad_entries++;
			err = array_reserve((void **)&bad, &bad_cap, nbad + 1, sizeof(*bad));
			if (!err)
				bad[nbad++] = off;
		} else if (lo < hi) {
			st->fdes++;
			err = array_reserve((void **)&c->fdes, &cap, c->nfdes + 1, sizeof(*c->fdes));
			if (!err)
				c->fdes[c->nfdes++] = (struct cfi_fde_span){ lo, hi, off };
		} else {
			w->irregular = true;
		}
		if (next <= off)
			break;
		off = next;
	}
	for (i = 0; i < nbad && !err; i++)
		chk__hide(sec, w->data->d_size, bad[i], w->eh);
	free(bad);
	return err;
}

/* Section names of the image: "\0" @secname "\0.eh_frame_hdr\0.shstrtab\0". */
struct chk_names {
	char buf[64];
	size_t size, sec, hdr, strtab;
};

static int chk__names(const char *secname, struct chk_names *n)
{
	int len = snprintf(n->buf, sizeof(n->buf), "%c%s%c.eh_frame_hdr%c.shstrtab", 0, secname, 0,
			   0);

	if (len < 0 || (size_t)len >= sizeof(n->buf))
		return -EINVAL;
	n->sec = 1;
	n->hdr = n->sec + strlen(secname) + 1;
	n->strtab = n->hdr + sizeof(".eh_frame_hdr");
	n->size = (size_t)len + 1;
	return 0;
}

/*
 * An ELF image with the null section, @hdr as .eh_frame_hdr when given (before
 * the CFI section: libdw takes the header it met before .eh_frame), @sec (its
 * bytes at @data) and .shstrtab.
 */
static void *chk__image(const GElf_Ehdr *orig, const GElf_Shdr *sh, const char *secname,
			const void *data, size_t size, const void *hdr, size_t hdr_size,
			size_t *img_size)
{
	size_t nsec = hdr ? 4 : 3, data_off = sizeof(Elf64_Ehdr), hdr_off = data_off + size;
	size_t str_off = hdr_off + hdr_size, sh_off;
	Elf64_Shdr *shdr;
	struct chk_names names;
	Elf64_Ehdr *eh;
	uint8_t *img;

	if (chk__names(secname, &names))
		return NULL;
	sh_off = (str_off + names.size + 7) & ~(size_t)7;
	img = calloc(1, sh_off + nsec * sizeof(Elf64_Shdr));
	if (!img)
		return NULL;
	eh = (Elf64_Ehdr *)img;
	*eh = (Elf64_Ehdr){ .e_type = ET_DYN, .e_machine = orig->e_machine,
			    .e_version = EV_CURRENT, .e_shoff = sh_off, .e_ehsize = sizeof(*eh),
			    .e_shentsize = sizeof(Elf64_Shdr), .e_shnum = (Elf64_Half)nsec,
			    .e_shstrndx = (Elf64_Half)(nsec - 1) };
	memcpy(eh->e_ident, orig->e_ident, EI_NIDENT);
	memcpy(img + data_off, data, size);
	if (hdr)
		memcpy(img + hdr_off, hdr, hdr_size);
	memcpy(img + str_off, names.buf, names.size);
	shdr = (Elf64_Shdr *)(img + sh_off);
	if (hdr)
		*++shdr = (Elf64_Shdr){ .sh_name = names.hdr, .sh_type = SHT_PROGBITS,
					.sh_addr = sh->sh_addr, .sh_offset = hdr_off,
					.sh_size = hdr_size, .sh_addralign = 1 };
	*++shdr = (Elf64_Shdr){ .sh_name = names.sec, .sh_type = SHT_PROGBITS,
				.sh_flags = sh->sh_flags & ~(uint64_t)SHF_COMPRESSED,
				.sh_addr = sh->sh_addr, .sh_offset = data_off, .sh_size = size,
				.sh_addralign = 1 };
	*++shdr = (Elf64_Shdr){ .sh_name = names.strtab, .sh_type = SHT_STRTAB,
				.sh_offset = str_off, .sh_size = names.size, .sh_addralign = 1 };
	*img_size = sh_off + nsec * sizeof(Elf64_Shdr);
	return img;
}

/* The section's bytes as libdw would read them (decompressed first when needed). */
static Elf_Data *chk__section_data(Elf *elf, const char *secname, const char *name,
				   GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_section_by_name(elf, secname, sh);
	Elf_Data *d;

	if (!scn)
		return NULL;
	if ((sh->sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		st_err("cfi: %s: cannot decompress %s: %s", name, secname, elf_errmsg(-1));
		return NULL;
	}
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf) {
		st_err("cfi: %s: cannot read %s", name, secname);
		return NULL;
	}
	return d;
}

/*
 * The image again, with a search table before the section (cfi_search.h),
 * where one gives the same lookups. Return: 0 (also when none is added), -ENOMEM.
 */
static int chk__add_search(const struct cfi_scan *w, const GElf_Ehdr *ehdr, const GElf_Shdr *sh,
			   const char *secname, struct cfi_checked *c, size_t *img_size)
{
	uint8_t *hdr;
	size_t hdr_size;
	void *img;
	int err;

	if (!w->eh || w->irregular)
		return 0;
	err = cfi_search__build(c->fdes, c->nfdes, w->sec_vaddr, &hdr, &hdr_size);
	if (err)
		return err == -ENOTSUP ? 0 : err;
	img = chk__image(ehdr, sh, secname, w->data->d_buf, w->data->d_size, hdr, hdr_size,
			 img_size);
	free(hdr);
	if (!img)
		return -ENOMEM;
	free(c->image);
	c->image = img;
	c->searchable = true;
	return 0;
}

int cfi_check__section(Elf *elf, const char *secname, bool eh, bool search, const char *name,
		       struct cfi_checked *out, struct cfi_stats *st)
{
	struct cfi_scan w = { .eh = eh, .cie_enc = -1, .addr_size = 8 };
	struct cfi_stats dummy = { 0 };
	Elf_Data copy = { .d_type = ELF_T_BYTE, .d_version = EV_CURRENT };
	GElf_Ehdr ehdr;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t img_size;
	int err;

	memset(out, 0, sizeof(*out));
	if (!elf_section_by_name(elf, secname, &sh))
		return -ENOENT;
	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_ident[EI_CLASS] != ELFCLASS64) {
		st_err("cfi: %s: not a 64-bit ELF file: %s not read", name, secname);
		return -EINVAL;
	}
	d = chk__section_data(elf, secname, name, &sh);
	if (!d)
		return -EINVAL;
	out->image = chk__image(&ehdr, &sh, secname, d->d_buf, d->d_size, NULL, 0, &img_size);
	if (!out->image)
		return -ENOMEM;
	copy.d_buf = (uint8_t *)out->image + sizeof(Elf64_Ehdr);
	copy.d_size = d->d_size;
	w.data = &copy;
	w.ident = ehdr.e_ident;
	w.sec_vaddr = sh.sh_addr;
	err = chk__entries(&w, copy.d_buf, out, st ? st : &dummy);
	if (!err && search)
		err = chk__add_search(&w, &ehdr, &sh, secname, out, &img_size);
	if (!err) {
		out->elf = elf_memory(out->image, img_size);
		if (!out->elf) {
			st_err("cfi: %s: cannot open the checked copy of %s: %s", name, secname,
			       elf_errmsg(-1));
			err = -EINVAL;
		}
	}
	if (err)
		cfi_check__free(out);
	return err;
}

void cfi_check__free(struct cfi_checked *c)
{
	if (c->elf)
		elf_end(c->elf);
	free(c->image);
	free(c->fdes);
	memset(c, 0, sizeof(*c));
}
