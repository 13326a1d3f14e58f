// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap profile: sample on-CPU stacks at a fixed frequency with perf
 * cpu-clock events, like bcc's profile. Samples are counted per distinct
 * stack exactly, in the kernel where the user stack needs no join
 * (bpf/aggregate.bpf.h: kernel threads, -K, --user-stacks=sync), else in
 * lib/pipeline/raw_stacks.h, and printed as count prints them.
 */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <linux/perf_event.h>

#include "bpf/aggregate.h" /* the skeleton names struct st_agg_config */
#include "bpf/record.h" /* the skeleton names struct st_config */
#include "skel/profile.skel.h"
#include "skel/profile.tw4.skel.h"
#include "skel/profile.compat.skel.h"
#include "lib/out/render.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/pipeline/tool_report.h"
#include "lib/session/aggregate.h"
#include "lib/session/capture_maps.h"
#include "lib/session/run.h"
#include "lib/session/skel_open.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"
#include "src/commands.h"

#define PROFILE_HZ_DEFAULT 49
#define PROFILE_HZ_MAX 100000 /* the kernel caps it at perf_event_max_sample_rate anyway */

struct profile {
	struct st_common_opts common;
	uint64_t hz;
	bool idle, annotate, delimiter, per_pid;
	struct profile_bpf *skel;
	struct bpf_link **links;
	int nlinks;
	struct st_run run;
	struct raw_stacks *raw;
	struct agg_reader *agg;
	FILE *out;
	int err;
};

static const char doc[] =
	"Sample on-CPU kernel and user stacks at a fixed frequency.\v"
	"DURATION is in seconds (fractions allowed); without it, until Ctrl-C.\n"
	"\nWith -P the stacks of each process are counted apart: text output shows a\n"
	"'comm [PID]' line, folded output starts with comm-PID (as stackcollapse-perf.pl\n"
	"--pid writes it), so two processes of one name stay apart.\n"
	"\nEXAMPLES:\n"
	"  stacktap profile                    # all CPUs at 49 Hz until Ctrl-C\n"
	"  stacktap profile -F 99 10           # 99 Hz for 10 seconds\n"
	"  stacktap profile -p 185 -f 5 > out.folded   # one process, flame graph\n"
	"  stacktap profile -P -f 5 > out.folded       # every process apart\n"
	"  stacktap profile --lines -p 185 5   # with file:line of frames\n"
	"  stacktap profile --fast-start -p 185 5   # attach now, unwind tables after\n"
	"  stacktap profile --no-table-cache -p 185 5   # tables built, not cached\n"
	"  stacktap profile --format flamegraph -o cpu.html 10   # flame graph page\n"
	"  stacktap profile --format pprof -o cpu.pb.gz 10       # go tool pprof\n"
	"  stacktap profile --format speedscope -o cpu.json 10   # for speedscope\n"
	"  stacktap profile -C 1 -K -I         # CPU 1, kernel stacks, idle too\n"
	"  stacktap profile --cgroup /sys/fs/cgroup/system.slice 5\n"
	"  stacktap profile --user-stacks=sync -F 999  # user stacks at the sample\n";


const struct argp_option profile_options[] = {
	{ NULL, 0, NULL, 0, "Sampling:", 4 },
	{ "frequency", 'F', "HZ", 0, "Samples per second on each CPU (default 49)", 4 },
	{ "include-idle", 'I', NULL, 0, "Keep samples of the idle tasks", 4 },
	{ NULL, 0, NULL, 0, "Output:", 5 },
	{ "folded", 'f', NULL, 0, "Folded output, as flamegraph.pl reads it (--format folded)", 5 },
	{ "annotate", 'a', NULL, 0, "With -f, mark kernel frames with a _[k] suffix", 5 },
	{ "delimited", 'd', NULL, 0, "Print '--' between kernel and user frames", 5 },
	{ "perpid", 'P', NULL, 0, "Count stacks per process: 'comm [PID]', or comm-PID with -f", 5 },
	{},
};

