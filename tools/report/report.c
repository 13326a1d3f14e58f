// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap report: print a recording as the recorded command printed it
 * live. The command runs again with its recorded options plus the output
 * options given here, and its pipeline is fed from the recording
 * (lib/record/replay.h) instead of BPF: the command's own code prints.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/record/replay.h"
#include "src/commands.h"
#include "tools/report/report.h"

#define REPORT_DEFAULT_PATH "stacktap.data"

static const char doc[] =
	"Print a recording made by 'stacktap record' as the recorded command printed it "
	"live.\v"
	"Any other option is an output option of the recorded command, passed to it: -f, "
	"--format FORMAT, -a, -d, -P, -v, --json... (see 'stacktap COMMAND --help'). The "
	"output options the command was recorded with are dropped; its other options stay "
	"in effect.\n"
	"\nFiles are found by build ID, never by their path alone: in the recording (record "
	"--archive), under each --symfs DIR (DIR/PATH, DIR/.build-id/xx/yyyy, DIR/NAME), in "
	"perf's build-ID cache ~/.debug, at the recorded path, then in the debug directories "
	"(--debug-dir, /usr/lib/debug). A file whose build ID differs is not used.\n"
	"\nExit status: 0; 1 when the recording is damaged (what came before the damage is "
	"printed), of a newer format, or unreadable; 2 for a usage error.\n"
	"\nWith --diff BEFORE AFTER, two recordings of one command become one flame graph: "
	"widths from AFTER, colours by how each frame's share changed.\n"
	"\nEXAMPLES:\n"
	"  stacktap report                     # stacktap.data, as printed live\n"
	"  stacktap report -i m.data -f > out.folded   # folded, for flame graphs\n"
	"  stacktap report --symfs /srv/build  # binaries moved or rebuilt since\n"
	"  stacktap report --debug-dir /srv/debug   # debug files by build ID\n"
	"  stacktap report --diff old.data new.data --format flamegraph -o diff.html\n";

enum { OPT_SYMFS = 0x600, OPT_DEBUG_DIR, OPT_NO_PROGRESS, OPT_DIFF };

static const struct argp_option report_options[] = {
	{ "input", 'i', "FILE", 0, "The recording to read (default stacktap.data)", 1 },
	{ "output", 'o', "FILE", 0, "Write the output to FILE instead of stdout", 1 },
	{ "symfs", OPT_SYMFS, "DIR", 0, "Look for the recorded files under DIR first (repeatable)",
	  1 },
	{ "debug-dir", OPT_DEBUG_DIR, "DIR", 0,
	  "Look for separate debug files in DIR/.build-id (repeatable)", 1 },
	{ "no-progress", OPT_NO_PROGRESS, NULL, 0, "No progress lines on stderr", 1 },
	{ "diff", OPT_DIFF, "BEFORE", 0,
	  "BEFORE AFTER: one flame graph of the change between two recordings", 1 },
	{},
};

