// SPDX-License-Identifier: GPL-2.0
/*
 * The joiner: events meet their deferred user stacks.
 *
 * In deferred mode (bpf/deferred.bpf.h) an event record carries its kernel
 * stack and a cookie naming the task's current kernel entry; the user stack
 * of that entry comes later, once, in an st_ustack record with the same
 * cookie, when the task returns to user space. Many events may share one
 * cookie (a write() that blocks a thousand times), and the records arrive
 * through one ring buffer in the order they were sent:
 *
 *   E(c1) E(c1) E(c1) ... U(c1) [E(c1) late] ... E(c2) U(c2)
 *
 * Waiting. An event whose cookie has no stack yet is copied and queued on
 * its cookie's entry; lookups of that cookie answer -EAGAIN. When the stack
 * comes, the entry's events are emitted joined, in arrival order, and the
 * entry is kept as answered: an event sent between the walk and the end of
 * the request (the BPF side deletes its request after sending the stack)
 * shares the cookie but arrives after the stack, and joins at once ("late").
 * Answered entries are forgotten oldest first beyond done_keep.
 *
 * Bounded. The bytes of waiting events (copies plus bookkeeping) are
 * counted; beyond max_bytes the oldest waiting cookie is given up: its
 * events are emitted with "[user stack lost: out of memory]" and counted.
 * Nothing is ever dropped silently: every event leaves, joined or flagged.
 *
 * Never. A stack may never come: the task was killed before its callback
 * ran, or it is still blocked in the kernel when the session ends. A tick
 * (about once a second) looks for tasks that are gone; a cookie whose task
 * was seen gone at two ticks, with the ring buffer drained between (so a
 * stack sent at exit is not overtaken), is given up as "task exited". At
 * the end of a session the session drains the ring buffer, then flushes
 * what still waits as "still in kernel at exit".
 *
 * Lost events carry ST_EV_UFAIL and the reason in flag bits 12-15 (see
 * joiner.h); joiner_lost_frame() names it for the output.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/source.h"
#include "lib/session/joiner.h"
#include "lib/util/pid_set.h"

struct jevent {
	struct jevent *next;
	uint32_t bytes; /* counted against max_bytes: the header and kdepth frames */
	uint32_t kcap;  /* frames ips[] has room for (a spare is reused for any depth) */
	struct st_event ev;
	uint64_t ips[]; /* ev.kdepth kernel frames */
};

struct jentry {
	uint64_t cookie;
	struct jentry *hnext;       /* hash chain */
	struct jentry *prev, *next; /* on the waiting list, or the answered list */
	uint32_t pid, tid;
	bool done;
	bool gone_seen;             /* task seen gone at the last tick */
	struct jevent *head, **tailp;
	uint16_t ud, uflags, stop;
	uint64_t *uips;   /* ubuf when the stack has frames, else NULL */
	void *copy;       /* st_ucopy + stack bytes, or NULL */
	size_t copy_len;
	/* Not counted in JENTRY_BYTES: the bound's arithmetic is the same with or without spares. */
	uint64_t *ubuf;   /* kept with the entry when it is reused */
	size_t ucap;      /* frames ubuf has room for */
};

/* What an entry counts against max_bytes, besides its frames and copy. */
#define JENTRY_BYTES offsetof(struct jentry, ubuf)

struct jlist {
	struct jentry *head, *tail;
	size_t n;
};

struct joiner {
	struct joiner_opts o;
	struct jentry **buckets;
	size_t nbuckets, nentries;
	struct jlist waiting, done;
	size_t nwaiting_events;
	uint64_t last_tick;
	uint64_t *out;  /* the joined record being emitted */
	size_t out_cap; /* in u64 */
	struct joiner_stats st;
	/*
	 * Entries and held events freed, kept for the next ones (at most
	 * JOINER_SPARE each): a replay joins a million events, and a malloc
	 * and free for each entry, stack and event were a tenth of its time.
	 */
	struct jentry *spare_entries;
	struct jevent *spare_events;
	size_t nspare_entries, nspare_events;
};

