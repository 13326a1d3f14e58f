// SPDX-License-Identifier: GPL-2.0
/* The process registry: what each process maps over time, and the files, opened once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elf/elf_cache.h"
#include "lib/proc/registry.h"
#include "lib/proc/source.h"
#include "lib/proc/timeline.h"
#include "lib/util/grow.h"
#include "lib/util/htab.h"
#include "lib/util/log.h"

/*
 * Two tables and the file cache:
 *  - procs: pid -> its timeline of executable mappings (every one ever seen,
 *    with when it was mapped), kept after exit for events read late;
 *  - strs:  interned mapping paths, so a proc_loc's path stays valid for
 *    the life of the registry;
 *  - files: lib/elf/elf_cache.h, (device, inode) -> the file model, opened
 *    through proc_file__open() the first time any process maps the file
 *    (while that process may still be alive for /proc/PID/map_files).
 * The vDSO has no inode: its image is read from the process's memory.
 *
 * A process holds each file its timeline names (reg_proc.held) until it is
 * forgotten: a file no known process maps any more is closed and freed
 * then (elf_cache__put()), unless a view still holds it (procs__hold_file():
 * the BPF walker's idle tables, the settled stacks of a live report).
 *
 * An exited process's timeline is kept only until the sinks have resolved
 * its stacks (procs__forget_gone()): the queue "gone" holds the exits in
 * the order they came, so memory follows the processes alive and the
 * distinct stacks, not how many processes ever lived.
 */

struct reg_proc {
	struct hnode node;   /* (pid, 0) */
	struct timeline tl;
	uint64_t image_ts;   /* its last exec or fork: a guessed mapping starts no earlier */
	uint64_t exit_ts;    /* 0 while it lives */
	bool based;          /* its image is known: a /proc read, an exec or a fork */
	bool unread;         /* exec_read_late: known from records only, /proc not read yet */
	bool gone_counted;
	bool met;            /* an event of it was seen (procs__see()) */
	bool push_due;       /* procs__push_met_only(): its mappings changed, the listener not told */
	uint32_t desc_got;   /* ST_PROC_DESC records of the description at desc_ts */
	uint64_t desc_ts;
	struct elf_file **held; /* each file of its timeline once, held in the cache */
	size_t nheld, cap_held;
};

struct reg_str {
	struct hnode node; /* (hash, length) */
	char s[];
};

struct reg_gone {
	int pid;
	uint64_t exit_ts;
};

struct proc_registry {
	struct htab procs, strs;
	struct reg_gone *gone; /* exits not forgotten yet, in the order they came */
	size_t ngone, cap_gone;
	struct elf_cache *files;
	struct procs_listener listener;
	struct procs_stats stats;
	bool exec_read_late; /* procs__read_exec_late() */
	bool settle_met_only; /* procs__settle_met_only() */
	bool push_met_only;   /* procs__push_met_only() */
	uint64_t unseen_ts;   /* procs__unseen_events(): processes based by then settle anyway */
};

uint64_t procs_now(void)
{
	return proc_source_now();
}

/* Return: the registry's copy of @s, or NULL when out of memory. */
static const char *procs__intern(struct proc_registry *r, const char *s)
{
	uint64_t h = str_hash(s), len = strlen(s);
	struct hnode *n;
	struct reg_str *rs;

	for (n = htab__first(&r->strs, h, len); n; n = hnode__next_same(n)) {
		rs = (struct reg_str *)n;
		if (!memcmp(rs->s, s, len))
			return rs->s;
	}
	rs = malloc(sizeof(*rs) + len + 1);
	if (!rs)
		return NULL;
	memcpy(rs->s, s, len + 1);
	rs->node.k1 = h;
	rs->node.k2 = len;
	if (htab__insert(&r->strs, &rs->node)) {
		free(rs);
		return NULL;
	}
	return rs->s;
}

static struct reg_proc *procs__lookup(const struct proc_registry *r, int pid)
{
	return (struct reg_proc *)htab__first(&r->procs, (uint64_t)pid, 0);
}

static struct reg_proc *procs__get(struct proc_registry *r, int pid)
{
	struct reg_proc *p = procs__lookup(r, pid);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->node.k1 = (uint64_t)pid;
	if (htab__insert(&r->procs, &p->node)) {
		free(p);
		return NULL;
	}
	return p;
}

