// SPDX-License-Identifier: GPL-2.0
/*
 * The report model of the writers' golden tests, built by hand (no BPF, no
 * symbolizer), rendered in one format to stdout (or a directory for CTF):
 *
 *   out_model report FORMAT [events|samples|offcpu]   merged stacks (count, profile, offcpu)
 *   out_model events FORMAT [DIR]                      one event per stack (snoop): json,
 *                                                      perf-script, ctf (into DIR)
 *   out_model diff                                     the diff flame graph, BEFORE -> AFTER
 *   out_model narrow                                   a flame graph with frames too narrow to see
 *
 * The model has every frame kind: kernel frames of vmlinux and of a module,
 * user frames with build IDs, file offsets and lines, a frame inlined into
 * the one after it, an unknown user frame, and marks ([truncated], a lost
 * user stack). tests/scripts/test_out_golden.sh compares the output with
 * tests/golden/ and feeds it to the real readers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out/json.h"
#include "lib/out/render.h"
#include "lib/report/report.h"

#define BID_CHAIN "4f1e2d3c4b5a69788796a5b4c3d2e1f001122334"
#define BID_LIBC "8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b"
#define CHAIN "/usr/bin/chain"
#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"

#define KFRAME(n, a, off) \
	{ .name = n, .addr = a, .sym_off = off, .kind = REPORT_FRAME_KERNEL, .flags = REPORT_FRAME_HAS_SYM }
#define KMOD(n, m, a, off) \
	{ .name = n, .module = m, .addr = a, .sym_off = off, .kind = REPORT_FRAME_KERNEL, \
	  .flags = REPORT_FRAME_HAS_SYM }
#define UFRAME(n, file, bid, a, foff, soff, src, ln) \
	{ .name = n, .module = file, .build_id = bid, .addr = a, .file_off = foff, .sym_off = soff, \
	  .src_file = src, .line = ln, .kind = REPORT_FRAME_USER, \
	  .flags = REPORT_FRAME_HAS_SYM | REPORT_FRAME_HAS_OFF }
#define INLINE(n, src, ln) \
	{ .name = n, .src_file = src, .line = ln, .kind = REPORT_FRAME_INLINE }
#define MARK(n) { .name = n, .kind = REPORT_FRAME_MARK }

/* A syscall from leaf, whose helper was inlined into it; the user walk was cut short. */
static const struct report_frame stack_a[] = {
	KFRAME("perf_syscall_enter", 0xffffffff8123456cull, 0x2c),
	KMOD("nft_do_chain", "nf_tables", 0xffffffffc0a01010ull, 0x10),
	KFRAME("do_syscall_64", 0xffffffff81e01234ull, 0x74),
	KFRAME("entry_SYSCALL_64_after_hwframe", 0xffffffff82000076ull, 0x76),
	INLINE("leaf_helper", "chain.c", 12),
	UFRAME("leaf", CHAIN, BID_CHAIN, 0x555555555208ull, 0x1208, 0x1f, "chain.c", 20),
	UFRAME("c", CHAIN, BID_CHAIN, 0x555555555239ull, 0x1239, 0x9, "chain.c", 25),
	UFRAME("b", CHAIN, BID_CHAIN, 0x555555555256ull, 0x1256, 0x9, "chain.c", 26),
	UFRAME("a", CHAIN, BID_CHAIN, 0x555555555273ull, 0x1273, 0x9, "chain.c", 27),
	UFRAME("main", CHAIN, BID_CHAIN, 0x555555555396ull, 0x1396, 0x10f, "chain.c", 40),
	MARK("[truncated]"),
};