#define JOINER_SPARE 1024

static const char *const lost_reasons[JOINER_LOST_MAX] = {
	[JOINER_LOST_NONE] = "unavailable",
	[JOINER_LOST_WALK] = "walk failed",
	[JOINER_LOST_RINGBUF] = "ring buffer full",
	[JOINER_LOST_EXITED] = "task exited",
	[JOINER_LOST_PENDING] = "still in kernel at exit",
	[JOINER_LOST_MEMORY] = "out of memory",
};

static const char *const lost_frames[JOINER_LOST_MAX] = {
	[JOINER_LOST_NONE] = "[user stack lost: unavailable]",
	[JOINER_LOST_WALK] = "[user stack lost: walk failed]",
	[JOINER_LOST_RINGBUF] = "[user stack lost: ring buffer full]",
	[JOINER_LOST_EXITED] = "[user stack lost: task exited]",
	[JOINER_LOST_PENDING] = "[user stack lost: still in kernel at exit]",
	[JOINER_LOST_MEMORY] = "[user stack lost: out of memory]",
};

const char *joiner_lost_reason(enum joiner_lost reason)
{
	return reason < JOINER_LOST_MAX ? lost_reasons[reason] : "unknown";
}

const char *joiner_lost_frame(unsigned flags)
{
	unsigned r = JOINER_LOST_OF(flags);

	if (!(flags & ST_EV_UFAIL))
		return NULL;
	return r < JOINER_LOST_MAX ? lost_frames[r] : lost_frames[0];
}

static void jlist__append(struct jlist *l, struct jentry *e)
{
	e->prev = l->tail;
	e->next = NULL;
	if (l->tail)
		l->tail->next = e;
	else
		l->head = e;
	l->tail = e;
	l->n++;
}

static void jlist__remove(struct jlist *l, struct jentry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		l->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		l->tail = e->prev;
	e->prev = e->next = NULL;
	l->n--;
}

static size_t joiner__bucket(const struct joiner *j, uint64_t cookie)
{
	/* Cookies are (cpu + 1) | (seq << 32): mix the halves before masking. */
	return (size_t)((cookie * 0x9e3779b97f4a7c15ull) >> 32) & (j->nbuckets - 1);
}

static struct jentry *joiner__find(const struct joiner *j, uint64_t cookie)
{
	struct jentry *e = j->buckets[joiner__bucket(j, cookie)];

	while (e && e->cookie != cookie)
		e = e->hnext;
	return e;
}

static int joiner__grow(struct joiner *j)
{
	size_t i, n = j->nbuckets * 2;
	struct jentry **nb = calloc(n, sizeof(*nb)), **old = j->buckets;
	size_t oldn = j->nbuckets;

	if (!nb)
		return -ENOMEM;
	j->buckets = nb;
	j->nbuckets = n;
	for (i = 0; i < oldn; i++) {
		while (old[i]) {
			struct jentry *e = old[i];
			size_t b = joiner__bucket(j, e->cookie);

			old[i] = e->hnext;
			e->hnext = nb[b];
			nb[b] = e;
		}
	}
	free(old);
	return 0;
}

/* A zeroed entry, a spare one (with its frame buffer) when there is one. */
static struct jentry *joiner__entry_new(struct joiner *j)
{
	struct jentry *e = j->spare_entries;
	uint64_t *ubuf;
	size_t ucap;

	if (!e)
		return calloc(1, sizeof(*e));
	j->spare_entries = e->hnext;
	j->nspare_entries--;
	ubuf = e->ubuf;
	ucap = e->ucap;
	memset(e, 0, sizeof(*e));
	e->ubuf = ubuf;
	e->ucap = ucap;
	return e;
}