static void procs__refused(struct proc_registry *r, const struct proc_map *m,
			   enum safe_open_why why)
{
	r->stats.refused[why]++;
	if (!r->stats.refused_path[why])
		r->stats.refused_path[why] = procs__intern(r, m->path);
	st_info("procs: %s: not used: %s", m->path, safe_open_why_text(why));
}

/*
 * The file model of a mapping, opened the first time any process maps the
 * file; *why says why it is NULL for a file that could not be used.
 */
static struct elf_file *procs__open_file(struct proc_registry *r, int pid,
					 const struct proc_map *m, uint8_t *why)
{
	uint64_t dev = elf_cache_dev(m->dev_major, m->dev_minor);
	enum safe_open_why w = SAFE_OPEN_OK;
	struct elf_file *ef;
	size_t size;
	void *image;
	bool known;
	int fd;

	*why = SAFE_OPEN_OK;
	if (!m->inode) {
		if (strcmp(m->path, "[vdso]"))
			return NULL; /* anonymous code: JIT or similar */
		image = proc_source_read_vdso(pid, m, &size);
		ef = image ? elf_cache__add_image(r->files, image, size, "[vdso]") : NULL;
		free(image);
		return ef;
	}
	ef = elf_cache__get(r->files, dev, m->inode, &known);
	if (known) {
		*why = ef ? SAFE_OPEN_OK : elf_cache__why(r->files, dev, m->inode);
		return ef;
	}
	/* The very file mapped, live; or the recorded one, found by build ID, in a report. */
	fd = proc_source_open_mapped(pid, m, &w);
	if (fd < 0)
		procs__refused(r, m, w);
	ef = elf_cache__add(r->files, dev, m->inode, fd, m->path);
	if (fd >= 0 && !ef) {
		r->stats.not_elf++;
		st_info("procs: %s: not an ELF file", m->path);
	}
	if (fd >= 0)
		close(fd);
	else
		elf_cache__set_why(r->files, dev, m->inode, w);
	*why = ef ? SAFE_OPEN_OK : w;
	return ef;
}

/*
 * @p holds @ef while the registry knows @p: its timeline keeps even ended
 * mappings for events still to be read. Once per process, however many
 * mappings name the file.
 */
static void procs__hold(struct proc_registry *r, struct reg_proc *p, struct elf_file *ef)
{
	size_t i;

	if (!ef || !p)
		return;
	for (i = 0; i < p->nheld; i++)
		if (p->held[i] == ef)
			return;
	elf_cache__hold(r->files, ef);
	/* Not noted (out of memory): held for good, a leak but never a model freed in use. */
	if (!array_reserve((void **)&p->held, &p->cap_held, p->nheld + 1, sizeof(*p->held)))
		p->held[p->nheld++] = ef;
}

/* A child starts with its parent's mappings: it holds the parent's files too. */
static void procs__hold_parents(struct proc_registry *r, struct reg_proc *c,
				const struct reg_proc *pp)
{
	size_t i;

	for (i = 0; pp && i < pp->nheld; i++)
		procs__hold(r, c, pp->held[i]);
}

/* Forgotten @p lets go of its files: those nobody else holds are closed and freed. */
static void procs__put_held(struct proc_registry *r, struct reg_proc *p)
{
	size_t i;

	for (i = 0; i < p->nheld; i++)
		elf_cache__put(r->files, p->held[i]);
	free(p->held);
	p->held = NULL;
	p->nheld = p->cap_held = 0;
}

/* @m as the timeline holds it: interned path and the file, known or opened now. */
static int procs__tl_map(struct proc_registry *r, struct reg_proc *p, int pid,
			 const struct proc_map *m, struct tl_map *out)
{
	uint64_t dev = elf_cache_dev(m->dev_major, m->dev_minor);
	const struct tl_map *live;

	*out = (struct tl_map){ .start = m->start, .end = m->end, .pgoff = m->pgoff,
				.dev = dev, .ino = m->inode, .path = procs__intern(r, m->path) };
	if (!out->path)
		return -ENOMEM;
	/* Already mapped the same way: the same file, without opening or reading anything. */
	live = p ? timeline__find(&p->tl, TL_LIVE - 1, m->start) : NULL;
	if (live && live->start == m->start && live->end == m->end && live->pgoff == m->pgoff &&
	    live->dev == dev && live->ino == m->inode && live->path == out->path) {
		out->file = live->file;
		out->why = live->why;
	} else {
		out->file = procs__open_file(r, pid, m, &out->why);
		procs__hold(r, p, out->file);
	}
	return 0;
}

