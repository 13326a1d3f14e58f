// SPDX-License-Identifier: GPL-2.0
/* The loss summary: one line per nonzero reason, for the run or one interval. */
#include "lib/session/losses.h"
#include "lib/unwind/ustop.h"
#include "lib/util/log.h"

/* "N <one|many> <what>": the noun agrees with N. */
struct loss_line {
	const char *one, *many, *what;
};

static const struct loss_line stat_lines[ST_STAT_MAX] = {
	[ST_DROP_RINGBUF_FULL] = { "event", "events",
				   "dropped: ring buffer full (try a larger --ringbuf-kb)" },
	[ST_DROP_PROC_RINGBUF] = { "process record", "process records",
				   "dropped: ring buffer full (mappings may be incomplete)" },
	[ST_DROP_SCRATCH_BUSY] = { "event", "events",
				   "dropped: nested event on a CPU already capturing" },
	[ST_STAT_KTRUNC] = { "kernel stack", "kernel stacks", "truncated at the depth limit" },
	[ST_STAT_UTRUNC] = { "user stack", "user stacks", "truncated at the depth limit" },
	[ST_STAT_KFAIL] = { "kernel stack", "kernel stacks", "unavailable" },
	[ST_STAT_UFAIL] = { "user stack", "user stacks", "unavailable" },
	[ST_STAT_TW_BUSY] = { "deferred user-stack request", "deferred user-stack requests",
			      "refused as busy: captured synchronously" },
	[ST_STAT_TW_FAIL] = { "deferred user-stack request", "deferred user-stack requests",
			      "failed: captured synchronously" },
	[ST_STAT_DEFER_FULL] = { "deferred user-stack request", "deferred user-stack requests",
				 "found the request table full: captured synchronously" },
	[ST_DROP_USTACK_RINGBUF] = { "deferred user stack", "deferred user stacks",
				     "lost: ring buffer full" },
	[ST_DROP_AGG_FULL] = { "event", "events",
			       "dropped: ring buffer full and in-kernel count maps full "
			       "(try a larger --agg-entries)" },
	[ST_DROP_BLOCK_FULL] = { "off-CPU block", "off-CPU blocks",
				 "not timed: the table of tasks off the CPU was full" },
	[ST_STAT_MET_FULL] = { "process", "processes",
			       "not marked met, the table full: every process record is sent "
			       "from then on" },
	[ST_STAT_MET_TW_FAIL] = { "process description", "process descriptions",
				  "not requested (task_work failed): asked again at a later event" },
	[ST_STAT_MET_RETRY] = { "process description", "process descriptions",
				"not made (no memory map, or busy): asked again at a later event" },
	[ST_STAT_BLOCK_NO_IN] = { "off-CPU block", "off-CPU blocks",
				  "ended with no switch-in traced by the kernel: timed by the task's "
				  "run time since" },
};

static void losses__line(FILE *f, const char *prefix, uint64_t n, const char *one,
			 const char *many, const char *what)
{
	if (n)
		fprintf(f, "stacktap: %s%llu %s %s\n", prefix, (unsigned long long)n,
			st_plural(n, one, many), what);
}

/* The joiner's side: events that left without their stack. */
static void losses__joiner(FILE *f, const struct session_losses *now,
			   const struct session_losses *z, const char *prefix)
{
	char what[160];
	int k;

	for (k = JOINER_LOST_NONE + 1; k < JOINER_LOST_MAX; k++) {
		uint64_t n = now->lost[k] - z->lost[k];

		snprintf(what, sizeof(what), "without %s user stack: %s", n == 1 ? "its" : "their",
			 joiner_lost_reason(k));
		losses__line(f, prefix, n, "event", "events", what);
	}
	losses__line(f, prefix, now->duplicates - z->duplicates, "duplicate deferred user stack",
		     "duplicate deferred user stacks", "ignored");
	losses__line(f, prefix, now->foreign - z->foreign, "record", "records",
		     "of an unknown kind ignored");
}

/*
 * The walker's side, at the event and deferred alike: walks that stopped
 * early, by reason. A walk that reached the outermost frame is whole and a
 * cut one is counted as truncated (ST_STAT_UTRUNC): neither is a loss.
 */
static void losses__walks(FILE *f, const struct session_losses *now,
			  const struct session_losses *z, const char *prefix)
{
	char what[160];
	unsigned k;

	for (k = 0; k < ST_USTOP_MAX; k++)
		if (ustop_early(k)) {
			snprintf(what, sizeof(what), "stopped early: %s", ustop_reason(k));
			losses__line(f, prefix, now->ustats[k] - z->ustats[k], "user stack",
				     "user stacks", what);
		}
}

