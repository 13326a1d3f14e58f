/* SPDX-License-Identifier: GPL-2.0 */
/* Entry points of the subcommands; each lives in tools/<name>/<name>.c. */
#ifndef ST_COMMANDS_H
#define ST_COMMANDS_H

#include <argp.h>

/*
 * Each returns the process exit code: 0 ok, 1 runtime failure, 2 usage error.
 * argv[0] is the subcommand name.
 */
int count_main(int argc, char **argv);
int snoop_main(int argc, char **argv);
int profile_main(int argc, char **argv);
int offcpu_main(int argc, char **argv);
int unwind_table_main(int argc, char **argv);
int record_main(int argc, char **argv);
int report_main(int argc, char **argv);
int features_main(int argc, char **argv);

/* A command `record` can run and `report` can replay (tools/record/record.c). */
struct st_recordable {
	const char *name;
	int (*main)(int argc, char **argv);
	/* Its own options: those of its "Output:" group are chosen again at report time. */
	const struct argp_option *options;
};

/** st_recordable() - Return: the recordable command called @name, or NULL. */
const struct st_recordable *st_recordable(const char *name);

/* The commands' own option tables, for st_recordable. */
extern const struct argp_option count_options[], snoop_options[], profile_options[],
	offcpu_options[];

#endif
