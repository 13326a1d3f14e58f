// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of forgetting exited processes (lib/proc/registry.c
 * procs__forget_gone(), lib/pipeline/raw_stacks.c raw_stacks__settle()):
 * the stacks of a process resolved just before the registry forgets it keep
 * the mappings of their own events (one address in this test's own file,
 * then in another file mapped at the same place), and are named after the
 * registry no longer knows the process; a pid reused before the forget is
 * kept; with procs__settle_met_only(), only the processes an event met are
 * settled. Made-up pids and times, this test's own file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/record.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/proc/maps.h"
#include "lib/proc/registry.h"
#include "lib/report/report.h"
#include "lib/sym/symbolizer.h"
#include "tests/unit/check.h"
#include "tests/unit/own_mapping.h"

__attribute__((noinline)) int forget_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 5 + 1;
}

static void settle(void *ctx, const int *pids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		CHECK_EQ_U64(raw_stacks__settle(ctx, pids[i]), 0);
}

/* One user frame at @addr for @pid at @ts. */
static void add(struct raw_stacks *rs, int pid, uint64_t ts, uint64_t addr)
{
	struct st_event ev = { .pid = (uint32_t)pid, .tid = (uint32_t)pid, .udepth = 1, .ts = ts,
			       .weight = 1, .ustop = ST_USTOP_OUTERMOST, .comm = "forget" };

	CHECK_EQ_U64(raw_stacks__add(rs, &ev, &addr, 1), 0);
}

/* The report's stack of @pid whose only frame is in @module. Return: it, or NULL. */
static const struct report_stack *find(struct report_stack **v, size_t n, int pid,
				       const char *module)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i]->pid == pid && v[i]->nu >= 1 && report_stack__frame(v[i], 0)->module &&
		    !strcmp(report_stack__frame(v[i], 0)->module, module))
			return v[i];
	return NULL;
}

static void check_forget(struct proc_registry *r, struct raw_stacks *rs, struct symbolizer *sym,
			 uint64_t addr, const struct proc_map *m)
{
	const int p = 2000000011, q = 2000000012;
	const struct report_stack *s;
	struct report_stack **v;
	struct proc_map lib = *m;
	struct proc_loc loc;
	struct report *rep;
	uint64_t off;
	char other[64];
	size_t n, due;

	CHECK_EQ_U64(procs__set_maps(r, p, 50, m, 1), 0);
	CHECK_EQ_U64(procs__set_maps(r, q, 50, m, 1), 0);
	/* Another file at the same address from t=400: one that cannot be opened. */
	lib.inode = 1;
	lib.path = "/nonexistent/libother.so";
	procs__map(r, p, 400, &lib);
	CHECK_EQ_U64(procs__resolve(r, p, 150, addr, &loc), 0);
	off = loc.file_off;
	add(rs, p, 150, addr);
	add(rs, p, 450, addr);
	add(rs, p, 460, addr); /* the same mappings as at 450: the same stack */
	add(rs, q, 150, addr);
	procs__exit(r, p, 500);
	procs__exit(r, q, 500);
	procs__exec(r, q, 550); /* q's pid lives again: not forgotten */
	CHECK_EQ_U64(procs__gone_ready(r, 600, &due), 2);
	CHECK_EQ_U64(due, 1); /* q lives again */
	CHECK_EQ_U64(procs__forget_gone(r, 600, settle, rs), 0);
	CHECK_EQ_U64(procs__stats(r)->forgotten, 1);
	CHECK_EQ_U64(procs__gone_ready(r, 600, &due), 0);
	CHECK_EQ_U64(procs__resolve(r, p, 150, addr, &loc), (uint64_t)-ESRCH);
	CHECK_EQ_U64(procs__resolve(r, q, 150, addr, &loc), 0);
	CHECK_EQ_U64(raw_stacks__settled(rs), 2); /* p's two stacks; q's waits for the report */

	rep = report__new(REPORT_BY_PID);
	CHECK(rep != NULL);
	if (!rep)
		return;
	CHECK_EQ_U64(raw_stacks__report(rs, sym, rep), 0);
	v = report__sorted(rep, &n);
	CHECK_EQ_U64(n, 3);
	s = find(v, n, p, m->path);
	CHECK(s && s->count == 1 && !strcmp(report_stack__frame(s, 0)->name, "forget_target") &&
	      report_stack__frame(s, 0)->file_off == off);
	s = find(v, n, p, "/nonexistent/libother.so");
	snprintf(other, sizeof(other), "[unknown] (libother.so+%#llx)", (unsigned long long)off);
	CHECK(s && s->count == 2 && !strcmp(report_stack__frame(s, 0)->name, other) &&
	      report_stack__frame(s, 0)->file_off == off);
	s = find(v, n, q, m->path);
	CHECK(s && s->count == 1 && !strcmp(report_stack__frame(s, 0)->name, "forget_target"));
	report__free(rep);
}