/*
 * Tells the listener @pid's live mappings; under procs__push_met_only() not
 * before an event meets @p (procs__see()), nor after its exit.
 */
static void procs__push(struct proc_registry *r, int pid, struct reg_proc *p)
{
	const struct tl_map **live = NULL;
	struct proc_map *maps = NULL;
	size_t n, i;

	if (!r->listener.maps)
		return;
	p->push_due = r->push_met_only && !p->met;
	if (p->push_due)
		return;
	n = timeline__live(&p->tl, NULL, 0);
	live = calloc(n ? n : 1, sizeof(*live));
	maps = calloc(n ? n : 1, sizeof(*maps));
	if (!live || !maps) {
		st_err("procs: %d: out of memory", pid);
		goto out;
	}
	timeline__live(&p->tl, live, n);
	for (i = 0; i < n; i++)
		maps[i] = (struct proc_map){ .start = live[i]->start, .end = live[i]->end,
					     .pgoff = live[i]->pgoff, .inode = live[i]->ino,
					     .dev_major = (uint32_t)(live[i]->dev >> 32),
					     .dev_minor = (uint32_t)live[i]->dev,
					     .prot = PROC_MAP_R | PROC_MAP_X,
					     .path = (char *)live[i]->path };
	r->listener.maps(r->listener.ctx, pid, maps, n);
out:
	free(live);
	free(maps);
}

/* After a /proc read that failed (@err): the listener is told what the records said. */
static void procs__push_due(struct proc_registry *r, int pid, struct reg_proc *p, int err)
{
	if (err && p->push_due)
		procs__push(r, pid, p);
}

static void procs__oom(int pid)
{
	st_err("procs: %d: out of memory", pid);
}

/* What /proc (or a recording) says @pid maps at @ts. Return: 0 or -ENOMEM. */
static int procs__install(struct proc_registry *r, struct reg_proc *p, int pid, uint64_t ts,
			  const struct proc_map *maps, size_t n)
{
	struct tl_map *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, k = 0;
	int err = v ? 0 : -ENOMEM;

	for (i = 0; i < n && !err; i++)
		if (maps[i].prot & PROC_MAP_X)
			err = procs__tl_map(r, p, pid, &maps[i], &v[k++]);
	if (!err)
		err = timeline__snapshot(&p->tl, ts, p->image_ts, v, k);
	free(v);
	if (err) {
		procs__oom(pid);
		return err;
	}
	p->based = true;
	procs__push(r, pid, p);
	return 0;
}

/*
 * An event of exited @p after its exit record: the pid reused without its
 * fork seen, or @p itself sampled late in its exit. Only a live image
 * (@n mappings in /proc) says it is a new process, from the old one's exit
 * on. Else @p stays exited, its exit still queued to forget it: made new
 * with nothing read, no exit would ever come for it, and it stayed for good.
 * Return: 0, -ESRCH (no new process), -ENOMEM.
 */
static int procs__begin_reused(struct reg_proc *p, int pid, size_t n)
{
	int err;

	if (!n)
		return -ESRCH; /* a zombie's maps are empty */
	p->image_ts = p->exit_ts;
	p->exit_ts = 0;
	err = timeline__end_all(&p->tl, p->image_ts);
	if (err)
		procs__oom(pid);
	return err;
}

/*
 * Reads /proc/PID/maps (through the proc source) into @p; @reused: see
 * procs__begin_reused(). Return: 0, -ESRCH (gone), -ENOMEM.
 */
static int procs__read(struct proc_registry *r, struct reg_proc *p, int pid, bool reused)
{
	struct proc_map *maps;
	uint64_t ts;
	size_t n;
	int err;

	err = proc_source_maps(pid, &maps, &n, &ts);
	if (err)
		return err == -ENOMEM ? err : -ESRCH;
	err = reused ? procs__begin_reused(p, pid, n) : 0;
	if (!err)
		err = procs__install(r, p, pid, ts, maps, n);
	proc_maps__free(maps, n);
	return err;
}

