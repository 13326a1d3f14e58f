// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of freeing the perf-map entries of forgotten processes
 * (lib/sym/jit_maps.c jit_maps__forget(), lib/pipeline/raw_stacks.c
 * raw_stacks__settle()): after N short-lived processes are seen, exit and
 * are forgotten, no entry of theirs is held; an entry stays when its
 * process wrote a perf map (still named after the forget), when a settled
 * stack has code outside a file of that pid (named by it at the report),
 * and when its exit was never heard. Real child processes for the maps,
 * made-up pids and times through the registry and the settle.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/record.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/proc/maps.h"
#include "lib/proc/registry.h"
#include "lib/report/report.h"
#include "lib/sym/jit_maps.h"
#include "lib/sym/perf_map.h"
#include "lib/sym/symbolizer.h"
#include "tests/unit/check.h"

#define CHURN 50
#define JIT_ADDR 0x7f0000001000ull
#define ANON_START 0x7000000000ull

struct child {
	pid_t pid;
	int release; /* closing it lets the child exit */
};

/*
 * A child that writes its perf map first when @jit, says it is ready and
 * waits to be released. Return: 0, or -1 (no child).
 */
static int child__start(struct child *c, bool jit)
{
	int ready[2], release[2];
	char b;

	if (pipe(ready) || pipe(release))
		return -1;
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		char path[64];
		FILE *f;

		close(ready[0]);
		close(release[1]);
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
		if (jit && (f = fopen(path, "w"))) {
			fprintf(f, "%llx 40 jit_churned\n", (unsigned long long)JIT_ADDR);
			fclose(f);
		}
		close(ready[1]);
		(void)!read(release[0], &b, 1);
		_exit(0);
	}
	close(ready[1]);
	close(release[0]);
	(void)!read(ready[0], &b, 1);
	close(ready[0]);
	c->release = release[1];
	return 0;
}

static void child__end(struct child *c)
{
	char path[64];

	close(c->release);
	waitpid(c->pid, NULL, 0);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", c->pid);
	unlink(path);
}

/* A process seen, gone, told exited and forgotten, as lib/session/run.c does. */
static void churn_one(struct jit_maps *jm, bool jit, bool keep)
{
	struct child c;

	CHECK_EQ_U64(child__start(&c, jit), 0);
	jit_maps__see(jm, c.pid);
	if (keep)
		jit_maps__keep(jm, c.pid);
	child__end(&c);
	jit_maps__exited(jm, c.pid);
	jit_maps__forget(jm, c.pid);
	if (jit) {
		const struct perf_map_sym *s = jit_maps__find(jm, c.pid, JIT_ADDR + 8);

		CHECK(s && !strcmp(s->name, "jit_churned")); /* kept for the late events */
	}
}

static void test_churn(void)
{
	struct jit_maps *jm = jit_maps__new();
	const struct jit_maps_stats *st;
	struct child alive;
	int i;

	CHECK(jm != NULL);
	if (!jm)
		return;
	st = jit_maps__stats(jm);
	for (i = 0; i < CHURN; i++)
		churn_one(jm, false, false);
	CHECK_EQ_U64(st->held, 0);
	CHECK_EQ_U64(st->dropped, CHURN);
	churn_one(jm, true, false); /* a map: kept */
	churn_one(jm, false, true); /* a settled stack needs it: kept */
	CHECK_EQ_U64(st->held, 2);
	CHECK_EQ_U64(st->dropped, CHURN);
	CHECK_EQ_U64(st->maps_read, 1);
	/*
	 * A lookup for a pid with no entry whose process is gone (a settled
	 * stack named after its forget): nothing to find, and nothing held.
	 */
	CHECK_EQ_U64(child__start(&alive, false), 0);
	child__end(&alive);
	CHECK(jit_maps__find(jm, alive.pid, JIT_ADDR + 8) == NULL);
	CHECK_EQ_U64(st->held, 2);
	CHECK_EQ_U64(st->dropped, CHURN + 1);
	/* Forgotten before its exit was heard: kept, as before. */
	CHECK_EQ_U64(child__start(&alive, false), 0);
	jit_maps__see(jm, alive.pid);
	jit_maps__forget(jm, alive.pid);
	CHECK_EQ_U64(st->held, 3);
	child__end(&alive);
	jit_maps__free(jm);
}

