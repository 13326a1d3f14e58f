// SPDX-License-Identifier: GPL-2.0
/* What every capturing tool sets up around its loaded BPF object. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf_file.h"
#include "lib/proc/lifecycle.h"
#include "lib/proc/registry.h"
#include "lib/proc/source.h"
#include "lib/record/recorder.h"
#include "lib/record/replay.h"
#include "lib/session/capture_maps.h"
#include "lib/session/features.h"
#include "lib/session/proc_events.h"
#include "lib/session/prog_report.h"
#include "lib/session/run.h"
#include "lib/sym/ksyms_source.h"
#include "lib/sym/symbolizer.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/copy_stage.h"
#include "lib/unwind/copy_unwind.h"
#include "lib/unwind/table_cache.h"
#include "lib/util/log.h"
#include "lib/util/machine.h"

/*
 * The first event of a process gone before it was read, under the met
 * filter: BPF described the process (bpf/met.bpf.h) before its mm went, so
 * the description is queued behind the event; what the event needs now
 * (the unwind of its stack copy, the walker's tables) is taken from it.
 * Return: whether it was found.
 */
static bool run__describe_ahead(struct st_run *r, const struct st_event *ev)
{
	struct desc_ahead da = { .r = r->procs, .pid = ev->pid, .ts = ev->ts };

	if (!r->met_filter || session__look_ahead(r->session, procs__describe_ahead, &da))
		return false;
	/* Not queued yet (the description is sent without a wake-up): drain the ring. */
	if (!da.described)
		session__look_ahead_sync(r->session, procs__describe_ahead, &da);
	procs__describe_done(r->procs, ev->pid);
	return da.described;
}

/*
 * Does the event need its process's mappings? Not one with no user stack at
 * all (kernel-only, or sampled past exit_mm(), where BPF does not meet it):
 * its later events, if any, look for the description then.
 */
static bool run__has_user(const struct st_event *ev)
{
	return !(ev->flags & ST_EV_KTHREAD) &&
	       (ev->udepth || (ev->flags & (ST_EV_UDEFERRED | ST_EV_UCOPY)));
}

/*
 * An event meets its process. One whose exit is already queued behind it
 * (session__exit_ahead()) gets nothing for its later events: no /proc read,
 * no tables for the BPF walker (removed at the exit a moment later), and,
 * known from its records alone (file mappings only: no frame of it is
 * anonymous code), no look for a perf map.
 */
static void run__meet(struct st_run *r, const struct st_event *ev)
{
	bool ending = session__exit_ahead(r->session, ev->pid, ev->ts), user = run__has_user(ev);
	int seen = ending ? procs__see_ending(r->procs, ev->pid, ev->ts)
			  : procs__see(r->procs, ev->pid, ev->ts);

	/*
	 * Gone, or its read came after exit_mm() (a zombie's maps are empty):
	 * known from its description then, as from records before the filter.
	 */
	if (user && (seen == -ESRCH || (!seen && procs__mapless(r->procs, ev->pid))) &&
	    run__describe_ahead(r, ev))
		seen = 0;
	if (user && seen == -ESRCH)
		procs__count_gone(r->procs, ev->pid);

	/*
	 * Its perf map, while it surely lives: not for a process gone before
	 * its read, nor for a late event of one whose exit was heard (the perf
	 * maps would take it for a new process, open its root again, and keep
	 * that entry for good: its exit was heard once already).
	 */
	if (!(ev->flags & ST_EV_KTHREAD) && seen == 0 && !procs__exited(r->procs, ev->pid))
		symbolizer__see(r->sym, ev->pid);
	if (r->tables && !ending)
		bpf_tables__serve_now(r->tables, ev->pid);
}

static int run__on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct st_run *r = ctx;

	run__meet(r, ev);
	if (r->copy) {
		/* A walk that met unloaded code came with a stack copy: unwind it here. */
		ev = copy_stage__process(r->copy, ev, &ips);
		if (!ev)
			return -ENOMEM;
	}
	return r->tool.on_event ? r->tool.on_event(r->tool.ctx, ev, ips) : 0;
}