struct proc_registry *procs__new(void)
{
	struct proc_registry *r = calloc(1, sizeof(*r));

	if (r)
		r->files = elf_cache__new();
	if (!r || !r->files) {
		free(r);
		st_err("procs: out of memory");
		errno = ENOMEM;
		return NULL;
	}
	return r;
}

void procs__listen(struct proc_registry *r, const struct procs_listener *l)
{
	if (l)
		r->listener = *l;
	else
		memset(&r->listener, 0, sizeof(r->listener));
}

/*
 * The /proc read an exec put off, at the process's first event: what the
 * records missed (the vDSO, the kernel maps it at exec and no record names
 * it; or records the full ring buffer dropped) is added to what they said.
 * Gone by now: the records' mappings are all there is.
 */
static int procs__read_late(struct proc_registry *r, struct reg_proc *p, int pid)
{
	int err;

	p->unread = false;
	err = procs__read(r, p, pid, false);
	procs__push_due(r, pid, p, err);
	return err == -ENOMEM ? -ENOMEM : 0;
}

void procs__read_exec_late(struct proc_registry *r, bool late)
{
	r->exec_read_late = late;
}

/*
 * procs__see(); @ending: the process's exit is on its way, and a read the
 * exec put off is not made (see procs__see_ending()).
 */
static int procs__see_at(struct proc_registry *r, int pid, uint64_t ts, bool ending)
{
	struct reg_proc *p = procs__lookup(r, pid);
	int err;

	if (pid <= 0)
		return -EINVAL; /* the idle tasks: no user space */
	if (p)
		p->met = true;
	if (p && p->based && !(p->exit_ts && ts > p->exit_ts)) {
		if (p->unread && !p->exit_ts && !ending)
			return procs__read_late(r, p, pid); /* told after the read */
		if (p->push_due && !p->exit_ts)
			procs__push(r, pid, p);
		return p->unread ? PROCS_RECORDS_ONLY : 0;
	}
	if (!p && !(p = procs__get(r, pid))) {
		procs__oom(pid);
		return -ENOMEM;
	}
	p->met = true;
	err = procs__read(r, p, pid, p->exit_ts && ts > p->exit_ts);
	p->unread = false;
	procs__push_due(r, pid, p, err);
	return err;
}

/* Nothing of @p is known: no /proc read, record or description gave it a mapping. */
static bool reg_proc__unknown(const struct reg_proc *p)
{
	return !p->based && !p->tl.n;
}

void procs__count_gone(struct proc_registry *r, int pid)
{
	struct reg_proc *p = procs__lookup(r, pid);

	if (p && reg_proc__unknown(p) && !p->gone_counted) {
		p->gone_counted = true;
		r->stats.pid_gone++;
	}
}

int procs__see(struct proc_registry *r, int pid, uint64_t ts)
{
	int err = procs__see_at(r, pid, ts, false);

	return err == PROCS_RECORDS_ONLY ? 0 : err;
}

int procs__see_ending(struct proc_registry *r, int pid, uint64_t ts)
{
	return procs__see_at(r, pid, ts, true);
}

bool procs__mapless(const struct proc_registry *r, int pid)
{
	const struct reg_proc *p = procs__lookup(r, pid);

	return !p || !p->tl.n;
}

bool procs__exited(const struct proc_registry *r, int pid)
{
	const struct reg_proc *p = procs__lookup(r, pid);

	return p && p->exit_ts;
}

void procs__exec(struct proc_registry *r, int pid, uint64_t ts)
{
	struct reg_proc *p = procs__get(r, pid);

	if (!p || timeline__end_all(&p->tl, ts)) {
		procs__oom(pid);
		return;
	}
	p->image_ts = ts;
	p->exit_ts = 0;
	p->based = true; /* the records of the exec describe the new image even if it is gone */
	p->unread = r->exec_read_late;
	if (p->unread || procs__read(r, p, pid, false))
		procs__push(r, pid, p);
}

