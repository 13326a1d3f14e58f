// SPDX-License-Identifier: GPL-2.0
/* The run shared by the event tools (count, snoop). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/record.h" /* the skeleton names struct st_config */
#include "skel/events.skel.h"
#include "lib/probe/attach.h"
#include "lib/session/capture_maps.h"
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
	bool used[PROBE_KIND_MAX] = {};
	size_t i;

	for (i = 0; i < r->nspecs; i++)
		used[r->specs[i].kind] = true;
	bpf_program__set_autoload(r->skel->progs.st_tracepoint, used[PROBE_TRACEPOINT]);
	bpf_program__set_autoload(r->skel->progs.st_uprobe, used[PROBE_UPROBE]);
	bpf_program__set_autoload(r->skel->progs.st_uretprobe, used[PROBE_URETPROBE]);
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

int events_run__start(struct events_run *r, const struct session_opts *so)
{
	struct probe_progs progs;
	int err;

	st_libbpf_logging(r->common.debug);
	err = events__load(r);
	if (!err)
		err = st_run__start(&r->st, r->skel->obj, &r->common, so);
	if (err)
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
	session_install_signals();
	fprintf(stderr, "Tracing %zu probe points... Hit Ctrl-C to end.\n",
		probe_links__count(r->links));
	return 0;
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
	st_run__stop(&r->st);
	events_bpf__destroy(r->skel);
	for (i = 0; i < r->nspecs; i++)
		probe_spec__release(&r->specs[i]);
	free(r->specs);
	memset(r, 0, sizeof(*r));
}
