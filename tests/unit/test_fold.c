// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of folding settled stacks (lib/pipeline/raw_stacks.c
 * raw_stacks__fold()): stacks of gone processes whose frames resolve to the
 * same file and offsets merge into the earliest one, with the summed count
 * and weight, even at other run-time addresses (as ASLR gives each run);
 * other stacks, other comms, a live process and code outside any file stay
 * apart; with addresses shown only equal addresses merge; split by process
 * nothing merges; a stack that differs in any one field of the fold's key
 * (kernel frame, depth, user offset, end of walk, flag, comm) stays apart.
 * A pending process's entries survive a fold and settle
 * after it. The report reads the same with and without the fold (the
 * settled stacks moved to the settled log, or all in the store). Made-up
 * pids and times, this test's own file.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/record.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/proc/maps.h"
#include "lib/proc/registry.h"
#include "lib/report/report.h"
#include "lib/sym/symbolizer.h"
#include "tests/unit/check.h"
#include "tests/unit/own_mapping.h"

__attribute__((noinline)) int fold_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) int fold_other(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 2;
}

#define SHIFT 0x10000000ull /* process B's mapping: the same file elsewhere */
#define ANON_START 0x7000000000ull

enum { A = 2000000101, B, C, D, E, F, G, H };

struct fold_env {
	struct proc_registry *r;
	struct symbolizer *sym;
	struct raw_stacks *rs;
	uint64_t target, other; /* addresses in this file, as mapped here */
};

/* One user frame at @addr for @pid at @ts, @weight, named @comm. */
static void add(struct raw_stacks *rs, int pid, uint64_t ts, uint64_t addr, uint64_t weight,
		const char *comm)
{
	struct st_event ev = { .pid = (uint32_t)pid, .tid = (uint32_t)pid, .udepth = 1, .ts = ts,
			       .weight = weight, .ustop = ST_USTOP_OUTERMOST };

	strncpy(ev.comm, comm, sizeof(ev.comm) - 1);
	CHECK_EQ_U64(raw_stacks__add(rs, &ev, &addr, weight), 0);
}

/* Processes A..H mapping this file (B elsewhere; G and H also anonymous code), their events. */
static void setup(struct fold_env *t, const struct proc_map *m)
{
	struct proc_map shifted = *m, anon = { .start = ANON_START, .end = ANON_START + 0x1000,
					       .path = "" };
	struct proc_map g[2] = { *m, anon };
	int pid;

	g[1].prot = m->prot;
	shifted.start += SHIFT;
	shifted.end += SHIFT;
	for (pid = A; pid < G; pid++)
		CHECK_EQ_U64(procs__set_maps(t->r, pid, 50, pid == B ? &shifted : m, 1), 0);
	CHECK_EQ_U64(procs__set_maps(t->r, G, 50, g, 2), 0);
	CHECK_EQ_U64(procs__set_maps(t->r, H, 50, g, 2), 0);
	add(t->rs, E, 90, t->target, 1, "fold");          /* alive until after the first fold */
	add(t->rs, A, 100, t->target, 7, "fold");
	add(t->rs, B, 110, t->target + SHIFT, 5, "fold"); /* A's stack, at B's addresses */
	add(t->rs, C, 120, t->other, 2, "fold");          /* another stack */
	add(t->rs, D, 130, t->target, 3, "other");        /* A's frames, another comm */
	add(t->rs, F, 140, t->target, 11, "fold");        /* lives on */
	add(t->rs, G, 150, ANON_START + 0x10, 13, "fold"); /* outside any file: */
	add(t->rs, H, 155, ANON_START + 0x10, 17, "fold"); /* each its own perf map's */
	add(t->rs, A + 100, 160, ANON_START + 0x10, 13, "fold"); /* the same, nothing mapped */
}

/* Settles @n gone @pids (exited at 500) through the session's path. */
static void gone(struct fold_env *t, const int *pids, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		procs__exit(t->r, pids[i], 500);
	CHECK_EQ_U64(raw_stacks__settle_gone(t->rs, NULL, NULL, NULL, pids, n, "test_fold"), 0);
}

