// SPDX-License-Identifier: GPL-2.0
/* Options every capturing tool shares, as an argp child parser. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "lib/report/report.h"
#include "lib/record/recorder.h"
#include "lib/record/replay.h"
#include "lib/session/cli.h"
#include "lib/session/features.h"
#include "lib/session/session.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/table_cache.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"

enum {
	OPT_RINGBUF = 0x100,
	OPT_KDEPTH,
	OPT_UDEPTH,
	OPT_DEBUG,
	OPT_UNWIND,
	OPT_UNWIND_ROWS,
	OPT_COPY_KB,
	OPT_UNWIND_CHECK,
	OPT_USER_STACKS,
	OPT_FORMAT,
	OPT_NO_DEMANGLE,
	OPT_LINES,
	OPT_FAST_START,
	OPT_NO_TABLE_CACHE,
	OPT_CGROUP,
};

/*
 * Wake the reader once 256 KiB wait: ~1000 records, a small fraction of the
 * default 8 MiB buffer, so a burst never fills it before the reader runs.
 */
#define CLI_WAKEUP_BYTES (256 * 1024)

/* -C in a report: the recording machine's CPUs, whatever this one has (NR_CPUS's ceiling). */
#define CLI_CPU_MAX 8191

/* Ring buffer bounds: one page, and 1 GiB (the kernel's own ceiling is 2 GiB). */
#define RINGBUF_KB_MIN 4
#define RINGBUF_KB_MAX (1024 * 1024)

#define UNWIND_DOC(copy)                                                                     \
	"User stacks: auto (unwind tables where a file has one, else frame pointers; the "    \
	"default), table (tables only), fp (frame pointers only)" copy

/* The docs of a tool without CLI_CAP_COPY. */
#define UNWIND_DOC_WALK UNWIND_DOC("")
#define COPY_KB_DOC_WALK                                                                     \
	"User stack copied where the table walker meets code not loaded yet (dlopen just "    \
	"now), 1-64 (default 16)"

