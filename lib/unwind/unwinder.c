// SPDX-License-Identifier: GPL-2.0
/* User-space unwinder over a copy of a thread's stack, driven by compact unwind tables. */
/*
 * How a walk works, and why it is shaped like the BPF walker it is the oracle for.
 *
 * Input is what a sampler can capture cheaply at an event: three registers
 * (ip, sp, bp), a copy of the stack from sp upward, and the process mappings.
 * Each mapping that belongs to an ELF file points at that file's compact
 * unwind table (lib/unwind/table.c); the table is keyed by build ID and
 * shared by every process that maps the file.
 *
 * One step: find the mapping of the pc, turn the pc into a link-time vaddr
 * (pc - map.start + map.vaddr, where map.vaddr is the vaddr of the mapping's
 * file offset), look the row up, compute the CFA from the row (rsp+off,
 * rbp+off, or the PLT formula from the pc), read the return address at CFA-8
 * and, when the row says so, the caller's rbp at CFA+off. The caller's sp is
 * the CFA. That is all the 8-byte row can say, on purpose: the BPF walker
 * does exactly the same arithmetic with bounded loops.
 *
 * Every step is validated the way the kernel's user unwinder does it, and a
 * failed check ends the walk with a reason rather than a guess: the CFA must
 * be 8-byte aligned and strictly above sp (so the walk always terminates and
 * the stack only moves up), every read must fall inside the snapshot, an
 * rbp-based CFA needs a known rbp. A frame whose row is UNSUPPORTED (DWARF
 * expressions the row cannot hold) stops the walk too: a wrong caller is
 * worse than a short stack.
 *
 * Two more rules, as in the BPF walker (bpf/ustack.bpf.h): a SIGNAL row (the
 * sigreturn trampoline __restore_rt) reads the interrupted rip, rsp and rbp
 * from the ucontext at sp, and with unwind_opts.fp_fallback (auto mode) a pc
 * without a row is unwound by its frame pointer (CFA = rbp + 16, RA at
 * CFA - 8, the caller's rbp at CFA - 16; rbp 0 ends the stack). A copy
 * holds one stack: a walk that would move to another one stops.
 *
 * Return addresses point after the call instruction, which may be the first
 * byte of the next function (calls to noreturn functions) or past the end of
 * an FDE; they are looked up at pc - 1 (see unw__lookup_pc). The innermost
 * frame's ip is exact and is looked up as is, and so are the trampoline a
 * handler returns into and the pc a signal interrupted.
 */
#include <errno.h>
#include <string.h>

#include "lib/unwind/unwinder.h"

struct unw_state {
	uint64_t ip, sp, bp;
	bool bp_known;
	bool exact; /* ip is an exact pc (frame 0, a signal's), not a return address */
	bool by_fp; /* ip was found by frame pointer */
};

int unwind_map__set_table(struct unwind_map *m, const struct unwind_table *t)
{
	uint64_t vaddr;

	m->table = NULL;
	if (!t || unwind_table__map_vaddr(t, m->pgoff, &vaddr))
		return -ENOENT;
	m->vaddr = vaddr;
	m->table = t;
	return 0;
}

const char *unwind_stop_name(enum unwind_stop why)
{
	static const char *const names[UNWIND_STOP_MAX] = {
		[UNWIND_STOP_OUTERMOST] = "outermost",     [UNWIND_STOP_NO_MAPPING] = "no-mapping",
		[UNWIND_STOP_NO_TABLE] = "no-table",       [UNWIND_STOP_BAD_CFA] = "bad-cfa",
		[UNWIND_STOP_STACK_DOWN] = "stack-down",   [UNWIND_STOP_OUTSIDE] = "outside-stack",
		[UNWIND_STOP_DEPTH] = "depth",             [UNWIND_STOP_UNSUPPORTED] = "unsupported",
	};

	return (unsigned)why < UNWIND_STOP_MAX ? names[why] : "unknown";
}

static const struct unwind_map *unw__find_map(const struct unwind_map *maps, size_t n,
					      uint64_t pc)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (maps[mid].start <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= maps[lo - 1].end)
		return NULL;
	return &maps[lo - 1];
}