void procs__map(struct proc_registry *r, int pid, uint64_t ts, const struct proc_map *m)
{
	struct reg_proc *p = procs__get(r, pid);
	struct tl_map tm;

	if (!p || procs__tl_map(r, p, pid, m, &tm) || timeline__map(&p->tl, ts, &tm)) {
		procs__oom(pid);
		return;
	}
	procs__push(r, pid, p);
}

/*
 * A description at @ts of a process whose last exit heard is before it:
 * the pid's new owner, from that exit on (as a /proc read finds it).
 */
static int procs__describe_reused(struct reg_proc *p, int pid, uint64_t ts)
{
	return p->exit_ts && ts > p->exit_ts ? procs__begin_reused(p, pid, 1) : 0;
}

int procs__describe(struct proc_registry *r, int pid, uint64_t ts, const struct proc_map *m)
{
	struct reg_proc *p = procs__get(r, pid);
	struct tl_map tm;
	int added;

	if (!p || procs__describe_reused(p, pid, ts) || procs__tl_map(r, p, pid, m, &tm)) {
		procs__oom(pid);
		return -ENOMEM;
	}
	added = timeline__describe(&p->tl, ts, p->image_ts, &tm, 1);
	if (added < 0) {
		procs__oom(pid);
		return added;
	}
	if (!p->based || !p->tl.n)
		r->stats.described_first++;
	if (p->gone_counted && !p->based) {
		/* Its read failed, the description came: its frames are known after all. */
		p->gone_counted = false;
		r->stats.pid_gone--;
	}
	p->based = true;
	/* The listener hears once, at the description's end (procs__describe_done()). */
	p->push_due |= added > 0;
	return 0;
}

void procs__describe_done(struct proc_registry *r, int pid)
{
	struct reg_proc *p = procs__lookup(r, pid);

	if (p && p->push_due && !p->exit_ts)
		procs__push(r, pid, p);
}

void procs__describe_record(struct proc_registry *r, int pid, uint64_t ts,
			    const struct proc_map *m)
{
	struct reg_proc *p;

	if (procs__describe(r, pid, ts, m))
		return;
	p = procs__lookup(r, pid);
	if (p->desc_ts != ts) {
		p->desc_ts = ts;
		p->desc_got = 0;
	}
	p->desc_got++;
}

void procs__describe_end(struct proc_registry *r, int pid, uint64_t ts, uint32_t count)
{
	struct reg_proc *p = procs__lookup(r, pid);
	uint32_t got = p && p->desc_ts == ts ? p->desc_got : 0;

	if (got != count)
		r->stats.desc_short++;
	if (p)
		p->desc_got = 0;
	procs__describe_done(r, pid);
}

void procs__unmap(struct proc_registry *r, int pid, uint64_t ts, uint64_t start, uint64_t end)
{
	struct reg_proc *p = procs__lookup(r, pid);

	if (!p)
		return; /* nothing known to unmap */
	if (timeline__unmap(&p->tl, ts, start, end)) {
		procs__oom(pid);
		return;
	}
	procs__push(r, pid, p);
}

void procs__fork(struct proc_registry *r, int parent, int child, uint64_t ts)
{
	struct reg_proc *pp, *c;

	/*
	 * A parent never seen before is read now, while it lives: the child is
	 * its copy. One whose read an exec put off stays unread: its child
	 * inherits that, and whichever an event meets is read then.
	 */
	pp = procs__lookup(r, parent);
	if (!(pp && pp->based && pp->unread && !pp->exit_ts))
		procs__see(r, parent, ts);
	pp = procs__lookup(r, parent);
	c = procs__get(r, child);
	if (!c || timeline__fork(&c->tl, pp ? &pp->tl : NULL, ts)) {
		procs__oom(child);
		return;
	}
	procs__hold_parents(r, c, pp);
	c->image_ts = ts;
	c->exit_ts = 0;
	c->based = pp && pp->based;
	c->unread = pp && pp->unread; /* what the parent's read would have added, the child's adds */
	if (r->listener.forked)
		r->listener.forked(r->listener.ctx, parent, child);
	procs__push(r, child, c);
}

