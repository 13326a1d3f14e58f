// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap offcpu: where tasks block and for how long, like bcc's
 * offcputime. Each switch-out (its kernel stack, its user stack deferred to
 * the return to user space) is paired with its switch-in, which brings the
 * time off the CPU; blocked time is summed per distinct (user stack, kernel
 * stack) and shown in microseconds.
 *
 * Pairing. The switch-out is an st_event whose weight is its span id; the
 * switch-in an offcpu_wake with the same (tid, span). In deferred mode the
 * event waits in the joiner for its user stack, which comes only once the
 * task runs again, so the switch-in usually arrives first; in sync mode the
 * event does. Whichever half comes first waits in a table here, bounded by
 * OFFCPU_PAIRS_MAX; halves still unpaired at exit are counted.
 */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/record.h" /* the skeleton names struct st_config */
#include "skel/offcpu.skel.h"
#include "lib/out/render.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/session/capture_maps.h"
#include "lib/session/run.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"
#include "src/commands.h"
#include "tools/offcpu/offcpu.h"

/* Halves waiting for their partner: the threads blocked at once, plus the joiner's backlog. */
#define OFFCPU_PAIRS_MAX (1u << 20)
#define OFFCPU_BUCKETS 65536 /* a power of two */
/* Kernel frames of the tracing plumbing above __schedule: the program, bpf_trace_run4. */
#define OFFCPU_KSKIP 2

struct pair {
	struct pair *next;
	uint32_t tid;
	uint64_t span;
	uint64_t delta;      /* ns; 0: the switch-in has not come */
	struct st_event *ev; /* a copy with its ips; NULL: the switch-out has not come */
};

struct offcpu {
	struct st_common_opts common;
	uint64_t min_us, max_us;
	uint32_t states; /* bits of enum offcpu_state; 0: all */
	uint32_t threads;
	bool annotate, delimiter;
	struct offcpu_bpf *skel;
	struct bpf_link *link;
	struct st_run run;
	struct raw_stacks *raw;
	struct pair *pairs[OFFCPU_BUCKETS];
	size_t npairs;
	uint64_t filtered, no_room;
	FILE *out;
	int err;
};

static const char doc[] =
	"Sum the time tasks spend off the CPU, by kernel and user stack at the switch-out.\v"
	"Times are in microseconds. DURATION is in seconds; without it, until Ctrl-C.\n"
	"STATES is a list of R (preempted), S (sleeping), D (uninterruptible), I (idle),\n"
	"T (stopped or traced); by default every switch-out counts.\n"
	"\nEXAMPLES:\n"
	"  stacktap offcpu                     # every task until Ctrl-C\n"
	"  stacktap offcpu -p 185 10           # one process, 10 seconds\n"
	"  stacktap offcpu -m 1000 --state D   # uninterruptible blocks of 1 ms or more\n"
	"  stacktap offcpu -u -f -a 5 > out.folded   # user threads, flame graph in us\n"
	"  stacktap offcpu --format flamegraph -o off.html 5   # flame graph, in us\n"
	"  stacktap offcpu --format pprof -o off.pb.gz 5       # go tool pprof\n"
	"  stacktap offcpu -k -K               # kernel threads, kernel stacks\n";

enum { OPT_STATE = 0x400 };

const struct argp_option offcpu_options[] = {
	{ NULL, 0, NULL, 0, "Selection:", 4 },
	{ "min-block-time", 'm', "US", 0, "Only blocks of at least this many us", 4 },
	{ "max-block-time", 'M', "US", 0, "Only blocks of at most this many us", 4 },
	{ "state", OPT_STATE, "STATES", 0, "Only switch-outs in these states, e.g. S,D", 4 },
	{ "user-threads-only", 'u', NULL, 0, "User threads only", 4 },
	{ "kernel-threads-only", 'k', NULL, 0, "Kernel threads only", 4 },
	{ NULL, 0, NULL, 0, "Output:", 5 },
	{ "folded", 'f', NULL, 0, "Folded output weighted by us, as flamegraph.pl reads it "
	  "(--format folded)", 5 },
	{ "annotate", 'a', NULL, 0, "With -f, mark kernel frames with a _[k] suffix", 5 },
	{ "delimited", 'd', NULL, 0, "Print '--' between kernel and user frames", 5 },
	{},
};

static int offcpu__states(const char *arg, uint32_t *out)
{
	const char *p;

	*out = 0;
	for (p = arg; *p; p++) {
		switch (*p) {
		case 'R': *out |= 1u << OFFCPU_RUNNABLE; break;
		case 'S': *out |= 1u << OFFCPU_SLEEPING; break;
		case 'D': *out |= 1u << OFFCPU_UNINTERRUPTIBLE; break;
		case 'I': *out |= 1u << OFFCPU_IDLE; break;
		case 'T': case 't': *out |= 1u << OFFCPU_STOPPED; break;
		case ',': break;
		default: return -EINVAL;
		}
	}
	return *out ? 0 : -EINVAL;
}