/* The report's stack of @pid and @comm whose frame 0 is @name at @addr (0: any). */
static const struct report_stack *find(struct report *rep, int pid, const char *comm,
				       const char *name, uint64_t addr)
{
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(rep, &n);
	for (i = 0; i < n; i++)
		if (v[i]->pid == pid && !strcmp(v[i]->comm, comm) && v[i]->nu >= 1 &&
		    !strcmp(report_stack__frame(v[i], 0)->name, name) &&
		    (!addr || report_stack__frame(v[i], 0)->addr == addr))
			return v[i];
	return NULL;
}

/* Every stack of @rep as the sort gives them, every field a writer reads. Return: malloc'ed. */
static char *dump(struct report *rep)
{
	struct report_stack **v;
	char *text = NULL;
	size_t n, i, j, len;
	FILE *f = open_memstream(&text, &len);

	CHECK(f != NULL);
	if (!f)
		return NULL;
	v = report__sorted(rep, &n);
	for (i = 0; i < n; i++) {
		fprintf(f, "%d %s %llu %llu %u\n", v[i]->pid, v[i]->comm,
			(unsigned long long)v[i]->count, (unsigned long long)v[i]->weight,
			v[i]->flags);
		for (j = 0; j < v[i]->nk + v[i]->nu; j++) {
			const struct report_frame *fr = report_stack__frame(v[i], j);

			fprintf(f, "  %s %s %llx %llx %u %u\n", fr->name,
				fr->module ? fr->module : "-", (unsigned long long)fr->addr,
				(unsigned long long)fr->file_off, fr->kind, fr->flags);
		}
	}
	fclose(f);
	return text;
}

static struct report *report_of(struct fold_env *t, unsigned flags)
{
	struct report *rep = report__new(flags);

	CHECK(rep != NULL);
	if (rep)
		CHECK_EQ_U64(raw_stacks__report(t->rs, t->sym, rep), 0);
	return rep;
}

/*
 * The events of setup(), settled and folded as a session would (@fold:
 * after raw_stacks__fold_for(@flags), settled stacks moved to the settled
 * log; else never: all in the store), and their report with
 * @flags. Return: the report (the caller frees it), or NULL; *@folded,
 * *@left: the entries merged, and distinct at the end.
 */
static struct report *fold_run(const struct proc_map *m, uint64_t target, uint64_t other,
			       unsigned flags, bool fold, uint64_t *folded, size_t *left)
{
	struct fold_env t = { .target = target, .other = other };
	const int first[] = { A, B, C, D, G, H, A + 100 }, second[] = { E };
	struct report *rep = NULL;

	t.r = procs__new();
	t.sym = t.r ? symbolizer__new(t.r) : NULL;
	t.rs = t.sym ? raw_stacks__new(t.sym) : NULL;
	CHECK(t.rs != NULL);
	if (!t.rs)
		goto out;
	if (fold)
		raw_stacks__fold_for(t.rs, flags);
	setup(&t, m);
	gone(&t, first, 7);
	CHECK_EQ_U64(raw_stacks__len(t.rs), 9); /* below RAW_FOLD_MIN settled: nothing yet */
	if (fold) /* else the report of the store alone: no settled log */
		CHECK_EQ_U64(raw_stacks__fold(t.rs), 0);
	gone(&t, second, 1); /* pending across the fold, settled after it */
	if (fold)
		CHECK_EQ_U64(raw_stacks__fold(t.rs), 0);
	CHECK_EQ_U64(raw_stacks__settled(t.rs), 8);
	CHECK_EQ_U64(raw_stacks__total(t.rs), 9);
	*folded = raw_stacks__folded(t.rs);
	*left = raw_stacks__len(t.rs);
	rep = report_of(&t, flags);
out:
	raw_stacks__free(t.rs);
	symbolizer__free(t.sym);
	procs__free(t.r);
	return rep;
}

/*
 * With @flags: @folded entries merged, @left distinct; the report's counts
 * and weights; and the report the same, field for field, as without folding.
 */