static const struct argp_option common_options[] = {
	{ NULL, 0, NULL, 0, "Filters:", 1 },
	{ "pid", 'p', "PID", 0, "Trace this process only", 1 },
	{ "tid", 't', "TID", 0, "Trace this thread only", 1 },
	{ "cpu", 'C', "CPU", 0, "Trace this CPU only", 1 },
	{ "cgroup", OPT_CGROUP, "PATH", 0, "Trace the tasks of this cgroup (a v2 directory, e.g. "
	  "/sys/fs/cgroup/system.slice/ssh.service) only", 1 },
	{ NULL, 0, NULL, 0, "Stacks:", 2 },
	{ "kernel-stacks-only", 'K', NULL, 0, "Kernel stacks only", 2 },
	{ "user-stacks-only", 'U', NULL, 0, "User stacks only", 2 },
	{ "max-kernel-depth", OPT_KDEPTH, "N", 0, "Kernel frames kept (1-127, default 127)", 2 },
	{ "max-user-depth", OPT_UDEPTH, "N", 0,
	  "User frames kept (1-1024, default 512); a stack cut there ends in a [truncated] frame", 2 },
	{ "unwind", OPT_UNWIND, "MODE", 0, UNWIND_DOC(", copy (each user stack copied at the "
						       "event and unwound in user space)"), 2 },
	{ "unwind-rows", OPT_UNWIND_ROWS, "N", 0,
	  "Unwind rows the BPF maps hold, 8 bytes each (default 1/512 of the memory, "
	  "262144-134217728)", 2 },
	{ "stack-copy-kb", OPT_COPY_KB, "KB", 0,
	  "User stack copied per event in copy mode, or where the table walker meets code "
	  "not loaded yet (dlopen just now), 1-64 (default 16)", 2 },
	{ "user-stacks", OPT_USER_STACKS, "WHEN", 0,
	  "deferred (on return to user space: one walk per kernel entry, may fault pages in; "
	  "the default of profile and offcpu where the kernel has task_work; offcpu walks at "
	  "the switch-out first and defers only past a page not present, unless deferred is "
	  "given) or sync (at the event; the default of count and snoop)", 2 },
	{ "fast-start", OPT_FAST_START, NULL, 0,
	  "Start tracing before the unwind tables are built: until they are, user stacks are "
	  "copied and unwound in user space (which stops at signal frames, coroutines and "
	  "return probes)", 2 },
	{ "no-table-cache", OPT_NO_TABLE_CACHE, NULL, 0,
	  "Build every unwind table, neither loading built ones from the cache nor saving "
	  "them (the cache: $STACKTAP_CACHE_DIR, else ~/.cache/stacktap; an empty "
	  "STACKTAP_CACHE_DIR also turns it off)", 2 },
	{ "unwind-check", OPT_UNWIND_CHECK, NULL, 0,
	  "Also copy each user stack, unwind it in user space and count events where the "
	  "two walks differ (a self-test of the BPF walker)", 2 },
	{ NULL, 0, NULL, 0, "Run:", 3 },
	{ "duration", 'D', "SECONDS", 0, "Stop after this long (fractions allowed)", 3 },
	{ "verbose", 'v', NULL, 0, "Show addresses beside symbol names, source lines, and at "
	  "exit the memory of the unwind tables (rows now, peak, freed; map sizes), of the "
	  "process registry (processes known, exited ones forgotten) and what the table cache "
	  "did", 3 },
	{ "lines", OPT_LINES, NULL, 0, "Show each frame's source file and line (from DWARF)", 3 },
	{ "no-demangle", OPT_NO_DEMANGLE, NULL, 0, "Show C++ and Rust names mangled, as the "
	  "symbol tables have them", 3 },
	{ "output", 'o', "FILE", 0, "Write results to FILE instead of stdout (a directory for "
	  "--format ctf)", 3 },
	{ "format", OPT_FORMAT, "FORMAT", 0, "Output format: text (the default), folded, pprof, "
	  "speedscope, perf-script or flamegraph; snoop: text, json, perf-script or ctf", 3 },
	{ "ringbuf-kb", OPT_RINGBUF, "KB", 0, "Ring buffer size in KiB (default 4096 per CPU, "
	  "4096-65536; profile: 8 per CPU per sample a second, at least 4096)", 3 },
	{ "debug", OPT_DEBUG, NULL, 0, "Print libbpf's own messages and internal figures", 3 },
	{},
};

void st_common_opts__init(struct st_common_opts *o, unsigned caps)
{
	memset(o, 0, sizeof(*o));
	o->caps = caps;
	o->cpu = -1;
	o->ringbuf_kb = 0; /* 0: sized to the machine (lib/session/capture_maps.c) */
	o->kdepth = ST_MAX_KSTACK;
	o->udepth = ST_USTACK_DEFAULT;
	o->unwind = ST_UNWIND_AUTO;
	o->unwind_rows = 0;
	o->copy_kb = 16;
}

static int cli__number(struct argp_state *state, const char *what, const char *arg, uint64_t min,
		       uint64_t max, uint64_t *out)
{
	int err = parse_u64(arg, min, max, out);

	if (err)
		argp_failure(state, 2, 0, "%s '%s': %s (want %llu-%llu)", what, arg,
			   err == -ERANGE ? "out of range" : "not a number",
			   (unsigned long long)min, (unsigned long long)max);
	return err;
}

static void cli__pid(struct argp_state *state, const char *what, const char *arg, int *out)
{
	uint64_t v;

	cli__number(state, what, arg, 1, 4194304, &v); /* PID_MAX_LIMIT */
	/* A report replays a process that lived on the recording machine. */
	if (!replay_active() && kill((pid_t)v, 0) && errno == ESRCH)
		argp_failure(state, 2, 0, "%s %llu: no such process", what, (unsigned long long)v);
	*out = (int)v;
}

