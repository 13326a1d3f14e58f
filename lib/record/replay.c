// SPDX-License-Identifier: GPL-2.0
/*
 * The replay: a recording's actions handed to the session in order, each
 * after the side entries written while it was handled.
 *
 * The recorder wrote an action, then what the pipeline read while acting on
 * it. So the replay reads one action ahead: before the session acts on
 * action N, every side entry up to action N+1 is in the stash, where the
 * pipeline's reads find them (replay_source.c, replay_files.c). Side entries
 * are checked here, field by field, before anything keeps them; a bad one is
 * damage, like a bad chunk: what came before it is still replayed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/record.h"
#include "lib/proc/source.h"
#include "lib/record/replay_internal.h"
#include "lib/stack/store.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

/* Progress for recordings this big, once the report has run this long, this often. */
#define PROGRESS_MIN_BYTES (16u << 20)
#define PROGRESS_AFTER_NS 1000000000ull
#define PROGRESS_EVERY_NS 1000000000ull

static struct replay *active;

struct replay *replay_active(void)
{
	return active;
}

static int rp__damage(struct replay *rp, const char *what)
{
	st_err("%s: damaged %s entry at byte %llu: only what comes before it is used",
	       rp->o.path ? rp->o.path : "recording", what,
	       (unsigned long long)rec_reader__offset(rp->rd));
	return -EBADMSG;
}

/* "key\0value\0" pairs, checked whole before kept; the arguments are every "arg", in order. */
static int rp__meta(struct replay *rp, const struct rec_entry *e)
{
	const char *p, *end = (const char *)e->data + e->len;
	size_t n = 0, strs = 0;

	if (rp->meta || !e->len || end[-1])
		return rp__damage(rp, "metadata");
	for (p = e->data; p < end; p += strlen(p) + 1, strs++)
		n += !(strs & 1) && !strcmp(p, "arg");
	if (strs & 1)
		return rp__damage(rp, "metadata");
	rp->args = calloc(n + 1, sizeof(*rp->args));
	rp->meta = malloc(e->len);
	if (!rp->args || !rp->meta)
		return -ENOMEM;
	memcpy(rp->meta, e->data, e->len);
	rp->meta_len = e->len;
	end = rp->meta + e->len;
	for (p = rp->meta; p < end; p += strlen(p) + 1, p += strlen(p) + 1)
		if (!strcmp(p, "arg"))
			rp->args[rp->nargs++] = p + 4;
	return 0;
}

/* A STATS or USTATS entry into @c: u32 n, u32 0, u64 counters[n]. */
static int rp__counters(struct replay *rp, const struct rec_entry *e, struct rp_counters *c)
{
	uint32_t n;

	memcpy(&n, e->data, sizeof(n));
	if (n > (e->len - 8) / 8 || n > 4096)
		return rp__damage(rp, "counters");
	free(c->v);
	c->n = 0;
	c->v = malloc(n * sizeof(uint64_t) + 1);
	if (!c->v)
		return -ENOMEM;
	memcpy(c->v, (const uint8_t *)e->data + 8, n * sizeof(uint64_t));
	c->n = n;
	return 0;
}

static int rp__ksym(struct replay *rp, const struct rec_entry *e)
{
	const struct rec_ksym *k = e->data;
	const char *names = (const char *)(k + 1);

	if (e->len < sizeof(*k) + 2u + k->name_len + k->module_len || names[k->name_len] ||
	    names[k->name_len + 1 + k->module_len] || strlen(names) != k->name_len)
		return rp__damage(rp, "kernel symbol");
	return rp_stash_ksym(rp, k->addr, names, names + k->name_len + 1);
}

static int rp__file(struct replay *rp, const struct rec_entry *e)
{
	const struct rec_file *f = e->data;

	if (e->len != sizeof(*f) + f->path_len || f->build_id_len > REC_BUILD_ID_MAX)
		return rp__damage(rp, "file");
	return rp_stash_file(rp, f, (const char *)(f + 1));
}

static int rp__file_data(struct replay *rp, const struct rec_entry *e)
{
	const struct rec_file_data *d = e->data;

	if (d->build_id_len < 2 || d->build_id_len > REC_BUILD_ID_MAX || d->kind > REC_DATA_DEBUG)
		return rp__damage(rp, "archived file");
	return rp_stash_file_data(rp, d, d + 1, e->len - sizeof(*d));
}