static void run(const struct proc_map *m, uint64_t target, uint64_t other, unsigned flags,
		uint64_t folded, size_t left)
{
	uint64_t nf, nf0;
	size_t nl, nl0;
	struct report *rep = fold_run(m, target, other, flags, true, &nf, &nl);
	struct report *rep0 = fold_run(m, target, other, flags, false, &nf0, &nl0);
	char *text = rep ? dump(rep) : NULL, *text0 = rep0 ? dump(rep0) : NULL;
	const struct report_stack *s;

	CHECK_EQ_U64(nf, folded);
	CHECK_EQ_U64(nl, left);
	CHECK_EQ_U64(nf0, 0);
	CHECK_EQ_U64(nl0, 9);
	CHECK(text && text0 && !strcmp(text, text0));
	free(text);
	free(text0);
	report__free(rep0);
	if (!rep)
		return;
	if (flags & REPORT_BY_PID) {
		s = find(rep, B, "fold", "fold_target", 0);
		CHECK(s && s->count == 1 && s->weight == 5);
	} else {
		/*
		 * E (first met), A, B, D and F: one stack in a report not split
		 * by process (D's comm too), E's address and comm kept; B's
		 * address apart with REPORT_ADDRS.
		 */
		s = find(rep, 0, "fold", "fold_target", target);
		CHECK(s && s->count == (flags & REPORT_ADDRS ? 4 : 5) &&
		      s->weight == (flags & REPORT_ADDRS ? 22 : 27));
		s = find(rep, 0, "fold", "fold_target", target + SHIFT);
		CHECK(flags & REPORT_ADDRS ? s && s->count == 1 && s->weight == 5 : !s);
	}
	s = find(rep, flags & REPORT_BY_PID ? C : 0, "fold", "fold_other", 0);
	CHECK(s && s->count == 1 && s->weight == 2);
	report__free(rep);
}

/* An event of run_fields(): kernel then user frames, and the fields a fold key holds. */
struct key_event {
	uint16_t kd, ud, ustop, flags;
	uint64_t ips[4];
	const char *comm;
};

#define K1 0xffffffff81000010ull /* kernel addresses: no names needed, only compared */
#define K2 0xffffffff81000200ull
#define K3 0xffffffff81000204ull

/*
 * Gone processes, one event each (@ev, the first the base): settled and, with
 * @fold, folded. Return: the report of them (the caller frees it); *@left
 * the distinct entries at the end, *@folded the merged.
 */
static struct report *fields_run(const struct proc_map *m, const struct key_event *ev, int n,
				 bool fold, size_t *left, uint64_t *folded)
{
	struct fold_env t = { 0 };
	struct report *rep = NULL;
	int pids[8], i;

	t.r = procs__new();
	t.sym = t.r ? symbolizer__new(t.r) : NULL;
	t.rs = t.sym ? raw_stacks__new(t.sym) : NULL;
	CHECK(t.rs != NULL && n <= 8);
	if (!t.rs || n > 8)
		goto out;
	if (fold)
		raw_stacks__fold_for(t.rs, 0);
	for (i = 0; i < n; i++) {
		struct st_event e = { .pid = (uint32_t)(A + 200 + i), .tid = (uint32_t)(A + 200 + i),
				      .kdepth = ev[i].kd, .udepth = ev[i].ud, .ts = 100 + (uint64_t)i,
				      .weight = 1u << i, .ustop = ev[i].ustop, .flags = ev[i].flags };

		pids[i] = (int)e.pid;
		strncpy(e.comm, ev[i].comm, sizeof(e.comm) - 1);
		CHECK_EQ_U64(procs__set_maps(t.r, pids[i], 50, m, 1), 0);
		CHECK_EQ_U64(raw_stacks__add(t.rs, &e, ev[i].ips, e.weight), 0);
	}
	gone(&t, pids, (size_t)n);
	if (fold)
		CHECK_EQ_U64(raw_stacks__fold(t.rs), 0);
	*left = raw_stacks__len(t.rs);
	*folded = raw_stacks__folded(t.rs);
	rep = report_of(&t, 0);
out:
	raw_stacks__free(t.rs);
	symbolizer__free(t.sym);
	procs__free(t.r);
	return rep;
}

/*
 * The fold's key field by field: a stack equal to the first in every field
 * merges into it; one that differs from it in one field only (a kernel
 * address, the kernel depth, a user frame's offset, the end of its walk, a
 * flag, the comm) stays apart. The report reads the same, field for field,
 * as without the fold (it may merge more itself: names, not addresses,
 * and which names depends on the kernel's symbols, so no count of its is
 * checked here).
 */