static error_t profile_parse(int key, char *arg, struct argp_state *state)
{
	struct profile *p = state->input;

	switch (key) {
	case ARGP_KEY_INIT: state->child_inputs[0] = &p->common; break;
	case 'F':
		if (parse_u64(arg, 1, PROFILE_HZ_MAX, &p->hz))
			argp_failure(state, 2, 0, "frequency '%s': want 1-%d", arg, PROFILE_HZ_MAX);
		break;
	case 'I': p->idle = true; break;
	case 'f': p->common.format_name = "folded"; break;
	case 'a': p->annotate = true; break;
	case 'd': p->delimiter = true; break;
	case 'P': p->per_pid = true; break;
	case ARGP_KEY_ARG:
		if (state->arg_num > 0)
			argp_failure(state, 2, 0, "unexpected argument '%s'", arg);
		else if (parse_seconds(arg, &p->common.duration_ns) || !p->common.duration_ns)
			argp_failure(state, 2, 0, "duration '%s': want a positive number of seconds",
				     arg);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int profile__load(struct profile *p)
{
	struct st_config cfg;
	int err;

	p->skel = ST_SKEL_OPEN(profile_bpf);
	if (!p->skel) {
		err = -errno;
		st_err("profile: cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	p->common.progs = FEATURE_PROG_BIT(FEATURE_PROG_PERF_EVENT);
	st_common_opts__config(&p->common, &cfg);
	p->skel->rodata->st_cfg = cfg;
	/* Samples whose user stack needs no join are counted in the kernel (not when recording). */
	p->skel->rodata->st_agg_cfg = (struct st_agg_config){ .on = st_run_aggregates(),
							      .hash_mask = ~0ull };
	p->skel->rodata->profile_idle = p->idle;
	p->common.event_hz = p->hz; /* the ring buffer sized to the sampling rate */
	err = capture_maps_size(p->skel->obj, &p->common);
	if (!err)
		err = profile_bpf__load(p->skel);
	if (err)
		st_load_failed("profile", err);
	return err;
}

/* One cpu-clock sampling event on @cpu with the sample program attached. */
static int profile__attach_cpu(struct profile *p, int cpu)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.freq = 1,
		.sample_freq = p->hz,
	};
	struct bpf_link *link;
	int fd, err;

	fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno == ENODEV ? 0 : -errno; /* ENODEV: an offline CPU */
	link = bpf_program__attach_perf_event(p->skel->progs.st_profile_sample, fd);
	if (!link) {
		err = -errno;
		close(fd);
		return err;
	}
	p->links[p->nlinks++] = link;
	return 0;
}

static int profile__attach(struct profile *p)
{
	int ncpus = libbpf_num_possible_cpus(), cpu, err = 0;

	if (ncpus <= 0)
		return -EINVAL;
	p->links = calloc(ncpus, sizeof(*p->links));
	if (!p->links)
		return -ENOMEM;
	for (cpu = 0; cpu < ncpus && !err; cpu++)
		if (p->common.cpu < 0 || cpu == p->common.cpu)
			err = profile__attach_cpu(p, cpu);
	if (!err && !p->nlinks)
		err = -ENODEV;
	if (err)
		st_err("profile: cannot open the cpu-clock events: %s", strerror(-err));
	return err;
}

static int profile_on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct profile *p = ctx;

	p->err = raw_stacks__add(p->raw, ev, ips, 1000000000ull / p->hz);
	return p->err ? 1 : 0;
}

/* Samples the kernel counted (bpf/aggregate.bpf.h): @count periods at once. */
static int profile_on_agg(void *ctx, const struct st_event *ev, const uint64_t *ips,
			  uint64_t count, uint64_t weight)
{
	struct profile *p = ctx;

	(void)weight; /* 1 a sample: the period is known here */
	return raw_stacks__merge(p->raw, ev, ips, count, count * (1000000000ull / p->hz));
}

/*
 * Exited processes the registry is about to forget: their counts the
 * kernel holds come in first, then their stacks are resolved while their
 * mappings are known.
 */
static void profile_on_gone(void *ctx, const int *pids, size_t n)
{
	struct profile *p = ctx;

	if (p->raw && !p->err) /* not started yet: nothing held */
		p->err = raw_stacks__settle_gone(p->raw, p->agg, profile_on_agg, p, pids, n, "profile");
}

/* How the report tells stacks apart: the raw stacks fold by it too (raw_stacks__fold_for()). */
static unsigned profile_report_flags(const struct profile *p)
{
	return (p->per_pid ? REPORT_BY_PID : 0) | st_common_opts__report_flags(&p->common);
}

static void profile_print(struct profile *p)
{
	struct report_info info = {
		.value = REPORT_SAMPLES, .period_ns = 1000000000ull / p->hz, .event = "cpu-clock",
	};
	struct out_opts oo = {
		.text = { .delimiter = p->delimiter, .per_pid = p->per_pid,
			  .label.addrs = p->common.addrs, .label.lines = p->common.lines },
		.folded = { .annotate = p->annotate, .lines = p->common.lines, .per_pid = p->per_pid },
		.pprof = { .comment = "stacktap profile", .duration_ns = p->common.duration_ns },
		.speedscope = { .name = "stacktap profile", .weight = true },
		.flamegraph.title = "stacktap profile",
	};
	struct tool_report tr = {
		.tool = "profile", .raw = p->raw, .agg = p->agg, .on_agg = profile_on_agg, .ctx = p,
		.sym = p->run.sym, .info = &info, .oo = &oo,
		.report_flags = profile_report_flags(p),
		.out = p->out, .output = p->common.output, .format = p->common.format,
	};
	int err = tool_report__print(&tr);

	if (err)
		p->err = err;
}

/* The run is over: the counts the kernel holds stop growing before they are read. */
static void profile__detach(struct profile *p)
{
	int i;

	for (i = 0; i < p->nlinks; i++)
		bpf_link__destroy(p->links[i]);
	p->nlinks = 0;
}

static int profile_run(struct profile *p)
{
	struct session_opts so = {
		.duration_ns = p->common.duration_ns,
		.target_pid = p->common.pid ? p->common.pid : p->common.tid,
		.on_event = profile_on_event,
		.on_gone = profile_on_gone,
		.ctx = p,
		.tables_when_met = true,
	};
	int err;

	if (st_run__prepare(&p->common))
		return 1;
	p->out = st_common_opts__open_output(&p->common);
	if (!p->out)
		return 1;
	/* A report replays a recording: nothing to load or attach. */
	err = st_run_replaying() ? 0 : profile__load(p);
	if (!err)
		err = st_run__start(&p->run, p->skel ? p->skel->obj : NULL, &p->common, &so);
	if (!err && !(p->raw = raw_stacks__new(p->run.sym)))
		err = -ENOMEM;
	if (!err)
		raw_stacks__fold_for(p->raw, profile_report_flags(p));
	if (!err && st_run_aggregates() && !(p->agg = agg_reader__new(p->skel->obj, p->run.session)))
		err = -errno;
	if (!err && !st_run_replaying())
		err = profile__attach(p);
	if (err)
		return 1;
	if (!st_run_replaying())
		fprintf(stderr, "Sampling at %llu Hz on %d %s... Hit Ctrl-C to end.\n",
			(unsigned long long)p->hz, p->nlinks, st_plural(p->nlinks, "CPU", "CPUs"));
	err = session__run(p->run.session);
	profile__detach(p);
	profile_print(p);
	st_run__report(&p->run);
	agg_reader__report(p->agg, p->run.session, "profile",
			   p->common.addrs || p->common.debug);
	return err || p->err ? 1 : 0;
}

static void profile_free(struct profile *p)
{
	profile__detach(p);
	free(p->links);
	agg_reader__free(p->agg);
	st_run__stop(&p->run);
	profile_bpf__destroy(p->skel);
	raw_stacks__free(p->raw);
	if (p->out && p->out != stdout)
		fclose(p->out);
}

int profile_main(int argc, char **argv)
{
	const struct argp_child children[] = { { st_common_argp_for(0), 0, NULL, 0 }, {} };
	const struct argp argp = { profile_options, profile_parse, "[DURATION]", doc,
				   children, NULL, NULL };
	struct profile p = { .hz = PROFILE_HZ_DEFAULT };
	int ret;

	st_common_opts__init(&p.common, 0);
	p.common.formats = OUT_FMTS_STACKS;
	ret = argp_parse(&argp, argc, argv, 0, NULL, &p);
	if (ret)
		return 2;
	ret = profile_run(&p);
	profile_free(&p);
	return ret;
}
