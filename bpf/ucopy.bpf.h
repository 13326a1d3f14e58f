/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A copy of the user stack with the registers of its innermost frame, for
 * user space to unwind later with the same tables (lib/unwind/copy_stage.c):
 * --unwind=copy, --unwind-check's second opinion, and the fallback where the
 * walker met code user space had not loaded yet.
 *
 * The copy goes from sp up, a page at a time: a single large read fails as
 * a whole when the stack's top is nearer than the copy size. The running
 * length lives in the record (map or ring-buffer memory), not on the stack,
 * so the verifier checks the callback once instead of once per page.
 */
#ifndef ST_UCOPY_BPF_H
#define ST_UCOPY_BPF_H

#include "bpf/state.bpf.h"
#include "bpf/ustack.bpf.h"

/*
 * One page of the copy into @dst after @c->len bytes, read by the variant
 * the context allows (st_uread()). Return: 1 when done.
 */
static __always_inline int st_copy_step(struct st_ucopy *c, __u8 *dst, bool faultable)
{
	__u64 done = c->len, want = c->want, chunk;

	if (done >= want || done >= ST_COPY_MAX)
		return 1;
	chunk = 4096 - ((c->sp + done) & 4095);
	if (chunk > want - done)
		chunk = want - done;
	/* Keep clang from passing the unclamped copy of chunk to the helper. */
	barrier_var(chunk);
	if (!chunk || chunk > 4096)
		return 1;
	if (st_uread(dst + (done & (ST_COPY_MAX - 1)), chunk, c->sp + done, faultable))
		return 1;
	c->len = done + chunk;
	return 0;
}

struct st_copy_ctx {
	struct st_ucopy *c;
	__u8 *dst;
};

static int st_copy_page(__u32 i, void *ctx)
{
	struct st_copy_ctx *x = ctx;

	return st_copy_step(x->c, x->dst, false);
}

/* Registers of the innermost frame, and no bytes yet. */
static __always_inline void st_copy_start(struct st_ucopy *c, struct pt_regs *regs, __u32 want)
{
	c->ip = BPF_CORE_READ(regs, ip);
	c->sp = BPF_CORE_READ(regs, sp);
	c->bp = BPF_CORE_READ(regs, bp);
	c->want = want > ST_COPY_MAX ? ST_COPY_MAX : want;
	c->len = 0;
}

/*
 * st_capture_copy() - append registers and @bytes of the user stack to the
 * scratch record after frame @n, at the event (no faults).
 *
 * Return: the bytes appended.
 */
static __always_inline __u32 st_capture_copy(struct st_scratch *s, __u32 n, __u32 bytes)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
	struct st_copy_ctx x;
	struct st_ucopy *c;

	if (!bytes || n > ST_MAX_KSTACK + 1 + ST_MAX_USTACK + 1)
		return 0;
	c = (struct st_ucopy *)&s->ips[n];
	st_copy_start(c, regs, bytes);
	x.c = c;
	x.dst = (__u8 *)(c + 1);
	bpf_loop(ST_COPY_MAX / 4096 + 1, st_copy_page, &x, 0);
	s->ev.flags |= ST_EV_UCOPY;
	return sizeof(*c) + c->len;
}

#endif
