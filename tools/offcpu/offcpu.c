// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap offcpu: where tasks block and for how long, like bcc's
 * offcputime. Each switch-out's stacks (its kernel stack, its user stack
 * deferred to the return to user space) are kept in the kernel until the
 * switch-in, which makes the time off the CPU the record's weight
 * (tools/offcpu/offcpu.bpf.c): one record per block, joined to its user
 * stack by the session's one joiner, or counted in the kernel when it needs
 * no join (bpf/aggregate.bpf.h, read at exit). Blocked time is summed per
 * distinct (user stack, kernel stack) and shown in microseconds.
 */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/aggregate.h" /* the skeleton names struct st_agg_config */
#include "bpf/record.h" /* the skeleton names struct st_config */
#include "skel/offcpu.skel.h"
#include "skel/offcpu.tw4.skel.h"
#include "skel/offcpu.compat.skel.h"
#include "lib/out/render.h"
#include "lib/session/features.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/pipeline/tool_report.h"
#include "lib/session/aggregate.h"
#include "lib/session/capture_maps.h"
#include "lib/session/run.h"
#include "lib/session/skel_open.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"
#include "src/commands.h"
#include "tools/offcpu/offcpu.h"

/* Kernel frames of the tracing plumbing above __schedule: the program, bpf_trace_run4. */
#define OFFCPU_KSKIP 2

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
	struct agg_reader *agg;
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
	"  stacktap offcpu --cgroup /sys/fs/cgroup/a.slice 10   # one cgroup, 10 s\n"
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

/* A block: the time off the CPU is the event's weight (-m/-M applied in BPF). */
static int offcpu_on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct offcpu *o = ctx;

	o->err = raw_stacks__add(o->raw, ev, ips, ev->weight);
	return o->err ? 1 : 0;
}

/* Blocks the kernel counted: @count of them, @weight ns in all. */
static int offcpu_on_agg(void *ctx, const struct st_event *ev, const uint64_t *ips,
			 uint64_t count, uint64_t weight)
{
	struct offcpu *o = ctx;

	return raw_stacks__merge(o->raw, ev, ips, count, weight);
}

/* Exited processes about to be forgotten: their kernel counts in, then their stacks resolved. */
static void offcpu_on_gone(void *ctx, const int *pids, size_t n)
{
	struct offcpu *o = ctx;

	if (o->raw && !o->err) /* not started yet: nothing held */
		o->err = raw_stacks__settle_gone(o->raw, o->agg, offcpu_on_agg, o, pids, n, "offcpu");
}

static void offcpu_print(struct offcpu *o)
{
	struct report_info info = { .value = REPORT_OFFCPU, .event = "sched_switch" };
	/* Blocked time is kept in ns and shown in us where a writer shows numbers to people. */
	struct out_opts oo = {
		.text = { .delimiter = o->delimiter, .unit = "us", .weight_div = 1000,
			  .label.addrs = o->common.addrs, .label.lines = o->common.lines },
		.folded = { .annotate = o->annotate, .weight = true, .weight_div = 1000,
			    .lines = o->common.lines },
		.pprof = { .comment = "stacktap offcpu", .duration_ns = o->common.duration_ns },
		.speedscope = { .name = "stacktap offcpu", .weight = true },
		.flamegraph = { .title = "stacktap offcpu", .weight = true, .weight_div = 1000,
				.unit = "us" },
	};
	struct tool_report tr = {
		.tool = "offcpu", .raw = o->raw, .agg = o->agg, .on_agg = offcpu_on_agg, .ctx = o,
		.sym = o->run.sym, .info = &info, .oo = &oo,
		.report_flags = st_common_opts__report_flags(&o->common),
		.out = o->out, .output = o->common.output, .format = o->common.format,
	};
	int err = tool_report__print(&tr);

	if (err)
		o->err = err;
}

/* Blocks in task storage where the kernel has it, else in the hash: one map created. */
static int offcpu__choose_blocks(struct offcpu *o)
{
	/* The compat build has no BTF task pointer to key task storage by (bpf/compat.bpf.h). */
	bool by_task = feature_task_storage(NULL, 0) && !feature_compat(NULL, 0);
	int err;

	o->skel->rodata->offcpu_by_task = by_task;
	err = bpf_map__set_autocreate(o->skel->maps.offcpu_blocks, by_task);
	if (!err)
		err = bpf_map__set_autocreate(o->skel->maps.offcpu_start, !by_task);
	if (err)
		st_err("offcpu: cannot choose the blocks' map: %s", strerror(-err));
	return err;
}

static int offcpu__load(struct offcpu *o)
{
	struct st_config cfg;
	int err;

	o->skel = ST_SKEL_OPEN(offcpu_bpf);
	if (!o->skel) {
		err = -errno;
		st_err("offcpu: cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	o->common.progs = FEATURE_PROG_BIT(FEATURE_PROG_TP_BTF);
	st_common_opts__config(&o->common, &cfg);
	cfg.kskip = OFFCPU_KSKIP;
	/* A switch-out is kept until its switch-in: a stack copy does not fit in the block. */
	cfg.copy_fallback = 0;
	/*
	 * Unless --user-stacks=deferred asks for every entry's walk on the way
	 * back: walked at the switch-out, deferred only past a page not present
	 * (docs/deferred.md, "What it costs").
	 */
	cfg.defer_faults = o->common.user_stacks == CLI_USTACKS_AUTO;
	o->skel->rodata->st_cfg = cfg;
	/* Not when recording: a recording holds every block as a record. */
	o->skel->rodata->st_agg_cfg = (struct st_agg_config){ .on = st_run_aggregates(),
							      .hash_mask = ~0ull };
	err = offcpu__choose_blocks(o);
	if (err)
		return err;
	o->skel->rodata->offcpu_states = o->states;
	o->skel->rodata->offcpu_threads = o->threads;
	o->skel->rodata->offcpu_min_ns = o->min_us * 1000;
	o->skel->rodata->offcpu_max_ns = o->max_us ? o->max_us * 1000 : ~0ull;
	err = capture_maps_size(o->skel->obj, &o->common);
	if (!err)
		err = offcpu_bpf__load(o->skel);
	if (err)
		st_load_failed("offcpu", err);
	return err;
}

static int offcpu_run(struct offcpu *o)
{
	struct session_opts so = {
		.duration_ns = o->common.duration_ns,
		.target_pid = o->common.pid ? o->common.pid : o->common.tid,
		.on_event = offcpu_on_event,
		.on_gone = offcpu_on_gone,
		.ctx = o,
		.no_copies = true, /* cfg.copy_fallback = 0 in offcpu__load() */
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
	if (!err)
		raw_stacks__fold_for(o->raw, st_common_opts__report_flags(&o->common));
	if (!err && st_run_aggregates() && !(o->agg = agg_reader__new(o->skel->obj, o->run.session)))
		err = -errno;
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
	err = session__run(o->run.session);
	bpf_link__destroy(o->link);
	o->link = NULL;
	offcpu_print(o);
	st_run__report(&o->run);
	agg_reader__report(o->agg, o->run.session, "offcpu",
			   o->common.addrs || o->common.debug);
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
	agg_reader__free(o->agg);
	st_run__stop(&o->run);
	offcpu_bpf__destroy(o->skel);
	raw_stacks__free(o->raw);
	if (o->out && o->out != stdout)
		fclose(o->out);
	free(o);
	return ret;
}
