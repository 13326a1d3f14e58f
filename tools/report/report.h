/* SPDX-License-Identifier: GPL-2.0 */
/* stacktap report's parts: one replay (report.c), the diff of two (diff.c). */
#ifndef ST_TOOLS_REPORT_H
#define ST_TOOLS_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/record/replay.h"
#include "src/commands.h"

#define REPORT_DIRS_MAX 16

struct report_args {
	const char *input, *output;
	const char *before, *after; /* --diff BEFORE AFTER */
	const char *symfs[REPORT_DIRS_MAX], *debug[REPORT_DIRS_MAX];
	size_t nsymfs, ndebug;
	bool quiet;
	/* Everything that is not report's own goes to the command. */
	char **pass;
	int npass;
};

/** report__replay_opts() - Return: how to replay @path with @a's directories. */
struct replay_opts report__replay_opts(const struct report_args *a, const char *path);

/**
 * report__command_argv() - the recorded command's argv: @name, its recorded
 * arguments but for those that choose output, then @a's output options.
 *
 * Return: a malloc'ed array (strings not copied), or NULL.
 */
char **report__command_argv(struct replay *rp, const struct st_recordable *cmd,
			    const struct report_args *a, char *name, int *argc);

/** report__diff() - --diff BEFORE AFTER. Return: the exit code. */
int report__diff(const struct report_args *a);

#endif
