// SPDX-License-Identifier: GPL-2.0
/* .eh_frame / .debug_frame call-frame information → compact unwind rows, through libdw. */
#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/cfi.h"
#include "lib/unwind/cfi_check.h"
#include "lib/util/log.h"

/* DWARF register numbers of the x86-64 psABI. */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

/*
 * With a search table libdw reads only the FDEs asked for but still keeps
 * each until dwarf_cfi_end(): a new Dwarf_CFI every this many FDEs bounds
 * that to a few dozen KiB (1-2 MB for libLLVM's 95k FDEs otherwise).
 */
#define CFI_FDES_PER_HANDLE 2048

struct cfi_walk {
	const struct cfi_source *src;
	Elf *elf;      /* the checked copy the handle reads */
	Dwarf_CFI *cfi;
	struct unwind_rows *out;
	struct cfi_stats *st;
};

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
	if (unwind_row_set_cfa(row, reg == REG_RBP, off))
		return UNW_UNSUP_CFA_RANGE;
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

/* The next libdw handle of a searchable copy, its cache of read FDEs empty. */
static int cfi__renew(struct cfi_walk *w)
{
	dwarf_cfi_end(w->cfi);
	w->cfi = dwarf_getcfi_elf(w->elf);
	if (!w->cfi) {
		st_err("cfi: %s: libdw cannot read .eh_frame again: %s", w->src->name,
		       dwarf_errmsg(-1));
		return -EINVAL;
	}
	return 0;
}

/* Rows of every checked FDE, in section order, unless the caller's filter leaves it out. */
static int cfi__walk_fdes(struct cfi_walk *w, const struct cfi_checked *chk)
{
	size_t i;
	int err;

	for (i = 0; i < chk->nfdes; i++) {
		const struct cfi_fde_span *f = &chk->fdes[i];

		if (chk->searchable && i && i % CFI_FDES_PER_HANDLE == 0) {
			err = cfi__renew(w);
			if (err)
				return err;
		}

		if (w->src->skip && w->src->skip(f->lo, f->hi, w->src->skip_ctx)) {
			w->st->skipped_fdes++;
			continue;
		}
		err = cfi__walk_fde(w, f->lo, f->hi);
		if (err)
			return err;
	}
	return 0;
}

int cfi__read_eh_frame(Elf *elf, const struct cfi_source *src, struct unwind_rows *out,
		       struct cfi_stats *st)
{
	struct cfi_stats dummy = { 0 };
	struct cfi_walk w = { .src = src, .out = out, .st = st ? st : &dummy };
	struct cfi_checked chk;
	int err = cfi_check__section(elf, ".eh_frame", true, !src->linear, src->name, &chk, w.st);

	if (err)
		return err;
	w.elf = chk.elf;
	w.cfi = dwarf_getcfi_elf(chk.elf);
	if (!w.cfi) {
		st_err("cfi: %s: libdw cannot read .eh_frame: %s", src->name, dwarf_errmsg(-1));
		cfi_check__free(&chk);
		return -EINVAL;
	}
	err = cfi__walk_fdes(&w, &chk);
	if (w.cfi)
		dwarf_cfi_end(w.cfi);
	cfi_check__free(&chk);
	return err;
}

int cfi__read_debug_frame(Elf *elf, const struct cfi_source *src, struct unwind_rows *out,
			  struct cfi_stats *st)
{
	struct cfi_stats dummy = { 0 };
	struct cfi_walk w = { .src = src, .out = out, .st = st ? st : &dummy };
	struct cfi_checked chk;
	Dwarf *dw;
	int err = cfi_check__section(elf, ".debug_frame", false, false, src->name, &chk, w.st);

	if (err)
		return err;
	dw = dwarf_begin_elf(chk.elf, DWARF_C_READ, NULL);
	w.cfi = dw ? dwarf_getcfi(dw) : NULL;
	if (!w.cfi) {
		st_err("cfi: %s: libdw cannot read .debug_frame: %s", src->name, dwarf_errmsg(-1));
		if (dw)
			dwarf_end(dw);
		cfi_check__free(&chk);
		return -EINVAL;
	}
	err = cfi__walk_fdes(&w, &chk);
	dwarf_end(dw);
	cfi_check__free(&chk);
	return err;
}