static void cli__unwind(struct argp_state *state, const char *arg, struct st_common_opts *o)
{
	bool copy = o->caps & CLI_CAP_COPY;

	if (!strcmp(arg, "auto"))
		o->unwind = ST_UNWIND_AUTO;
	else if (!strcmp(arg, "table"))
		o->unwind = ST_UNWIND_TABLE;
	else if (!strcmp(arg, "fp"))
		o->unwind = ST_UNWIND_FP;
	else if (!strcmp(arg, "copy") && copy)
		o->unwind = ST_UNWIND_COPY;
	else if (!strcmp(arg, "copy"))
		argp_failure(state, 2, 0, "--unwind=copy: this command walks user stacks in BPF "
			     "(copy is a count and snoop mode)");
	else
		argp_failure(state, 2, 0, "unwind mode '%s': want %s", arg,
			     copy ? "auto, table, fp or copy" : "auto, table or fp");
}

/* A directory format's -o: made when missing, and writable. */
static void cli__output_dir(struct argp_state *state, const struct st_common_opts *o)
{
	struct stat st;

	if (!o->output)
		argp_failure(state, 2, 0, "format %s writes a directory: name it with -o DIR",
			     out_format_name(o->format));
	else if (mkdir(o->output, 0755) && errno != EEXIST)
		argp_failure(state, 2, 0, "-o %s: %s", o->output, strerror(errno));
	else if (stat(o->output, &st) || !S_ISDIR(st.st_mode))
		argp_failure(state, 2, 0, "-o %s: not a directory (format %s writes one)", o->output,
			     out_format_name(o->format));
	else if (access(o->output, W_OK | X_OK))
		argp_failure(state, 2, 0, "-o %s: %s", o->output, strerror(errno));
}

/*
 * The one place --format is checked against what the command writes, and
 * -o opened: both are usage errors (exit 2), found before anything is loaded.
 */
static void cli__output(struct argp_state *state, struct st_common_opts *o)
{
	struct recorder *rec = recorder_active();
	char err[256];

	/* stacktap record writes the recording; the command prints only with --print. */
	if (rec && !recorder__prints(rec)) {
		o->format = OUT_FMT_TEXT;
		o->out = fopen("/dev/null", "w");
		return;
	}

	if (!o->formats) {
		if (o->format_name)
			argp_failure(state, 2, 0, "--format: this command has one output format");
		o->format = OUT_FMT_TEXT;
	} else if (out_format_parse(o->format_name ? o->format_name : "text", o->formats,
				    &o->format, err, sizeof(err))) {
		argp_failure(state, 2, 0, "%s", err);
		return;
	}
	if (out_format_is_dir(o->format)) {
		cli__output_dir(state, o);
		return;
	}
	if (out_format_is_binary(o->format) && !o->output && isatty(STDOUT_FILENO))
		argp_failure(state, 2, 0, "format %s is binary: give -o FILE or redirect stdout",
			     out_format_name(o->format));
	o->out = o->output ? fopen(o->output, "w") : stdout;
	if (!o->out)
		argp_failure(state, 2, 0, "-o %s: %s", o->output, strerror(errno));
}

/* --cgroup: the id bpf_get_current_cgroup_id() gives is the v2 directory's inode number. */
static void cli__cgroup(struct argp_state *state, const char *path, struct st_common_opts *o)
{
	struct statfs sf;
	struct stat st;

	if (replay_active())
		return; /* a directory of the recording machine; only the capture used its id */
	/* Any other directory's inode would match no task, silently. */
	if (stat(path, &st) || statfs(path, &sf))
		argp_failure(state, 2, 0, "cgroup '%s': %s", path, strerror(errno));
	else if (!S_ISDIR(st.st_mode) || sf.f_type != CGROUP2_SUPER_MAGIC)
		argp_failure(state, 2, 0, "cgroup '%s': not a cgroup v2 directory", path);
	else
		o->cgroup_id = st.st_ino;
}