static void run_fields(const struct proc_map *m, uint64_t target, uint64_t other)
{
	const struct key_event ev[] = {
		{ 2, 2, ST_USTOP_OUTERMOST, 0, { K1, K2, target, other }, "keys" },
		{ 2, 2, ST_USTOP_OUTERMOST, 0, { K1, K2, target, other }, "keys" }, /* the same */
		{ 2, 2, ST_USTOP_OUTERMOST, 0, { K1, K3, target, other }, "keys" },
		{ 1, 2, ST_USTOP_OUTERMOST, 0, { K1, target, other }, "keys" },
		{ 2, 2, ST_USTOP_OUTERMOST, 0, { K1, K2, target, target }, "keys" },
		{ 2, 2, ST_USTOP_DEPTH, 0, { K1, K2, target, other }, "keys" },
		{ 2, 2, ST_USTOP_OUTERMOST, ST_EV_UFAIL, { K1, K2, target, other }, "keys" },
		{ 2, 2, ST_USTOP_OUTERMOST, 0, { K1, K2, target, other }, "keyz" },
	};
	uint64_t folded, folded0;
	size_t left, left0;
	struct report *rep = fields_run(m, ev, 8, true, &left, &folded);
	struct report *rep0 = fields_run(m, ev, 8, false, &left0, &folded0);
	char *text = rep ? dump(rep) : NULL, *text0 = rep0 ? dump(rep0) : NULL;

	CHECK_EQ_U64(folded, 1);
	CHECK_EQ_U64(left, 7);
	CHECK_EQ_U64(folded0, 0);
	CHECK_EQ_U64(left0, 8);
	CHECK(text && text0 && !strcmp(text, text0));
	free(text);
	free(text0);
	report__free(rep);
	report__free(rep0);
}

/*
 * 3,000 gone processes with one stack, settled 100 at a time: the entries do
 * not pile up. The second fold merges the new ones into the record the
 * first left in the settled log.
 */
static void run_storm(const struct proc_map *m, uint64_t target)
{
	struct proc_registry *r = procs__new();
	struct symbolizer *sym = r ? symbolizer__new(r) : NULL;
	struct raw_stacks *rs = sym ? raw_stacks__new(sym) : NULL;
	struct fold_env t = { .r = r, .sym = sym, .rs = rs };
	const struct report_stack *s;
	struct report *rep;
	int pids[100], i, j;

	CHECK(rs != NULL);
	if (!rs)
		goto out;
	raw_stacks__fold_for(rs, 0);
	for (i = 0; i < 30; i++) {
		for (j = 0; j < 100; j++) {
			pids[j] = A + 1000 + i * 100 + j;
			CHECK_EQ_U64(procs__set_maps(r, pids[j], 50, m, 1), 0);
			add(rs, pids[j], 100 + (uint64_t)pids[j], target, 1, "storm");
		}
		gone(&t, pids, 100);
		/* Folded at 300 settled (RAW_FOLD_MIN 256): one record, then 100, 200 since. */
		if (i == 3)
			CHECK_EQ_U64(raw_stacks__len(rs), 101);
		if (i == 19) {
			CHECK_EQ_U64(raw_stacks__len(rs), 201);
			CHECK_EQ_U64(raw_stacks__folded(rs), 1799);
		}
	}
	/* Folded every 300 since: each time into the first's record. */
	CHECK_EQ_U64(raw_stacks__len(rs), 1);
	CHECK_EQ_U64(raw_stacks__folded(rs), 2999);
	rep = report_of(&t, 0);
	s = rep ? find(rep, 0, "storm", "fold_target", 0) : NULL;
	CHECK(s && s->count == 3000 && s->weight == 3000 && report__len(rep) == 1);
	report__free(rep);
out:
	raw_stacks__free(rs);
	symbolizer__free(sym);
	procs__free(r);
}

int main(void)
{
	uint64_t target = (uintptr_t)fold_target + 3, other = (uintptr_t)fold_other + 3;
	struct proc_map m = { 0 };

	CHECK_EQ_U64(own_mapping(target, &m), 0);
	CHECK(m.path && m.start <= other && other < m.end);
	if (m.path) {
		/* B into A, then A into E: E's, C's, D's, F's, G's, H's, the unmapped one's left. */
		run(&m, target, other, 0, 2, 7);
		run(&m, target, other, REPORT_ADDRS, 1, 8); /* B's addresses differ */
		run(&m, target, other, REPORT_BY_PID, 0, 9);
		run_storm(&m, target);
		run_fields(&m, target, other);
	}
	free(m.path);
	CHECK(fold_target(1) == 4 && fold_other(1) == 9);
	return CHECK_DONE();
}
