// SPDX-License-Identifier: GPL-2.0
/* The run shared by the event tools (count, snoop). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/record.h" /* the skeleton names struct st_config */
#include "skel/events.skel.h"
#include "lib/probe/attach.h"
#include "lib/proc/tracker.h"
#include "lib/session/capture_maps.h"
#include "lib/session/proc_events.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/copy_stage.h"
#include "lib/unwind/copy_unwind.h"
#include "lib/util/log.h"
#include "tools/events/events.h"

int events_run__add_spec(struct events_run *r, const char *text, char *err, size_t errlen)
{
	struct probe_spec *v = realloc(r->specs, (r->nspecs + 1) * sizeof(*v));
	int ret;

	if (!v)
		return -ENOMEM;
	r->specs = v;
	ret = probe_spec__parse(text, &r->specs[r->nspecs], err, errlen);
	if (!ret)
		r->nspecs++;
	return ret;
}

/* Loads only the probe programs some spec needs: each carries the whole walker to verify. */
static void events__autoload(struct events_run *r)
{
	bool used[4] = {};
	size_t i;

	for (i = 0; i < r->nspecs; i++)
		used[r->specs[i].kind] = true;
	bpf_program__set_autoload(r->skel->progs.st_tracepoint, used[PROBE_TRACEPOINT]);
	bpf_program__set_autoload(r->skel->progs.st_uprobe, used[PROBE_UPROBE]);
	bpf_program__set_autoload(r->skel->progs.st_usdt, used[PROBE_USDT]);
	bpf_program__set_autoload(r->skel->progs.st_kprobe, used[PROBE_KFUNC]);
}

static int events__load(struct events_run *r)
{
	struct st_config cfg;
	int err;

	r->skel = events_bpf__open();
	if (!r->skel) {
		err = -errno;
		st_err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	st_common_opts__config(&r->common, &cfg);
	r->skel->rodata->st_cfg = cfg;
	events__autoload(r);
	err = capture_maps_size(r->skel->obj, &r->common);
	if (!err)
		err = events_bpf__load(r->skel);
	if (err)
		st_err("cannot load the BPF programs: %s%s", strerror(-err),
		       err == -EPERM ? " (run as root)" : "");
	return err;
}

static int events__on_event(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct events_run *r = ctx;

	proc_tracker__saw(r->tracker, ev->pid);
	if (r->copy) {
		ev = copy_stage__process(r->copy, ev, &ips);
		if (!ev)
			return 1;
	}
	return r->tool.on_event ? r->tool.on_event(r->tool.ctx, ev, ips) : 0;
}

static void events__on_proc(void *ctx, const struct st_proc_event *pe)
{
	struct events_run *r = ctx;

	proc_tracker__on_record(r->tracker, pe);
}

static int events__copy_setup(struct events_run *r)
{
	enum copy_stage_mode mode = COPY_STAGE_FALLBACK;

	if (r->common.unwind == ST_UNWIND_FP)
		return 0;
	if (r->common.unwind == ST_UNWIND_COPY)
		mode = COPY_STAGE_REPLACE;
	else if (r->common.unwind_check)
		mode = COPY_STAGE_COMPARE;
	r->cu = copy_unwinder__new();
	if (r->cu)
		r->copy = copy_stage__new(r->cu, mode, r->common.udepth);
	return r->copy ? 0 : -ENOMEM;
}

int events_run__start(struct events_run *r, const struct session_opts *tool_so)
{
	struct session_opts so = *tool_so;
	struct probe_progs progs;
	int err;

	st_libbpf_logging(r->common.debug);
	err = events__load(r);
	if (err)
		return err;
	r->sym = symbolizer__new();
	if (!r->sym)
		return -errno;
	if (r->common.unwind == ST_UNWIND_TABLE || r->common.unwind == ST_UNWIND_AUTO) {
		r->tables = bpf_tables__new(r->skel->obj);
		if (!r->tables)
			return -errno;
	}
	err = events__copy_setup(r);
	if (err)
		return err;
	r->tracker = proc_tracker__new(r->sym, r->tables, r->cu);
	if (!r->tracker)
		return -ENOMEM;
	if (r->common.pid)
		proc_tracker__saw(r->tracker, r->common.pid);
	progs = (struct probe_progs){
		.tracepoint = r->skel->progs.st_tracepoint,
		.uprobe = r->skel->progs.st_uprobe,
		.usdt = r->skel->progs.st_usdt,
		.kprobe = r->skel->progs.st_kprobe,
	};
	r->links = probe_links__attach(r->specs, r->nspecs, &progs, r->common.pid);
	if (!r->links)
		return -errno;
	r->proc_events = proc_events__attach(r->skel->obj);
	if (!r->proc_events)
		return -errno;
	r->tool = so;
	so.on_event = events__on_event;
	so.on_proc = events__on_proc;
	so.ctx = r;
	r->session = session__new(r->skel->obj, &so);
	if (!r->session)
		return -errno;
	session_install_signals();
	fprintf(stderr, "Tracing %zu probe points... Hit Ctrl-C to end.\n",
		probe_links__count(r->links));
	return 0;
}

void events_run__report(const struct events_run *r)
{
	session__report_losses(r->session);
	symbolizer__report(r->sym);
	if (r->tables)
		bpf_tables__report(r->tables);
	if (r->copy)
		copy_stage__report(r->copy);
}

int events_run__exit_code(int err)
{
	return err == -EINVAL ? 2 : err ? 1 : 0;
}

void events_run__stop(struct events_run *r)
{
	size_t i;

	session__free(r->session);
	proc_events__free(r->proc_events);
	probe_links__free(r->links);
	events_bpf__destroy(r->skel);
	proc_tracker__free(r->tracker);
	bpf_tables__free(r->tables);
	copy_stage__free(r->copy);
	copy_unwinder__free(r->cu);
	symbolizer__free(r->sym);
	for (i = 0; i < r->nspecs; i++)
		probe_spec__release(&r->specs[i]);
	free(r->specs);
	memset(r, 0, sizeof(*r));
}