static int rp__perf_map(struct replay *rp, const struct rec_entry *e)
{
	const struct rec_perf_map *pm = e->data;

	if (!rp->on_perf_map)
		return 0;
	return rp->on_perf_map(rp->perf_map_ctx, (int)pm->pid, (const char *)(pm + 1),
			       e->len - sizeof(*pm));
}

void replay__on_perf_map(struct replay *rp, replay_perf_map_fn fn, void *ctx)
{
	rp->on_perf_map = fn;
	rp->perf_map_ctx = ctx;
}

/* The fixed part each side entry must have before its fields are read. */
static const size_t side_min[REC_TYPE_MAX] = {
	[REC_META] = 1,
	[REC_PROC_READ] = sizeof(struct rec_proc_read),
	[REC_ALIVE] = sizeof(struct rec_alive),
	[REC_FILE] = sizeof(struct rec_file),
	[REC_FILE_DATA] = sizeof(struct rec_file_data),
	[REC_VDSO] = sizeof(struct rec_vdso),
	[REC_PERF_MAP] = sizeof(struct rec_perf_map),
	[REC_KSYM] = sizeof(struct rec_ksym),
	[REC_KMOD] = sizeof(struct rec_kmod) + 1,
	[REC_STATS] = 8,
	[REC_USTATS] = 8,
	[REC_END] = sizeof(struct rec_end),
	[REC_COPY_WALK] = sizeof(struct rec_copy_walk),
};

static int rp__stash(struct replay *rp, const struct rec_entry *e)
{
	if (e->len < side_min[e->type])
		return rp__damage(rp, "short");
	switch (e->type) {
	case REC_META: return rp__meta(rp, e);
	case REC_PROC_READ:
		return rp_stash_read(rp, e->data,
				     (const char *)e->data + sizeof(struct rec_proc_read),
				     e->len - sizeof(struct rec_proc_read));
	case REC_ALIVE: return rp_stash_alive(rp, e->data);
	case REC_FILE: return rp__file(rp, e);
	case REC_FILE_DATA: return rp__file_data(rp, e);
	case REC_VDSO:
		if (rp_stash_vdso(rp, e->data, (const uint8_t *)e->data + sizeof(struct rec_vdso),
				  e->len - sizeof(struct rec_vdso)) == -EBADMSG)
			return rp__damage(rp, "vDSO");
		return 0;
	case REC_PERF_MAP: return rp__perf_map(rp, e);
	case REC_KSYM: return rp__ksym(rp, e);
	case REC_KMOD: return 0; /* kept in the file for tools that fetch modules by build ID */
	case REC_STATS: return rp__counters(rp, e, &rp->stats);
	case REC_USTATS: return rp__counters(rp, e, &rp->ustats);
	case REC_END: rp->ended = true; return 0;
	case REC_COPY_WALK:
		if (!rp->sparse_copies)
			return rp__damage(rp, "stack copy walk"); /* 1.x keeps whole copies */
		switch (rp_stash_copy_walk(rp, e->data, (const uint8_t *)e->data +
					   sizeof(struct rec_copy_walk),
					   e->len - sizeof(struct rec_copy_walk))) {
		case 0: return 0;
		case -ENOMEM: return -ENOMEM;
		default: return rp__damage(rp, "stack copy walk");
		}
	default: return 0;
	}
}

static bool is_action(uint16_t type)
{
	return type == REC_RING || type == REC_RING_UCOPY || type == REC_TICK ||
	       type == REC_INTERVAL || type == REC_DRAIN || type == REC_FLUSH ||
	       type == REC_FORGET;
}

/*
 * From 2.0 an event's stack copy is stored without its bytes: give the
 * record its length back, as zeros: the copy door answers its walks.
 */
static size_t rp__event_len(const struct replay *rp, const struct rec_entry *e)
{
	const struct st_event *ev = e->data;
	const struct st_ucopy *c;
	size_t at;

	if (!rp->sparse_copies || e->len < sizeof(*ev) || ev->kind != ST_REC_EVENT ||
	    !(ev->flags & ST_EV_UCOPY) || ev->kdepth > ST_MAX_KSTACK || ev->udepth > ST_MAX_USTACK)
		return e->len;
	at = sizeof(*ev) + (ev->kdepth + (size_t)ev->udepth) * 8;
	c = (const void *)((const char *)e->data + at);
	if (e->len != at + sizeof(*c) || c->len > ST_COPY_MAX)
		return e->len;
	return at + sizeof(*c) + c->len;
}