/* Queues @pid's exit at @ts for procs__forget_gone(). Return: 0 or -ENOMEM. */
static int procs__queue_gone(struct proc_registry *r, int pid, uint64_t ts)
{
	struct reg_gone *v;
	size_t cap;

	if (r->ngone == r->cap_gone) {
		cap = r->cap_gone ? r->cap_gone * 2 : 64;
		v = cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(r->gone, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		r->gone = v;
		r->cap_gone = cap;
	}
	r->gone[r->ngone++] = (struct reg_gone){ .pid = pid, .exit_ts = ts };
	return 0;
}

void procs__exit(struct proc_registry *r, int pid, uint64_t ts)
{
	struct reg_proc *p = procs__lookup(r, pid);

	if (p) {
		p->exit_ts = ts;
		if (procs__queue_gone(r, pid, ts))
			procs__oom(pid); /* it stays known: only memory is lost */
	}
	if (r->listener.exited)
		r->listener.exited(r->listener.ctx, pid);
}

/* Is @g still the exit of the process the registry holds under its pid (not reused since)? */
static struct reg_proc *procs__still_gone(const struct proc_registry *r, const struct reg_gone *g)
{
	struct reg_proc *p = procs__lookup(r, g->pid);

	return p && p->exit_ts == g->exit_ts ? p : NULL;
}

struct procs_dead {
	int *pids;
	size_t n, cap;
	bool mapless; /* only processes without a mapping (procs__find_mapless_exits()) */
	bool oom;
};

static void procs__note_dead(struct hnode *n, void *ctx)
{
	const struct reg_proc *p = (const struct reg_proc *)n;
	struct procs_dead *d = ctx;
	int pid = (int)n->k1;

	if (p->exit_ts || (d->mapless && !reg_proc__unknown(p)) || proc_source_task_alive(pid, pid))
		return;
	if (array_reserve((void **)&d->pids, &d->cap, d->n + 1, sizeof(*d->pids)))
		d->oom = true;
	else
		d->pids[d->n++] = pid;
}

void procs__exit_found(struct proc_registry *r, int pid, uint64_t ts)
{
	procs__exit(r, pid, ts);
	r->stats.exits_found++;
}

void procs__exit_mapless(struct proc_registry *r, int pid, uint64_t ts)
{
	procs__exit(r, pid, ts);
	r->stats.gone_mapless++;
}

/* The known processes gone without an exit (@mapless: only those without a mapping), ended. */
static size_t procs__find_dead(struct proc_registry *r, uint64_t ts, bool mapless,
			       procs_found_fn found, void *ctx)
{
	struct procs_dead d = { .mapless = mapless };
	size_t i;

	htab__each(&r->procs, procs__note_dead, &d);
	if (d.oom)
		st_err("procs: out of memory: some processes gone without an exit record stay known");
	for (i = 0; i < d.n; i++) {
		if (found)
			found(ctx, d.pids[i], ts);
		if (mapless)
			procs__exit_mapless(r, d.pids[i], ts);
		else
			procs__exit_found(r, d.pids[i], ts);
	}
	free(d.pids);
	return d.n;
}

size_t procs__find_exits(struct proc_registry *r, uint64_t ts, procs_found_fn found, void *ctx)
{
	return procs__find_dead(r, ts, false, found, ctx);
}

size_t procs__find_mapless_exits(struct proc_registry *r, uint64_t ts, procs_found_fn found,
				 void *ctx)
{
	return procs__find_dead(r, ts, true, found, ctx);
}

void procs__push_met_only(struct proc_registry *r, bool on)
{
	r->push_met_only = on;
}

void procs__settle_met_only(struct proc_registry *r, bool on)
{
	r->settle_met_only = on;
}

void procs__unseen_events(struct proc_registry *r, uint64_t ts)
{
	if (ts > r->unseen_ts)
		r->unseen_ts = ts;
}

/*
 * Has @p anything to settle? Not when only processes an event met can hold
 * stacks, and no event met it: most short processes of a busy machine (a
 * shell loop's /bin/true is sampled one time in ten at 99 Hz), whose
 * settling read every in-kernel count again for nothing. One based no later
 * than the last sign of events that reached no one (procs__unseen_events())
 * may hold counts all the same.
 */
static bool procs__to_settle(const struct proc_registry *r, const struct reg_proc *p)
{
	return !r->settle_met_only || p->met || p->image_ts <= r->unseen_ts;
}

size_t procs__gone_ready(const struct proc_registry *r, uint64_t before, size_t *settle)
{
	const struct reg_proc *p;
	size_t i;

	*settle = 0;
	for (i = 0; i < r->ngone && r->gone[i].exit_ts < before; i++) {
		p = procs__still_gone(r, &r->gone[i]);
		*settle += p && procs__to_settle(r, p);
	}
	return i;
}

/*
 * Forgets exited @p (@pid): the listener's forgotten() hears first, while
 * the files its views may still point at (the copy unwinder's tables) are
 * held; then its mappings go, and its files with them when nobody else
 * holds them.
 */
static void procs__forget(struct proc_registry *r, struct reg_proc *p, int pid)
{
	htab__remove(&r->procs, &p->node);
	r->stats.forgotten++;
	if (r->listener.forgotten)
		r->listener.forgotten(r->listener.ctx, pid);
	timeline__release(&p->tl);
	procs__put_held(r, p);
	free(p);
}

void procs__forget_unmet(struct proc_registry *r, uint64_t before)
{
	struct reg_proc *p;
	size_t i, k = 0;

	for (i = 0; i < r->ngone && r->gone[i].exit_ts < before; i++) {
		p = procs__still_gone(r, &r->gone[i]);
		if (p && procs__to_settle(r, p))
			r->gone[k++] = r->gone[i];
		else if (p)
			procs__forget(r, p, r->gone[i].pid);
	}
	if (i > k) /* r->gone may be NULL (nothing queued yet): memmove() must not see it */
		memmove(r->gone + k, r->gone + i, (r->ngone - i) * sizeof(*r->gone));
	r->ngone -= i - k;
}

int procs__forget_gone(struct proc_registry *r, uint64_t before, procs_settle_fn settle,
		       void *ctx)
{
	size_t i, k = 0, n = 0;
	struct reg_proc *p;
	int *pids;

	while (n < r->ngone && r->gone[n].exit_ts < before)
		n++;
	if (!n)
		return 0;
	pids = calloc(n, sizeof(*pids));
	if (!pids)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		p = procs__still_gone(r, &r->gone[i]);
		if (p && procs__to_settle(r, p))
			pids[k++] = r->gone[i].pid;
	}
	if (settle && k)
		settle(ctx, pids, k);
	for (i = 0; i < n; i++) {
		p = procs__still_gone(r, &r->gone[i]);
		if (p) /* else the pid lives again (or was forgotten): kept */
			procs__forget(r, p, r->gone[i].pid);
	}
	r->ngone -= n;
	memmove(r->gone, r->gone + n, r->ngone * sizeof(*r->gone));
	free(pids);
	return 0;
}