static int run__on_record(void *ctx, const void *data, size_t size)
{
	struct st_run *r = ctx;

	return r->tool.on_record ? r->tool.on_record(r->tool.ctx, data, size) : 0;
}

static void run__on_interval(void *ctx)
{
	struct st_run *r = ctx;

	if (r->tool.on_interval)
		r->tool.on_interval(r->tool.ctx);
}

/*
 * Kernel names are read once tracing runs, not while the programs load and
 * attach: on a small machine the thread reading /proc/kallsyms (~50 ms of
 * CPU, mostly the kernel's) competed with the loading of a -p target's
 * unwind tables before the banner.
 */
static void run__on_start(void *ctx)
{
	struct st_run *r = ctx;

	if (!r->common->user_only)
		symbolizer__load_kernel(r->sym);
	if (r->tool.on_start)
		r->tool.on_start(r->tool.ctx);
}

static void run__on_proc(void *ctx, const struct st_proc_event *pe)
{
	struct st_run *r = ctx;

	procs__on_record(r->procs, pe);
}

/* --- the registry's views: the BPF walker's tables and the copy unwinder --- */

static void run__maps_changed(void *ctx, int pid, const struct proc_map *maps, size_t n)
{
	struct st_run *r = ctx;

	/*
	 * Once stopped, no walk will use the tables: building them for the
	 * processes in the records still drained (the exec'ed compilers of a
	 * busy machine) kept a system-wide count from exiting for minutes.
	 */
	if (r->tables && !(r->session && session__draining(r->session)))
		bpf_tables__set_maps(r->tables, pid, maps, n);
	if (r->cu)
		copy_unwinder__set_maps(r->cu, pid, maps, n);
	/* stacktap record: the files these name, identified while they are mapped. */
	if (r->rec)
		recorder__on_maps(r->rec, pid, maps, n);
}

static void run__forked(void *ctx, int parent, int child)
{
	struct st_run *r = ctx;

	if (r->tables)
		bpf_tables__fork(r->tables, parent, child);
}

/* Symbols stay for late events; only the walker's table entry goes; the perf map is read last. */
static void run__exited(void *ctx, int pid)
{
	struct st_run *r = ctx;

	if (r->tables)
		bpf_tables__remove_process(r->tables, pid);
	symbolizer__exited(r->sym, pid);
}

/* Forgotten: what the copy unwinder, the recorder and the perf maps keep of it goes too. */
static void run__forgotten(void *ctx, int pid)
{
	struct st_run *r = ctx;

	if (r->cu)
		copy_unwinder__forget(r->cu, pid);
	if (r->rec)
		recorder__forget(r->rec, pid);
	symbolizer__forget(r->sym, pid);
}

/* A mapped file's unwind table: built once from its model, which the registry holds. */
static const struct unwind_table *run__table(void *ctx, int pid, const struct proc_map *m)
{
	struct st_run *r = ctx;
	struct elf_file *ef;
	const struct unwind_table *t;
	bool built;

	/* Too large for the walker: not built again for the copies either (frame pointers there). */
	if (r->tables && bpf_tables__over_cap(r->tables, m))
		return NULL;
	ef = procs__file(r->procs, pid, m);
	built = ef && elf_file__part(ef, ELF_PART_UNWIND);
	t = ef ? unwind_table__of(ef) : NULL;

	/*
	 * Reading .eh_frame touched the file's pages: the table is all that is
	 * needed now; and its checks touched every page of mapped rows.
	 */
	if (ef && !built) {
		elf_file__drop_pages(ef);
		unwind_table__drop_pages(t);
	}
	return t;
}

