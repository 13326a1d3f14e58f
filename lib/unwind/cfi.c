// SPDX-License-Identifier: GPL-2.0
/* .eh_frame / .debug_frame call-frame information → compact unwind rows, through libdw. */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/cfi.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"

/* DWARF register numbers of the x86-64 psABI. */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/* DW_EH_PE_* pointer encodings (LSB "Linux Standard Base Core", 10.5). */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APPL 0x70
#define PE_INDIRECT 0x80
#define PE_PCREL 0x10

struct cfi_walk {
	const struct cfi_source *src;
	Dwarf_CFI *cfi;
	Elf_Data *data;
	const unsigned char *ident;
	bool eh;
	uint64_t sec_vaddr;
	int addr_size;
	struct unwind_rows *out;
	struct cfi_stats *st;
	/* One-entry CIE cache: FDEs mostly share one CIE. */
	Dwarf_Off cie_off;
	int cie_enc;      /* -1: not cached; -2: CIE unusable */
	bool cie_z;       /* FDEs carry a sized augmentation block */
	size_t cie_fde_aug; /* else: this many augmentation bytes */
};

/*
 * libdw sizes a frame state by the highest register number the CFI names, so
 * one DW_CFA_offset_extended naming register 10^8 makes it allocate gigabytes.
 * x86-64 DWARF numbers stop at 130 (k7 is 125); anything above is hostile.
 */
#define CFI_MAX_REG 255

static int cfi__uleb(const uint8_t **p, const uint8_t *end, uint64_t *v, bool sign)
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

static int cfi__fixed(const uint8_t **p, const uint8_t *end, size_t n, bool sign, uint64_t *v)
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
static int cfi__read_encoded(const uint8_t **p, const uint8_t *end, int enc, int addr_size,
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
		err = cfi__fixed(p, end, addr_size, false, out);
	else if (f == 0x01 || f == 0x09)
		err = cfi__uleb(p, end, out, f == 0x09);
	else if (fmt[f].size)
		err = cfi__fixed(p, end, fmt[f].size, fmt[f].sign, out);
	else
		return -ENOTSUP;
	if (!err && apply && (enc & PE_APPL) == PE_PCREL)
		*out += field_vaddr;
	return err;
}

/* The FDE pointer encoding a CIE declares ('R' in a "z..." augmentation). */
static int cfi__cie_encoding(const struct cfi_walk *w, const Dwarf_CIE *cie)
{
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	const char *a = cie->augmentation;
	uint64_t skip;
	int enc = 0x00; /* absptr */

	if (!w->eh || !a || !*a)
		return enc;
	if (a[0] != 'z' || !p)
		return -ENOTSUP;
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

			if (cfi__read_encoded(&p, end, penc & PE_FORMAT, w->addr_size, 0, false, &skip))
				return -EINVAL;
		} else if (*a != 'S' && *a != 'B') {
			break; /* unknown letter: the 'z' length covers the rest */
		}
	}
	return enc;
}

static int cfi__skip(const uint8_t **p, const uint8_t *end, size_t n)
{
	if ((size_t)(end - *p) < n)
		return -EINVAL;
	*p += n;
	return 0;
}

/* One operand: a register number (checked against CFI_MAX_REG) or any LEB128. */
static int cfi__operand(const uint8_t **p, const uint8_t *end, bool reg)
{
	uint64_t v;

	if (cfi__uleb(p, end, &v, false))
		return -EINVAL;
	return reg && v > CFI_MAX_REG ? -ERANGE : 0;
}

/*
 * Walk a CFA instruction stream without executing it, to refuse what libdw
 * should not be given: unknown opcodes, truncated operands, huge registers.
 */
static int cfi__check_insns(const struct cfi_walk *w, const uint8_t *p, const uint8_t *end,
			    int enc)
{
	uint64_t v;
	int err = 0;

	while (p < end && !err) {
		uint8_t op = *p++;

		if ((op & 0xc0) == 0x40 || (op & 0xc0) == 0xc0)
			continue; /* advance_loc, restore: operand in the low 6 bits */
		if ((op & 0xc0) == 0x80) {
			err = cfi__operand(&p, end, false);
			continue;
		}
		switch (op) {
		case 0x00: case 0x0a: case 0x0b: case 0x2d: /* nop, remember/restore, window */
			break;
		case 0x01: /* set_loc */
			err = cfi__read_encoded(&p, end, enc & ~PE_APPL, w->addr_size, 0, false, &v);
			break;
		case 0x02: case 0x03: case 0x04: /* advance_loc1/2/4 */
			err = cfi__skip(&p, end, (size_t)1 << (op - 0x02));
			break;
		case 0x06: case 0x07: case 0x08: case 0x0d: /* one register */
			err = cfi__operand(&p, end, true);
			break;
		case 0x05: case 0x09: case 0x0c: case 0x11: case 0x12: case 0x14: case 0x15:
		case 0x2f: /* register, then offset (or a second register for 0x09) */
			err = cfi__operand(&p, end, true) ?: cfi__operand(&p, end, op == 0x09);
			break;
		case 0x0e: case 0x13: case 0x2e: /* def_cfa_offset(_sf), GNU_args_size */
			err = cfi__operand(&p, end, false);
			break;
		case 0x10: case 0x16: /* (val_)expression: register, then a block */
			err = cfi__operand(&p, end, true);
			/* fallthrough */
		case 0x0f: /* def_cfa_expression: a block */
			if (!err)
				err = cfi__uleb(&p, end, &v, false) ?: cfi__skip(&p, end, v);
			break;
		default:
			err = -EINVAL;
		}
	}
	return err;
}

