// SPDX-License-Identifier: GPL-2.0
/* The run shared by the event tools (count, snoop). */
#include <errno.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/aggregate.h" /* the skeleton names struct st_agg_config */
#include "bpf/record.h" /* the skeleton names struct st_config */
#include "skel/events.skel.h"
#include "skel/events.tw4.skel.h"
#include "skel/events.compat.skel.h"
#include "lib/session/aggregate.h"
#include "lib/probe/attach.h"
#include "lib/session/capture_maps.h"
#include "lib/session/skel_open.h"
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

/* The same probe, whatever its spelling ("t:" or "tp:", "c" or "libc"). */
static bool events__same(const struct probe_spec *a, const struct probe_spec *b)
{
	const char *ta = strcmp(a->target, "libc") ? a->target : "c";
	const char *tb = strcmp(b->target, "libc") ? b->target : "c";

	return a->kind == b->kind && !strcmp(ta, tb) && !strcmp(a->name ?: "", b->name ?: "") &&
	       !strcmp(a->name2 ?: "", b->name2 ?: "");
}

/* PF_KTHREAD in /proc/PID/stat's flags (field 9): the task never runs user code. */
static bool events__kthread(int pid, char *comm, size_t len)
{
	char path[64], buf[512], *open, *close;
	unsigned long flags = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID PGRP SESSION TTY TPGID FLAGS ...": COMM may hold ')'. */
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open ||
	    sscanf(close + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return false;
	snprintf(comm, len, "%.*s", (int)(close - open - 1), open + 1);
	return flags & 0x00200000; /* PF_KTHREAD */
}

int events_run__check(const struct events_run *r, char *err, size_t errlen)
{
	int task = r->common.pid ? r->common.pid : r->common.tid;
	char comm[64];
	size_t i, j;

	for (i = 0; i < r->nspecs; i++)
		for (j = 0; j < i; j++)
			if (events__same(&r->specs[i], &r->specs[j])) {
				const char *a = r->specs[i].text, *b = r->specs[j].text;

				if (!strcmp(a, b))
					snprintf(err, errlen, "probe '%s' is given twice", a);
				else
					snprintf(err, errlen, "probe '%s' is given twice (also as "
						 "'%s')", a, b);
				return -EINVAL;
			}
	if (!task || !events__kthread(task, comm, sizeof(comm)))
		return 0;
	for (i = 0; i < r->nspecs; i++)
		if (r->specs[i].kind == PROBE_UPROBE || r->specs[i].kind == PROBE_USDT) {
			snprintf(err, errlen, "%s %d (%s) is a kernel thread: %s never fires in it",
				 r->common.pid ? "pid" : "tid", task, comm, r->specs[i].text);
			return -EINVAL;
		}
	return 0;
}

/* Loads only the probe programs some spec needs: each carries the whole walker to verify. */
static void events__autoload(struct events_run *r)
{
	bool used[PROBE_KIND_MAX] = {};
	size_t i;

	for (i = 0; i < r->nspecs; i++)
		used[r->specs[i].kind] = true;
	bpf_program__set_autoload(r->skel->progs.st_tracepoint, used[PROBE_TRACEPOINT]);
	bpf_program__set_autoload(r->skel->progs.st_uprobe, used[PROBE_UPROBE]);
	bpf_program__set_autoload(r->skel->progs.st_uretprobe, used[PROBE_URETPROBE]);
	bpf_program__set_autoload(r->skel->progs.st_usdt, used[PROBE_USDT]);
	bpf_program__set_autoload(r->skel->progs.st_kprobe, used[PROBE_KFUNC]);
	r->common.progs = (used[PROBE_TRACEPOINT] ? FEATURE_PROG_BIT(FEATURE_PROG_TRACEPOINT) : 0) |
			  (used[PROBE_UPROBE] || used[PROBE_URETPROBE] || used[PROBE_USDT] ||
					   used[PROBE_KFUNC] ?
				   FEATURE_PROG_BIT(FEATURE_PROG_KPROBE) :
				   0);
}

static int events__load(struct events_run *r)
{
	struct st_config cfg;
	int err;

	r->skel = ST_SKEL_OPEN(events_bpf);
	if (!r->skel) {
		err = -errno;
		st_err("cannot open the BPF object: %s", strerror(-err));
		return err;
	}
	events__autoload(r);
	st_common_opts__config(&r->common, &cfg);
	r->skel->rodata->st_cfg = cfg;
	r->skel->rodata->st_agg_cfg = r->agg;
	err = capture_maps_size(r->skel->obj, &r->common);
	if (!err)
		err = events_bpf__load(r->skel);
	if (err)
		st_load_failed(NULL, err);
	return err;
}

int events_run__start(struct events_run *r, const struct session_opts *so)
{
	struct probe_progs progs;
	size_t n;
	int err;

	/* Recording sees every event as a record; a report replays one: nothing to load or attach. */
	if (!st_run_aggregates())
		r->agg.on = 0;
	/* The compat build's records cannot say which spec fired (bpf/compat.bpf.h). */
	if (r->nspecs > 1 && !st_run_replaying() && feature_compat(NULL, 0)) {
		st_err("one probe spec per run on this kernel: without bpf_get_attach_cookie() "
		       "(5.15) a record cannot say which of %zu fired", r->nspecs);
		return -EINVAL;
	}
	err = st_run_replaying() ? 0 : events__load(r);
	if (!err)
		err = st_run__start(&r->st, r->skel ? r->skel->obj : NULL, &r->common, so);
	if (!err && r->agg.on && !(r->agg_reader = agg_reader__new(r->skel->obj, r->st.session)))
		err = -errno;
	if (err || st_run_replaying())
		return err;
	progs = (struct probe_progs){
		.tracepoint = r->skel->progs.st_tracepoint,
		.uprobe = r->skel->progs.st_uprobe,
		.uretprobe = r->skel->progs.st_uretprobe,
		.usdt = r->skel->progs.st_usdt,
		.kprobe = r->skel->progs.st_kprobe,
	};
	r->links = probe_links__attach(r->specs, r->nspecs, &progs, r->common.pid);
	if (!r->links)
		return -errno;
	n = probe_links__count(r->links);
	fprintf(stderr, "Tracing %zu probe %s... Hit Ctrl-C to end.\n", n,
		st_plural(n, "point", "points"));
	return 0;
}

void events_run__detach(struct events_run *r)
{
	probe_links__free(r->links);
	r->links = NULL;
}

void events_run__report(const struct events_run *r)
{
	st_run__report(&r->st);
}

int events_run__exit_code(int err)
{
	return err == -EINVAL ? 2 : err ? 1 : 0;
}

void events_run__stop(struct events_run *r)
{
	size_t i;

	probe_links__free(r->links);
	agg_reader__free(r->agg_reader);
	st_run__stop(&r->st);
	events_bpf__destroy(r->skel);
	for (i = 0; i < r->nspecs; i++)
		probe_spec__release(&r->specs[i]);
	free(r->specs);
	memset(r, 0, sizeof(*r));
}