/* Is the table of @m built, or known not to be buildable? Lazy loading asks before building. */
static bool run__table_built(void *ctx, int pid, const struct proc_map *m)
{
	struct st_run *r = ctx;
	struct elf_file *ef = procs__file(r->procs, pid, m);

	return !ef || elf_file__part(ef, ELF_PART_UNWIND);
}

/*
 * The walker keeps @t (loaded, or idle for a process that runs the same
 * program again): its file model stays open with it, also once every
 * process that mapped the file is forgotten.
 */
static void run__table_taken(void *ctx, const struct unwind_table *t)
{
	struct st_run *r = ctx;

	if (t->file && !t->owns_file)
		procs__hold_file(r->procs, t->file);
}

/*
 * No live process maps the file any more: its table goes (built again if
 * it is mapped again), and the model too when no process is left to name it.
 */
static void run__table_release(void *ctx, const struct unwind_table *t)
{
	struct st_run *r = ctx;
	struct elf_file *ef = t->file;

	if (!ef || t->owns_file)
		return;
	elf_file__set_part(ef, ELF_PART_UNWIND, NULL, NULL);
	procs__put_file(r->procs, ef);
}

/*
 * What is loaded before the run loop (the -p target) waits for its tables
 * until the session polls: attach first, banner, build after; its events
 * meanwhile come with stack copies unwound here. After the first poll
 * tables are built as processes come, as a burst of 16 KiB copies from
 * every new program would overflow the ring buffer. A slice of time per
 * poll, so events keep flowing while a big file is read.
 */
#define RUN_BUILD_SLICE_NS (50 * 1000000ull)

/*
 * Exited processes are forgotten once no event of theirs can still be on
 * its way (RUN_GONE_GRACE_NS after the exit: the ring buffer and the
 * joiner hold events far shorter), in batches, since the tool reads the
 * kernel's counts before it settles them: every RUN_GONE_BATCH exits, or
 * RUN_GONE_AGE_NS after the last settling when fewer wait. Only exits of
 * processes an event met count (procs__settle_met_only()): the others
 * have no stacks, and are forgotten at once; a /bin/true loop's processes,
 * mostly never sampled, settled ~13 times a second, each settle reading
 * every count in the kernel (a quarter of the loop's CPU). Memory then
 * stays flat however many processes come and go. A recording settles
 * every exit (a replay has no "met" to go by) and writes where it forgot
 * (run__forget()); a replay forgets only there. (The age was the
 * oldest waiting exit's, which the grace had already made as old: with a
 * few exits a second on the machine, every poll settled, and each settling
 * walks the count maps.)
 *
 * Often: a settle frees the exited processes' keys in the kernel's count
 * maps, and under churn (a test suite's compilers, each with thousands of
 * malloc stacks) waiting longer than RUN_GONE_BATCH exits or
 * RUN_GONE_AGE_NS would let the maps fill first; a settle reads the maps in
 * batches (lib/session/aggregate.c), and the ring pump drains
 * the ring meanwhile, so reading them a few times a second costs no drops.
 * A settle comes every RUN_GONE_AGE_NS even with no exit due: it also
 * deletes the counts of superseded mappings generations
 * (agg_reader__read_gone()).
 */
#define RUN_GONE_GRACE_NS (1000 * 1000000ull)
#define RUN_GONE_BATCH 64
#define RUN_GONE_AGE_NS (1000 * 1000000ull)

/* The tool settles @pids' stacks; the joiner's answered cookies of them go too. */
static void run__settle(void *ctx, const int *pids, size_t n)
{
	struct st_run *r = ctx;

	r->tool.on_gone(r->tool.ctx, pids, n);
	if (r->session)
		session__forget_pids(r->session, pids, n);
}

/*
 * A recording forgets as a live run does, and says where (REC_FORGET): its
 * memory then follows the processes alive, not how many ever lived, and a
 * replay forgets at that same place in the actions (run__on_forget()), so
 * its registry answers every later event as the live run's did.
 */
