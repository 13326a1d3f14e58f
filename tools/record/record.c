// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap record: run a capturing command and write what its user-space
 * pipeline consumed to a recording, for `stacktap report` to print later or
 * elsewhere. The command runs as it always does; lib/record/recorder.h taps
 * its session, its reads of the machine and its process tracker.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/record/recorder.h"
#include "src/commands.h"

#define RECORD_DEFAULT_PATH "stacktap.data"

static const struct st_recordable recordables[] = {
	{ "count", count_main, count_options },
	{ "snoop", snoop_main, snoop_options },
	{ "profile", profile_main, profile_options },
	{ "offcpu", offcpu_main, offcpu_options },
};

const struct st_recordable *st_recordable(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(recordables) / sizeof(recordables[0]); i++)
		if (!strcmp(name, recordables[i].name))
			return &recordables[i];
	return NULL;
}

struct record {
	const char *path;
	bool archive, print;
	int argc;    /* the command and its arguments */
	char **argv;
};

static const char doc[] =
	"Run COMMAND (count, snoop, profile or offcpu, with its own options) and write a "
	"recording of it, for 'stacktap report' to print later or on another machine.\v"
	"The recording holds the raw events, the mappings and build IDs of the files they "
	"map, the vDSO images and perf maps seen, the kernel symbols the events need, the "
	"loss counters, and what was run where. It is written as the run goes, compressed, "
	"in constant memory. With --archive it also holds the mapped files and their debug "
	"files, so a report needs none of them. It can hold stack memory: only its owner "
	"may read it.\n"
	"\nEXAMPLES:\n"
	"  stacktap record profile -F 99 10       # 10 s of samples: stacktap.data\n"
	"  stacktap record -o m.data count -p 185 u:c:malloc   # malloc of PID 185\n"
	"  stacktap record --archive offcpu -p 185 5   # report anywhere\n"
	"  stacktap record --print count -f t:syscalls:sys_enter_getppid\n"
	"  stacktap report -i m.data -f           # later: folded\n";

enum { OPT_ARCHIVE = 0x500, OPT_PRINT };

static const struct argp_option record_options[] = {
	{ "output", 'o', "FILE", 0, "Write the recording to FILE (default stacktap.data)", 1 },
	{ "archive", OPT_ARCHIVE, NULL, 0,
	  "Also store the mapped ELF files and their debug files in the recording", 1 },
	{ "print", OPT_PRINT, NULL, 0,
	  "Also print what COMMAND prints live (to stdout, or its own -o FILE)", 1 },
	{},
};

static error_t record_parse(int key, char *arg, struct argp_state *state)
{
	struct record *r = state->input;

	switch (key) {
	case 'o': r->path = arg; break;
	case OPT_ARCHIVE: r->archive = true; break;
	case OPT_PRINT: r->print = true; break;
	case ARGP_KEY_ARG:
		/* COMMAND and everything after it belong to the command. */
		r->argv = &state->argv[state->next - 1];
		r->argc = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (!r->argc)
			argp_failure(state, 2, 0, "no command to record");
		else if (!st_recordable(r->argv[0]))
			argp_failure(state, 2, 0, "'%s' cannot be recorded: want count, snoop, "
				     "profile or offcpu", r->argv[0]);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static bool record__wants_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-?") ||
		    !strcmp(argv[i], "--usage") || !strcmp(argv[i], "-V"))
			return true;
	return false;
}

static const char *record_path;

/* A command that exits during its option parsing (a usage error) recorded nothing. */
static void record__abandon(void)
{
	if (recorder_active() && record_path) {
		recorder__close(recorder_active());
		unlink(record_path);
		fprintf(stderr, "stacktap: nothing recorded: %s removed\n", record_path);
	}
}

int record_main(int argc, char **argv)
{
	static const struct argp argp = { record_options, record_parse, "COMMAND [ARG...]", doc,
					  NULL, NULL, NULL };
	struct record r = { .path = RECORD_DEFAULT_PATH };
	int (*cmd_main)(int argc, char **argv);
	struct recorder *rec;
	char name[64];
	int ret, err;

	if (argp_parse(&argp, argc, argv, ARGP_IN_ORDER, NULL, &r))
		return 2;
	cmd_main = st_recordable(r.argv[0])->main;
	snprintf(name, sizeof(name), "stacktap %s", r.argv[0]);
	if (!record__wants_help(r.argc, r.argv)) {
		rec = recorder__new(&(struct recorder_opts){
			.path = r.path, .command = r.argv[0], .argc = r.argc - 1,
			.argv = r.argv + 1, .archive = r.archive, .print = r.print });
		if (!rec)
			return 1;
		record_path = r.path;
		atexit(record__abandon);
	}
	/* Messages then read "stacktap count: ...", as when run alone. */
	r.argv[0] = name;
	ret = cmd_main(r.argc, r.argv);
	/* A command that failed before it captured anything leaves no recording behind. */
	rec = recorder_active();
	if (ret && rec && !recorder__records(rec))
		record__abandon();
	record_path = NULL;
	err = recorder__close(recorder_active());
	return ret ? ret : err ? 1 : 0;
}
