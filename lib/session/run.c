// SPDX-License-Identifier: GPL-2.0
/* What every capturing tool sets up around its loaded BPF object. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/proc/tracker.h"
#include "lib/session/proc_events.h"
#include "lib/session/run.h"
#include "lib/session/ustats.h"
#include "lib/sym/symbolizer.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/copy_stage.h"
#include "lib/unwind/copy_unwind.h"

static int run__on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct st_run *r = ctx;

	proc_tracker__saw(r->tracker, ev->pid);
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

static void run__on_proc(void *ctx, const struct st_proc_event *pe)
{
	struct st_run *r = ctx;

	proc_tracker__on_record(r->tracker, pe);
}

/* The process of thread @tid, so -t loads its tables before the first walk. */
static int run__tgid(int tid)
{
	char path[64], line[128];
	int tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

/*
 * The copy stage: in copy mode the copy is the user stack; with
 * --unwind-check it checks the table walk; otherwise it unwinds the copies
 * the walker sends when it meets code not loaded yet.
 */
static int run__copy_setup(struct st_run *r, const struct st_common_opts *common)
{
	enum copy_stage_mode mode = COPY_STAGE_FALLBACK;

	if (common->unwind == ST_UNWIND_FP)
		return 0;
	if (common->unwind == ST_UNWIND_COPY)
		mode = COPY_STAGE_REPLACE;
	else if (common->unwind_check)
		mode = COPY_STAGE_COMPARE;
	r->cu = copy_unwinder__new(common->unwind == ST_UNWIND_AUTO);
	if (r->cu)
		r->copy = copy_stage__new(r->cu, mode, common->udepth);
	return r->copy ? 0 : -ENOMEM;
}

int st_run__start(struct st_run *r, struct bpf_object *obj, const struct st_common_opts *common,
		  const struct session_opts *so)
{
	struct session_opts own = *so;
	int err;

	r->common = common;
	r->obj = obj;
	r->tool = *so;
	r->sym = symbolizer__new();
	if (!r->sym)
		return -errno;
	if (common->unwind == ST_UNWIND_TABLE || common->unwind == ST_UNWIND_AUTO) {
		r->tables = bpf_tables__new(obj);
		if (!r->tables)
			return -errno;
	}
	err = run__copy_setup(r, common);
	if (err)
		return err;
	r->tracker = proc_tracker__new(r->sym, r->tables, r->cu);
	if (!r->tracker)
		return -ENOMEM;
	if (common->pid || common->tid)
		proc_tracker__saw(r->tracker, common->pid ? common->pid : run__tgid(common->tid));
	r->proc_events = proc_events__attach(obj);
	if (!r->proc_events)
		return -errno;
	own.on_event = run__on_event;
	own.on_record = run__on_record;
	own.on_interval = run__on_interval;
	own.on_proc = run__on_proc;
	own.ctx = r;
	r->session = session__new(obj, &own);
	return r->session ? 0 : -errno;
}

void st_run__report(const struct st_run *r)
{
	if (r->session)
		session__report_losses(r->session);
	if (r->obj)
		ustats__report(r->obj);
	if (r->sym)
		symbolizer__report(r->sym);
	if (r->tables)
		bpf_tables__report(r->tables);
	if (r->copy)
		copy_stage__report(r->copy);
}

void st_run__stop(struct st_run *r)
{
	session__free(r->session);
	proc_events__free(r->proc_events);
	proc_tracker__free(r->tracker);
	bpf_tables__free(r->tables);
	copy_stage__free(r->copy);
	copy_unwinder__free(r->cu);
	symbolizer__free(r->sym);
	memset(r, 0, sizeof(*r));
}