static int cfi__fde_encoding(struct cfi_walk *w, Dwarf_Off cie_off)
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
		w->cie_enc = cfi__cie_encoding(w, &cie.cie);
	if (w->cie_enc >= 0) {
		w->cie_z = cie.cie.augmentation && cie.cie.augmentation[0] == 'z';
		w->cie_fde_aug = cie.cie.fde_augmentation_data_size;
		if (cfi__check_insns(w, cie.cie.initial_instructions,
				     cie.cie.initial_instructions_end, w->cie_enc))
			w->cie_enc = -2;
	}
	if (w->cie_enc < 0)
		w->cie_enc = -2;
	return w->cie_enc;
}

/* Link-time [lo, hi) of one FDE, once its instructions passed cfi__check_insns(). */
static int cfi__fde_range(struct cfi_walk *w, const Dwarf_FDE *fde, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *buf = w->data->d_buf, *p = fde->start, *end = fde->end;
	uint64_t range, aug;
	int enc = cfi__fde_encoding(w, fde->CIE_pointer);

	if (enc < 0 || p < buf || end > buf + w->data->d_size || p > end)
		return -EINVAL;
	if (cfi__read_encoded(&p, end, enc, w->addr_size, w->sec_vaddr + (uint64_t)(p - buf), true,
			      lo) ||
	    cfi__read_encoded(&p, end, enc & PE_FORMAT, w->addr_size, 0, false, &range))
		return -EINVAL;
	if (range > UINT64_MAX - *lo)
		return -EINVAL;
	*hi = *lo + range;
	aug = w->cie_fde_aug;
	if (w->cie_z && cfi__uleb(&p, end, &aug, false))
		return -EINVAL;
	return cfi__skip(&p, end, aug) ?: cfi__check_insns(w, p, end, enc);
}

/* ops == CFA + off (libdw's form for "offset(N)" rules)? */
static bool cfi__cfa_plus(const Dwarf_Op *ops, size_t nops, int64_t *off)
{
	if (nops < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (nops == 1) {
		*off = 0;
		return true;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return true;
	}
	return false;
}

/* The expression binutils emits for lazy-binding PLT entries: rsp + 8 + ((rip & 15) >= 11) * 8. */
static bool cfi__is_plt_expr(const Dwarf_Op *ops, size_t nops)
{
	static const uint8_t want[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and,
					DW_OP_lit11, DW_OP_ge, DW_OP_lit3, DW_OP_shl, DW_OP_plus };
	size_t i;

	if (nops != sizeof(want))
		return false;
	for (i = 0; i < nops; i++)
		if (ops[i].atom != want[i])
			return false;
	return ops[0].number == 8 && ops[1].number == 0;
}

static enum unwind_unsupported cfi__cfa_rule(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op *ops;
	size_t nops;
	uint64_t reg;
	int64_t off;

	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0)
		return UNW_UNSUP_CFA_EXPR;
	if (cfi__is_plt_expr(ops, nops)) {
		row->cfa = UNWIND_CFA_PLT;
		return UNW_UNSUP_MAX;
	}
	if (nops != 1)
		return UNW_UNSUP_CFA_EXPR;
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (int64_t)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (int64_t)ops[0].number;
	} else {
		return UNW_UNSUP_CFA_EXPR;
	}
	if (reg != REG_RSP && reg != REG_RBP)
		return UNW_UNSUP_CFA_REG;
	if (off < INT16_MIN || off > INT16_MAX)
		return UNW_UNSUP_CFA_RANGE;
	row->cfa = reg == REG_RSP ? UNWIND_CFA_RSP : UNWIND_CFA_RBP;
	row->cfa_off = (int16_t)off;
	return UNW_UNSUP_MAX;
}