static void run__forget(struct st_run *r, uint64_t before)
{
	if (r->rec && recorder__mark(r->rec, REC_FORGET, before))
		return; /* not written: not forgotten, or the replay would part ways */
	procs__forget_gone(r->procs, before, run__settle, r);
}

/*
 * Has an event been counted since the last look that no record told user
 * space of (its record found no room: counted in the kernel, or its key
 * made and the record then dropped)? Then the processes known by now may
 * hold counts though no event met them (procs__unseen_events()). Looked at
 * every RUN_UNSEEN_CHECK_NS, well within RUN_GONE_GRACE_NS: an exit ready
 * to settle is older than the grace, so the last look came after every
 * event of its process.
 */
#define RUN_UNSEEN_CHECK_NS (RUN_GONE_GRACE_NS / 2)

static void run__find_unseen(struct st_run *r, uint64_t now)
{
	uint64_t st[ST_STAT_MAX], unseen;

	/* A recording settles every exit (procs__settle_met_only() is off): nothing to find. */
	if (!r->session || r->rec || now - r->unseen_check < RUN_UNSEEN_CHECK_NS)
		return;
	r->unseen_check = now;
	if (session__stats(r->session, st)) {
		procs__unseen_events(r->procs, now); /* not known: as if */
		return;
	}
	unseen = st[ST_STAT_AGG_RESCUED] + st[ST_DROP_RINGBUF_FULL] + st[ST_DROP_AGG_FULL];
	if (unseen != r->unseen)
		procs__unseen_events(r->procs, now);
	r->unseen = unseen;
}

static void run__forget_gone(struct st_run *r, uint64_t now)
{
	uint64_t before = now > RUN_GONE_GRACE_NS ? now - RUN_GONE_GRACE_NS : 0;
	size_t due;

	if (!r->tool.on_gone || st_run_replaying())
		return;
	run__find_unseen(r, now);
	/* Those no event met: forgotten without a settle (nothing of theirs to read). */
	procs__forget_unmet(r->procs, before);
	procs__gone_ready(r->procs, before, &due);
	if (due >= RUN_GONE_BATCH || (due && now - r->last_settle >= RUN_GONE_AGE_NS)) {
		run__forget(r, before);
		r->last_settle = now;
		return;
	}
	if (!r->rec && now - r->last_settle >= RUN_GONE_AGE_NS) {
		/* No exit due: a settle all the same, for the counts of superseded mappings. */
		r->tool.on_gone(r->tool.ctx, NULL, 0);
		r->last_settle = now;
	}
}

/* A replay reached a recorded forget: the same processes go, their stacks settled first. */
static void run__on_forget(void *ctx, uint64_t before)
{
	struct st_run *r = ctx;

	if (r->tool.on_gone)
		run__forget(r, before);
}

/*
 * An exit found is written into the recording as the record it stands for
 * (@flags: ST_EXIT_FOUND or ST_EXIT_MAPLESS, what it was found as): the
 * replay cannot look at /proc, and without it a recorded process whose exit
 * record was lost stayed known to the end of the report, as it did in
 * recording runs, which did not look.
 */
static void run__record_exit_as(void *rec, int pid, uint64_t ts, __u32 flags)
{
	struct st_proc_event pe;

	st_proc_head(&pe, (__u32)pid, ST_PROC_EXIT, ts);
	pe.map_flags = flags;
	/* A write that fails fails the session's next one too, which stops the run. */
	(void)recorder__ring(rec, &pe, offsetof(struct st_proc_event, comps));
}

static void run__record_exit(void *ctx, int pid, uint64_t ts)
{
	run__record_exit_as(ctx, pid, ts, ST_EXIT_FOUND);
}

static void run__record_mapless_exit(void *ctx, int pid, uint64_t ts)
{
	run__record_exit_as(ctx, pid, ts, ST_EXIT_MAPLESS);
}