/* A map record was stored without its unused path slots: give them back, as zeros. */
static size_t rp__ring_len(const struct replay *rp, const struct rec_entry *e)
{
	const struct st_proc_event *pe = e->data;

	if (e->type == REC_RING && e->len >= offsetof(struct st_proc_event, comps) &&
	    e->len < sizeof(*pe) && pe->kind == ST_REC_PROC && st_proc_has_path(pe->what))
		return sizeof(*pe);
	if (e->type == REC_RING)
		return rp__event_len(rp, e);
	return e->len;
}

static int rp__room(struct replay *rp, size_t len)
{
	uint8_t *n;

	if (len + 8 <= rp->next_cap)
		return 0;
	n = realloc(rp->next, len + 8);
	if (!n)
		return -ENOMEM;
	rp->next = n;
	rp->next_cap = len + 8;
	return 0;
}

/* A deferred user stack stored with its copy after its frames: back to the ring layout. */
static int rp__hold_ucopy(struct replay *rp, const struct rec_entry *e)
{
	const struct st_ustack *us = e->data;
	size_t frames = sizeof(*us) + (e->len >= sizeof(*us) ? us->udepth * 8ull : 0);
	size_t at = sizeof(*us) + ST_MAX_USTACK * 8ull;
	const struct st_ucopy *c = (const void *)((const char *)e->data + frames);
	/* From 2.0 the copy's bytes are not stored: what its walks found is (replay_copy.c). */
	size_t stored = rp->sparse_copies ? 0 : (e->len >= frames + sizeof(*c) ? c->len : 0);

	if (e->len < sizeof(*us) || us->udepth > ST_MAX_USTACK ||
	    e->len < frames + sizeof(*c) || stored != e->len - frames - sizeof(*c) ||
	    c->len > ST_COPY_MAX)
		return rp__damage(rp, "user stack copy");
	if (rp__room(rp, at + sizeof(*c) + c->len))
		return -ENOMEM;
	memcpy(rp->next, us, frames);
	memset(rp->next + frames, 0, at - frames);
	memcpy(rp->next + at, c, sizeof(*c) + stored);
	memset(rp->next + at + sizeof(*c) + stored, 0, c->len - stored);
	rp->next_e = (struct rec_entry){ .type = REC_RING, .data = rp->next,
					 .len = at + sizeof(*c) + c->len };
	rp->have_next = true;
	return 0;
}

/* Copies the action just read, so reading on does not overwrite it. */
static int rp__hold(struct replay *rp, const struct rec_entry *e)
{
	size_t len = rp__ring_len(rp, e);

	if ((e->type == REC_TICK || e->type == REC_INTERVAL || e->type == REC_DRAIN ||
	     e->type == REC_FORGET) && e->len < 8)
		return rp__damage(rp, "session mark");
	if (e->type == REC_RING_UCOPY)
		return rp__hold_ucopy(rp, e);
	if (rp__room(rp, len))
		return -ENOMEM;
	memcpy(rp->next, e->data, e->len);
	memset(rp->next + e->len, 0, len - e->len);
	rp->next_e = (struct rec_entry){ .type = e->type, .data = rp->next, .len = len };
	rp->have_next = true;
	return 0;
}

/* Stashes side entries up to the next action, which is held; else sets rp->end. */
static void rp__read_ahead(struct replay *rp)
{
	struct rec_entry e;
	int ret;

	rp->have_next = false;
	if (rp->end)
		return;
	while ((ret = rec_reader__next(rp->rd, &e)) == 1) {
		if (!e.type || e.type >= REC_TYPE_MAX) {
			rp->counts.unknown_types++;
			continue;
		}
		ret = is_action(e.type) ? rp__hold(rp, &e) : rp__stash(rp, &e);
		if (ret)
			break;
		if (rp->have_next)
			return;
	}
	rp->end = ret ? ret : 1; /* 1: the clean end */
}

static void rp__progress(struct replay *rp, bool done)
{
	uint64_t now, size = rec_reader__size(rp->rd), off = rec_reader__offset(rp->rd);
	bool tty = isatty(2);

	if (!rp->o.progress || size < PROGRESS_MIN_BYTES || size == UINT64_MAX)
		return;
	if (done) {
		if (rp->shown)
			fprintf(stderr, "%sstacktap: report: all %.0f MB read\n",
				tty ? "\r" : "", size / 1e6);
		return;
	}
	now = mono_ns();
	if (now - rp->started_ns < PROGRESS_AFTER_NS || now - rp->shown_ns < PROGRESS_EVERY_NS)
		return;
	rp->shown = true;
	rp->shown_ns = now;
	fprintf(stderr, "%sstacktap: report: %3.0f%% of %.0f MB read%s", tty ? "\r" : "",
		100.0 * off / size, size / 1e6, tty ? "" : "\n");
}

