// SPDX-License-Identifier: GPL-2.0
/* The stacktap front: picks the subcommand and hands it argv. */
#include <argp.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "src/commands.h"
#include "version.h" /* generated: $(O)/version.h */

/* argp adds --version (and -V) to every command with this. */
const char *argp_program_version = "stacktap " ST_VERSION;

struct command {
	const char *name;
	int (*main)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "count", count_main, "count the distinct stacks of events (like stackcount)" },
	{ "snoop", snoop_main, "print every event with its stacks (like stacksnoop)" },
	{ "profile", profile_main, "sample on-CPU stacks at a fixed rate (like profile)" },
	{ "offcpu", offcpu_main, "sum blocked time by kernel and user stack (like offcputime)" },
	{ "record", record_main, "run one of the above and write a recording of it" },
	{ "report", report_main, "print a recording as the recorded command printed it" },
	{ "features", features_main, "what this kernel offers, and what each command uses" },
	{ "unwind-table", unwind_table_main, "print the compact unwind table of an ELF file, or one row" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: stacktap COMMAND [OPTION...] [ARG...]\n\n"
		   "Kernel and user stacks at any event, exact and symbolized.\n\nCommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nRun 'stacktap COMMAND --help' for a command's options and examples,\n"
		   "'stacktap --version' for the version.\n");
}

/*
 * Large blocks come from mmap and go back to the system when freed. glibc's
 * default raises its mmap threshold each time such a block is freed (up to
 * 32 MiB), after which the unwind rows of the next big file, built and
 * freed as processes come and go, land in the heap, whose freed middle is
 * never returned: resident memory then climbs with every large library
 * seen, not with what is held. A fixed threshold also keeps realloc of a
 * growing row vector a cheap mremap.
 */
#define ST_MMAP_THRESHOLD (128 * 1024)

int main(int argc, char **argv)
{
	size_t i;

	mallopt(M_MMAP_THRESHOLD, ST_MMAP_THRESHOLD);
	argp_err_exit_status = 2; /* usage errors exit 2, like every other usage error */
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("%s\n", argp_program_version);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		char name[64];

		if (strcmp(argv[1], commands[i].name))
			continue;
		/* Messages then read "stacktap count: ...". */
		snprintf(name, sizeof(name), "stacktap %s", commands[i].name);
		argv[1] = name;
		return commands[i].main(argc - 1, argv + 1);
	}
	fprintf(stderr, "stacktap: unknown command '%s' (try 'stacktap --help')\n", argv[1]);
	return 2;
}