static void joiner__entry_free(struct joiner *j, struct jentry *e)
{
	free(e->copy);
	e->copy = NULL;
	if (j->nspare_entries < JOINER_SPARE) {
		e->hnext = j->spare_entries;
		j->spare_entries = e;
		j->nspare_entries++;
		return;
	}
	free(e->ubuf);
	free(e);
}

/* Room for an event of @kdepth kernel frames, a spare one when there is one. */
static struct jevent *joiner__event_new(struct joiner *j, uint32_t kdepth)
{
	struct jevent *je = j->spare_events;

	if (je) {
		j->spare_events = je->next;
		j->nspare_events--;
		if (je->kcap >= kdepth)
			return je;
		free(je);
	}
	je = malloc(sizeof(*je) + kdepth * sizeof(uint64_t));
	if (je)
		je->kcap = kdepth;
	return je;
}

static void joiner__event_free(struct joiner *j, struct jevent *je)
{
	if (j->nspare_events < JOINER_SPARE) {
		je->next = j->spare_events;
		j->spare_events = je;
		j->nspare_events++;
		return;
	}
	free(je);
}

static struct jentry *joiner__insert(struct joiner *j, uint64_t cookie, uint32_t pid,
				     uint32_t tid)
{
	struct jentry *e;
	size_t b;

	if (j->nentries >= j->nbuckets * 2 && joiner__grow(j))
		return NULL;
	e = joiner__entry_new(j);
	if (!e)
		return NULL;
	e->cookie = cookie;
	e->pid = pid;
	e->tid = tid;
	e->tailp = &e->head;
	b = joiner__bucket(j, cookie);
	e->hnext = j->buckets[b];
	j->buckets[b] = e;
	j->nentries++;
	j->st.bytes += JENTRY_BYTES;
	return e;
}

static void joiner__unhash(struct joiner *j, struct jentry *e)
{
	struct jentry **pp = &j->buckets[joiner__bucket(j, e->cookie)];

	while (*pp && *pp != e)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = e->hnext;
	j->nentries--;
	j->st.bytes -= JENTRY_BYTES + e->ud * sizeof(uint64_t) + e->copy_len;
	joiner__entry_free(j, e);
}

struct joiner *joiner__new(const struct joiner_opts *o)
{
	struct joiner *j;

