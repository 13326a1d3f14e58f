/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run shared by the event tools (count, snoop): probe specs in, the
 * capture programs of events.bpf.c loaded and attached, a session polling
 * them, a symbolizer for the results. The tools differ only in what they
 * do with each record and how they print.
 */
#ifndef ST_TOOLS_EVENTS_H
#define ST_TOOLS_EVENTS_H

#include "bpf/aggregate.h"
#include "lib/probe/spec.h"
#include "lib/session/cli.h"
#include "lib/session/run.h"
#include "lib/session/session.h"
#include "lib/sym/symbolizer.h"

struct events_bpf;
struct agg_reader;
struct probe_links;

struct events_run {
	struct st_common_opts common;
	struct probe_spec *specs;
	size_t nspecs;
	struct events_bpf *skel;
	struct probe_links *links;
	struct st_run st; /* registry, symbolizer, tables, session: lib/session/run.h */
	struct st_agg_config agg; /* in-kernel aggregation (count); off for snoop */
	struct agg_reader *agg_reader; /* with agg.on, once started */
};

/**
 * events_run__add_spec() - parse one positional probe spec (argp KEY_ARG).
 *
 * Return: 0, or -EINVAL with *err set, or -ENOMEM.
 */
int events_run__add_spec(struct events_run *r, const char *text, char *err, size_t errlen);

/**
 * events_run__check() - the specs against each other and against -p/-t,
 * once all options are parsed (argp KEY_END): a spec given twice, or a u: or
 * usdt: probe in a kernel thread (which runs no user code), is a usage error.
 * Specs that only overlap (globs, "c" and "libc") are merged at attach.
 *
 * Return: 0, or -EINVAL with *err set to one line.
 */
int events_run__check(const struct events_run *r, char *err, size_t errlen);

/**
 * events_run__start() - load, attach, and set up the session and symbolizer
 * (after the tool's st_run__prepare());
 * prints "Tracing N probe points..." on stderr once attached. Every record
 * reaches @so->on_event as st_run__start() promises.
 *
 * Return: 0, -EINVAL when a spec names nothing that exists (exit 2), other
 * -errno for run-time failures (exit 1). Nothing stays attached on failure.
 */
int events_run__start(struct events_run *r, const struct session_opts *so);

/**
 * events_run__detach() - detach the probes: the run is over, and counts the
 * kernel holds stop growing before they are read.
 */
void events_run__detach(struct events_run *r);

/** events_run__report() - every loss and check at exit, one stderr line per reason. */
void events_run__report(const struct events_run *r);

/** events_run__exit_code() - 0, 1 or 2 for an events_run__start() error. */
int events_run__exit_code(int err);

/** events_run__stop() - detach and free everything; safe after a failed start. */
void events_run__stop(struct events_run *r);

#endif