static bool unw__read(const struct unwind_stack *s, uint64_t addr, uint64_t *v)
{
	if (addr < s->base || addr - s->base > s->len || s->len - (addr - s->base) < 8)
		return false;
	memcpy(v, s->data + (addr - s->base), sizeof(*v));
	return true;
}

/*
 * The one place the "return address - 1" rule lives: a return address is the
 * instruction after a call, so the call itself (and its unwind row) is at
 * ra - 1. Frame 0 was interrupted at ip exactly and uses ip.
 */
static uint64_t unw__lookup_pc(const struct unw_state *st)
{
	return st->exact ? st->ip : st->ip - 1;
}

static enum unwind_stop unw__row(const struct unwind_map *maps, size_t nmaps, uint64_t pc,
				 const struct unwind_row **row)
{
	const struct unwind_map *m = unw__find_map(maps, nmaps, pc);
	uint64_t vaddr;

	if (!m)
		return UNWIND_STOP_NO_MAPPING;
	if (!m->table)
		return UNWIND_STOP_NO_TABLE;
	vaddr = pc - m->start + m->vaddr;
	*row = unwind_table__find(m->table, vaddr);
	if (!*row || (*row)->cfa == UNWIND_CFA_NONE)
		return UNWIND_STOP_NO_TABLE;
	return UNWIND_STOP_MAX;
}

static enum unwind_stop unw__cfa(const struct unwind_row *r, const struct unw_state *st,
				 uint64_t *cfa)
{
	uint64_t from;
	int64_t off = r->cfa_off;

	switch (r->cfa) {
	case UNWIND_CFA_OUTERMOST:
		return UNWIND_STOP_OUTERMOST;
	case UNWIND_CFA_RSP:
		from = st->sp;
		break;
	case UNWIND_CFA_RBP:
		if (!st->bp_known)
			return UNWIND_STOP_BAD_CFA;
		from = st->bp;
		break;
	case UNWIND_CFA_RSP8:
		from = st->sp;
		off *= 8;
		break;
	case UNWIND_CFA_RBP8:
		if (!st->bp_known)
			return UNWIND_STOP_BAD_CFA;
		from = st->bp;
		off *= 8;
		break;
	case UNWIND_CFA_PLT:
		/* The PLT rule reads rip itself (DW_OP_breg16), the exact pc. */
		from = st->sp;
		off = 8 + ((st->ip & 15) >= 11 ? 8 : 0);
		break;
	default:
		return UNWIND_STOP_UNSUPPORTED;
	}
	if ((off < 0 && from < (uint64_t)-off) || (off > 0 && from > UINT64_MAX - (uint64_t)off))
		return UNWIND_STOP_BAD_CFA;
	*cfa = from + (uint64_t)off;
	if (*cfa & 7)
		return UNWIND_STOP_BAD_CFA;
	if (*cfa <= st->sp)
		return UNWIND_STOP_STACK_DOWN;
	return UNWIND_STOP_MAX;
}

/* The caller of a SIGNAL row's frame: the interrupted registers in the ucontext at sp. */
static enum unwind_stop unw__signal(const struct unwind_stack *stack, struct unw_state *st)
{
	uint64_t ip, sp, bp;

	if (!unw__read(stack, st->sp + UNWIND_SIG_RIP, &ip) ||
	    !unw__read(stack, st->sp + UNWIND_SIG_RSP, &sp) ||
	    !unw__read(stack, st->sp + UNWIND_SIG_RBP, &bp))
		return UNWIND_STOP_OUTSIDE;
	if (sp & 7)
		return UNWIND_STOP_BAD_CFA;
	if (sp <= st->sp)
		return UNWIND_STOP_STACK_DOWN;
	*st = (struct unw_state){ .ip = ip, .sp = sp, .bp = bp, .bp_known = true, .exact = true };
	return UNWIND_STOP_MAX;
}

/* The frame-pointer rule, for a pc without a row in auto mode. */
static enum unwind_stop unw__fp(const struct unwind_stack *stack, struct unw_state *st)
{
	uint64_t ra, bp;