/* Not losses: how the walks went (--debug). */
static void losses__walk_info(const struct session_losses *now, const struct session_losses *z)
{
	uint64_t d[ST_USTAT_MAX], early = 0;
	unsigned k;

	for (k = 0; k < ST_USTAT_MAX; k++)
		d[k] = now->ustats[k] - z->ustats[k];
	for (k = 0; k < ST_USTOP_MAX; k++)
		early += ustop_early(k) ? d[k] : 0;
	st_info("user-stack walks: %llu, %llu complete, %llu truncated, %llu stopped early; "
		"%llu signal frames, %llu stack switches, %llu uretprobe returns, %llu frames by "
		"frame pointer; walk cache: %llu hits, %llu walks kept, %llu not keepable, %llu spliced",
		(unsigned long long)d[ST_USTAT_WALKS], (unsigned long long)d[ST_USTOP_OUTERMOST],
		(unsigned long long)d[ST_USTOP_DEPTH], (unsigned long long)early,
		(unsigned long long)d[ST_USTAT_SIGNAL_FRAMES], (unsigned long long)d[ST_USTAT_SWITCHES],
		(unsigned long long)d[ST_USTAT_URETPROBE], (unsigned long long)d[ST_USTAT_FP_FRAMES],
		(unsigned long long)d[ST_USTAT_UCACHE_HITS], (unsigned long long)d[ST_USTAT_UCACHE_KEPT],
		(unsigned long long)d[ST_USTAT_UCACHE_UNKEPT],
		(unsigned long long)d[ST_USTAT_UCACHE_SPLICES]);
}

void session_losses_print(FILE *f, const struct session_losses *now,
			  const struct session_losses *since, const char *prefix, bool losses_only)
{
	static const struct session_losses zero;
	const struct session_losses *z = since ? since : &zero;
	uint64_t walks, events;
	int k;

	for (k = 0; k < ST_STAT_MAX; k++)
		if (stat_lines[k].one)
			losses__line(f, prefix, now->stats[k] - z->stats[k], stat_lines[k].one,
				     stat_lines[k].many, stat_lines[k].what);
	losses__joiner(f, now, z, prefix);
	losses__walks(f, now, z, prefix);
	if (losses_only)
		return;
	losses__walk_info(now, z);
	losses__line(f, prefix, now->stats[ST_STAT_USYNC] - z->stats[ST_STAT_USYNC], "user stack",
		     "user stacks", "taken at the event in deferred mode (uprobe, exiting task, or "
				    "process not loaded yet)");
	losses__line(f, prefix, now->stats[ST_STAT_AGG_FULL] - z->stats[ST_STAT_AGG_FULL], "event",
		     "events", "sent as records, not counted in the kernel: its map was full "
			       "(--agg-entries)");
	losses__line(f, prefix, now->stats[ST_STAT_AGG_COLLIDE] - z->stats[ST_STAT_AGG_COLLIDE],
		     "event", "events", "sent as records, not counted in the kernel: another stack "
					"holds its hash");
	losses__line(f, prefix, now->stats[ST_STAT_AGG_DEEP] - z->stats[ST_STAT_AGG_DEEP], "event",
		     "events", "sent as records, not counted in the kernel: stack too deep to store");
	losses__line(f, prefix, now->stats[ST_STAT_AGG_RESCUED] - z->stats[ST_STAT_AGG_RESCUED],
		     "event", "events", "counted in the kernel, not sent: ring buffer over half full "
					"(a stack of code not loaded yet ends where the walk stopped)");
	losses__line(f, prefix, now->stats[ST_STAT_AGG_CUT] - z->stats[ST_STAT_AGG_CUT], "event",
		     "events", "of those too deep to store: user stack cut to fit (marked truncated)");
	/* Not a loss: how many walks served how many events (one per kernel entry). */
	walks = now->stats[ST_STAT_UWALKS] - z->stats[ST_STAT_UWALKS];
	events = now->deferred_events - z->deferred_events;
	if (walks)
		fprintf(f, "stacktap: %sdeferred user stacks: %llu %s for %llu %s\n", prefix,
			(unsigned long long)walks, st_plural(walks, "walk", "walks"),
			(unsigned long long)events, st_plural(events, "event", "events"));
}