static enum unwind_unsupported cfi__rbp_rule(Dwarf_Frame *frame, struct unwind_row *row)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;

	row->rbp = UNWIND_RBP_UNDEFINED;
	if (dwarf_frame_register(frame, REG_RBP, mem, &ops, &nops) != 0)
		return UNW_UNSUP_RBP_RULE;
	if (nops == 0) {
		row->rbp = ops ? UNWIND_RBP_UNDEFINED : UNWIND_RBP_SAME;
		return UNW_UNSUP_MAX;
	}
	if (!cfi__cfa_plus(ops, nops, &off))
		return UNW_UNSUP_RBP_RULE;
	if (off % 8 || off / 8 < INT8_MIN || off / 8 > INT8_MAX)
		return UNW_UNSUP_RBP_RANGE;
	row->rbp = UNWIND_RBP_SAVED;
	row->rbp_off = (int8_t)(off / 8);
	return UNW_UNSUP_MAX;
}

/*
 * Register @reg is saved at rsp + @off: a DW_CFA_expression rule "breg7
 * @off", which libdw hands back behind the CFA it pushes first.
 */
static bool cfi__saved_at_rsp(Dwarf_Frame *frame, int reg, int64_t off)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;

	if (dwarf_frame_register(frame, reg, mem, &ops, &nops) != 0 || !nops)
		return false;
	if (nops == 2 && ops[0].atom == DW_OP_call_frame_cfa) {
		ops++;
		nops--;
	}
	return nops == 1 && ops[0].atom == DW_OP_breg7 && (int64_t)ops[0].number == off;
}

/*
 * A signal frame ('S' in the CIE) laid out as the kernel's x86-64
 * rt_sigframe, as glibc's __restore_rt describes it: CFA = [rsp + 160] and
 * rip, rsp, rbp saved in the ucontext at rsp. Only then is it the row's
 * fixed-offset SIGNAL rule (bpf/unwind_row.h).
 */
static bool cfi__is_sigframe(Dwarf_Frame *frame)
{
	bool signal = false;
	Dwarf_Op *ops;
	size_t nops;

	if (dwarf_frame_info(frame, NULL, NULL, &signal) < 0 || !signal ||
	    dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops != 2 || ops[0].atom != DW_OP_breg7 ||
	    ops[0].number != UNWIND_SIG_RSP || ops[1].atom != DW_OP_deref)
		return false;
	return cfi__saved_at_rsp(frame, REG_RA, UNWIND_SIG_RIP) &&
	       cfi__saved_at_rsp(frame, REG_RSP, UNWIND_SIG_RSP) &&
	       cfi__saved_at_rsp(frame, REG_RBP, UNWIND_SIG_RBP);
}

int cfi__frame_to_row(Dwarf_Frame *frame, struct unwind_row *row, enum unwind_unsupported *why)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	int64_t off;
	int ra;

	*why = UNW_UNSUP_MAX;
	row->cfa_off = 0;
	row->rbp = UNWIND_RBP_SAME;
	row->rbp_off = 0;
	ra = dwarf_frame_info(frame, NULL, NULL, NULL);
	if (ra < 0 || dwarf_frame_register(frame, ra, mem, &ops, &nops) != 0)
		return -EINVAL;
	if (cfi__is_sigframe(frame)) {
		row->cfa = UNWIND_CFA_SIGNAL;
		return 0;
	}
	if (nops == 0 && ops == mem) {
		row->cfa = UNWIND_CFA_OUTERMOST; /* RA undefined: e.g. _start, clone's child */
		return 0;
	}
	row->cfa = UNWIND_CFA_UNSUPPORTED;
	if (ra != REG_RA || !cfi__cfa_plus(ops, nops, &off) || off != -8) {
		*why = UNW_UNSUP_RA_RULE;
		return 0;
	}
	*why = cfi__cfa_rule(frame, row);
	if (*why != UNW_UNSUP_MAX) {
		row->cfa = UNWIND_CFA_UNSUPPORTED;
		row->cfa_off = 0;
		return 0;
	}
	*why = cfi__rbp_rule(frame, row);
	return 0;
}

static int cfi__push(struct cfi_walk *w, uint64_t vaddr, struct unwind_row *row)
{
	if (vaddr < w->src->base || vaddr - w->src->base > UINT32_MAX) {
		w->out->unsupported[UNW_UNSUP_PC_RANGE]++;
		return 0;
	}
	row->pc = (uint32_t)(vaddr - w->src->base);
	return unwind_rows__push(w->out, row);
}