void replay__naming(void *ctx, size_t done, size_t total)
{
	struct replay *rp = ctx;
	bool tty = isatty(2);
	uint64_t now;

	if (!rp->o.progress || rec_reader__size(rp->rd) < PROGRESS_MIN_BYTES ||
	    rec_reader__size(rp->rd) == UINT64_MAX)
		return;
	if (done >= total) {
		if (rp->naming_shown)
			fprintf(stderr, "%sstacktap: report: all %zu stacks named\n", tty ? "\r" : "",
				total);
		rp->naming_shown = false; /* an interval's next report starts again */
		rp->naming_started_ns = 0;
		return;
	}
	now = mono_ns();
	if (!rp->naming_started_ns)
		rp->naming_started_ns = now;
	if (now - rp->naming_started_ns < PROGRESS_AFTER_NS || now - rp->shown_ns < PROGRESS_EVERY_NS)
		return;
	rp->naming_shown = true;
	rp->shown_ns = now;
	fprintf(stderr, "%sstacktap: report: %3.0f%% of %zu stacks named%s", tty ? "\r" : "",
		100.0 * done / total, total, tty ? "" : "\n");
}

int replay__next(struct replay *rp, struct rec_entry *e)
{
	uint8_t *swap;
	size_t cap;

	if (!rp->have_next) {
		rp__progress(rp, true);
		return rp->end == 1 ? 0 : rp->end;
	}
	swap = rp->cur;
	cap = rp->cur_cap;
	rp->cur = rp->next;
	rp->cur_cap = rp->next_cap;
	rp->next = swap;
	rp->next_cap = cap;
	rp->cur_e = rp->next_e;
	rp->cur_e.data = rp->cur;
	if (rp->cur_e.type == REC_TICK || rp->cur_e.type == REC_INTERVAL ||
	    rp->cur_e.type == REC_DRAIN)
		memcpy(&rp->now, rp->cur, sizeof(rp->now)); /* their time, checked when held */
	rp__read_ahead(rp);
	if ((++rp->actions & 4095) == 0)
		rp__progress(rp, false);
	*e = rp->cur_e;
	return 1;
}

/* A replay needs the wire structs it knows: the header says what they were. */
static int rp__check_wire(struct replay *rp)
{
	const struct rec_header *h = rec_reader__header(rp->rd);

	if (h->wire_version == ST_WIRE_VERSION && h->sz_event == sizeof(struct st_event) &&
	    h->sz_ustack == sizeof(struct st_ustack) &&
	    h->sz_proc_event == sizeof(struct st_proc_event) &&
	    h->sz_ucopy == sizeof(struct st_ucopy))
		return 0;
	st_err("%s: recorded with capture records of version %u (event %u bytes); this stacktap "
	       "reads version %u (event %zu bytes)", rp->o.path ? rp->o.path : "recording",
	       h->wire_version, h->sz_event, ST_WIRE_VERSION, sizeof(struct st_event));
	return -EPROTONOSUPPORT;
}

static char **dup_list(const char *const *v, size_t n)
{
	char **out = calloc(n + 1, sizeof(*out));
	size_t i;

	for (i = 0; out && i < n; i++)
		if (!(out[i] = strdup(v[i])))
			return NULL;
	return out;
}

static int rp__init(struct replay *rp, const struct replay_opts *o)
{
	const char *home = getenv("HOME");

	rp->o = *o;
	rp->symfs = dup_list(o->symfs, o->nsymfs);
	rp->debug_dirs = dup_list(o->debug_dirs, o->ndebug_dirs);
	if (home && *home && !o->no_default_dirs &&
	    asprintf(&rp->home_debug, "%s/.debug", home) < 0)
		rp->home_debug = NULL;
	rp->reads = stack_store__new();
	rp->files = stack_store__new();
	rp->blobs = stack_store__new();
	rp->vmaps = stack_store__new();
	rp->started_ns = mono_ns();
	if (!rp->symfs || !rp->debug_dirs || !rp->reads || !rp->files || !rp->blobs ||
	    !rp->vmaps)
		return -ENOMEM;
	return 0;
}

struct replay *replay__open(const struct replay_opts *o, const void *buf, size_t len)
{
	struct replay *rp = calloc(1, sizeof(*rp));
	int err = -ENOMEM;

