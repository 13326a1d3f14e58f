// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap snoop: every event as it happens, with its kernel and user stack,
 * like bcc's stacksnoop; --format json prints one object per line instead,
 * perf-script what `perf script` prints, ctf a CTF trace directory.
 */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/out/ctf.h"
#include "lib/out/json.h"
#include "lib/out/perf_script.h"
#include "lib/out/text.h"
#include "lib/proc/source.h"
#include "lib/session/joiner.h"
#include "lib/sym/event_frames.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"
#include "src/commands.h"
#include "tools/events/events.h"

struct snoop {
	struct events_run run;
	bool delimiter;
	struct ctf_writer *ctf;
	uint64_t max_events;
	uint64_t t0;
	FILE *out;
	int err;
};

static const char doc[] =
	"Print every event with its kernel and user stack.\v"
	"PROBE is t:CATEGORY:NAME, u:PATH_OR_LIB:SYMBOL, ur:PATH_OR_LIB:SYMBOL,\n"
	"usdt:PATH:PROVIDER:NAME or k:FUNCTION (see 'stacktap count --help').\n"
	"\nEXAMPLES:\n"
	"  stacktap snoop t:syscalls:sys_enter_openat        # every openat()\n"
	"  stacktap snoop -p 185 -n 10 u:c:malloc            # 10 mallocs of PID 185\n"
	"  stacktap snoop -p 185 ur:c:getaddrinfo            # each return\n"
	"  stacktap snoop --cgroup /sys/fs/cgroup/a.slice u:c:free   # one cgroup\n"
	"  stacktap snoop --json t:sched:sched_process_exec  # JSON, one per line\n"
	"  stacktap snoop --format perf-script -n 9 u:c:malloc > m.perf   # as perf\n"
	"  stacktap snoop --format ctf -o trace -n 9 u:c:malloc  # for babeltrace2\n";

enum { OPT_JSON = 0x200 };