/* --- through the registry and the settle, as a profile's session goes --- */

struct settle_env {
	struct proc_registry *r;
	struct symbolizer *sym;
	struct raw_stacks *rs;
};

static void env__exited(void *ctx, int pid)
{
	struct settle_env *t = ctx;

	symbolizer__exited(t->sym, pid);
}

static void env__forgotten(void *ctx, int pid)
{
	struct settle_env *t = ctx;

	symbolizer__forget(t->sym, pid);
}

static void env__settle(void *ctx, const int *pids, size_t n)
{
	struct settle_env *t = ctx;

	CHECK_EQ_U64(raw_stacks__settle_gone(t->rs, NULL, NULL, NULL, pids, n, "test_jit_forget"),
		     0);
}

/* An event of @pid at 100 with one user frame at @addr. */
static void env__event(struct settle_env *t, int pid, uint64_t addr)
{
	struct st_event ev = { .pid = (uint32_t)pid, .tid = (uint32_t)pid, .udepth = 1, .ts = 100,
			       .weight = 1, .ustop = ST_USTOP_OUTERMOST, .comm = "churn" };

	symbolizer__see(t->sym, pid);
	CHECK_EQ_U64(raw_stacks__add(t->rs, &ev, &addr, 1), 0);
}

static void test_settle(void)
{
	enum { P = 2000000201, Q };
	struct proc_map anon = { .start = ANON_START, .end = ANON_START + 0x1000, .path = "",
				 .prot = PROC_MAP_R | PROC_MAP_X };
	struct settle_env t = { .r = procs__new() };
	struct procs_listener l = { .exited = env__exited, .forgotten = env__forgotten, .ctx = &t };
	const struct jit_maps_stats *st;
	struct report_stack **v;
	struct report *rep;
	size_t n, i;
	int pid;

	t.sym = t.r ? symbolizer__new(t.r) : NULL;
	t.rs = t.sym ? raw_stacks__new(t.sym) : NULL;
	rep = report__new(REPORT_BY_PID);
	CHECK(t.rs && rep);
	if (!t.rs || !rep)
		goto out;
	st = symbolizer__jit_stats(t.sym);
	procs__listen(t.r, &l);
	for (pid = P; pid <= Q; pid++)
		CHECK_EQ_U64(procs__set_maps(t.r, pid, 50, &anon, 1), 0);
	env__event(&t, P, ANON_START + 0x10); /* code outside a file: P's map names it */
	env__event(&t, Q, ANON_START + 0x2000); /* outside every mapping */
	CHECK_EQ_U64(st->held, 2);
	for (pid = P; pid <= Q; pid++)
		procs__exit(t.r, pid, 500);
	CHECK_EQ_U64(procs__forget_gone(t.r, 600, env__settle, &t), 0);
	CHECK_EQ_U64(procs__stats(t.r)->forgotten, 2);
	CHECK_EQ_U64(raw_stacks__settled(t.rs), 2);
	CHECK_EQ_U64(st->held, 1); /* P's */
	CHECK_EQ_U64(st->dropped, 1);
	CHECK_EQ_U64(raw_stacks__report(t.rs, t.sym, rep), 0);
	v = report__sorted(rep, &n);
	CHECK_EQ_U64(n, 2);
	CHECK_EQ_U64(st->held, 1); /* the report saw nothing anew */
	for (i = 0; i < n; i++)
		CHECK_STR(report_stack__frame(v[i], 0)->name,
			  v[i]->pid == P ? "[unknown] ([anon])" : "[unknown]");
out:
	report__free(rep);
	raw_stacks__free(t.rs);
	symbolizer__free(t.sym);
	procs__free(t.r);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_churn();
	test_settle();
	return CHECK_DONE();
}