	if (!st->bp_known)
		return UNWIND_STOP_NO_TABLE;
	if (!st->bp)
		return UNWIND_STOP_OUTERMOST;
	if ((st->bp & 7) || st->bp > UINT64_MAX - 16)
		return UNWIND_STOP_BAD_CFA;
	if (st->bp + 16 <= st->sp)
		return UNWIND_STOP_STACK_DOWN;
	if (!unw__read(stack, st->bp, &bp) || !unw__read(stack, st->bp + 8, &ra))
		return UNWIND_STOP_OUTSIDE;
	*st = (struct unw_state){ .ip = ra, .sp = st->bp + 16, .bp = bp, .bp_known = true,
				  .by_fp = true };
	return ra ? UNWIND_STOP_MAX : UNWIND_STOP_OUTERMOST;
}

/* Move @st to the caller; UNWIND_STOP_MAX means "go on". */
static enum unwind_stop unw__step(const struct unwind_map *maps, size_t nmaps,
				  const struct unwind_stack *stack, const struct unwind_opts *o,
				  struct unw_state *st, bool *signal)
{
	const struct unwind_row *row = NULL;
	enum unwind_stop why;
	uint64_t cfa, ra, bp;

	*signal = false;
	why = unw__row(maps, nmaps, unw__lookup_pc(st), &row);
	if (why == UNWIND_STOP_NO_TABLE && o->fp_fallback)
		return unw__fp(stack, st);
	if (why == UNWIND_STOP_MAX && row->cfa == UNWIND_CFA_SIGNAL) {
		*signal = true;
		return unw__signal(stack, st);
	}
	if (why == UNWIND_STOP_MAX)
		why = unw__cfa(row, st, &cfa);
	if (why != UNWIND_STOP_MAX)
		return why;
	if (!unw__read(stack, cfa - 8, &ra))
		return UNWIND_STOP_OUTSIDE;
	if (row->rbp == UNWIND_RBP_SAVED) {
		if (!unw__read(stack, cfa + (int64_t)row->rbp_off * 8, &bp))
			return UNWIND_STOP_OUTSIDE;
		st->bp = bp;
		st->bp_known = true;
	} else if (row->rbp == UNWIND_RBP_UNDEFINED) {
		st->bp_known = false;
	}
	/* A zero return address ends the chain by convention (x86-64 psABI: _start's frame). */
	if (!ra)
		return UNWIND_STOP_OUTERMOST;
	st->ip = ra;
	st->sp = cfa;
	st->exact = false;
	st->by_fp = false;
	return UNWIND_STOP_MAX;
}

static void unw__record(const struct unwind_map *maps, size_t nmaps, const struct unw_state *st,
			struct unwind_frame *f)
{
	uint64_t ip = st->ip;
	const struct unwind_map *m = unw__find_map(maps, nmaps, ip);

	memset(f, 0, sizeof(*f));
	f->addr = ip;
	f->exact = st->exact;
	f->by_fp = st->by_fp;
	f->map = m ? (int)(m - maps) : -1;
	if (!m)
		return;
	f->file_off = ip - m->start + m->pgoff;
	if (m->table) {
		f->build_id = m->table->id;
		f->build_id_len = m->table->id_len;
	}
}

enum unwind_stop unwinder__walk_opts(const struct unwind_map *maps, size_t nmaps,
				     const struct unwind_regs *regs,
				     const struct unwind_stack *stack, const struct unwind_opts *o,
				     struct unwind_frame *frames, size_t max, size_t *n)
{
	struct unw_state st = { .ip = regs->ip, .sp = regs->sp, .bp = regs->bp,
				.bp_known = true, .exact = true };
	enum unwind_stop why;
	bool signal;

	*n = 0;
	for (;;) {
		if (!st.ip)
			return UNWIND_STOP_OUTERMOST;
		if (*n == max)
			return UNWIND_STOP_DEPTH;
		unw__record(maps, nmaps, &st, &frames[(*n)++]);
		why = unw__step(maps, nmaps, stack, o, &st, &signal);
		/* The trampoline a handler returned into is named at its address, as the pc is exact. */
		if (signal)
			frames[*n - 1].exact = true;
		if (why != UNWIND_STOP_MAX)
			return why;
	}
}

enum unwind_stop unwinder__walk(const struct unwind_map *maps, size_t nmaps,
				const struct unwind_regs *regs, const struct unwind_stack *stack,
				struct unwind_frame *frames, size_t max, size_t *n)
{
	const struct unwind_opts o = { 0 };

	return unwinder__walk_opts(maps, nmaps, regs, stack, &o, frames, max, n);
}