static error_t report_parse(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;

	switch (key) {
	case 'i': a->input = arg; break;
	case 'o': a->output = arg; break;
	case OPT_SYMFS:
	case OPT_DEBUG_DIR:
		if ((key == OPT_SYMFS ? a->nsymfs : a->ndebug) == REPORT_DIRS_MAX)
			argp_failure(state, 2, 0, "at most %d directories of each kind",
				     REPORT_DIRS_MAX);
		else if (key == OPT_SYMFS)
			a->symfs[a->nsymfs++] = arg;
		else
			a->debug[a->ndebug++] = arg;
		break;
	case OPT_NO_PROGRESS: a->quiet = true; break;
	case OPT_DIFF: a->before = arg; break;
	case ARGP_KEY_ARG:
		if (a->before && !a->after)
			a->after = arg;
		else
			argp_failure(state, 2, 0, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (a->before && !a->after)
			argp_failure(state, 2, 0, "--diff BEFORE AFTER: no AFTER recording");
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/*
 * The option of @opts that @arg spells ("--name", "--name=VALUE", "-x",
 * "-xVALUE"), or NULL; *attached says the value (or, for a flag, more
 * flags) is in @arg itself. Abbreviated long names are not recognised.
 */
static const struct argp_option *opt__find(const struct argp_option *opts, const char *arg,
					   bool *attached)
{
	const struct argp_option *o;
	size_t n;

	*attached = false;
	if (arg[0] != '-' || !arg[1])
		return NULL;
	for (o = opts; o->name || o->key || o->doc; o++) {
		if (arg[1] == '-' && o->name) {
			n = strlen(o->name);
			if (strncmp(arg + 2, o->name, n) || (arg[2 + n] && arg[2 + n] != '='))
				continue;
			*attached = arg[2 + n] == '=';
			return o;
		}
		if (arg[1] != '-' && o->key > 0 && o->key < 0x100 && arg[1] == o->key) {
			*attached = arg[2] != '\0';
			return o;
		}
	}
	return NULL;
}

/* The group of @opts' "Output:" header: its options are chosen at report time. */
static int output_group(const struct argp_option *opts)
{
	const struct argp_option *o;

	for (o = opts; o->name || o->key || o->doc; o++)
		if (!o->name && !o->key && o->doc && !strcmp(o->doc, "Output:"))
			return o->group;
	return -1;
}

/* Is @arg output options only: one, or a cluster of short output flags ("-fa")? */
static bool is_output(const struct argp_option *opts, int group, const char *arg, bool *value)
{
	const struct argp_option *o;
	char one[3] = "-";
	bool attached;
	size_t i;

	*value = false;
	o = opt__find(opts, arg, &attached);
	if (!o || o->group != group)
		return false;
	if (o->arg) {
		*value = !attached; /* the value is the next argument */
		return true;
	}
	for (i = 1; attached && arg[0] == '-' && arg[1] != '-' && arg[i]; i++) {
		one[1] = arg[i];
		o = opt__find(opts, one, &attached);
		if (!o || o->group != group)
			return false;
		if (o->arg) {
			*value = !arg[i + 1];
			break;
		}
	}
	return true;
}

/*
 * Splits argv: report's own options (and --help) to report's parser, every
 * other argument to the recorded command. Return: 0, or 2 for a usage error.
 */
static int report__split(int argc, char **argv, struct report_args *a, char **own, int *nown)
{
	const struct argp_option *o;
	bool attached, rest = false;
	int i;

	*nown = 1;
	own[0] = argv[0];
	for (i = 1; i < argc; i++) {
		if (!rest && !strcmp(argv[i], "--")) {
			rest = true;
			continue;
		}
		o = rest ? NULL : opt__find(report_options, argv[i], &attached);
		if (o || (!rest && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-?") ||
				    !strcmp(argv[i], "--usage")))) {
			own[(*nown)++] = argv[i];
			if (o && o->arg && !attached && ++i < argc)
				own[(*nown)++] = argv[i];
			/* --diff BEFORE AFTER: AFTER is report's too. */
			if (o && o->key == OPT_DIFF && ++i < argc)
				own[(*nown)++] = argv[i];
			continue;
		}
		a->pass[a->npass++] = argv[i];
	}
	return 0;
}

/* The common options (lib/session/cli.c) that choose output: report's to give again. */
static const struct argp_option common_output[] = {
	{ "output", 'o', "FILE", 0, NULL, 1 },
	{ "format", 0x1000, "FORMAT", 0, NULL, 1 },
	{ "verbose", 'v', NULL, 0, NULL, 1 },
	{},
};

/* Is @arg (with its value, *value) an output option of @cmd's or a common one? */
static bool recorded_output(const struct st_recordable *cmd, int group, const char *arg,
			    bool *value)
{
	return is_output(cmd->options, group, arg, value) ||
	       is_output(common_output, 1, arg, value);
}

/*
 * The command's argv: its name, the recorded arguments but for the options
 * that choose output (those are report's to give), then report's own
 * output options and its -o.
 */
char **report__command_argv(struct replay *rp, const struct st_recordable *cmd,
			    const struct report_args *a, char *name, int *argc)
{
	int group = output_group(cmd->options);
	const char *const *rec;
	size_t nrec = replay__args(rp, &rec), i;
	char **v = calloc(nrec + a->npass + 4, sizeof(*v));
	bool value, rest = false;
	int n = 0;

	if (!v)
		return NULL;
	v[n++] = name;
	for (i = 0; i < nrec; i++) {
		rest = rest || !strcmp(rec[i], "--");
		if (!rest && recorded_output(cmd, group, rec[i], &value)) {
			i += value;
			continue;
		}
		v[n++] = (char *)rec[i];
	}
	for (i = 0; i < (size_t)a->npass; i++)
		v[n++] = a->pass[i];
	if (a->output) {
		v[n++] = "-o";
		v[n++] = (char *)a->output;
	}
	*argc = n;
	return v;
}

struct replay_opts report__replay_opts(const struct report_args *a, const char *path)
{
	return (struct replay_opts){ .path = path, .symfs = a->symfs, .nsymfs = a->nsymfs,
				     .debug_dirs = a->debug, .ndebug_dirs = a->ndebug,
				     .progress = !a->quiet };
}

static int report__run(const struct report_args *a)
{
	struct replay_opts ro = report__replay_opts(a, a->input);
	const struct st_recordable *cmd;
	struct replay *rp = replay__open(&ro, NULL, 0);
	char name[64], **argv;
	int argc, ret;

	if (!rp)
		return 1;
	cmd = st_recordable(replay__command(rp));
	if (!cmd) {
		fprintf(stderr, "stacktap: %s: a recording of '%s', which this stacktap cannot "
				"report\n", a->input, replay__command(rp));
		replay__close(rp);
		return 1;
	}
	snprintf(name, sizeof(name), "stacktap %s", replay__command(rp));
	argv = report__command_argv(rp, cmd, a, name, &argc);
	ret = argv ? cmd->main(argc, argv) : 1;
	replay__report(rp);
	if (!ret && replay__damaged(rp))
		ret = 1;
	free(argv);
	replay__close(rp);
	return ret;
}

int report_main(int argc, char **argv)
{
	static const struct argp argp = { report_options, report_parse, "[OUTPUT OPTION...]", doc,
					  NULL, NULL, NULL };
	struct report_args a = { .input = REPORT_DEFAULT_PATH };
	char **own = calloc(argc + 1, sizeof(*own));
	int nown, ret;

	a.pass = calloc(argc + 1, sizeof(*a.pass));
	if (!own || !a.pass) {
		free(own);
		free(a.pass);
		return 1;
	}
	ret = report__split(argc, argv, &a, own, &nown);
	if (!ret && argp_parse(&argp, nown, own, 0, NULL, &a))
		ret = 2;
	if (!ret)
		ret = a.before ? report__diff(&a) : report__run(&a);
	free(own);
	free(a.pass);
	return ret;
}