static error_t offcpu_parse(int key, char *arg, struct argp_state *state)
{
	struct offcpu *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT: state->child_inputs[0] = &o->common; break;
	case 'm':
	case 'M':
		if (parse_u64(arg, 0, UINT64_MAX / 1000, key == 'm' ? &o->min_us : &o->max_us))
			argp_failure(state, 2, 0, "block time '%s': want a number of us", arg);
		break;
	case OPT_STATE:
		if (offcpu__states(arg, &o->states))
			argp_failure(state, 2, 0, "states '%s': want letters of R, S, D, I, T",
				     arg);
		break;
	case 'u': o->threads = OFFCPU_USER_THREADS; break;
	case 'k': o->threads = OFFCPU_KERNEL_THREADS; break;
	case 'f': o->common.format_name = "folded"; break;
	case 'a': o->annotate = true; break;
	case 'd': o->delimiter = true; break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			argp_failure(state, 2, 0, "unexpected argument '%s'", arg);
		else if (parse_seconds(arg, &o->common.duration_ns) || !o->common.duration_ns)
			argp_failure(state, 2, 0, "duration '%s': want a positive number of seconds",
				     arg);
		break;
	case ARGP_KEY_END:
		if (o->max_us && o->min_us > o->max_us)
			argp_failure(state, 2, 0, "-m %llu is above -M %llu",
				     (unsigned long long)o->min_us, (unsigned long long)o->max_us);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static size_t offcpu__bucket(uint32_t tid, uint64_t span)
{
	return (size_t)(((span ^ ((uint64_t)tid << 40)) * 0x9e3779b97f4a7c15ull) >> 48) &
	       (OFFCPU_BUCKETS - 1);
}

/* The waiting half of (tid, span), created when @create; NULL when full or absent. */
static struct pair *offcpu__pair(struct offcpu *o, uint32_t tid, uint64_t span, bool create)
{
	struct pair **pp = &o->pairs[offcpu__bucket(tid, span)], *p;

	for (p = *pp; p; p = p->next)
		if (p->tid == tid && p->span == span)
			return p;
	if (!create)
		return NULL;
	if (o->npairs >= OFFCPU_PAIRS_MAX) {
		o->no_room++;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->tid = tid;
	p->span = span;
	p->next = *pp;
	*pp = p;
	o->npairs++;
	return p;
}

static void offcpu__unlink(struct offcpu *o, struct pair *p)
{
	struct pair **pp = &o->pairs[offcpu__bucket(p->tid, p->span)];

	while (*pp != p)
		pp = &(*pp)->next;
	*pp = p->next;
	o->npairs--;
	free(p->ev);
	free(p);
}

/* Both halves are here: count the block if it passes -m/-M. */
static int offcpu__account(struct offcpu *o, const struct st_event *ev, const uint64_t *ips,
			   uint64_t delta)
{
	uint64_t us = delta / 1000;

	if (us < o->min_us || (o->max_us && us > o->max_us)) {
		o->filtered++;
		return 0;
	}
	return raw_stacks__add(o->raw, ev, ips, delta);
}

static int offcpu_on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct offcpu *o = ctx;
	size_t n = ev->kdepth + ev->udepth;
	struct pair *p = offcpu__pair(o, ev->tid, ev->weight, true);

	if (!p)
		return 0;
	if (p->delta) {
		o->err = offcpu__account(o, ev, ips, p->delta);
		offcpu__unlink(o, p);
		return o->err ? 1 : 0;
	}
	p->ev = malloc(sizeof(*ev) + n * 8);
	if (!p->ev) {
		o->err = -ENOMEM;
		return 1;
	}
	memcpy(p->ev, ev, sizeof(*ev));
	memcpy(p->ev + 1, ips, n * 8);
	return 0;
}

static int offcpu_on_record(void *ctx, const void *data, size_t size)
{
	struct offcpu *o = ctx;
	const struct offcpu_wake *w = data;
	struct pair *p;

	if (size < sizeof(*w) || w->kind != OFFCPU_REC_WAKE)
		return 0;
	p = offcpu__pair(o, w->tid, w->span, true);
	if (!p)
		return 0;
	if (p->ev) {
		o->err = offcpu__account(o, p->ev, (const uint64_t *)(p->ev + 1), w->delta);
		offcpu__unlink(o, p);
		return o->err ? 1 : 0;
	}
	p->delta = w->delta ? w->delta : 1;
	return 0;
}

static void offcpu__drop_unpaired(struct offcpu *o)
{
	size_t b;

	for (b = 0; b < OFFCPU_BUCKETS; b++)
		while (o->pairs[b])
			offcpu__unlink(o, o->pairs[b]);
}

static void offcpu_print(struct offcpu *o)
{
	struct report *r = report__new(o->common.addrs ? REPORT_ADDRS : 0);
	struct report_info info = { .value = REPORT_OFFCPU, .event = "sched_switch" };
	/* Blocked time is kept in ns and shown in us where a writer shows numbers to people. */
	struct out_opts oo = {
		.text = { .delimiter = o->delimiter, .unit = "us", .weight_div = 1000,
			  .label.addrs = o->common.addrs },
		.folded = { .annotate = o->annotate, .weight = true, .weight_div = 1000 },
		.pprof = { .comment = "stacktap offcpu", .duration_ns = o->common.duration_ns },
		.speedscope = { .name = "stacktap offcpu", .weight = true },
		.flamegraph = { .title = "stacktap offcpu", .weight = true, .weight_div = 1000,
				.unit = "us" },
	};
	int err;

	if (!r || report__set_info(r, &info) || raw_stacks__report(o->raw, o->run.sym, r)) {
		st_err("offcpu: out of memory while building the report");
		o->err = -ENOMEM;
	} else if ((err = out_render(o->out, o->common.output, r, o->common.format, &oo))) {
		st_err("offcpu: %s: %s", o->common.output ? o->common.output : "stdout",
		       strerror(-err));
		o->err = err;
	}
	report__free(r);
}

/*
 * Halves left unpaired at exit are not losses: tasks still off the CPU, or a
 * switch-in after the stop whose switch-out the drain no longer wanted (a
 * record the ring buffer lost is counted there).
 */
static void offcpu_report(const struct offcpu *o)
{
	if (o->no_room)
		fprintf(stderr, "stacktap: %llu blocks lost: pairing table full\n",
			(unsigned long long)o->no_room);
}

static int offcpu__load(struct offcpu *o)
{
	struct st_config cfg;
	int err;

	o->skel = offcpu_bpf__open();
	if (!o->skel) {
		err = -errno;
		st_err("offcpu: cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	st_common_opts__config(&o->common, &cfg);
	cfg.kskip = OFFCPU_KSKIP;
	o->skel->rodata->st_cfg = cfg;
	o->skel->rodata->offcpu_states = o->states;
	o->skel->rodata->offcpu_threads = o->threads;
	err = capture_maps_size(o->skel->obj, &o->common);
	if (!err)
		err = offcpu_bpf__load(o->skel);
	if (err)
		st_err("offcpu: cannot load the BPF programs: %s%s", strerror(-err),
		       err == -EPERM ? " (run as root)" : "");
	return err;
}

static int offcpu_run(struct offcpu *o)
{
	struct session_opts so = {
		.duration_ns = o->common.duration_ns,
		.target_pid = o->common.pid ? o->common.pid : o->common.tid,
		.on_event = offcpu_on_event,
		.on_record = offcpu_on_record,
		.ctx = o,
	};
	int err;

	if (st_run__prepare(&o->common))
		return 1;
	o->out = st_common_opts__open_output(&o->common);
	if (!o->out)
		return 1;
	/* A report replays a recording: nothing to load or attach. */
	err = st_run_replaying() ? 0 : offcpu__load(o);
	if (!err)
		err = st_run__start(&o->run, o->skel ? o->skel->obj : NULL, &o->common, &so);
	if (!err && !(o->raw = raw_stacks__new(o->run.sym)))
		err = -ENOMEM;
	if (err)
		return 1;
	if (!st_run_replaying()) {
		o->link = bpf_program__attach(o->skel->progs.st_offcpu_switch);
		if (!o->link) {
			st_err("offcpu: cannot attach to sched_switch: %s", strerror(errno));
			return 1;
		}
		fprintf(stderr, "Tracing off-CPU time (us)... Hit Ctrl-C to end.\n");
	}
	session_install_signals();
	err = session__run(o->run.session);
	bpf_link__destroy(o->link);
	o->link = NULL;
	offcpu__drop_unpaired(o);
	offcpu_print(o);
	st_run__report(&o->run);
	offcpu_report(o);
	return err || o->err ? 1 : 0;
}

int offcpu_main(int argc, char **argv)
{
	const struct argp_child children[] = { { st_common_argp_for(0), 0, NULL, 0 }, {} };
	const struct argp argp = { offcpu_options, offcpu_parse, "[DURATION]", doc,
					  children, NULL, NULL };
	struct offcpu *o = calloc(1, sizeof(*o));
	int ret;

	if (!o)
		return 1;
	st_common_opts__init(&o->common, 0);
	o->common.formats = OUT_FMTS_STACKS;
	ret = argp_parse(&argp, argc, argv, 0, NULL, o);
	if (!ret)
		ret = offcpu_run(o);
	else
		ret = 2;
	bpf_link__destroy(o->link);
	offcpu__drop_unpaired(o);
	st_run__stop(&o->run);
	offcpu_bpf__destroy(o->skel);
	raw_stacks__free(o->raw);
	if (o->out && o->out != stdout)
		fclose(o->out);
	free(o);
	return ret;
}