int procs__set_maps(struct proc_registry *r, int pid, uint64_t ts, const struct proc_map *maps,
		    size_t n)
{
	struct reg_proc *p = procs__get(r, pid);

	if (!p) {
		procs__oom(pid);
		return -ENOMEM;
	}
	return procs__install(r, p, pid, ts, maps, n);
}

uint64_t procs__epoch(const struct proc_registry *r, int pid, uint64_t ts)
{
	const struct reg_proc *p = procs__lookup(r, pid);

	return p ? timeline__epoch(&p->tl, ts) : 0;
}

/* procs__resolve() in @p, known. */
static int procs__resolve_in(const struct reg_proc *p, uint64_t ts, uint64_t addr,
			     struct proc_loc *out)
{
	const struct tl_map *m = timeline__find(&p->tl, ts, addr);

	if (!m)
		return -ENOENT;
	*out = (struct proc_loc){ .path = m->path, .file = m->file,
				  .file_off = addr - m->start + m->pgoff,
				  .file_backed = m->ino || m->file, .why = m->why };
	return 0;
}

int procs__resolve(const struct proc_registry *r, int pid, uint64_t ts, uint64_t addr,
		   struct proc_loc *out)
{
	const struct reg_proc *p = procs__lookup(r, pid);

	return p ? procs__resolve_in(p, ts, addr, out) : -ESRCH;
}

void procs__resolve_each(const struct proc_registry *r, int pid, uint64_t ts,
			 const uint64_t *addrs, size_t n, uint64_t marks, struct proc_loc *out)
{
	const struct reg_proc *p = procs__lookup(r, pid);
	size_t i;

	for (i = 0; i < n; i++)
		if (!p || procs__resolve_in(p, ts, addrs[i] & ~marks, &out[i]))
			out[i] = (struct proc_loc){ .path = NULL };
}