	if (!rp || rp__init(rp, o))
		goto err_free;
	rp->rd = o->path ? rec_reader__open(o->path) : rec_reader__open_mem(buf, len, "recording");
	if (!rp->rd) {
		err = -errno;
		goto err_free;
	}
	err = rp__check_wire(rp);
	if (err)
		goto err_free;
	rp->sparse_copies = rec_reader__header(rp->rd)->major >= 2;
	rp__read_ahead(rp);
	if (!rp->meta || !replay__command(rp)) {
		/* Damage has been said; a clean end this early is a cut between chunks. */
		if (rp->end == 1)
			st_err("%s: cut short at byte %llu, before what was run: nothing to report",
			       o->path ? o->path : "recording",
			       (unsigned long long)rec_reader__offset(rp->rd));
		err = rp->end == -ENOMEM ? -ENOMEM : -EBADMSG;
		goto err_free;
	}
	if (replay__meta(rp, "start_monotonic_ns"))
		rp->now = strtoull(replay__meta(rp, "start_monotonic_ns"), NULL, 10);
	active = rp;
	rp_source__install(rp);
	rp_copy__install(rp);
	return rp;
err_free:
	if (err == -ENOMEM)
		st_err("report: out of memory");
	replay__close(rp);
	errno = -err;
	return NULL;
}

const char *replay__meta(const struct replay *rp, const char *key)
{
	const char *p, *end = rp->meta + rp->meta_len;

	for (p = rp->meta; p && p < end; p += strlen(p) + 1, p += strlen(p) + 1)
		if (!strcmp(p, key))
			return p + strlen(p) + 1;
	return NULL;
}

const char *replay__command(const struct replay *rp)
{
	return replay__meta(rp, "command");
}

size_t replay__args(const struct replay *rp, const char *const **argv)
{
	*argv = rp->args;
	return rp->nargs;
}

static size_t rp__copy_counters(const struct rp_counters *c, uint64_t *out, size_t n)
{
	size_t k = c->n < n ? c->n : n;

	if (k)
		memcpy(out, c->v, k * sizeof(*out));
	return k;
}

size_t replay__stats(const struct replay *rp, uint64_t *out, size_t n)
{
	return rp__copy_counters(&rp->stats, out, n);
}

size_t replay__ustats(const struct replay *rp, uint64_t *out, size_t n)
{
	return rp__copy_counters(&rp->ustats, out, n);
}

/* A run that stopped early (snoop -n) did not read to the end: the end says if it is whole. */
static void rp__finish(struct replay *rp)
{
	while (rp->have_next)
		rp__read_ahead(rp);
}

bool replay__damaged(struct replay *rp)
{
	rp__finish(rp);
	return rp->end < 0 || !rp->ended;
}

void replay__report(struct replay *rp)
{
	const struct rp_counts *c = &rp->counts;

	rp__finish(rp);
	rp_files__report(rp);
	if (c->no_identity)
		st_info("report: %llu mappings of files the recording does not identify",
			(unsigned long long)c->no_identity);
	if (c->reads_missing || c->alive_missing || c->alive_mismatch)
		st_info("report: replay asked what the recording did not answer: %llu /proc reads, "
			"%llu liveness questions (%llu for another thread)",
			(unsigned long long)c->reads_missing, (unsigned long long)c->alive_missing,
			(unsigned long long)c->alive_mismatch);
	if (c->walks_missing || c->walks_mismatch)
		st_info("report: %llu walks of stack copies the recording has no answer for (%llu "
			"for another copy)", (unsigned long long)(c->walks_missing + c->walks_mismatch),
			(unsigned long long)c->walks_mismatch);
	if (c->unknown_types)
		st_info("report: %llu entries of a newer format skipped",
			(unsigned long long)c->unknown_types);
	if (!rp->ended && rp->end == 1)
		st_err("%s: cut short at byte %llu, between chunks (or its recorder was killed): "
		       "only what comes before it is used", rp->o.path ? rp->o.path : "recording",
		       (unsigned long long)rec_reader__offset(rp->rd));
}

static void free_list(char **v)
{
	size_t i;

	for (i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

void replay__close(struct replay *rp)
{
	if (!rp)
		return;
	if (active == rp) {
		active = NULL;
		rp_source__uninstall();
		rp_copy__uninstall();
	}
	rec_reader__free(rp->rd);
	rp_source__free(rp);
	rp_copy__free(rp);
	rp_files__free(rp);
	free_list(rp->symfs);
	free_list(rp->debug_dirs);
	free(rp->home_debug);
	free(rp->meta);
	free(rp->args);
	free(rp->cur);
	free(rp->next);
	free(rp->stats.v);
	free(rp->ustats.v);
	free(rp);
}