/* The same chain from user space only, through a library frame without a symbol. */
static const struct report_frame stack_b[] = {
	{ .name = "[unknown] 0x7ffff7e01234 (" LIBC ")", .module = LIBC, .build_id = BID_LIBC,
	  .addr = 0x7ffff7e01234ull, .file_off = 0x29234, .kind = REPORT_FRAME_USER,
	  .flags = REPORT_FRAME_HAS_OFF },
	UFRAME("leaf", CHAIN, BID_CHAIN, 0x555555555208ull, 0x1208, 0x1f, "chain.c", 20),
	UFRAME("c", CHAIN, BID_CHAIN, 0x555555555239ull, 0x1239, 0x9, "chain.c", 25),
	UFRAME("b", CHAIN, BID_CHAIN, 0x555555555256ull, 0x1256, 0x9, "chain.c", 26),
	UFRAME("a", CHAIN, BID_CHAIN, 0x555555555273ull, 0x1273, 0x9, "chain.c", 27),
	UFRAME("main", CHAIN, BID_CHAIN, 0x555555555396ull, 0x1396, 0x10f, "chain.c", 40),
	UFRAME("__libc_start_call_main", LIBC, BID_LIBC, 0x7ffff7dd924aull, 0x2724a, 0x7a, NULL, 0),
};

/* Another process: a kernel stack whose user stack was lost. */
static const struct report_frame stack_c[] = {
	KFRAME("__schedule", 0xffffffff81f00100ull, 0x100),
	KFRAME("schedule", 0xffffffff81f00200ull, 0x40),
	MARK("[user stack lost: task_work busy]"),
};

struct model_stack {
	const struct report_frame *frames;
	size_t nk, nu;
	int pid, tid, cpu;
	const char *comm;
	uint64_t count, ts;
	uint64_t ns; /* off-CPU time of the whole stack */
};

static const struct model_stack model[] = {
	{ stack_a, 4, 7, 4242, 4243, 1, "chain", 5, 1000000000123000ull, 5123456 },
	{ stack_b, 0, 7, 4242, 4242, 0, "chain", 3, 1000000000456000ull, 3000001 },
	{ stack_c, 2, 1, 77, 77, 1, "kworker/1:0", 2, 1000000001000000ull, 2500 },
};

#define MODEL_N (sizeof(model) / sizeof(model[0]))
#define PERIOD_NS 10101010ull /* 99 Hz */

static struct report *model_report(enum report_value value, double scale)
{
	struct report *r = report__new(REPORT_BY_PID | REPORT_LINES);
	struct report_info info = { .value = value, .event = "t:syscalls:sys_enter_getppid" };
	size_t i;

	if (value == REPORT_SAMPLES) {
		info.period_ns = PERIOD_NS;
		info.event = "cpu-clock";
	} else if (value == REPORT_OFFCPU) {
		info.event = "sched_switch";
	}
	if (!r || report__set_info(r, &info))
		exit(1);
	for (i = 0; i < MODEL_N; i++) {
		const struct model_stack *m = &model[i];
		uint64_t count = (uint64_t)(m->count * scale + 0.5);
		uint64_t weight = value == REPORT_SAMPLES ? count * PERIOD_NS :
				  value == REPORT_OFFCPU ? m->ns : count;

		if (count && report__add(r, m->pid, m->comm, m->frames, m->nk, m->nu, count, weight, 0))
			exit(1);
	}
	return r;
}

static struct report_stack model_event(const struct model_stack *m)
{
	struct report_stack s = {
		.pid = m->pid, .tid = m->tid, .cpu = m->cpu, .ts = m->ts, .nk = m->nk, .nu = m->nu,
		.frames = &m->frames, .count = 1, .weight = 1,
	};

	snprintf(s.comm, sizeof(s.comm), "%s", m->comm);
	return s;
}

static const char *const probes[] = { "t:syscalls:sys_enter_getppid" };