struct elf_file *procs__file(struct proc_registry *r, int pid, const struct proc_map *m)
{
	const struct reg_proc *p = procs__lookup(r, pid);
	const struct tl_map *t = p ? timeline__find(&p->tl, TL_LIVE - 1, m->start) : NULL;

	return t && t->start == m->start && t->end == m->end ? t->file : NULL;
}

struct elf_file *procs__find_elf(struct proc_registry *r, int pid, uint64_t ts, uint64_t addr,
				 uint64_t *bias)
{
	struct proc_loc loc;
	uint64_t vaddr;

	if (procs__resolve(r, pid, ts, addr, &loc) || !loc.file ||
	    elf_file__offset_to_vaddr(loc.file, loc.file_off, &vaddr))
		return NULL;
	*bias = addr - vaddr;
	return loc.file;
}

const struct procs_stats *procs__stats(const struct proc_registry *r)
{
	return &r->stats;
}

void procs__report(const struct proc_registry *r)
{
	const struct procs_stats *s = &r->stats;
	int k;

	for (k = SAFE_OPEN_OK + 1; k < SAFE_OPEN_WHY_MAX; k++)
		if (s->refused[k])
			fprintf(stderr, "stacktap: %llu mapped files not read, their frames unknown: "
					"%s (first: %s)\n",
				(unsigned long long)s->refused[k], safe_open_why_text(k),
				s->refused_path[k] ? s->refused_path[k] : "?");
	if (s->exits_found)
		fprintf(stderr, "stacktap: %llu %s found gone, %s exit record lost\n",
			(unsigned long long)s->exits_found,
			st_plural(s->exits_found, "process", "processes"),
			st_plural(s->exits_found, "its", "their"));
	if (s->desc_short)
		fprintf(stderr, "stacktap: %llu process %s came short (records lost): what "
				"%s left out is unknown\n",
			(unsigned long long)s->desc_short,
			st_plural(s->desc_short, "description", "descriptions"),
			st_plural(s->desc_short, "it", "they"));
	if (s->pid_gone)
		fprintf(stderr, "stacktap: %llu %s before %s mappings were read\n",
			(unsigned long long)s->pid_gone,
			st_plural(s->pid_gone, "process exited", "processes exited"),
			st_plural(s->pid_gone, "its", "their"));
}

void procs__report_memory(const struct proc_registry *r)
{
	fprintf(stderr, "stacktap: processes: %zu known now; %llu exited ones forgotten once "
			"their stacks were resolved\n",
		r->procs.n, (unsigned long long)r->stats.forgotten);
	if (r->stats.gone_mapless)
		fprintf(stderr, "stacktap: processes: %llu met only in their exit (no mapping, no exit "
				"record) and found gone\n",
			(unsigned long long)r->stats.gone_mapless);
	if (r->stats.described_first)
		fprintf(stderr, "stacktap: processes: %llu known first from their description "
				"(gone, or not read yet, when their first event was)\n",
			(unsigned long long)r->stats.described_first);
	fprintf(stderr, "stacktap: files: %zu open now; %llu closed once nothing mapped or "
			"named them\n",
		elf_cache__len(r->files), (unsigned long long)elf_cache__released(r->files));
}

void procs__hold_file(struct proc_registry *r, struct elf_file *ef)
{
	elf_cache__hold(r->files, ef);
}

void procs__put_file(struct proc_registry *r, struct elf_file *ef)
{
	elf_cache__put(r->files, ef);
}

static void reg_proc__free(struct hnode *n)
{
	struct reg_proc *p = (struct reg_proc *)n;

	timeline__release(&p->tl);
	free(p->held); /* the cache goes next, with every model */
	free(p);
}

static void reg_str__free(struct hnode *n)
{
	free(n);
}

void procs__free(struct proc_registry *r)
{
	if (!r)
		return;
	htab__drain(&r->procs, reg_proc__free);
	htab__drain(&r->strs, reg_str__free);
	elf_cache__free(r->files);
	free(r->gone);
	free(r);
}