static error_t common_parse(int key, char *arg, struct argp_state *state)
{
	struct st_common_opts *o = state->input;
	uint64_t v;

	switch (key) {
	case 'p': cli__pid(state, "pid", arg, &o->pid); break;
	case 't': cli__pid(state, "tid", arg, &o->tid); break;
	case 'C':
		cli__number(state, "cpu", arg, 0,
			    replay_active() ? CLI_CPU_MAX : libbpf_num_possible_cpus() - 1, &v);
		o->cpu = (int)v;
		break;
	case OPT_CGROUP: cli__cgroup(state, arg, o); break;
	case 'K': o->kernel_only = true; break;
	case 'U': o->user_only = true; break;
	case OPT_KDEPTH: cli__number(state, "kernel depth", arg, 1, ST_MAX_KSTACK, &o->kdepth); break;
	case OPT_UDEPTH: cli__number(state, "user depth", arg, 1, ST_MAX_USTACK, &o->udepth); break;
	case 'D':
		if (parse_seconds(arg, &o->duration_ns) || !o->duration_ns)
			argp_failure(state, 2, 0, "duration '%s': want a positive number of seconds", arg);
		break;
	case 'v': o->addrs = o->lines = true; break;
	case OPT_LINES: o->lines = true; break;
	case OPT_NO_DEMANGLE: o->no_demangle = true; break;
	case OPT_FAST_START: o->fast_start = true; break;
	case OPT_NO_TABLE_CACHE: table_cache__disable(); break;
	case 'o': o->output = arg; break;
	case OPT_FORMAT: o->format_name = arg; break;
	case OPT_RINGBUF:
		cli__number(state, "ring buffer size", arg, RINGBUF_KB_MIN, RINGBUF_KB_MAX,
			    &o->ringbuf_kb);
		break;
	case OPT_DEBUG:
		o->debug = true;
		st_verbose = true;
		break;
	case OPT_UNWIND: cli__unwind(state, arg, o); break;
	case OPT_COPY_KB: cli__number(state, "stack copy size", arg, 1, ST_COPY_MAX / 1024, &o->copy_kb); break;
	case OPT_UNWIND_CHECK:
		if (!(o->caps & CLI_CAP_COPY))
			argp_failure(state, 2, 0, "--unwind-check: this command walks user stacks "
				     "in BPF with nothing to compare (a count and snoop option)");
		o->unwind_check = true;
		break;
	case OPT_USER_STACKS:
		if (!strcmp(arg, "deferred"))
			o->user_stacks = CLI_USTACKS_DEFERRED;
		else if (!strcmp(arg, "sync"))
			o->user_stacks = CLI_USTACKS_SYNC;
		else
			argp_failure(state, 2, 0, "user stacks '%s': want deferred or sync", arg);
		break;
	case OPT_UNWIND_ROWS:
		cli__number(state, "unwind rows", arg, 1024, 1u << 27, &o->unwind_rows);
		break;
	case ARGP_KEY_END:
		if (o->kernel_only && o->user_only)
			argp_failure(state, 2, 0, "-K and -U exclude each other");
		if (o->unwind_check && o->unwind != ST_UNWIND_TABLE && o->unwind != ST_UNWIND_AUTO)
			argp_failure(state, 2, 0, "--unwind-check compares the table walk: use it with "
				     "--unwind=table or auto");
		cli__output(state, o);
		break;
	default: return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

#define NOPTIONS (sizeof(common_options) / sizeof(common_options[0]))

/* The options of a tool without CLI_CAP_COPY: copy mode neither offered nor documented. */
static const struct argp_option *cli__walk_options(void)
{
	static struct argp_option v[NOPTIONS];
	size_t i;

	if (v[0].doc)
		return v;
	memcpy(v, common_options, sizeof(v));
	for (i = 0; i < NOPTIONS; i++) {
		if (v[i].key == OPT_UNWIND_CHECK)
			v[i].flags |= OPTION_HIDDEN;
		else if (v[i].key == OPT_UNWIND)
			v[i].doc = UNWIND_DOC_WALK;
		else if (v[i].key == OPT_COPY_KB)
			v[i].doc = COPY_KB_DOC_WALK;
	}
	return v;
}

const struct argp *st_common_argp_for(unsigned caps)
{
	static const struct argp all = { common_options, common_parse, NULL, NULL, NULL, NULL,
					 NULL };
	static struct argp walk = { NULL, common_parse, NULL, NULL, NULL, NULL, NULL };

	if (caps & CLI_CAP_COPY)
		return &all;
	walk.options = cli__walk_options();
	return &walk;
}

/*
 * Deferred needs task_work from every program type the tool captures in
 * (probed once), a user stack to take, and a walk in BPF: a copied stack
 * (--unwind=copy, --unwind-check) is taken at the event.
 */
static unsigned cli__user_mode(const struct st_common_opts *o)
{
	char why[300];

	if (o->user_stacks == CLI_USTACKS_SYNC || o->kernel_only)
		return ST_USER_SYNC;
	if (o->unwind == ST_UNWIND_COPY || o->unwind_check) {
		if (o->user_stacks == CLI_USTACKS_DEFERRED)
			fprintf(stderr, "stacktap: --unwind=copy and --unwind-check copy the "
					"stack at the event: user stacks are taken synchronously\n");
		return ST_USER_SYNC;
	}
	/* The compat objects defer nothing, and st_run__prepare() said so already. */
	if (feature_compat(NULL, 0))
		return ST_USER_SYNC;
	if (feature_task_work_from(o->progs, why, sizeof(why))) {
		fprintf(stderr, "stacktap: user stacks taken at the event, not deferred (no "
				"task_work from %s): a stack page not in memory ends its stack "
				"early, and each event of one system call is walked anew\n", why);
		return ST_USER_SYNC;
	}
	return ST_USER_DEFERRED;
}

bool st_common_opts__walk_cache(const struct st_common_opts *o)
{
	if (o->kernel_only || o->unwind == ST_UNWIND_COPY)
		return false; /* no walks */
	return feature_task_storage(NULL, 0) && !feature_compat(NULL, 0);
}

/* Without task storage every walk at the event is made in full: said at -v and --debug. */
static void cli__say_walk_cache(const struct st_common_opts *o)
{
	char why[160];

	if (o->kernel_only || o->unwind == ST_UNWIND_COPY || !(o->addrs || o->debug) ||
	    feature_task_storage(why, sizeof(why)))
		return;
	fprintf(stderr, "stacktap: walk cache off (%s): every user stack taken at the event is "
			"walked in full\n", why);
}

/*
 * The met filter (bpf/met.bpf.h): system-wide only (-p and -t trace few
 * processes, from their start), live and not recording (a process gone
 * before its first event is read is described from the records queued
 * behind it, a look a replay cannot make), and where the kernel has
 * task_work and the VMA iterator. Why not: once, at -v and --debug.
 */
bool st_common_opts__met_filter(const struct st_common_opts *o)
{
	static bool said;
	char why[300] = "", tw[280];

	if (o->pid || o->tid || recorder_active() || replay_active() || feature_compat(NULL, 0))
		return false;
	if (feature_task_work_from(o->progs, tw, sizeof(tw)))
		snprintf(why, sizeof(why), "no task_work from %s", tw);
	else if (!feature_vma_iter(tw, sizeof(tw)))
		snprintf(why, sizeof(why), "no VMA iterator: %s", tw);
	if (!why[0])
		return true;
	if (!said && (o->addrs || o->debug))
		fprintf(stderr, "stacktap: met filter off (%s): process records are sent for "
				"every process\n", why);
	said = true;
	return false;
}

void st_common_opts__config(const struct st_common_opts *o, struct st_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->filter_pid = o->pid;
	cfg->filter_tid = o->tid;
	cfg->filter_cpu = o->cpu;
	cfg->filter_cgroup = o->cgroup_id;
	cfg->kstack = !o->user_only;
	cfg->ustack = !o->kernel_only;
	cfg->kdepth_max = o->kdepth;
	cfg->udepth_max = o->udepth;
	cfg->unwind = o->unwind;
	cfg->wakeup_bytes = CLI_WAKEUP_BYTES;
	if (o->unwind == ST_UNWIND_COPY || o->unwind_check)
		cfg->copy_bytes = o->copy_kb * 1024;
	else if (o->unwind != ST_UNWIND_FP)
		cfg->copy_fallback = o->copy_kb * 1024;
	cfg->user_mode = cli__user_mode(o);
	cfg->walk_cache = st_common_opts__walk_cache(o);
	cfg->met_filter = st_common_opts__met_filter(o);
	cli__say_walk_cache(o);
}

unsigned st_common_opts__report_flags(const struct st_common_opts *o)
{
	/*
	 * Folded lines, flame graphs, pprof and the rest name the comm with
	 * each stack: two commands' equal stacks stay two there. Text prints
	 * it only with -P, and without it merges them, as bcc's stackcount.
	 */
	return (o->addrs ? REPORT_ADDRS : 0) | (o->lines ? REPORT_LINES : 0) |
	       (o->format != OUT_FMT_TEXT ? REPORT_BY_COMM : 0);
}

FILE *st_common_opts__open_output(const struct st_common_opts *o)
{
	if (!o->out)
		fprintf(stderr, "stacktap: %s: no output stream (format %s)\n",
			o->output ? o->output : "stdout", out_format_name(o->format));
	return o->out;
}

static bool libbpf_debug;

/*
 * What libbpf said of the last failure, for the one line that reports it:
 * the verifier's last words for the program it refused, else libbpf's
 * first warning (an extern the kernel does not match, a map it refused).
 */
static char libbpf_words[400];

static void cli__keep_words(const char *msg)
{
	const char *log = strstr(msg, "-- BEGIN PROG LOAD LOG --"), *name = strstr(msg, "prog '");
	char last[300];
	size_t n;

	if (log) {
		feature_verifier_words(log + strlen("-- BEGIN PROG LOAD LOG --"), last,
				       sizeof(last));
		n = name && name < log ? strcspn(name + 6, "'") : 0;
		snprintf(libbpf_words, sizeof(libbpf_words), "program %.*s: %s", (int)n,
			 name ? name + 6 : "", last);
		return;
	}
	if (libbpf_words[0])
		return;
	if (!strncmp(msg, "libbpf: ", 8))
		msg += 8;
	snprintf(libbpf_words, sizeof(libbpf_words), "%.*s", (int)strcspn(msg, "\n"), msg);
}

static int cli__libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list again;
	char *msg;
	int n;

	if (libbpf_debug)
		return vfprintf(stderr, fmt, ap);
	if (level != LIBBPF_WARN)
		return 0;
	/* Whole: a refused program's log ends in the words wanted, after megabytes of trace. */
	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (msg) {
		vsnprintf(msg, (size_t)n + 1, fmt, ap);
		cli__keep_words(msg);
		free(msg);
	}
	return 0;
}

void st_libbpf_logging(bool debug)
{
	libbpf_debug = debug;
	libbpf_set_print(cli__libbpf_print);
}

void st_load_failed(const char *tool, int err)
{
	char words[sizeof(libbpf_words) + 4] = "";

	if (libbpf_words[0])
		snprintf(words, sizeof(words), ": %s", libbpf_words);
	st_err("%s%scannot load the BPF programs: %s%s%s", tool ? tool : "", tool ? ": " : "",
	       strerror(-err), words,
	       (err == -EPERM || err == -EACCES) && geteuid() ? " (run as root)" : "");
	libbpf_words[0] = 0;
}