/*
 * Once a second, when process records were lost since the last look (the
 * ring buffer was full), the processes known alive that are gone are
 * given the exit their record would have: without it a process is never
 * settled, and its tables and in-kernel counts stay until the end. The
 * processes met only in their exit never get one: they are looked for every
 * second (procs__find_mapless_exits()).
 */
#define RUN_EXIT_CHECK_NS (1000 * 1000000ull)

static void run__find_exits(struct st_run *r, uint64_t now)
{
	uint64_t st[ST_STAT_MAX];

	if (now < r->next_exit_check || !r->session || st_run_replaying())
		return;
	r->next_exit_check = now + RUN_EXIT_CHECK_NS;
	if (session__stats(r->session, st) || st[ST_DROP_PROC_RINGBUF] == r->proc_drops) {
		procs__find_mapless_exits(r->procs, now,
					  r->rec ? run__record_mapless_exit : NULL, r->rec);
		return;
	}
	r->proc_drops = st[ST_DROP_PROC_RINGBUF];
	procs__find_exits(r->procs, now, r->rec ? run__record_exit : NULL, r->rec);
}

/*
 * Once a second the walker's idle tables of files deleted meanwhile go, and
 * their models with them when no process maps them: others rebuilding their
 * binaries delete the old ones after they ran, and an idle table kept each
 * one's fd (and disk space) for as long as stacktap ran.
 */
#define RUN_UNLINKED_CHECK_NS (1000 * 1000000ull)

static void run__release_unlinked(struct st_run *r, uint64_t now)
{
	if (now - r->unlinked_check < RUN_UNLINKED_CHECK_NS)
		return;
	r->unlinked_check = now;
	bpf_tables__release_unlinked(r->tables);
}

/* Return: true when tables may still wait to be built (the slice ran out). */
static bool run__on_poll(void *ctx)
{
	struct st_run *r = ctx;
	uint64_t start = procs_now();

	run__find_exits(r, start);
	run__forget_gone(r, start);
	if (r->rec)
		recorder__refresh(r->rec);
	if (!r->tables)
		return false;
	run__release_unlinked(r, start);
	bpf_tables__end_lazy(r->tables);
	for (;;) {
		if (procs_now() - start >= RUN_BUILD_SLICE_NS)
			return true;
		if (!bpf_tables__build_pending(r->tables))
			return false;
	}
}

/* The process of thread @tid, so -t loads its tables before the first walk. */
static int run__tgid(int tid)
{
	char *text, *line;
	uint64_t ts;
	size_t len;
	int tgid = tid;

	if (proc_source_read(tid, "status", &text, &len, &ts))
		return tid;
	line = strstr(text, "\nTgid:");
	if (line)
		sscanf(line + 1, "Tgid: %d", &tgid);
	free(text);
	return tgid;
}

/*
 * The copy stage: in copy mode the copy is the user stack; with
 * --unwind-check it checks the table walk; otherwise it unwinds the copies
 * the walker sends when it meets code not loaded yet.
 */
static int run__copy_setup(struct st_run *r, const struct st_common_opts *common,
			   const struct unwind_table_source *src)
{
	enum copy_stage_mode mode = COPY_STAGE_FALLBACK;

	if (common->unwind == ST_UNWIND_FP)
		return 0;
	if (common->unwind == ST_UNWIND_COPY)
		mode = COPY_STAGE_REPLACE;
	else if (common->unwind_check)
		mode = COPY_STAGE_COMPARE;
	r->cu = copy_unwinder__new(src, common->unwind == ST_UNWIND_AUTO);
	if (r->cu)
		r->copy = copy_stage__new(r->cu, mode, common->udepth);
	return r->copy ? 0 : -ENOMEM;
}

/*
 * The compat build of the BPF objects (feature_compat(), bpf/compat.bpf.h)
 * walks user stacks by the kernel's frame pointers only: a mode that asks
 * for tables or copies is refused, the others become --unwind=fp (no table
 * is built for a walker that cannot read it), and what it costs is said
 * once. Return: 0, or -EINVAL.
 */
