// SPDX-License-Identifier: GPL-2.0
/* The copy stage: records with a copied user stack, before a tool sees them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/unwind/copy_stage.h"
#include "lib/unwind/copy_unwind.h"
#include "lib/unwind/ustop.h"
#include "lib/util/log.h"

struct copy_stage {
	struct copy_unwinder *cu;
	enum copy_stage_mode mode;
	uint32_t max;
	struct st_event *ev; /* rebuilt record: header + kernel frames + user frames */
	uint64_t *user;      /* user-space walk of the copy */
	uint64_t last_cookie; /* the deferred walk last replaced: its events come together */
	uint32_t last_pid;
	struct copy_stage_stats st;
};

struct copy_stage *copy_stage__new(struct copy_unwinder *cu, enum copy_stage_mode mode,
				   uint32_t max_frames)
{
	struct copy_stage *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return NULL;
	cs->cu = cu;
	cs->mode = mode;
	cs->max = max_frames;
	cs->ev = malloc(sizeof(*cs->ev) + (ST_MAX_KSTACK + max_frames) * sizeof(uint64_t));
	cs->user = calloc(max_frames, sizeof(uint64_t));
	if (!cs->ev || !cs->user) {
		copy_stage__free(cs);
		return NULL;
	}
	return cs;
}

/* The comparison is about addresses and exact pcs; how a frame was found may differ. */
static bool stage__same(const uint64_t *bpf, size_t nb, const uint64_t *user, size_t nu)
{
	size_t i;

	if (nb != nu)
		return false;
	for (i = 0; i < nb; i++)
		if ((bpf[i] & ~ST_FRAME_FP) != (user[i] & ~ST_FRAME_FP))
			return false;
	return true;
}

/* The record's words for why the user-space walk of a copy ended. */
static __u16 stage__ustop(enum unwind_stop why)
{
	static const __u16 to[UNWIND_STOP_MAX] = {
		[UNWIND_STOP_OUTERMOST] = ST_USTOP_OUTERMOST,
		[UNWIND_STOP_NO_MAPPING] = ST_USTOP_NO_MAPPING,
		[UNWIND_STOP_NO_TABLE] = ST_USTOP_NO_TABLE,
		[UNWIND_STOP_BAD_CFA] = ST_USTOP_BAD_CFA,
		[UNWIND_STOP_STACK_DOWN] = ST_USTOP_BAD_CFA,
		[UNWIND_STOP_OUTSIDE] = ST_USTOP_READ_FAILED,
		[UNWIND_STOP_DEPTH] = ST_USTOP_DEPTH,
		[UNWIND_STOP_UNSUPPORTED] = ST_USTOP_UNSUPPORTED,
	};

	return (unsigned)why < UNWIND_STOP_MAX ? to[why] : ST_USTOP_NONE;
}

/*
 * The walker counted its walk as stopped early (st_ustats); the copy's walk
 * replaces it, so that count is taken back, once per walk: the events of one
 * deferred walk share its cookie and are released together.
 */
static void stage__note_replaced(struct copy_stage *cs, const struct st_event *ev)
{
	if (ev->ustop >= ST_USTOP_MAX || !ustop_early(ev->ustop))
		return;
	if (ev->cookie && ev->cookie == cs->last_cookie && ev->pid == cs->last_pid)
		return;
	cs->last_cookie = ev->cookie;
	cs->last_pid = ev->pid;
	cs->st.replaced[ev->ustop]++;
}

const struct st_event *copy_stage__process(struct copy_stage *cs, const struct st_event *ev,
					   const uint64_t **ips)
{
	const struct st_ucopy *c = (const struct st_ucopy *)(*ips + ev->kdepth + ev->udepth);
	enum unwind_stop stop;
	size_t n;

	if (!(ev->flags & ST_EV_UCOPY))
		return ev;
	stop = copy_unwinder__walk(cs->cu, ev->pid, c, cs->user, cs->max, &n);
	cs->st.unwound++;
	if ((unsigned)stop < UNWIND_STOP_MAX)
		cs->st.stops[stop]++;
	if (cs->mode == COPY_STAGE_COMPARE) {
		/* A process seen a moment ago: the BPF walk had no tables to compare. */
		if (ev->flags & ST_EV_UNLOADED) {
			cs->st.unloaded++;
			return ev;
		}
		/* A copy holds one stack: the BPF walk went on to another. */
		if (ev->flags & ST_EV_USWITCHED) {
			cs->st.switched++;
			return ev;
		}
		/*
		 * The copy ended before the walk's stack did: past ST_COPY_MAX, or
		 * at a page never touched (a large frame's unused locals), which a
		 * read that may not fault cannot copy and the walker never reads.
		 */
		if (stop == UNWIND_STOP_OUTSIDE && (c->len >= ST_COPY_MAX || c->len < c->want)) {
			cs->st.past_copy++;
			return ev;
		}
		cs->st.compared++;
		cs->st.differ += !stage__same(*ips + ev->kdepth, ev->udepth, cs->user, n);
		return ev;
	}
	if (cs->mode == COPY_STAGE_FALLBACK) {
		if (n < ev->udepth)
			return ev;
		cs->st.rescued++;
	}
	stage__note_replaced(cs, ev);
	*cs->ev = *ev;
	cs->ev->udepth = n;
	cs->ev->ustop = stage__ustop(stop);
	cs->ev->flags &= ~ST_EV_UCOPY;
	if (stop == UNWIND_STOP_DEPTH)
		cs->ev->flags |= ST_EV_UTRUNC;
	memcpy(cs->ev + 1, *ips, ev->kdepth * sizeof(uint64_t));
	memcpy((uint64_t *)(cs->ev + 1) + ev->kdepth, cs->user, n * sizeof(uint64_t));
	*ips = (const uint64_t *)(cs->ev + 1);
	return cs->ev;
}

const struct copy_stage_stats *copy_stage__stats(const struct copy_stage *cs)
{
	return &cs->st;
}

void copy_stage__report(const struct copy_stage *cs)
{
	unsigned i;

	if (cs->st.compared || cs->st.unloaded)
		fprintf(stderr, "stacktap: unwind check: %llu events compared, %llu differ\n",
			(unsigned long long)cs->st.compared, (unsigned long long)cs->st.differ);
	if (cs->st.unloaded)
		fprintf(stderr, "stacktap: unwind check: %llu events not compared: their code was not "
				"loaded yet when they fired\n", (unsigned long long)cs->st.unloaded);
	if (cs->st.past_copy)
		fprintf(stderr, "stacktap: unwind check: %llu events not compared: their copy ends "
				"before their stack (at %d KiB, or at a page never touched)\n",
			(unsigned long long)cs->st.past_copy, ST_COPY_MAX / 1024);
	if (cs->st.switched)
		fprintf(stderr, "stacktap: unwind check: %llu events not compared: their walk moved "
				"to another stack, which the copy does not hold\n",
			(unsigned long long)cs->st.switched);
	for (i = 0; i < UNWIND_STOP_MAX; i++)
		if (i != UNWIND_STOP_OUTERMOST && i != UNWIND_STOP_DEPTH && cs->st.stops[i])
			fprintf(stderr, "stacktap: %llu copied %s stopped early: %s\n",
				(unsigned long long)cs->st.stops[i],
				st_plural(cs->st.stops[i], "stack", "stacks"), unwind_stop_name(i));
}

void copy_stage__free(struct copy_stage *cs)
{
	if (!cs)
		return;
	free(cs->ev);
	free(cs->user);
	free(cs);
}
