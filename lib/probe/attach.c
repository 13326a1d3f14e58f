// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching probe specs. Every failure is checked before or at attach time
 * and reported once, naming the spec; whatever was attached before the
 * failure is detached again, so a bad spec never leaves a link behind.
 *
 * Specs may overlap (two globs matching one tracepoint, "u:c:malloc" and
 * "u:libc:malloc"): each probe point is attached once, by the first spec
 * that names it, so an event is never counted twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "lib/probe/attach.h"
#include "lib/probe/resolve.h"
#include "lib/proc/maps.h"
#include "lib/util/log.h"
#include "lib/util/machine.h"

/* One attached probe point: "t:CAT:NAME", "u:PATH:0xOFF" or "usdt:PATH:PROV:NAME". */
struct attached {
	struct bpf_link *link;
	char *point;
};

struct probe_links {
	struct attached *v;
	size_t n, cap;
};

static bool links__has(const struct probe_links *pl, const char *point)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		if (!strcmp(pl->v[i].point, point))
			return true;
	return false;
}

static int links__push(struct probe_links *pl, struct bpf_link *link, const char *point)
{
	char *p = strdup(point);

	if (!p)
		return -ENOMEM;
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 16;
		struct attached *v = realloc(pl->v, cap * sizeof(*v));

		if (!v) {
			free(p);
			return -ENOMEM;
		}
		pl->v = v;
		pl->cap = cap;
	}
	pl->v[pl->n++] = (struct attached){ link, p };
	return 0;
}

/* Takes ownership of @link; a NULL link is libbpf's failure, errno set. */
static int links__add(struct probe_links *pl, struct bpf_link *link, const char *point)
{
	int err;

	if (!link)
		return -errno;
	err = links__push(pl, link, point);
	if (err)
		bpf_link__destroy(link);
	return err;
}

static int attach__tp_one(struct probe_links *pl, struct bpf_program *prog, const char *cat,
			  const char *name, __u64 cookie)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = cookie);
	char point[PATH_MAX];

	snprintf(point, sizeof(point), "t:%s:%s", cat, name);
	if (links__has(pl, point))
		return 0; /* an earlier spec attached it */
	return links__add(pl, bpf_program__attach_tracepoint_opts(prog, cat, name, &opts), point);
}

/* Attaches every tracepoint whose category and name match the spec's globs. */
static int attach__tracepoint(struct probe_links *pl, const struct probe_spec *s,
			      struct bpf_program *prog, __u64 cookie)
{
	const char *tracefs = machine_tracefs();
	struct dirent *c, *e;
	char root[64], path[PATH_MAX];
	DIR *cats, *evs;
	int err = 0, found = 0;

	/* machine_prepare() found or mounted tracefs before anything was loaded. */
	if (!tracefs) {
		st_err("%s: tracefs is not ready (machine_prepare() was not run)", s->text);
		return -ENODEV;
	}
	snprintf(root, sizeof(root), "%s/events", tracefs);
	cats = opendir(root);
	if (!cats) {
		err = -errno;
		st_err("%s: %s: %s", s->text, root, strerror(-err));
		return err;
	}
	while (!err && (c = readdir(cats))) {
		if (c->d_name[0] == '.' || fnmatch(s->target, c->d_name, 0))
			continue;
		snprintf(path, sizeof(path), "%s/%s", root, c->d_name);
		evs = opendir(path);
		if (!evs)
			continue;
		while (!err && (e = readdir(evs))) {
			if (e->d_type != DT_DIR || e->d_name[0] == '.' || fnmatch(s->name, e->d_name, 0))
				continue;
			found++;
			err = attach__tp_one(pl, prog, c->d_name, e->d_name, cookie);
			if (err)
				st_err("%s: cannot attach %s:%s: %s", s->text, c->d_name, e->d_name,
				       strerror(-err));
		}
		closedir(evs);
	}
	closedir(cats);
	if (!err && !found) {
		st_err("%s: no such tracepoint", s->text);
		return -EINVAL;
	}
	return err;
}

/* The ELF file a u:/usdt: spec names, or NULL after saying why not. */
static char *attach__binary(const struct probe_spec *s, int pid)
{
	char *path = probe_resolve_binary(s->target, pid);
	const char *why;

	if (!path) {
		st_err("%s: binary or library '%s' not found", s->text, s->target);
		return NULL;
	}
	why = probe_not_elf(path);
	if (why) {
		st_err("%s: %s: %s", s->text, path, why);
		free(path);
		return NULL;
	}
	return path;
}

