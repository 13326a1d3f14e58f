// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap count: frequency-count the distinct kernel+user stacks of events,
 * like bcc's stackcount. Events are counted exactly in the kernel where they
 * can be (bpf/aggregate.bpf.h), read at each interval and at exit; the rest
 * arrive as records. Both are deduplicated exactly on their raw addresses
 * (lib/pipeline/raw_stacks.c); symbolization happens once per distinct
 * stack, at print time, and stacks whose names are identical are merged then.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/out/render.h"
#include "lib/proc/source.h"
#include "lib/pipeline/raw_stacks.h"
#include "lib/pipeline/tool_report.h"
#include "lib/report/report.h"
#include "lib/session/aggregate.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"
#include "src/commands.h"
#include "tools/events/events.h"

struct count {
	struct events_run run;
	bool delimiter, per_pid, annotate;
	uint64_t interval_ns;
	struct raw_stacks *raw;
	FILE *out;
	int err;
};

static const char doc[] =
	"Frequency-count the distinct kernel and user stacks that lead to events.\v"
	"PROBE is one of:\n"
	"  t:CATEGORY:NAME          tracepoint, '*' wildcards allowed\n"
	"  u:PATH_OR_LIB:SYMBOL     uprobe; 'c' or 'libc' is the target's libc\n"
	"  ur:PATH_OR_LIB:SYMBOL    uretprobe: the function's return, stack of its caller\n"
	"  usdt:PATH:PROVIDER:NAME  USDT probe\n"
	"  k:FUNCTION               kernel function (fentry, else kprobe)\n"
	"\nWith -P the stacks of each process are counted apart: text output shows a\n"
	"'comm [PID]' line, folded output starts with comm-PID (as stackcollapse-perf.pl\n"
	"--pid writes it). With -i each interval starts with its time (HH:MM:SS) and\n"
	"its losses go to stderr.\n"
	"\nEXAMPLES:\n"
	"  stacktap count t:syscalls:sys_enter_getppid   # who calls getppid()\n"
	"  stacktap count -p 185 -D 5 u:c:malloc         # malloc in PID 185 for 5 s\n"
	"  stacktap count -p 185 ur:c:read               # who read() returned to\n"
	"  stacktap count --cgroup /sys/fs/cgroup/a.slice u:c:malloc   # one cgroup\n"
	"  stacktap count --lines -p 185 u:c:malloc      # with file:line of frames\n"
	"  stacktap count --no-demangle -p 185 u:c:free  # C++/Rust names mangled\n"
	"  stacktap count -d -P 't:sched:sched_process_*'   # per process, with --\n"
	"  stacktap count -f -a t:block:block_rq_issue > out.folded   # flame graph\n"
	"  stacktap count --format flamegraph -o fg.html u:c:malloc   # as HTML\n"
	"  stacktap count --format pprof -o m.pb.gz -D 5 u:c:malloc   # go tool pprof\n"
	"  stacktap count -i 1 -K t:irq:irq_handler_entry   # kernel, every second\n"
	"  stacktap count --unwind=fp u:c:qsort          # frame pointers, as bcc\n"
	"  stacktap count --unwind=copy -p 185 u:c:free  # copies unwound here\n"
	"  stacktap count --unwind-check -p 185 u:c:malloc   # BPF walk vs a copy\n"
	"  stacktap count --user-stacks=deferred t:syscalls:sys_enter_read\n"
	"  stacktap count --no-aggregate u:c:malloc      # every event as a record\n"
	"  stacktap count --agg-entries 65536 -a u:c:malloc  # many distinct stacks\n";

enum { OPT_FOLDED = 'f', OPT_NO_AGG = 0x200, OPT_AGG_ENTRIES };

/* Test-only: keep this many bits of the in-kernel stack hash, to force collisions. */
#define COUNT_HASH_BITS_ENV "STACKTAP_TEST_AGG_HASH_BITS"

