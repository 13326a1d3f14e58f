/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every capturing tool sets up around its loaded BPF object: the
 * process registry fed by the lifecycle probes (the one model of processes
 * and files), the symbolizer over it, its views (the walker's unwind
 * tables, the copy unwinder), and the session whose complete events reach
 * the tool after their process is known.
 */
#ifndef ST_SESSION_RUN_H
#define ST_SESSION_RUN_H

#include <stdbool.h>

#include "lib/session/cli.h"
#include "lib/session/session.h"

struct bpf_object;
struct proc_registry;
struct symbolizer;
struct bpf_tables;
struct proc_events;
struct copy_unwinder;
struct copy_stage;
struct recorder;

struct st_run {
	const struct st_common_opts *common;
	struct proc_registry *procs; /* processes' mappings over time, and their files */
	struct symbolizer *sym;
	struct bpf_tables *tables; /* NULL in fp mode */
	struct copy_unwinder *cu;  /* with tables: unwinds copies the walker sent */
	struct copy_stage *copy;
	struct proc_events *proc_events;
	struct session *session;
	struct session_opts tool; /* the tool's callbacks, behind the registry */
	struct recorder *rec;     /* stacktap record: the recorder (lib/record/recorder.h) */
	const struct bpf_object *obj; /* the tool's, for the map memory at -v; NULL replaying */
	uint64_t next_exit_check; /* when to look again for exit records lost (run__find_exits()) */
	uint64_t proc_drops;      /* process records lost as of the last look */
	uint64_t last_settle;     /* when the tool last settled (run__forget_gone()) */
	uint64_t unseen;          /* events counted with no record, as of the last look */
	uint64_t unseen_check;    /* when that look was (run__find_unseen()) */
	uint64_t unlinked_check;  /* when idle tables of deleted files were last looked for */
	bool met_filter;          /* BPF sends records only of processes met (bpf/met.bpf.h) */
};

/**
 * st_run__prepare() - the first step of every capturing command, before its
 * BPF object is opened: libbpf's messages per --debug, and the machine made
 * ready (lib/util/machine.h: privileges, BTF, tracefs, memlock). Installs
 * the SIGINT/SIGTERM/SIGHUP handlers first: a signal while loading stops
 * the run at its first poll, with everything closed as on any stop.
 *
 * Where the kernel takes only the compat build of the BPF objects
 * (feature_compat()), says so once and makes @common's unwind mode the one
 * it has (frame pointers), or refuses a mode that needs more.
 *
 * Return: 0, or -errno after one line saying what is missing (exit 1).
 */
int st_run__prepare(struct st_common_opts *common);

/**
 * st_run_replaying() - whether this run replays a recording (stacktap
 * report): the tool then loads and attaches nothing, and st_run__start()
 * takes a NULL object. Return: true when replaying.
 */
bool st_run_replaying(void);

/**
 * st_run_aggregates() - whether this run may count stacks in the kernel
 * (bpf/aggregate.bpf.h). Not when recording: a recording must see every
 * event as a record, so that its report counts exactly what happened; nor
 * when replaying, which loads no BPF object.
 * Return: true when in-kernel aggregation may be on.
 */
bool st_run_aggregates(void);

/**
 * st_run__start() - set up around @obj (loaded, not yet attached to events;
 * NULL when replaying).
 * @so: the tool's session options; its on_event sees each complete event
 *
 * Return: 0 or -errno (logged where it happened).
 */
int st_run__start(struct st_run *r, struct bpf_object *obj, const struct st_common_opts *common,
		  const struct session_opts *so);

/** st_run__report() - every loss at exit, one stderr line per reason. */
void st_run__report(const struct st_run *r);

/** st_run__stop() - free everything but the BPF object; safe after a failed start. */
void st_run__stop(struct st_run *r);

#endif