/* What settle_met heard: each pid, in order. */
struct heard {
	int pids[4];
	size_t n, calls;
};

static void settle_met(void *ctx, const int *pids, size_t n)
{
	struct heard *h = ctx;
	size_t i;

	h->calls++;
	for (i = 0; i < n && h->n < 4; i++)
		h->pids[h->n++] = pids[i];
}

/* One exit ready before @before, to settle: settle_met hears @pid, in a call of its own. */
static void expect_settles(struct proc_registry *r, uint64_t before, struct heard *h, int pid)
{
	size_t calls = h->calls, due;

	CHECK_EQ_U64(procs__gone_ready(r, before, &due), 1);
	CHECK_EQ_U64(due, 1);
	CHECK_EQ_U64(procs__forget_gone(r, before, settle_met, h), 0);
	CHECK(h->calls == calls + 1 && h->n == calls + 1 && h->pids[calls] == pid);
}

/*
 * procs__settle_met_only(): an exited process no event met is forgotten
 * unheard; one an event met is heard; and after procs__unseen_events(), so
 * is every process based by then, met or not (its events may be counted in
 * the kernel with no record seen). One known only from /proc (its start
 * unknown) would be heard too.
 */
static void check_met_only(struct proc_registry *r)
{
	const int met = 2000000021, unmet = 2000000022, early = 2000000023, late = 2000000024;
	struct heard h = { 0 };
	uint64_t forgotten;
	size_t due;

	procs__settle_met_only(r, true);
	procs__fork(r, getpid(), met, 1000);
	procs__fork(r, getpid(), unmet, 1000);
	CHECK_EQ_U64(procs__see(r, met, 1100), 0); /* known: no /proc read */
	procs__exit(r, unmet, 1200);
	CHECK_EQ_U64(procs__gone_ready(r, 1300, &due), 1);
	CHECK_EQ_U64(due, 0);
	CHECK_EQ_U64(procs__forget_gone(r, 1300, settle_met, &h), 0);
	CHECK_EQ_U64(h.calls, 0);
	CHECK_EQ_U64(procs__gone_ready(r, 1300, &due), 0);
	procs__exit(r, met, 1400);
	expect_settles(r, 1500, &h, met);

	/* Forgotten at once, the met one still queued behind it. */
	procs__fork(r, getpid(), unmet, 1500);
	procs__fork(r, getpid(), met, 1500);
	CHECK_EQ_U64(procs__see(r, met, 1510), 0);
	procs__exit(r, met, 1520);
	procs__exit(r, unmet, 1530);
	procs__forget_unmet(r, 1525); /* exits before 1525 only */
	CHECK_EQ_U64(procs__gone_ready(r, 1600, &due), 2);
	CHECK_EQ_U64(due, 1);
	forgotten = procs__stats(r)->forgotten;
	procs__forget_unmet(r, 1600);
	CHECK_EQ_U64(procs__stats(r)->forgotten, forgotten + 1);
	expect_settles(r, 1600, &h, met);

	procs__fork(r, getpid(), early, 1600);
	procs__fork(r, getpid(), late, 1800);
	procs__unseen_events(r, 1700);
	procs__exit(r, early, 1900);
	procs__exit(r, late, 1900);
	CHECK_EQ_U64(procs__gone_ready(r, 2000, &due), 2);
	CHECK_EQ_U64(due, 1);
	CHECK_EQ_U64(procs__forget_gone(r, 2000, settle_met, &h), 0);
	CHECK(h.calls == 3 && h.n == 3 && h.pids[2] == early);
	procs__settle_met_only(r, false);
}

int main(void)
{
	uint64_t addr = (uintptr_t)forget_target + 3;
	struct proc_map m = { 0 };
	struct proc_registry *r = procs__new();
	struct symbolizer *sym = r ? symbolizer__new(r) : NULL;
	struct raw_stacks *rs = sym ? raw_stacks__new(sym) : NULL;

	CHECK(rs != NULL);
	CHECK_EQ_U64(own_mapping(addr, &m), 0);
	if (rs && m.path)
		check_forget(r, rs, sym, addr, &m);
	if (r)
		check_met_only(r);
	raw_stacks__free(rs);
	symbolizer__free(sym);
	procs__free(r);
	free(m.path);
	CHECK(forget_target(1) == 6);
	return CHECK_DONE();
}