static int model_events(const char *fmt, const char *dir)
{
	struct ctf_opts co = { .events = probes, .nevents = 1 };
	struct frame_label_opts lo = {};
	struct ctf_writer *w = NULL;
	size_t i;
	int err = 0;

	if (!strcmp(fmt, "ctf") && !(w = ctf_writer__new(dir, &co)))
		return 1;
	for (i = 0; i < MODEL_N && !err; i++) {
		struct report_stack s = model_event(&model[i]);

		if (w)
			err = ctf_writer__event(w, 0, &s);
		else if (!strcmp(fmt, "json"))
			out_json_event(stdout, (s.ts - model[0].ts) / 1e9, probes[0], &s, &lo);
		else
			out_perf_script_record(stdout, &s, 1, probes[0]);
	}
	return ctf_writer__close(w) || err ? 1 : 0;
}

static enum report_value model_value(const char *s)
{
	return !s || !strcmp(s, "events") ? REPORT_EVENTS :
	       !strcmp(s, "samples") ? REPORT_SAMPLES : REPORT_OFFCPU;
}

static int model_render(const char *name, enum report_value value)
{
	struct out_opts o = {
		.text.label.lines = true, .folded.annotate = true,
		.speedscope.name = "model", .speedscope.weight = value != REPORT_EVENTS,
		.flamegraph.title = "model",
	};
	enum out_format fmt;
	struct report *r = model_report(value, 1);
	char err[256];
	int ret;

	if (out_format_parse(name, OUT_FMTS_STACKS, &fmt, err, sizeof(err))) {
		fprintf(stderr, "out_model: %s\n", err);
		return 2;
	}
	if (value == REPORT_OFFCPU) {
		o.text.unit = "us";
		o.text.weight_div = o.folded.weight_div = o.flamegraph.weight_div = 1000;
		o.folded.weight = o.flamegraph.weight = true;
	}
	ret = out_render(stdout, NULL, r, fmt, &o) ? 1 : 0;
	report__free(r);
	return ret;
}

/* One hot path and three frames of 1 in 10003 each: too narrow to draw, merged into one. */
static int model_narrow(void)
{
	static const char *const names[] = { "hot", "cold1", "cold2", "cold3" };
	struct report *r = report__new(REPORT_BY_PID);
	struct flamegraph_opts fo = { .title = "narrow" };
	size_t i;
	int ret;

	for (i = 0; r && i < 4; i++) {
		struct report_frame fr[] = {
			UFRAME(names[i], "/usr/bin/app", NULL, 0x401000 + 16 * i, 0x1000 + 16 * i, 0, NULL, 0),
			UFRAME("main", "/usr/bin/app", NULL, 0x401100, 0x1100, 0x10, NULL, 0),
		};

		if (report__add(r, 1, "app", fr, 0, 2, i ? 1 : 10000, i ? 1 : 10000, 0))
			return 1;
	}
	ret = r && !out_flamegraph(stdout, r, &fo) ? 0 : 1;
	report__free(r);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "report"))
		return model_render(argv[2], model_value(argc > 3 ? argv[3] : NULL));
	if (argc >= 3 && !strcmp(argv[1], "events"))
		return model_events(argv[2], argc > 3 ? argv[3] : ".");
	if (argc == 2 && !strcmp(argv[1], "narrow"))
		return model_narrow();
	if (argc == 2 && !strcmp(argv[1], "diff")) {
		/* BEFORE: chain's syscall path was 2.5 times as frequent, the rest the same. */
		struct report *after = model_report(REPORT_EVENTS, 1);
		struct report *before = report__new(REPORT_BY_PID | REPORT_LINES);
		struct flamegraph_opts fo = { .title = "model diff" };
		size_t i;
		int ret;

		for (i = 0; before && i < MODEL_N; i++)
			report__add(before, model[i].pid, model[i].comm, model[i].frames, model[i].nk,
				    model[i].nu, i == 0 ? 2 * model[i].count : model[i].count,
				    model[i].count, 0);
		ret = out_flamegraph_diff(stdout, before, after, &fo) ? 1 : 0;
		report__free(before);
		report__free(after);
		return ret;
	}
	fprintf(stderr, "usage: out_model report FORMAT [events|samples|offcpu] | "
			"events json|perf-script|ctf [DIR] | diff | narrow\n");
	return 2;
}