static int run__compat(struct st_common_opts *common)
{
	char why[96];

	if (!feature_compat(why, sizeof(why)))
		return 0;
	if (common->unwind == ST_UNWIND_TABLE || common->unwind == ST_UNWIND_COPY ||
	    common->unwind_check) {
		st_err("--unwind=%s%s: not on this kernel (%s): user stacks by frame pointers only",
		       common->unwind == ST_UNWIND_TABLE ? "table" :
		       common->unwind == ST_UNWIND_COPY ? "copy" : "auto",
		       common->unwind_check ? " --unwind-check" : "", why);
		return -EINVAL;
	}
	common->unwind = ST_UNWIND_FP;
	if (!common->kernel_only)
		fprintf(stderr, "stacktap: user stacks by frame pointers only (%s): the kernel's "
				"own walk, at most perf_event_max_stack frames, none past code "
				"without them; nothing deferred or counted in the kernel\n", why);
	return 0;
}

int st_run__prepare(struct st_common_opts *common)
{
	int err;

	/* From here on Ctrl-C stops the run cleanly, also while it loads: it is
	 * seen at the run loop's first poll, so a recording is closed whole. */
	session_install_signals();
	st_libbpf_logging(common->debug);
	/* A report loads nothing: it needs no privileges, no BTF, no tracefs. */
	if (st_run_replaying())
		return 0;
	err = machine_prepare();
	return err ? err : run__compat(common);
}

bool st_run_replaying(void)
{
	return replay_active() != NULL;
}

bool st_run_aggregates(void)
{
	/* The compat build counts nothing in the kernel: its hashing loops by callback. */
	return !replay_active() && !recorder_active() && !feature_compat(NULL, 0);
}

/*
 * Recording without --print: the pipeline runs up to the tool, so every
 * /proc read a replay will ask for is made and written down, but the tool
 * sees nothing and holds nothing, and memory stays flat however long.
 */
static void run__record_setup(struct st_run *r)
{
	recorder__watch(r->rec, r->procs);
	if (recorder__prints(r->rec))
		return;
	r->tool.on_event = NULL;
	r->tool.on_record = NULL;
	r->tool.on_interval = NULL;
}

/* A perf map the recording kept: the replay's JIT names, as the live run read them. */
static int run__perf_map(void *ctx, int pid, const char *text, size_t len)
{
	return symbolizer__set_perf_map(ctx, pid, text, len);
}