static int attach__uprobe(struct probe_links *pl, const struct probe_spec *s,
			  struct bpf_program *prog, int pid, __u64 cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie);
	char point[PATH_MAX + 32];
	uint64_t off;
	char *path;
	int err;

	path = attach__binary(s, pid);
	if (!path)
		return -EINVAL;
	err = probe_symbol_offset(path, s->name, &off);
	if (err == -ENOENT)
		st_err("%s: symbol '%s' not found in %s", s->text, s->name, path);
	else if (err)
		st_err("%s: cannot read %s: %s", s->text, path, strerror(-err));
	snprintf(point, sizeof(point), "u:%s:%#llx", path, (unsigned long long)off);
	if (!err && !links__has(pl, point)) {
		err = links__add(pl, bpf_program__attach_uprobe_opts(prog, pid ? pid : -1, path,
								     off, &opts), point);
		if (err)
			st_err("%s: cannot attach uprobe: %s", s->text, strerror(-err));
	}
	free(path);
	return err == -ENOENT ? -EINVAL : err;
}

static int attach__usdt(struct probe_links *pl, const struct probe_spec *s,
			struct bpf_program *prog, int pid, __u64 cookie)
{
	LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = cookie);
	char point[PATH_MAX + 2 * 256];
	char *path;
	int err;

	path = attach__binary(s, pid);
	if (!path)
		return -EINVAL;
	snprintf(point, sizeof(point), "usdt:%s:%s:%s", path, s->name, s->name2);
	if (links__has(pl, point)) {
		free(path);
		return 0;
	}
	err = links__add(pl, bpf_program__attach_usdt(prog, pid ? pid : -1, path, s->name,
						      s->name2, &opts), point);
	if (err == -ENOENT) {
		st_err("%s: no USDT probe %s:%s in %s", s->text, s->name, s->name2, path);
		err = -EINVAL;
	} else if (err) {
		st_err("%s: cannot attach USDT probe: %s", s->text, strerror(-err));
	}
	free(path);
	return err;
}

/*
 * k:FUNCTION. fentry is tried first as a feature probe (a two-instruction
 * program loaded against the function's BTF id), then a kprobe is attached.
 * Both answers are kept so the failure line says what was tried and why.
 */
static int attach__kfunc(struct probe_links *pl, const struct probe_spec *s,
			 struct bpf_program *prog, __u64 cookie)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = cookie);
	char point[256];
	int fentry_err, err;

	fentry_err = probe_fentry_allowed(s->target);
	if (fentry_err == -ENOENT) {
		st_err("%s: no kernel function '%s' in the kernel's BTF", s->text, s->target);
		return -EINVAL;
	}
	snprintf(point, sizeof(point), "k:%s", s->target);
	if (links__has(pl, point))
		return 0;
	err = links__add(pl, bpf_program__attach_kprobe_opts(prog, s->target, &opts), point);
	if (!err)
		return 0;
	st_err("%s: cannot trace kernel function: fentry %s (%s); kprobe failed (%s)", s->text,
	       fentry_err ? "refused" : "loads but is not wired up yet",
	       fentry_err ? strerror(-fentry_err) : "ok", strerror(-err));
	return err;
}

static int attach__spec(struct probe_links *pl, const struct probe_spec *s,
			const struct probe_progs *progs, int pid, __u64 cookie)
{
	switch (s->kind) {
	case PROBE_TRACEPOINT:
		return attach__tracepoint(pl, s, progs->tracepoint, cookie);
	case PROBE_UPROBE:
		return attach__uprobe(pl, s, progs->uprobe, pid, cookie);
	case PROBE_USDT:
		return attach__usdt(pl, s, progs->usdt, pid, cookie);
	case PROBE_KFUNC:
		return attach__kfunc(pl, s, progs->kprobe, cookie);
	}
	return -EINVAL;
}

struct probe_links *probe_links__attach(const struct probe_spec *specs, size_t n,
					const struct probe_progs *progs, int pid)
{
	struct probe_links *pl = calloc(1, sizeof(*pl));
	size_t i;
	int err = 0;

	if (!pl)
		return NULL;
	for (i = 0; i < n && !err; i++)
		err = attach__spec(pl, &specs[i], progs, pid, i);
	if (err) {
		probe_links__free(pl);
		errno = -err;
		return NULL;
	}
	return pl;
}

size_t probe_links__count(const struct probe_links *pl)
{
	return pl ? pl->n : 0;
}

void probe_links__free(struct probe_links *pl)
{
	size_t i;

	if (!pl)
		return;
	for (i = 0; i < pl->n; i++) {
		bpf_link__destroy(pl->v[i].link);
		free(pl->v[i].point);
	}
	free(pl->v);
	free(pl);
}