const struct argp_option count_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 4 },
	{ "delimited", 'd', NULL, 0, "Print '--' between kernel and user frames", 4 },
	{ "perpid", 'P', NULL, 0, "Count stacks per process: 'comm [PID]', or comm-PID with -f", 4 },
	{ "folded", OPT_FOLDED, NULL, 0, "Folded output, as flamegraph.pl reads it (--format folded)", 4 },
	{ "annotate", 'a', NULL, 0, "With -f, mark kernel frames with a _[k] suffix", 4 },
	{ "interval", 'i', "SECONDS", 0, "Print and reset the counts every interval", 4 },
	{ NULL, 0, NULL, 0, "In-kernel counting:", 5 },
	{ "no-aggregate", OPT_NO_AGG, NULL, 0, "Send every event to user space as a record", 5 },
	{ "agg-entries", OPT_AGG_ENTRIES, "N", 0,
	  "Distinct stacks counted in the kernel (default: 1/128 of the memory in stacks, at least 65536); beyond, events come as records", 5 },
	{},
};

static error_t count_parse(int key, char *arg, struct argp_state *state)
{
	struct count *c = state->input;
	char err[256];
	uint64_t n;

	switch (key) {
	case ARGP_KEY_INIT: state->child_inputs[0] = &c->run.common; break;
	case 'd': c->delimiter = true; break;
	case 'P': c->per_pid = true; break;
	case OPT_FOLDED: c->run.common.format_name = "folded"; break;
	case 'a': c->annotate = true; break;
	case OPT_NO_AGG: c->run.agg.on = 0; break;
	case OPT_AGG_ENTRIES:
		if (parse_u64(arg, 1, 1u << 24, &n))
			argp_failure(state, 2, 0, "agg-entries '%s': want 1 to %u", arg, 1u << 24);
		c->run.common.agg_entries = (uint32_t)n;
		break;
	case 'i':
		if (parse_seconds(arg, &c->interval_ns) || !c->interval_ns)
			argp_failure(state, 2, 0, "interval '%s': want a positive number of seconds", arg);
		break;
	case ARGP_KEY_ARG:
		if (events_run__add_spec(&c->run, arg, err, sizeof(err)))
			argp_failure(state, 2, 0, "%s", err);
		break;
	case ARGP_KEY_END:
		if (!c->run.nspecs)
			argp_failure(state, 2, 0, "no probe given");
		/* The common options (--format) were checked first: argp ends children first. */
		if (c->interval_ns && c->run.common.format != OUT_FMT_TEXT &&
		    c->run.common.format != OUT_FMT_FOLDED)
			argp_failure(state, 2, 0, "format %s is one document: use it without -i",
				     out_format_name(c->run.common.format));
		if (events_run__check(&c->run, err, sizeof(err)))
			argp_failure(state, 2, 0, "%s", err);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int count_on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct count *c = ctx;

	c->err = raw_stacks__add(c->raw, ev, ips, ev->weight);
	return c->err ? 1 : 0;
}

/* A count the kernel aggregated: one entry, @count events at once. */
static int count_on_agg(void *ctx, const struct st_event *ev, const uint64_t *ips,
			uint64_t count, uint64_t weight)
{
	struct count *c = ctx;

	return raw_stacks__merge(c->raw, ev, ips, count, weight);
}

/* Exited processes about to be forgotten: their kernel counts in, then their stacks resolved. */
static void count_on_gone(void *ctx, const int *pids, size_t n)
{
	struct count *c = ctx;

	if (c->raw && !c->err) /* not started yet: nothing held */
		c->err = raw_stacks__settle_gone(c->raw, c->run.agg_reader, count_on_agg, c, pids, n, "count");
}

/*
 * With -i each interval starts with its time, as bcc's stackcount -T does
 * (a blank line first in text output), and its losses follow on stderr. The
 * time is the interval's end (or the stop) on the events' machine, in its
 * zone: a report prints the recorded one, not its own clock.
 */
static void count_interval_header(struct count *c, char *stamp, size_t len)
{
	struct proc_wall w;
	struct tm tm;

	proc_source_wall(&w);
	if (!proc_wall_local(&w, session__print_time(c->run.st.session), &tm) || !strftime(stamp, len, "%H:%M:%S", &tm))
		snprintf(stamp, len, "??:??:??");
	fprintf(c->out, "%s%s\n", c->run.common.format == OUT_FMT_FOLDED ? "" : "\n", stamp);
}

/* How the report tells stacks apart: the raw stacks fold by it too (raw_stacks__fold_for()). */
static unsigned count_report_flags(const struct count *c)
{
	return (c->per_pid ? REPORT_BY_PID : 0) | st_common_opts__report_flags(&c->run.common);
}

static void count_print(void *ctx)
{
	struct count *c = ctx;
	struct st_common_opts *co = &c->run.common;
	struct report_info info = {
		.value = REPORT_EVENTS,
		.event = c->run.nspecs == 1 ? c->run.specs[0].text : NULL,
	};
	struct out_opts oo = {
		.text = { .delimiter = c->delimiter, .per_pid = c->per_pid, .label.addrs = co->addrs,
			  .label.lines = co->lines },
		.folded = { .annotate = c->annotate, .lines = co->lines, .per_pid = c->per_pid },
		.pprof.comment = "stacktap count",
		.speedscope.name = "stacktap count",
		.flamegraph.title = "stacktap count",
	};
	struct tool_report tr = {
		.tool = "count", .raw = c->raw, .agg = c->run.agg_reader, .on_agg = count_on_agg,
		.ctx = c, .sym = c->run.st.sym, .info = &info, .oo = &oo,
		.report_flags = count_report_flags(c),
		.out = c->out, .output = co->output, .format = co->format,
	};
	char stamp[16], prefix[24];
	int err;

	if (c->interval_ns)
		count_interval_header(c, stamp, sizeof(stamp));
	if ((err = tool_report__print(&tr)))
		c->err = err;
	raw_stacks__clear(c->raw);
	if (c->interval_ns) {
		snprintf(prefix, sizeof(prefix), "%s: ", stamp);
		session__report_interval_losses(c->run.st.session, prefix);
	}
}

static int count_run(struct count *c)
{
	struct session_opts so = {
		.duration_ns = c->run.common.duration_ns,
		.interval_ns = c->interval_ns,
		.target_pid = c->run.common.pid,
		.on_event = count_on_event,
		.on_interval = count_print,
		.on_gone = count_on_gone,
		.ctx = c,
	};
	int err;

	if (st_run__prepare(&c->run.common))
		return 1;
	c->out = st_common_opts__open_output(&c->run.common);
	if (!c->out)
		return 1;
	err = events_run__start(&c->run, &so);
	if (err)
		return events_run__exit_code(err);
	c->raw = raw_stacks__new(c->run.st.sym);
	if (!c->raw)
		return 1;
	raw_stacks__fold_for(c->raw, count_report_flags(c));
	err = session__run(c->run.st.session);
	/* The kernel's counts stop where the records did (the session's stop). */
	events_run__detach(&c->run);
	count_print(c);
	events_run__report(&c->run);
	agg_reader__report(c->run.agg_reader, c->run.st.session, "count",
			   c->run.common.addrs || c->run.common.debug);
	return err || c->err ? 1 : 0;
}

static uint64_t count_hash_mask(void)
{
	const char *bits = getenv(COUNT_HASH_BITS_ENV);
	uint64_t n;

	if (!bits || parse_u64(bits, 0, 63, &n))
		return ~0ull;
	return (1ull << n) - 1;
}

int count_main(int argc, char **argv)
{
	const struct argp_child children[] = {
		{ st_common_argp_for(CLI_CAP_COPY), 0, NULL, 0 }, {}
	};
	const struct argp argp = { count_options, count_parse, "PROBE...", doc, children,
				   NULL, NULL };
	struct count c = {};
	int ret;

	st_common_opts__init(&c.run.common, CLI_CAP_COPY);
	/*
	 * An event probe usually fires once per kernel entry, so deferring its
	 * user stack saves no walk and adds a task_work interrupt per event
	 * (4x the cost per event here: docs/bench-count.md). --user-stacks=deferred
	 * still asks for it.
	 */
	c.run.common.user_stacks = CLI_USTACKS_SYNC;
	c.run.agg = (struct st_agg_config){ .on = 1, .hash_mask = count_hash_mask() };
	c.run.common.formats = OUT_FMTS_STACKS;
	ret = argp_parse(&argp, argc, argv, 0, NULL, &c);
	if (ret)
		return 2;
	ret = count_run(&c);
	events_run__stop(&c.run);
	raw_stacks__free(c.raw);
	if (c.out && c.out != stdout)
		fclose(c.out);
	return ret;
}