int st_run__start(struct st_run *r, struct bpf_object *obj, const struct st_common_opts *common,
		  const struct session_opts *so)
{
	const struct unwind_table_source src = { .table = run__table, .ctx = r };
	const struct procs_listener views = { .maps = run__maps_changed, .forked = run__forked,
					      .exited = run__exited, .forgotten = run__forgotten,
					      .ctx = r };
	const struct bpf_tables_hooks hooks_init = { .built = run__table_built,
						     .taken = run__table_taken,
						     .release = run__table_release, .ctx = r };
	struct bpf_tables_hooks hooks = hooks_init;
	struct replay *rp = replay_active();
	struct session_opts own = *so;
	int err;

	/* First: the last program's load time runs to now. */
	if (obj && common->debug)
		prog_report(obj);
	r->common = common;
	r->met_filter = st_common_opts__met_filter(common);
	r->obj = obj;
	r->tool = *so;
	r->rec = recorder_active();
	r->procs = procs__new();
	if (!r->procs)
		return -errno;
	if (r->rec)
		run__record_setup(r);
	r->sym = symbolizer__new(r->procs);
	if (!r->sym)
		return -errno;
	symbolizer__set_opts(r->sym, &(struct symbolizer_opts){ .demangle = !common->no_demangle,
								.inlines = true,
								.lines = common->lines,
								.recorded = rp != NULL });
	if (rp) {
		replay__on_perf_map(rp, run__perf_map, r->sym);
		symbolizer__on_progress(r->sym, replay__naming, rp);
	}
	if (!rp && (common->unwind == ST_UNWIND_TABLE || common->unwind == ST_UNWIND_AUTO)) {
		r->tables = bpf_tables__new(obj, &src);
		if (!r->tables)
			return -errno;
		/*
		 * Tables before the banner unless --fast-start: until they are built a
		 * stack comes as a copy, and the user-space unwinder stops where the BPF
		 * walker goes on (signal frames, coroutines, uretprobe trampolines).
		 * --unwind-check compares every walk with its copy: no walks cut short on
		 * purpose. A tool with records of its own pairs them with events, and one
		 * whose events carry no copy (offcpu: a block is sent whole at its
		 * switch-in) could not unwind them later. A sampling tool run
		 * system-wide builds tables only for the processes it samples
		 * (session_opts.tables_when_met).
		 */
		hooks.lazy = common->fast_start && !common->unwind_check && !so->on_record &&
			     !so->no_copies;
		hooks.when_met = so->tables_when_met && !common->pid && !common->tid &&
				 !common->unwind_check && !so->on_record && !so->no_copies;
		bpf_tables__set_hooks(r->tables, &hooks);
		/* Nor reads the maps of a process it has not met (its records suffice until then). */
		procs__read_exec_late(r->procs, hooks.when_met && !r->rec);
		/* Nor do the views hear of a process it has not met (bpf_tables__fork() clears its entry). */
		procs__push_met_only(r->procs, hooks.when_met && !r->rec);
	}
	/* Stacks come only from events, each of which meets its process first (run__on_event()). */
	procs__settle_met_only(r->procs, !rp && !r->rec);
	err = run__copy_setup(r, common, &src);
	if (err)
		return err;
	procs__listen(r->procs, &views);
	if (common->pid || common->tid) {
		int pid = common->pid ? common->pid : run__tgid(common->tid);

		procs__see(r->procs, pid, procs_now());
		symbolizer__see(r->sym, pid);
	}
	if (!rp) {
		r->proc_events = proc_events__attach(obj);
		if (!r->proc_events)
			return -errno;
	}
	own.on_event = run__on_event;
	own.on_record = run__on_record;
	own.on_interval = run__on_interval;
	own.on_start = run__on_start;
	own.on_proc = run__on_proc;
	own.on_poll = run__on_poll;
	own.on_forget = run__on_forget;
	own.ctx = r;
	own.rec = r->rec;
	r->session = rp ? session__new_replay(rp, &own) : session__new(obj, &own);
	if (r->session && r->copy)
		session__take_back_stops(r->session, copy_stage__stats(r->copy)->replaced);
	return r->session ? 0 : -errno;
}

void st_run__report(const struct st_run *r)
{
	if (r->session)
		session__report_losses(r->session);
	if (r->sym)
		symbolizer__report(r->sym);
	if (r->procs)
		procs__report(r->procs);
	if (r->procs && (r->common->addrs || r->common->debug))
		procs__report_memory(r->procs);
	if (r->session && r->common->debug)
		session__report_joiner(r->session);
	if (!st_run_replaying() && (r->common->addrs || r->common->debug))
		ksyms_source_report();
	if (r->tables)
		bpf_tables__report(r->tables, r->common->addrs || r->common->debug);
	if (r->common->addrs || r->common->debug)
		capture_maps_report(r->obj);
	if ((r->tables || r->cu) && (r->common->addrs || r->common->debug))
		table_cache__report();
	if (r->copy)
		copy_stage__report(r->copy);
}

void st_run__stop(struct st_run *r)
{
	session__free(r->session);
	proc_events__free(r->proc_events);
	if (r->procs)
		procs__listen(r->procs, NULL);
	bpf_tables__free(r->tables);
	copy_stage__free(r->copy);
	copy_unwinder__free(r->cu);
	symbolizer__free(r->sym);
	procs__free(r->procs);
	memset(r, 0, sizeof(*r));
}