	if (!o->emit) {
		errno = EINVAL;
		return NULL;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->o = *o;
	if (!j->o.max_bytes)
		j->o.max_bytes = JOINER_MAX_BYTES_DEFAULT;
	if (!j->o.done_keep)
		j->o.done_keep = JOINER_DONE_KEEP_DEFAULT;
	j->nbuckets = 1024;
	j->buckets = calloc(j->nbuckets, sizeof(*j->buckets));
	if (!j->buckets) {
		free(j);
		errno = ENOMEM;
		return NULL;
	}
	return j;
}

/* Emit @ev (kernel ips @kips) with @ud user frames @uips, the extra @flags, @e's copy. */
static int joiner__emit(struct joiner *j, const struct st_event *ev, const uint64_t *kips,
			const uint64_t *uips, size_t ud, unsigned flags, const struct jentry *e)
{
	size_t copy_len = e && uips ? e->copy_len : 0;
	size_t words = sizeof(*ev) / 8 + ev->kdepth + ud + (copy_len + 7) / 8;
	struct st_event *out;

	if (words > j->out_cap) {
		uint64_t *p = realloc(j->out, words * sizeof(uint64_t));

		if (!p)
			return -ENOMEM;
		j->out = p;
		j->out_cap = words;
	}
	out = (struct st_event *)j->out;
	*out = *ev;
	out->udepth = ud;
	/* A held event keeps no copy of its own: only its stack's copy may follow. */
	out->flags = (ev->flags & ~ST_EV_UCOPY) | flags;
	if (e && uips)
		out->ustop = e->stop;
	/* A lost stack has no frames and no array: memcpy may not see NULL, even for 0 bytes. */
	if (ev->kdepth)
		memcpy(j->out + sizeof(*ev) / 8, kips, ev->kdepth * sizeof(uint64_t));
	if (ud)
		memcpy(j->out + sizeof(*ev) / 8 + ev->kdepth, uips, ud * sizeof(uint64_t));
	if (copy_len) {
		memcpy(j->out + sizeof(*ev) / 8 + ev->kdepth + ud, e->copy, copy_len);
		out->flags |= e->uflags & (ST_EV_UCOPY | ST_EV_UNLOADED);
	}
	return j->o.emit(j->o.ctx, out, j->out + sizeof(*ev) / 8);
}

static unsigned joiner__lost_flags(enum joiner_lost r)
{
	return ST_EV_UFAIL | ((unsigned)r << JOINER_LOST_SHIFT);
}

/* The flags a joined event gets from its entry's stack. */
static unsigned joiner__stack_flags(const struct jentry *e)
{
	if (e->ud)
		return e->uflags & (ST_EV_UTRUNC | ST_EV_UFAIL | ST_EV_USWITCHED);
	if (e->stop == ST_USTOP_NONE)
		return joiner__lost_flags(JOINER_LOST_RINGBUF);
	return joiner__lost_flags(JOINER_LOST_WALK);
}

static void joiner__count_stack_loss(struct joiner *j, unsigned flags, uint64_t n)
{
	if (flags & ST_EV_UFAIL)
		j->st.lost[JOINER_LOST_OF(flags)] += n;
}

/* Emit and free every event waiting on @e; @flags for all of them. */
static int joiner__release(struct joiner *j, struct jentry *e, unsigned flags, bool with_stack)
{
	int ret = 0;

	while (e->head) {
		struct jevent *je = e->head;

		e->head = je->next;
		j->st.bytes -= je->bytes;
		j->nwaiting_events--;
		if (!ret) {
			ret = joiner__emit(j, &je->ev, je->ips, with_stack ? e->uips : NULL,
					   with_stack ? e->ud : 0, flags, with_stack ? e : NULL);
			if (with_stack)
				j->st.joined++;
			joiner__count_stack_loss(j, flags, 1);
		}
		joiner__event_free(j, je);
	}
	e->tailp = &e->head;
	return ret;
}

/* Give up on a waiting entry: its events leave without a stack. */
static int joiner__give_up(struct joiner *j, struct jentry *e, enum joiner_lost reason)
{
	int ret = joiner__release(j, e, joiner__lost_flags(reason), false);

	jlist__remove(&j->waiting, e);
	joiner__unhash(j, e);
	return ret;
}

/* Over the bound: forget answered cookies first (they only serve late events), then give up. */
static int joiner__enforce_bound(struct joiner *j)
{
	int ret = 0;

	while (!ret && j->st.bytes > j->o.max_bytes) {
		if (j->done.head) {
			struct jentry *e = j->done.head;

			jlist__remove(&j->done, e);
			joiner__unhash(j, e);
		} else if (j->waiting.head) {
			ret = joiner__give_up(j, j->waiting.head, JOINER_LOST_MEMORY);
		} else {
			break;
		}
	}
	return ret;
}

static int joiner__hold(struct joiner *j, struct jentry *e, const struct st_event *ev,
			const uint64_t *ips)
{
	size_t bytes = sizeof(struct jevent) + ev->kdepth * sizeof(uint64_t);
	struct jevent *je = joiner__event_new(j, ev->kdepth);

	if (!je)
		return -ENOMEM;
	je->next = NULL;
	je->bytes = bytes;
	je->ev = *ev;
	memcpy(je->ips, ips, ev->kdepth * sizeof(uint64_t));
	*e->tailp = je;
	e->tailp = &je->next;
	j->st.bytes += bytes;
	if (j->st.bytes > j->st.peak_bytes)
		j->st.peak_bytes = j->st.bytes;
	j->nwaiting_events++;
	j->st.held++;
	return joiner__enforce_bound(j);
}

int joiner__add_event(struct joiner *j, const struct st_event *ev, const uint64_t *ips)
{
	struct jentry *e;
	unsigned flags;

	if (!(ev->flags & ST_EV_UDEFERRED))
		return j->o.emit(j->o.ctx, ev, ips);
	e = joiner__find(j, ev->cookie);
	if (e && e->done) {
		flags = joiner__stack_flags(e);
		j->st.late++;
		joiner__count_stack_loss(j, flags, 1);
		return joiner__emit(j, ev, ips, e->uips, e->ud, flags, e);
	}
	if (!e) {
		e = joiner__insert(j, ev->cookie, ev->pid, ev->tid);
		if (!e)
			return -ENOMEM;
		jlist__append(&j->waiting, e);
	}
	return joiner__hold(j, e, ev, ips);
}

static void joiner__trim_done(struct joiner *j)
{
	while (j->done.n > j->o.done_keep) {
		struct jentry *e = j->done.head;

		jlist__remove(&j->done, e);
		joiner__unhash(j, e);
	}
}

static int joiner__answer(struct joiner *j, struct jentry *e, const struct st_ustack *us,
			  const uint64_t *ips, const void *copy, size_t copy_len)
{
	if (copy_len) {
		e->copy = malloc(copy_len);
		if (!e->copy)
			return -ENOMEM;
		memcpy(e->copy, copy, copy_len);
		e->copy_len = copy_len;
		j->st.bytes += copy_len;
	}
	if (us->udepth) {
		if (e->ucap < us->udepth) {
			uint64_t *p = realloc(e->ubuf, us->udepth * sizeof(uint64_t));

			if (!p)
				return -ENOMEM;
			e->ubuf = p;
			e->ucap = us->udepth;
		}
		e->uips = e->ubuf;
		memcpy(e->uips, ips, us->udepth * sizeof(uint64_t));
		j->st.bytes += us->udepth * sizeof(uint64_t);
	}
	e->ud = us->udepth;
	e->uflags = us->flags;
	e->stop = us->stop;
	e->done = true;
	e->gone_seen = false; /* answered: two more ticks before it may go (joiner__tick_answered()) */
	jlist__append(&j->done, e);
	return 0;
}

int joiner__add_ustack(struct joiner *j, const struct st_ustack *us, const uint64_t *ips,
		       const void *copy, size_t copy_len)
{
	struct jentry *e = joiner__find(j, us->cookie);
	int ret;

	j->st.stacks++;
	if (us->stop < ST_USTOP_MAX)
		j->st.stops[us->stop]++;
	if (e && e->done) {
		j->st.duplicates++;
		return 0;
	}
	if (e) {
		jlist__remove(&j->waiting, e);
	} else {
		j->st.unclaimed++;
		e = joiner__insert(j, us->cookie, us->pid, us->tid);
		if (!e)
			return -ENOMEM;
	}
	ret = joiner__answer(j, e, us, ips, copy, copy_len);
	if (ret) {
		joiner__release(j, e, joiner__lost_flags(JOINER_LOST_MEMORY), false);
		joiner__unhash(j, e);
		return ret;
	}
	ret = joiner__release(j, e, joiner__stack_flags(e), true);
	joiner__trim_done(j);
	return ret;
}

int joiner__lookup(struct joiner *j, uint64_t cookie, const uint64_t **ips, size_t *n)
{
	struct jentry *e = joiner__find(j, cookie);

	if (!e)
		return -ENOENT;
	if (!e->done)
		return -EAGAIN;
	*ips = e->uips;
	*n = e->ud;
	return 0;
}

/* Is @e's task gone at this tick and the one before? (A tick notes it in e->gone_seen.) */
static bool joiner__gone_twice(struct joiner *j, struct jentry *e)
{
	bool alive = j->o.task_alive ? j->o.task_alive(j->o.ctx, e->pid, e->tid)
				     : proc_source_task_alive(e->pid, e->tid);

	if (alive || !e->gone_seen) {
		e->gone_seen = !alive;
		return false;
	}
	return true;
}

/*
 * Answered cookies with a stack copy whose task is gone at two ticks go:
 * as a rule they go with their process (joiner__forget_pids()), but a
 * process the registry never knew or never forgot (its records lost to a
 * full ring buffer) kept its copies (~9 KiB each) until done_keep trimmed
 * them: 40 MB of them once, under two churns at a time. Late events come
 * microseconds after their stack, long before a second tick. Those without
 * a copy (a few words) are left to the bound: a look at /proc each would
 * cost more than they hold.
 */
static void joiner__tick_answered(struct joiner *j)
{
	struct jentry *e, *next;

	for (e = j->done.head; e; e = next) {
		next = e->next;
		if (!e->copy || !joiner__gone_twice(j, e))
			continue;
		jlist__remove(&j->done, e);
		joiner__unhash(j, e);
		j->st.gone_done++;
	}
}

int joiner__tick(struct joiner *j, uint64_t now_ns, uint64_t min_gap_ns)
{
	struct jentry *e, *next;
	int ret = 0;

	if (j->last_tick && now_ns - j->last_tick < min_gap_ns)
		return 0;
	j->last_tick = now_ns;
	if (j->o.tick_answered)
		joiner__tick_answered(j);
	for (e = j->waiting.head; e && !ret; e = next) {
		next = e->next;
		if (joiner__gone_twice(j, e))
			ret = joiner__give_up(j, e, JOINER_LOST_EXITED);
	}
	return ret;
}

size_t joiner__forget_pids(struct joiner *j, const int *pids, size_t n)
{
	struct jentry *e, *next;
	struct pid_set gone;
	size_t forgotten = 0;

	if (!n || !j->done.head)
		return 0;
	if (pid_set__init(&gone, pids, n))
		return 0; /* kept until trimmed, as before */
	for (e = j->done.head; e; e = next) {
		next = e->next;
		if (!pid_set__has(&gone, (int)e->pid))
			continue;
		jlist__remove(&j->done, e);
		joiner__unhash(j, e);
		forgotten++;
	}
	pid_set__free(&gone);
	j->st.gone_done += forgotten;
	return forgotten;
}

int joiner__flush(struct joiner *j, enum joiner_lost reason)
{
	int ret = 0;

	while (j->waiting.head && !ret)
		ret = joiner__give_up(j, j->waiting.head, reason);
	return ret;
}

size_t joiner__waiting(const struct joiner *j)
{
	return j->nwaiting_events;
}

void joiner__report_memory(const struct joiner *j)
{
	fprintf(stderr, "stacktap: joiner: %zu answered cookies kept for late events, %zu waiting; "
		"%llu forgotten with their process; %zu KiB held now, %zu KiB at most\n",
		j->done.n, j->waiting.n, (unsigned long long)j->st.gone_done, j->st.bytes / 1024,
		j->st.peak_bytes / 1024);
}

const struct joiner_stats *joiner__stats(const struct joiner *j)
{
	return &j->st;
}

static void joiner__free_spares(struct joiner *j)
{
	while (j->spare_entries) {
		struct jentry *e = j->spare_entries;

		j->spare_entries = e->hnext;
		free(e->ubuf);
		free(e);
	}
	while (j->spare_events) {
		struct jevent *je = j->spare_events;

		j->spare_events = je->next;
		free(je);
	}
	j->nspare_entries = j->nspare_events = 0;
}

void joiner__free(struct joiner *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->nbuckets; i++) {
		while (j->buckets[i]) {
			struct jentry *e = j->buckets[i];

			j->buckets[i] = e->hnext;
			while (e->head) {
				struct jevent *je = e->head;

				e->head = je->next;
				free(je);
			}
			free(e->ubuf);
			free(e->copy);
			free(e);
		}
	}
	joiner__free_spares(j);
	free(j->buckets);
	free(j->out);
	free(j);
}
