// SPDX-License-Identifier: GPL-2.0
/* The unwinder's rules and stop reasons, on a hand-made table and stack. */
#include <string.h>

#include "lib/unwind/unwinder.h"
#include "tests/unit/check.h"

/*
 * One file mapped at 0x400000 (file offset 0 = vaddr 0x1000 = table base).
 * pc (relative to the base) → rule:
 */
static struct unwind_row rows[] = {
	{ .pc = 0x00, .cfa = UNWIND_CFA_RSP, .cfa_off = 8 },
	{ .pc = 0x10, .cfa = UNWIND_CFA_RSP, .cfa_off = 16, .rbp = UNWIND_RBP_SAVED, .rbp_off = -2 },
	{ .pc = 0x20, .cfa = UNWIND_CFA_RBP, .cfa_off = 16, .rbp = UNWIND_RBP_SAVED, .rbp_off = -2 },
	{ .pc = 0x30, .cfa = UNWIND_CFA_OUTERMOST },
	{ .pc = 0x40, .cfa = UNWIND_CFA_UNSUPPORTED },
	{ .pc = 0x50, .cfa = UNWIND_CFA_NONE },
	{ .pc = 0x60, .cfa = UNWIND_CFA_PLT },
	{ .pc = 0x70, .cfa = UNWIND_CFA_RSP, .cfa_off = 0 },
	{ .pc = 0x80, .cfa = UNWIND_CFA_RSP, .cfa_off = 8, .rbp = UNWIND_RBP_UNDEFINED },
	{ .pc = 0x90, .cfa = UNWIND_CFA_NONE },
	{ .pc = 0xa0, .cfa = UNWIND_CFA_SIGNAL }, /* a sigreturn trampoline */
	{ .pc = 0xb0, .cfa = UNWIND_CFA_NONE },
	{ .pc = 0xc0, .cfa = UNWIND_CFA_RSP8, .cfa_off = 5 }, /* a frame over 32 KiB, scaled */
	{ .pc = 0xd0, .cfa = UNWIND_CFA_RBP8, .cfa_off = 2 },
	{ .pc = 0xe0, .cfa = UNWIND_CFA_NONE },
};

static struct unwind_seg seg = { .vaddr = 0x1000, .offset = 0, .filesz = 0x1000, .exec = true };
static struct unwind_table table = {
	.path = "synthetic", .id = { 0xab }, .id_len = 20, .base = 0x1000,
	.source = UNWIND_SRC_EH_FRAME, .segs = &seg, .nsegs = 1,
	.rows = { .rows = rows, .n = sizeof(rows) / sizeof(rows[0]) },
};

#define M 0x400000ULL
#define STACK_BASE 0x7000ULL

static uint64_t stack[64];
static struct unwind_map map = { .start = M, .end = M + 0x1000, .pgoff = 0, .path = "synthetic" };

static enum unwind_stop walk_opts(uint64_t ip, uint64_t sp, uint64_t bp, bool fp, size_t max,
				  size_t *n, struct unwind_frame *frames)
{
	struct unwind_regs regs = { ip, sp, bp };
	struct unwind_stack st = { STACK_BASE, (const uint8_t *)stack, sizeof(stack) };
	struct unwind_opts o = { .fp_fallback = fp };

	return unwinder__walk_opts(&map, 1, &regs, &st, &o, frames, max, n);
}

static enum unwind_stop walk(uint64_t ip, uint64_t sp, uint64_t bp, size_t max, size_t *n,
			     struct unwind_frame *frames)
{
	return walk_opts(ip, sp, bp, false, max, n, frames);
}

/*
 * A handler (rsp+8 rule) returned into the trampoline: its sp is the
 * ucontext, whose uc_mcontext holds the interrupted rip, rsp and rbp. The
 * interrupted pc 0x10 is exact: its own row (rsp+16) applies, not 0x0f's.
 */