const struct argp_option snoop_options[] = {
	{ NULL, 0, NULL, 0, "Output:", 4 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per event and line (--format json)", 4 },
	{ "count", 'n', "N", 0, "Stop after N events", 4 },
	{ "delimited", 'd', NULL, 0, "Print '--' between kernel and user frames", 4 },
	{},
};

static error_t snoop_parse(int key, char *arg, struct argp_state *state)
{
	struct snoop *s = state->input;
	char err[256];

	switch (key) {
	case ARGP_KEY_INIT: state->child_inputs[0] = &s->run.common; break;
	case OPT_JSON: s->run.common.format_name = "json"; break;
	case 'd': s->delimiter = true; break;
	case 'n':
		if (parse_u64(arg, 1, UINT64_MAX, &s->max_events))
			argp_failure(state, 2, 0, "count '%s': want a positive number", arg);
		break;
	case ARGP_KEY_ARG:
		if (events_run__add_spec(&s->run, arg, err, sizeof(err)))
			argp_failure(state, 2, 0, "%s", err);
		break;
	case ARGP_KEY_END:
		if (!s->run.nspecs)
			argp_failure(state, 2, 0, "no probe given");
		else if (events_run__check(&s->run, err, sizeof(err)))
			argp_failure(state, 2, 0, "%s", err);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int snoop_print(struct snoop *s, const struct st_event *ev, struct event_frames *ef)
{
	const struct report_frame *frames = ef->v;
	struct report_stack rs = {
		.pid = ev->pid, .tid = ev->tid, .cpu = ev->cpu, .ts = ev->ts,
		.nk = ef->nk, .nu = ef->nu, .frames = &frames, .count = 1, .weight = ev->weight,
		.flags = ev->flags,
	};
	struct text_opts to = { .delimiter = s->delimiter, .label.addrs = s->run.common.addrs,
				.label.lines = s->run.common.lines };
	double t = (ev->ts - s->t0) / 1e9;
	uint32_t probe_id = ev->probe_id < s->run.nspecs ? ev->probe_id : 0;
	const char *probe = ev->probe_id < s->run.nspecs ? s->run.specs[ev->probe_id].text : "?";

	memcpy(rs.comm, ev->comm, ST_COMM_LEN);
	rs.comm[ST_COMM_LEN - 1] = '\0';
	switch (s->run.common.format) {
	case OUT_FMT_JSON: out_json_event(s->out, t, probe, &rs, &to.label); return 0;
	case OUT_FMT_PERF_SCRIPT: out_perf_script_record(s->out, &rs, 1, probe); return 0;
	case OUT_FMT_CTF: return ctf_writer__event(s->ctf, probe_id, &rs);
	default: break;
	}
	fprintf(s->out, "%-14.6f %-16s %-7u %-7u %-3u %s\n", t, rs.comm, ev->pid, ev->tid, ev->cpu,
		probe);
	out_text_frames(s->out, &rs, &to);
	fputc('\n', s->out);
	return 0;
}

/*
 * A CTF trace in -o DIR: one event class per probe; times on the wall clock
 * of the events' machine, named by its host name (a report's: the recorded ones).
 */
static int snoop_open_ctf(struct snoop *s)
{
	const char **names = calloc(s->run.nspecs + 1, sizeof(*names));
	struct proc_wall w;
	struct ctf_opts co = { .events = names, .nevents = s->run.nspecs, .hostname = w.host };
	size_t i;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < s->run.nspecs; i++)
		names[i] = s->run.specs[i].text;
	proc_source_wall(&w);
	co.clock_offset_ns = w.real_minus_mono;
	s->ctf = ctf_writer__new(s->run.common.output, &co);
	free(names);
	return s->ctf ? 0 : -errno;
}

static int snoop_on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct snoop *s = ctx;
	struct event_frames ef;

	if (!s->t0)
		s->t0 = ev->ts;
	s->err = event_frames__build(&ef, s->run.st.sym, ev->pid, ev->ts, ips, ev->kdepth, ev->udepth,
				     joiner_lost_frame(ev->flags), ev->ustop);
	if (s->err)
		return 1;
	s->err = snoop_print(s, ev, &ef);
	event_frames__release(&ef);
	return s->err ? 1 : 0;
}

static int snoop_run(struct snoop *s)
{
	struct session_opts so = {
		.duration_ns = s->run.common.duration_ns,
		.max_events = s->max_events,
		.target_pid = s->run.common.pid,
		.on_event = snoop_on_event,
		.ctx = s,
	};
	int err;

	if (st_run__prepare(&s->run.common))
		return 1;
	if (s->run.common.format == OUT_FMT_CTF ? snoop_open_ctf(s) :
	    !(s->out = st_common_opts__open_output(&s->run.common)))
		return 1;
	err = events_run__start(&s->run, &so);
	if (err)
		return events_run__exit_code(err);
	if (s->run.common.format == OUT_FMT_TEXT)
		fprintf(s->out, "%-14s %-16s %-7s %-7s %-3s %s\n", "TIME(s)", "COMM", "PID", "TID",
			"CPU", "PROBE");
	err = session__run(s->run.st.session);
	if (s->out)
		fflush(s->out);
	if (ctf_writer__close(s->ctf))
		s->err = -EIO;
	s->ctf = NULL;
	events_run__report(&s->run);
	return err || s->err ? 1 : 0;
}

int snoop_main(int argc, char **argv)
{
	const struct argp_child children[] = {
		{ st_common_argp_for(CLI_CAP_COPY), 0, NULL, 0 }, {}
	};
	const struct argp argp = { snoop_options, snoop_parse, "PROBE...", doc, children,
				   NULL, NULL };
	struct snoop s = {};
	int ret;

	st_common_opts__init(&s.run.common, CLI_CAP_COPY);
	/*
	 * An event probe usually fires once per kernel entry, so deferring its
	 * user stack saves no walk and adds a task_work interrupt per event
	 * (4x the cost per event here: docs/bench-count.md). --user-stacks=deferred
	 * still asks for it.
	 */
	s.run.common.user_stacks = CLI_USTACKS_SYNC;
	s.run.common.formats = OUT_FMTS_EVENTS;
	ret = argp_parse(&argp, argc, argv, 0, NULL, &s);
	if (ret)
		return 2;
	ret = snoop_run(&s);
	events_run__stop(&s.run);
	ctf_writer__close(s.ctf);
	if (s.out && s.out != stdout)
		fclose(s.out);
	return ret;
}