/* Walk the rows of one FDE: each dwarf_frame_info() range is one row. */
static int cfi__walk_fde(struct cfi_walk *w, uint64_t lo, uint64_t hi)
{
	struct unwind_row row = { .cfa = UNWIND_CFA_NONE };
	enum unwind_unsupported why = UNW_UNSUP_MAX;
	uint64_t addr = lo;
	int err;

	while (addr < hi) {
		Dwarf_Frame *frame;
		Dwarf_Addr start, end;
		bool signal = false;

		if (dwarf_cfi_addrframe(w->cfi, addr, &frame) != 0) {
			w->st->bad_rows++;
			break;
		}
		err = dwarf_frame_info(frame, &start, &end, &signal) < 0 ? -EINVAL :
		      cfi__frame_to_row(frame, &row, &why);
		free(frame);
		if (err || end <= addr) {
			w->st->bad_rows++;
			break;
		}
		if (signal && addr == lo)
			w->st->signal_fdes++;
		if (why != UNW_UNSUP_MAX)
			w->out->unsupported[why]++;
		err = cfi__push(w, addr, &row);
		if (err)
			return err;
		addr = end;
	}
	row = (struct unwind_row){ .cfa = UNWIND_CFA_NONE, .rbp = UNWIND_RBP_UNDEFINED };
	return cfi__push(w, hi, &row);
}

static int cfi__walk_entries(struct cfi_walk *w)
{
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	uint64_t lo, hi;
	int ret, err;

	while (off < w->data->d_size) {
		ret = dwarf_next_cfi(w->ident, w->data, w->eh, off, &next, &e);
		if (ret > 0)
			break;
		if (ret < 0) {
			w->st->bad_entries++;
			if (next == (Dwarf_Off)-1 || next <= off)
				break;
		} else if (dwarf_cfi_cie_p(&e)) {
			w->st->cies++;
		} else if (cfi__fde_range(w, &e.fde, &lo, &hi)) {
			w->st->bad_entries++;
		} else if (lo < hi) {
			w->st->fdes++;
			if (w->src->skip && w->src->skip(lo, hi, w->src->skip_ctx)) {
				w->st->skipped_fdes++;
			} else {
				err = cfi__walk_fde(w, lo, hi);
				if (err)
					return err;
			}
		}
		if (next <= off)
			break;
		off = next;
	}
	return 0;
}

static int cfi__run(struct cfi_walk *w, Elf *elf, const char *secname)
{
	struct cfi_stats dummy = { 0 };
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_section_by_name(elf, secname, &shdr);
	size_t n;

	if (!scn)
		return -ENOENT;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0) {
		st_err("cfi: %s: cannot decompress %s: %s", w->src->name, secname, elf_errmsg(-1));
		return -EINVAL;
	}
	w->data = elf_getdata(scn, NULL);
	w->ident = (const unsigned char *)elf_getident(elf, &n);
	if (!w->data || !w->data->d_buf || !w->ident || n < EI_NIDENT) {
		st_err("cfi: %s: cannot read %s", w->src->name, secname);
		return -EINVAL;
	}
	w->addr_size = w->ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	w->sec_vaddr = shdr.sh_addr;
	w->cie_enc = -1;
	if (!w->st)
		w->st = &dummy;
	return cfi__walk_entries(w);
}

int cfi__read_eh_frame(Elf *elf, const struct cfi_source *src, struct unwind_rows *out,
		       struct cfi_stats *st)
{
	struct cfi_walk w = { .src = src, .eh = true, .out = out, .st = st };
	GElf_Shdr shdr;
	int err;

	if (!elf_section_by_name(elf, ".eh_frame", &shdr))
		return -ENOENT;
	w.cfi = dwarf_getcfi_elf(elf);
	if (!w.cfi) {
		st_err("cfi: %s: libdw cannot read .eh_frame: %s", src->name, dwarf_errmsg(-1));
		return -EINVAL;
	}
	err = cfi__run(&w, elf, ".eh_frame");
	dwarf_cfi_end(w.cfi);
	return err;
}

int cfi__read_debug_frame(Elf *elf, const struct cfi_source *src, struct unwind_rows *out,
			  struct cfi_stats *st)
{
	struct cfi_walk w = { .src = src, .eh = false, .out = out, .st = st };
	GElf_Shdr shdr;
	Dwarf *dw;
	int err;

	if (!elf_section_by_name(elf, ".debug_frame", &shdr))
		return -ENOENT;
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	w.cfi = dw ? dwarf_getcfi(dw) : NULL;
	if (!w.cfi) {
		st_err("cfi: %s: libdw cannot read .debug_frame: %s", src->name, dwarf_errmsg(-1));
		if (dw)
			dwarf_end(dw);
		return -EINVAL;
	}
	err = cfi__run(&w, elf, ".debug_frame");
	dwarf_end(dw);
	return err;
}
