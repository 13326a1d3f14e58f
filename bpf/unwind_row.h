/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The compact unwind row, shared by the BPF walker and the user-space unwinder.
 *
 * One table per ELF file: rows sorted by pc, each row valid from its pc up to
 * the next row's pc. pc is the link-time virtual address minus the table's
 * base (the lowest executable PT_LOAD vaddr), so a table is position
 * independent and shared by every process that maps the file.
 *
 * Eight bytes a row because a table for libc has ~100k rows and the BPF walker
 * binary-searches it per frame: 8 bytes keeps libc's table under 1 MiB and a
 * search within ~17 cache lines. A CFA offset beyond 16 bits (a function
 * with more than 32 KiB of locals: libdw has one of 149 KiB) is kept in
 * 8-byte units, which rsp and rbp offsets always are on x86-64. Rules that
 * do not fit (a DWARF expression other than the PLT one or the signal
 * frame's, a CFA based on a register other than rsp/rbp) are not squeezed:
 * the row says UNSUPPORTED.
 *
 * x86-64 only: the return address is always at CFA - 8 (SFrame fixes it there
 * for AMD64; .eh_frame rows that put it elsewhere are UNSUPPORTED).
 */
#ifndef ST_UNWIND_ROW_H
#define ST_UNWIND_ROW_H

#ifdef __BPF__
/* vmlinux.h provides __u32 and friends on the BPF side. */
#else
#include <linux/types.h>
#endif

/* How the CFA (the caller's sp just before the call) is found. */
enum unwind_cfa {
	UNWIND_CFA_RSP = 0,         /* CFA = rsp + cfa_off */
	UNWIND_CFA_RBP = 1,         /* CFA = rbp + cfa_off */
	UNWIND_CFA_PLT = 2,         /* CFA = rsp + 8 + ((pc & 15) >= 11 ? 8 : 0): PLT stubs */
	UNWIND_CFA_OUTERMOST = 3,   /* return address undefined: the stack ends here */
	UNWIND_CFA_UNSUPPORTED = 4, /* a rule this format cannot express: stop, never guess */
	UNWIND_CFA_NONE = 5,        /* no unwind info (gap after a function's range) */
	UNWIND_CFA_SIGNAL = 6,      /* a sigreturn trampoline: see below */
	UNWIND_CFA_RSP8 = 7,        /* CFA = rsp + cfa_off * 8: a frame over 32 KiB */
	UNWIND_CFA_RBP8 = 8,        /* CFA = rbp + cfa_off * 8 */
	UNWIND_CFA_LAST = UNWIND_CFA_RBP8,
};

/*
 * UNWIND_CFA_SIGNAL: the pc is in an x86-64 sigreturn trampoline (libc's
 * __restore_rt; its FDE's CIE has the 'S' augmentation) that a signal
 * handler returned into. sp points at the struct ucontext of the kernel's
 * rt_sigframe, and the interrupted registers are in its uc_mcontext (struct
 * sigcontext_64), at these fixed offsets of the kernel ABI from sp. The
 * interrupted rip is an exact pc, not a return address. cfa_off, rbp and
 * rbp_off are 0. lib/unwind/cfi.c emits the rule only for an 'S' FDE whose
 * CFA and rip/rsp/rbp rules are exactly these (DW_OP_breg7 160; DW_OP_deref).
 */
#define UNWIND_SIG_RBP 120 /* offsetof(struct ucontext, uc_mcontext.bp) */
#define UNWIND_SIG_RSP 160 /* offsetof(struct ucontext, uc_mcontext.sp) */
#define UNWIND_SIG_RIP 168 /* offsetof(struct ucontext, uc_mcontext.ip) */

/* Where the caller's rbp is. */
enum unwind_rbp {
	UNWIND_RBP_SAME = 0,  /* rbp unchanged by this frame */
	UNWIND_RBP_SAVED = 1, /* saved at CFA + rbp_off * 8 */
	UNWIND_RBP_UNDEFINED = 2,
};

struct unwind_row {
	__u32 pc;      /* link-time vaddr - table base */
	__s16 cfa_off; /* bytes */
	__u8 cfa : 4;  /* enum unwind_cfa */
	__u8 rbp : 4;  /* enum unwind_rbp */
	__s8 rbp_off;  /* in 8-byte words from the CFA (rbp saved at CFA + rbp_off * 8) */
};

#endif
