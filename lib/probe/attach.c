// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching probe specs. Every failure is checked before or at attach time
 * and reported once, naming the spec; whatever was attached before the
 * failure is detached again, so a bad spec never leaves a link behind.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "lib/probe/attach.h"
#include "lib/probe/resolve.h"
#include "lib/proc/maps.h"
#include "lib/util/log.h"

struct probe_links {
	struct bpf_link **links;
	size_t n, cap;
};

static int links__push(struct probe_links *pl, struct bpf_link *link)
{
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 16;
		struct bpf_link **l = realloc(pl->links, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		pl->links = l;
		pl->cap = cap;
	}
	pl->links[pl->n++] = link;
	return 0;
}

/* Takes ownership of @link; a NULL link is libbpf's failure, errno set. */
static int links__add(struct probe_links *pl, struct bpf_link *link)
{
	int err;

	if (!link)
		return -errno;
	err = links__push(pl, link);
	if (err)
		bpf_link__destroy(link);
	return err;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/*
 * The tracefs "events" directory. A fresh machine may not have tracefs
 * mounted; like perf and bpftrace we mount it then (we are root to trace).
 */
static const char *tracefs_events(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing/events",
					    "/sys/kernel/debug/tracing/events" };
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (is_dir(dirs[i]))
			return dirs[i];
	if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 && is_dir(dirs[0]))
		return dirs[0];
	return NULL;
}

static int attach__tp_one(struct probe_links *pl, struct bpf_program *prog, const char *cat,
			  const char *name, __u64 cookie)
{
	LIBBPF_OPTS(bpf_tracepoint_opts, opts, .bpf_cookie = cookie);

	return links__add(pl, bpf_program__attach_tracepoint_opts(prog, cat, name, &opts));
}

/* Attaches every tracepoint whose category and name match the spec's globs. */
static int attach__tracepoint(struct probe_links *pl, const struct probe_spec *s,
			      struct bpf_program *prog, __u64 cookie)
{
	const char *root = tracefs_events();
	struct dirent *c, *e;
	char path[PATH_MAX];
	DIR *cats, *evs;
	int err = 0, found = 0;

	if (!root) {
		st_err("%s: tracefs is not mounted and cannot be mounted at /sys/kernel/tracing",
		       s->text);
		return -ENOTSUP;
	}
	cats = opendir(root);
	if (!cats)
		return -errno;
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

/* The binary a u:/usdt: spec names, or NULL after saying so. */
static char *attach__binary(const struct probe_spec *s, int pid)
{
	char *path = probe_resolve_binary(s->target, pid);

	if (!path)
		st_err("%s: binary or library '%s' not found", s->text, s->target);
	return path;
}

static int attach__uprobe(struct probe_links *pl, const struct probe_spec *s,
			  struct bpf_program *prog, int pid, __u64 cookie)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = cookie);
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
	if (!err) {
		err = links__add(pl, bpf_program__attach_uprobe_opts(prog, pid ? pid : -1, path,
								     off, &opts));
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
	char *path;
	int err;

	path = attach__binary(s, pid);
	if (!path)
		return -EINVAL;
	err = links__add(pl, bpf_program__attach_usdt(prog, pid ? pid : -1, path, s->name,
						      s->name2, &opts));
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
	int fentry_err, err;

	fentry_err = probe_fentry_allowed(s->target);
	if (fentry_err == -ENOENT) {
		st_err("%s: no kernel function '%s' in the kernel's BTF", s->text, s->target);
		return -EINVAL;
	}
	err = links__add(pl, bpf_program__attach_kprobe_opts(prog, s->target, &opts));
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
	for (i = 0; i < pl->n; i++)
		bpf_link__destroy(pl->links[i]);
	free(pl->links);
	free(pl);
}