static void check_signal(void)
{
	struct unwind_frame frames[8];
	uint64_t uc = STACK_BASE + 8, isp = STACK_BASE + 0x100;
	size_t n;

	memset(stack, 0, sizeof(stack));
	stack[0] = M + 0xa1;
	stack[(uc - STACK_BASE + UNWIND_SIG_RIP) / 8] = M + 0x10;
	stack[(uc - STACK_BASE + UNWIND_SIG_RSP) / 8] = isp;
	stack[(uc - STACK_BASE + UNWIND_SIG_RBP) / 8] = 0x5555;
	stack[(isp - STACK_BASE) / 8 + 1] = M + 0x35;
	CHECK_STR(unwind_stop_name(walk(M + 0x05, STACK_BASE, 0, 8, &n, frames)), "outermost");
	CHECK_EQ_U64(n, 4);
	CHECK(frames[1].addr == M + 0xa1 && frames[1].exact);
	CHECK(frames[2].addr == M + 0x10 && frames[2].exact);
	CHECK(frames[3].addr == M + 0x35 && !frames[3].exact);
	/* An interrupted sp below the signal frame is no caller. */
	stack[(uc - STACK_BASE + UNWIND_SIG_RSP) / 8] = STACK_BASE;
	CHECK_STR(unwind_stop_name(walk(M + 0x05, STACK_BASE, 0, 8, &n, frames)), "stack-down");
}

/* Auto mode: a pc without a row follows its frame pointer; rbp 0 ends the stack. */
static void check_fp_fallback(void)
{
	struct unwind_frame frames[8];
	size_t n;

	memset(stack, 0, sizeof(stack));
	stack[4] = 0;        /* saved rbp at 0x7020 */
	stack[5] = M + 0x35; /* RA at 0x7028 */
	CHECK_STR(unwind_stop_name(walk_opts(M + 0x55, STACK_BASE, STACK_BASE + 0x20, true, 8, &n,
					     frames)), "outermost");
	CHECK(n == 2 && frames[1].addr == M + 0x35 && frames[1].by_fp);
	CHECK_STR(unwind_stop_name(walk_opts(M + 0x55, STACK_BASE, 0, true, 8, &n, frames)),
		  "outermost");
	CHECK_EQ_U64(n, 1);
	/* Without the option the same pc has no rule. */
	CHECK_STR(unwind_stop_name(walk(M + 0x55, STACK_BASE, STACK_BASE + 0x20, 8, &n, frames)),
		  "no-table");
	/* A frame pointer below sp is no frame. */
	CHECK_STR(unwind_stop_name(walk_opts(M + 0x55, STACK_BASE + 0x40, STACK_BASE + 0x20, true, 8,
					     &n, frames)), "stack-down");
}

static void check_one(const char *what, uint64_t ip, uint64_t sp, uint64_t bp,
		      enum unwind_stop want, size_t want_n)
{
	struct unwind_frame frames[8];
	size_t n = 99;
	enum unwind_stop got = walk(ip, sp, bp, 8, &n, frames);

	if (got != want || n != want_n)
		fprintf(stderr, "%s: got %s/%zu, want %s/%zu\n", what, unwind_stop_name(got), n,
			unwind_stop_name(want), want_n);
	CHECK_STR(unwind_stop_name(got), unwind_stop_name(want));
	CHECK_EQ_U64(n, want_n);
}

