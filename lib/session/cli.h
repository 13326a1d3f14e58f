/* SPDX-License-Identifier: GPL-2.0 */
/* Options every capturing tool shares, as an argp child parser. */
#ifndef ST_CLI_H
#define ST_CLI_H

#include <argp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf/record.h"
#include "lib/out/format.h"

struct st_common_opts {
	int pid, tid, cpu;      /* 0 / 0 / -1 = any */
	uint64_t cgroup_id;     /* --cgroup: its cgroup v2 id (directory inode), 0 = any */
	bool kernel_only, user_only;
	bool addrs;             /* -v: addresses beside names (and lines) */
	bool lines;             /* --lines, -v: source file and line of each frame */
	bool no_demangle;       /* --no-demangle: names as the symbol tables have them */
	bool fast_start;        /* --fast-start: attach before the unwind tables are built */
	bool debug;             /* libbpf's own messages */
	uint64_t duration_ns;   /* -D */
	uint64_t ringbuf_kb;    /* 0: sized to the machine */
	uint64_t event_hz;      /* events a second per CPU the tool expects (profile -F), 0: unknown */
	uint64_t kdepth, udepth;
	unsigned unwind;        /* enum st_unwind_mode */
	uint64_t unwind_rows;   /* capacity of the BPF row table; 0: sized to the machine */
	uint32_t agg_entries;   /* of each in-kernel count map (count --agg-entries); 0: the machine's */
	uint64_t copy_kb;       /* --stack-copy-kb: user stack copied per event in copy mode */
	bool unwind_check;      /* also copy the stack and compare the user-space unwind */
	unsigned user_stacks;   /* CLI_USTACKS_*: --user-stacks */
	const char *output;     /* -o FILE, NULL = stdout */
	unsigned formats;       /* OUT_FMT_BIT()s the command writes: set before parsing */
	const char *format_name; /* --format, or an alias (-f, --json); NULL: text */
	enum out_format format; /* format_name, checked at the end of parsing */
	FILE *out;              /* stdout or -o FILE, opened at the end of parsing; NULL for a
				 * directory format (CTF: -o names the directory) */
	unsigned caps;          /* CLI_CAP_*: what the tool's capture can do */
	unsigned progs;         /* FEATURE_PROG_BIT()s of the program types that capture: set
				 * before st_common_opts__config(), which probes them for task_work */
};

/* What a tool's capture can do beyond the common core (st_common_opts__init()). */
enum {
	CLI_CAP_COPY = 1u << 0, /* --unwind=copy, --unwind-check: user stacks copied at the event */
};

/* --user-stacks: when user stacks are taken. */
enum {
	CLI_USTACKS_AUTO = 0, /* deferred where the kernel has task_work, else sync */
	CLI_USTACKS_SYNC,
	CLI_USTACKS_DEFERRED,
};

/**
 * st_common_argp_for() - the common options, as an argp child for a tool
 * whose capture can do @caps (CLI_CAP_*): what it cannot do is left out of
 * its --help, and refused with one line when given anyway. Put it in the
 * parent's children[]; the parent passes its st_common_opts as child input 0.
 *
 * Return: a static parser.
 */
const struct argp *st_common_argp_for(unsigned caps);

/** st_common_opts__init() - defaults, for a tool whose capture can do @caps (CLI_CAP_*). */
void st_common_opts__init(struct st_common_opts *o, unsigned caps);

/**
 * st_common_opts__config() - the capture library's .rodata config for these
 * options. Deferred user stacks are probed for here (once; needs root): when
 * the kernel cannot, sync is used and one line on stderr says so.
 */
void st_common_opts__config(const struct st_common_opts *o, struct st_config *cfg);

/**
 * st_common_opts__walk_cache() - will walks at the event use the walk cache
 * (bpf/ucache.bpf.h)? Only where the kernel has BPF task storage (probed
 * once) and user stacks are walked: st_config.walk_cache, and without it
 * the cache's maps are not created (capture_maps_size()).
 *
 * Return: true when they will.
 */
bool st_common_opts__walk_cache(const struct st_common_opts *o);

/**
 * st_common_opts__met_filter() - does BPF send lifecycle records only for
 * processes an event met, describing each at its first meeting
 * (bpf/met.bpf.h)? Says why not once at -v and --debug.
 *
 * Return: true when it does.
 */
bool st_common_opts__met_filter(const struct st_common_opts *o);

/**
 * st_common_opts__open_output() - stdout or -o FILE. Parsing has opened it
 * already (an unwritable -o is a usage error); this hands it over.
 *
 * Return: the stream, or NULL with the reason logged.
 */
FILE *st_common_opts__open_output(const struct st_common_opts *o);

/**
 * st_common_opts__report_flags() - Return: the REPORT_* flags these options
 * ask of a report (addresses, lines); the command adds its own.
 */
unsigned st_common_opts__report_flags(const struct st_common_opts *o);

/** st_libbpf_logging() - route libbpf's messages to stderr only with --debug. */
void st_libbpf_logging(bool debug);

/**
 * st_load_failed() - say in one line why @tool's (may be NULL) BPF programs did not load:
 * the errno, then the kernel's own words where libbpf passed them on (the
 * verifier's last line and the program it refused), never "run as root"
 * to root.
 */
void st_load_failed(const char *tool, int err);

#endif
