/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder: `stacktap record`'s side of a run. It taps the session
 * (every ring-buffer record as it arrives, and the session's own decisions:
 * joiner ticks, interval output, the drain at the stop), stands in the proc
 * source door (every /proc read and liveness answer the pipeline gets is
 * written down), and listens to the process registry (every file a mapping
 * names is identified by build ID, as the registry opened it while the
 * process mapped it; with --archive its bytes and its debug file are stored
 * too). Kernel symbols are written as the events first need them. See
 * docs/recording.md.
 */
#ifndef ST_RECORD_RECORDER_H
#define ST_RECORD_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/record/format.h"

struct proc_map;
struct recorder;

struct recorder_opts {
	const char *path;     /* the recording to write */
	const char *command;  /* the recorded command: count, snoop, profile, offcpu */
	int argc;             /* its arguments, argv[0] excluded */
	char **argv;
	bool archive;         /* also store the mapped ELF files and their debug files */
	bool print;           /* the command also prints its live output */
};

/**
 * recorder__new() - create the recording, write what is run where, and
 * become the process-wide recorder (recorder_active()) and proc source.
 *
 * Return: the recorder, or NULL with errno set (logged).
 */
struct recorder *recorder__new(const struct recorder_opts *o);

/** recorder_active() - Return: the process-wide recorder, or NULL when not recording. */
struct recorder *recorder_active(void);

/** recorder__prints() - Return: whether the command prints its live output too. */
bool recorder__prints(const struct recorder *rc);

/**
 * recorder__ring() - one ring-buffer record, as it arrived, before the
 * session acts on it; the kernel symbols it needs follow it.
 *
 * Return: 0, or the writer's error (the run should stop).
 */
int recorder__ring(struct recorder *rc, const void *data, size_t size);

/**
 * recorder__mark() - a decision of the session: REC_TICK, REC_INTERVAL,
 * REC_DRAIN with its time, REC_FLUSH. A tick also writes out what is
 * pending once a second, so a recording killed mid-run keeps all but that.
 *
 * Return: 0 or the writer's error.
 */
int recorder__mark(struct recorder *rc, enum rec_type type, uint64_t value);

/** recorder__records() - Return: ring-buffer records written so far. */
uint64_t recorder__records(const struct recorder *rc);

/** recorder__stats() - the capture library's counters at the end of the run. */
void recorder__stats(struct recorder *rc, const uint64_t *counters, size_t n);

/** recorder__ustats() - the user-stack walker's counters at the end of the run. */
void recorder__ustats(struct recorder *rc, const uint64_t *counters, size_t n);

struct proc_registry;

/** recorder__watch() - the registry whose file models name the mapped files. */
void recorder__watch(struct recorder *rc, struct proc_registry *procs);

/**
 * recorder__on_maps() - what a registry listener hears (lib/proc/registry.h):
 * identify each newly mapped file by the registry's model of it, the vDSO
 * image, and processes with anonymous code (their perf maps are kept at exit).
 */
void recorder__on_maps(void *rc, int pid, const struct proc_map *maps, size_t n);

/**
 * recorder__close() - write the end, close the file, print one summary line
 * on stderr, and stop being the recorder and the proc source; NULL is fine.
 *
 * Return: 0, or the first error met while recording (the file is then
 * incomplete but readable up to it).
 */
int recorder__close(struct recorder *rc);

/**
 * recorder__forget() - the registry forgot @pid (lib/proc/registry.h's
 * listener): its vDSO and JIT entries go, so memory follows the processes
 * alive.
 */
void recorder__forget(struct recorder *rc, int pid);

/**
 * recorder__refresh() - re-read the perf maps of live processes with anonymous
 * code whose map file changed (at most every 200 ms; NULL-safe). Called from
 * the poll loop: a map in a container's /tmp is gone with its namespace,
 * often before the process's exit record arrives.
 */
void recorder__refresh(struct recorder *rc);

#endif