int main(void)
{
	struct unwind_frame frames[8];
	size_t n;

	CHECK(unwind_map__set_table(&map, &table) == 0);
	CHECK_EQ_U64(map.vaddr, 0x1000);

	/* rsp rule, then a return into an outermost row. */
	memset(stack, 0, sizeof(stack));
	stack[0] = M + 0x35;
	check_one("outermost", M + 0x05, STACK_BASE, 0, UNWIND_STOP_OUTERMOST, 2);

	/* Return address - 1: ra 0x10 is looked up at 0x0f (rsp+8), not 0x10 (rsp+16). */
	stack[0] = M + 0x10;
	stack[1] = M + 0x35;
	stack[2] = M + 0x45;
	CHECK(walk(M + 0x05, STACK_BASE, 0, 8, &n, frames) == UNWIND_STOP_OUTERMOST);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(frames[1].addr, M + 0x10);
	CHECK_EQ_U64(frames[2].addr, M + 0x35);
	CHECK_EQ_U64(frames[2].file_off, 0x35);
	CHECK(frames[2].build_id == table.id && frames[2].build_id_len == 20);
	/* ...but frame 0 uses ip itself: ip 0x10 is rsp+16, so the RA is stack[1]. */
	check_one("frame0-exact", M + 0x10, STACK_BASE, 0, UNWIND_STOP_OUTERMOST, 2);

	/* Offsets in 8-byte units: CFA = rsp + 5 * 8, then rbp + 2 * 8. */
	memset(stack, 0, sizeof(stack));
	stack[4] = M + 0x35;
	check_one("rsp8", M + 0xc5, STACK_BASE, 0, UNWIND_STOP_OUTERMOST, 2);
	stack[1] = M + 0x35;
	check_one("rbp8", M + 0xd5, STACK_BASE, STACK_BASE, UNWIND_STOP_OUTERMOST, 2);
	memset(stack, 0, sizeof(stack));
	stack[0] = M + 0x10;
	stack[1] = M + 0x35;
	stack[2] = M + 0x45;

	stack[0] = M + 0x41;
	check_one("unsupported", M + 0x05, STACK_BASE, 0, UNWIND_STOP_UNSUPPORTED, 2);
	stack[0] = M + 0x51;
	check_one("none-row", M + 0x05, STACK_BASE, 0, UNWIND_STOP_NO_TABLE, 2);
	stack[0] = 0x999999;
	check_one("no-mapping", M + 0x05, STACK_BASE, 0, UNWIND_STOP_NO_MAPPING, 2);
	CHECK(walk(M + 0x05, STACK_BASE, 0, 8, &n, frames) == UNWIND_STOP_NO_MAPPING &&
	      frames[1].map == -1);
	stack[0] = 0;
	check_one("ra-zero", M + 0x05, STACK_BASE, 0, UNWIND_STOP_OUTERMOST, 1);

	/* Validation: alignment, direction, snapshot bounds, depth. */
	check_one("misaligned", M + 0x05, STACK_BASE + 1, 0, UNWIND_STOP_BAD_CFA, 1);
	check_one("stack-down", M + 0x75, STACK_BASE, 0, UNWIND_STOP_STACK_DOWN, 1);
	check_one("outside", M + 0x05, STACK_BASE + sizeof(stack), 0, UNWIND_STOP_OUTSIDE, 1);
	check_one("below", M + 0x05, STACK_BASE - 64, 0, UNWIND_STOP_OUTSIDE, 1);
	stack[0] = M + 0x35;
	CHECK(walk(M + 0x05, STACK_BASE, 0, 1, &n, frames) == UNWIND_STOP_DEPTH && n == 1);

	/* rbp rule: CFA = rbp + 16, caller's rbp saved at CFA - 16. */
	memset(stack, 0, sizeof(stack));
	stack[2] = 0x1234;   /* saved rbp at 0x7010 */
	stack[3] = M + 0x35; /* RA at 0x7018 */
	check_one("rbp", M + 0x25, STACK_BASE, STACK_BASE + 0x10, UNWIND_STOP_OUTERMOST, 2);
	/* rbp made unknown by a frame, then needed by its caller. */
	stack[0] = M + 0x21;
	check_one("rbp-unknown", M + 0x85, STACK_BASE, 0, UNWIND_STOP_BAD_CFA, 2);
	/* rsp rule saves rbp: the caller's rbp-based CFA uses the value read. */
	memset(stack, 0, sizeof(stack));
	stack[0] = STACK_BASE + 0x20; /* saved rbp at CFA - 16 = 0x7000 */
	stack[1] = M + 0x21;          /* RA at 0x7008 → rbp rule */
	stack[5] = M + 0x35;          /* RA at rbp + 8 = 0x7028 */
	check_one("rbp-chain", M + 0x15, STACK_BASE - 0, 0, UNWIND_STOP_OUTERMOST, 3);

	/* PLT: CFA = rsp + 8, or + 16 once (pc & 15) >= 11. */
	memset(stack, 0, sizeof(stack));
	stack[0] = M + 0x35;
	stack[1] = M + 0x45;
	check_one("plt-early", M + 0x6a, STACK_BASE, 0, UNWIND_STOP_OUTERMOST, 2);
	check_one("plt-late", M + 0x6b, STACK_BASE, 0, UNWIND_STOP_UNSUPPORTED, 2);

	check_signal();
	check_fp_fallback();
	return CHECK_DONE();
}
