/* SPDX-License-Identifier: GPL-2.0 */
/* Entry points of the subcommands; each lives in tools/<name>/<name>.c. */
#ifndef ST_COMMANDS_H
#define ST_COMMANDS_H

/*
 * Each returns the process exit code: 0 ok, 1 runtime failure, 2 usage error.
 * argv[0] is the subcommand name.
 */
int count_main(int argc, char **argv);
int snoop_main(int argc, char **argv);
int profile_main(int argc, char **argv);
int offcpu_main(int argc, char **argv);
int unwind_table_main(int argc, char **argv);

#endif
