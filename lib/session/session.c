// SPDX-License-Identifier: GPL-2.0
/* The session: the run loop every tool shares. */
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/proc/source.h"
#include "lib/record/recorder.h"
#include "lib/record/replay.h"
#include "lib/session/exits_ahead.h"
#include "lib/session/held.h"
#include "lib/session/joiner.h"
#include "lib/session/losses.h"
#include "lib/session/pump.h"
#include "lib/session/session.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

/* Poll timeout: bounds how late a duration, interval or exit is noticed. */
#define SESSION_POLL_MS 50
/*
 * Poll timeout with nothing to do between polls and no process to watch
 * for its exit: records wake the reader only in batches (st_rb_flags()),
 * so on a quiet machine each timeout is a wake-up for little, and at 50 ms
 * they were 12-25% of a system-wide profile's own CPU. Deadlines (the
 * duration, the next interval) still cut it short.
 */
#define SESSION_IDLE_POLL_MS 250
/*
 * After the stop, how long to wait for the deferred user stacks of events
 * already taken: a task returns to user space within microseconds unless it
 * is blocked, and a blocked one would not come back in any useful time.
 */
#define SESSION_DRAIN_MS 200
/* While draining, records that came without a wake-up are read this often. */
#define SESSION_DRAIN_STEP_MS 10
/*
 * The queue between the ring pump and the loop holds this many ring
 * buffers' worth (8 MiB on 2 CPUs: 32 MiB) before the pump waits and the
 * ring fills: a second or more of a loop busy building a table, bounded.
 * Not more: a loop that is slower than its records for longer (16 KiB
 * stack copies of processes met before their tables, under churn) would
 * only hold more of them in memory; the kernel counts those for want of
 * room instead (st_agg_rescue()).
 */
#define SESSION_QUEUE_RINGS 4
/*
 * Past one ring's worth queued the kernel is told user space is behind
 * (st_backlog): it counts what it can itself, and the queue drains.
 */
#define SESSION_BACKLOG_RINGS 1
/* How often the joiner looks for tasks that died before their stack came. */
#define SESSION_TICK_NS 1000000000ull
/*
 * A batch of records handled without a break: libbpf's consume loops while
 * records keep coming, so a consumer slower than its producers would never
 * see its duration end or its signal. Past this it yields to the loop.
 */
#define SESSION_BATCH_NS (SESSION_POLL_MS * 1000000ull)

struct session {
	struct ring_pump *pump;   /* live: the ring buffer, drained on a thread of its own */
	struct replay *rp;        /* replayed */
	int stats_fd;
	int ustats_fd; /* the walker's counters (bpf/ustack.bpf.h st_ustats); -1 without a walker */
	int held_fd;   /* events held for their walk (bpf/defer_hold.bpf.h); -1 without */
	int ncpus;
	struct session_opts opts;
	uint64_t events;
	struct joiner *joiner;
	uint64_t stop_ts;   /* when draining: events taken after this are not wanted */
	uint64_t foreign;   /* records of an unknown kind, ignored */
	uint64_t batch_start; /* when the loop last called into the ring buffer */
	uint32_t batch_n;
	int failed;         /* writing the recording failed: the run stops */
	bool draining;
	bool ran;           /* session__run() returned: every record was handled */
	bool flushed;       /* replay: the recorded run gave up on its waiting events */
	bool stop;
	bool interrupted;
	const uint64_t *ustops_replaced; /* [ST_USTOP_MAX] walks whose stack the copy replaced */
	struct exits_ahead ahead; /* live, not recording: exits queued behind the take */
	struct session_losses interval_base; /* the counts when the last interval was reported */
	uint64_t print_ts; /* the last interval's end or the stop: what a print is as of */
};

static volatile sig_atomic_t session_signalled;

/* The first signal asks for a clean stop; a second one, while that stop is slow, ends us. */
static void session__on_signal(int sig)
{
	if (session_signalled) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	session_signalled = sig;
}

void session_install_signals(void)
{
	struct sigaction sa = { .sa_handler = session__on_signal, .sa_flags = SA_RESTART };

	/*
	 * SA_RESTART: a signal while loading must not fail a read or a bpf()
	 * call with EINTR. The run loop still sees it: epoll_wait() is never
	 * restarted after a handler (signal(7)), so the poll returns.
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int session_set_ringbuf_size(struct bpf_object *obj, size_t bytes)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "st_events");
	size_t sz = sysconf(_SC_PAGESIZE);

	if (!map)
		return -ENOENT;
	while (sz < bytes && sz < (1ul << 30))
		sz <<= 1;
	return bpf_map__set_max_entries(map, sz);
}

static int session__on_proc(struct session *s, const void *data, size_t size)
{
	const struct st_proc_event *pe = data;

	/* Only MAP and DESC records carry the path, up to its last name; the others stop before it. */
	if (size < offsetof(struct st_proc_event, comps) ||
	    (st_proc_has_path(pe->what) && size < st_proc_map_size(pe->ncomps)))
		st_warn("session: short process record of %zu bytes ignored", size);
	else if (s->opts.on_proc)
		s->opts.on_proc(s->opts.ctx, pe);
	return 0;
}

/* A complete event (joined, or never deferred) goes to the tool. */
static int session__deliver(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	struct session *s = ctx;

	if (s->stop)
		return 1;
	s->events++;
	if (s->opts.on_event && s->opts.on_event(s->opts.ctx, ev, ips))
		s->stop = true;
	if (s->opts.max_events && s->events >= s->opts.max_events)
		s->stop = true;
	return s->stop;
}

/*
 * A record as the capture library writes it: depths within its limits, the
 * frames and any stack copy inside the record. Replayed records come from a
 * file, so this is checked rather than trusted.
 */
static bool session__event_whole(const struct st_event *ev, size_t size)
{
	size_t at = sizeof(*ev) + (ev->kdepth + ev->udepth) * 8ull;
	const struct st_ucopy *c = (const void *)((const char *)ev + at);

	if (size < sizeof(*ev) || ev->kdepth > ST_MAX_KSTACK || ev->udepth > ST_MAX_USTACK ||
	    size < at)
		return false;
	return !(ev->flags & ST_EV_UCOPY) ||
	       (size - at >= sizeof(*c) && c->len <= size - at - sizeof(*c));
}

static int session__on_event(struct session *s, const struct st_event *ev, size_t size)
{
	if (!session__event_whole(ev, size)) {
		st_warn("session: short record of %zu bytes ignored", size);
		return 0;
	}
	if (s->draining && ev->ts > s->stop_ts)
		return 0;
	return joiner__add_event(s->joiner, ev, (const uint64_t *)(ev + 1));
}

static int session__on_held(void *ctx, const struct st_event *ev, size_t size)
{
	return session__on_event(ctx, ev, size);
}

/*
 * A deferred user stack. With ST_EV_UCOPY a stack copy follows at a fixed
 * place, after all ST_MAX_USTACK frame slots (bpf/deferred.bpf.h).
 */
static int session__on_ustack(struct session *s, const struct st_ustack *us, size_t size)
{
	size_t at = sizeof(*us) + ST_MAX_USTACK * 8ull;
	const struct st_ucopy *c = (const void *)((const char *)us + at);
	size_t copy_len = 0;

	if (size < sizeof(*us) || us->udepth > ST_MAX_USTACK ||
	    size < sizeof(*us) + us->udepth * 8ull) {
		st_warn("session: short user-stack record of %zu bytes ignored", size);
		return 0;
	}
	if ((us->flags & ST_EV_UCOPY) && size >= at + sizeof(*c) &&
	    c->len <= size - at - sizeof(*c))
		copy_len = sizeof(*c) + c->len;
	return joiner__add_ustack(s->joiner, us, (const uint64_t *)(us + 1),
				  copy_len ? c : NULL, copy_len);
}

/*
 * An event taken after the stop: not wanted (session__on_event()), and not
 * recorded either, so a report replays exactly the events the live run
 * used. The pump drains the ring on its own pace (up to PUMP_POLL_MS after
 * the stop is asked), so such events reach the drain more often than when
 * the loop drained the ring itself.
 */
static bool session__after_stop(const struct session *s, const void *data, size_t size)
{
	const struct st_event *ev = data;

	return s->draining && size >= sizeof(*ev) && ev->kind == ST_REC_EVENT &&
	       ev->ts > s->stop_ts;
}

static int session__on_record(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;
	int ret = 0;

	if (s->rp == NULL && session__after_stop(s, data, size))
		return 0;
	if (s->opts.rec && !s->failed && recorder__ring(s->opts.rec, data, size)) {
		s->failed = -EIO;
		s->stop = true;
	}
	if (size < sizeof(__u16))
		return s->stop ? -ECANCELED : 0;
	switch (*(const __u16 *)data) {
	case ST_REC_EVENT: ret = session__on_event(s, data, size); break;
	case ST_REC_USTACK: ret = session__on_ustack(s, data, size); break;
	case ST_REC_PROC: ret = session__on_proc(s, data, size); break;
	default:
		if (s->opts.on_record)
			ret = s->opts.on_record(s->opts.ctx, data, size);
		else
			s->foreign++;
		break;
	}
	if (ret < 0) {
		st_err("session: %s", strerror(-ret));
		s->stop = true;
	} else if (ret) {
		s->stop = true;
	}
	/* A negative return ends ring_buffer__poll's batch early, so -n N stops exactly. */
	if (s->stop)
		return -ECANCELED;
	/*
	 * The record is consumed either way; the drain wants every record, so
	 * never then. Ctrl-C ends the batch at once: a record may build a
	 * process's tables (seconds for a compiler's libraries on a loaded
	 * machine), and the queue can hold thousands of them; the drain after
	 * the stop builds none.
	 */
	if (s->pump && !s->draining &&
	    (session_signalled || (++s->batch_n % 16 == 0 &&
				   mono_ns() - s->batch_start > SESSION_BATCH_NS)))
		return -EAGAIN;
	return 0;
}

/*
 * @live: neither replaying nor recording. A recording replays the answers
 * to "is this task alive?" in the order they were asked; the joiner's look
 * at answered cookies' tasks (joiner_opts.tick_answered) would ask more
 * than a recording made before it holds, so only a live run asks.
 */
static struct session *session__alloc(const struct session_opts *opts, bool live)
{
	struct session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->opts = *opts;
	s->stats_fd = -1;
	s->held_fd = -1;
	s->joiner = joiner__new(&(struct joiner_opts){ .emit = session__deliver, .ctx = s,
						       .tick_answered = live });
	if (!s->joiner) {
		free(s);
		return NULL;
	}
	return s;
}

struct session *session__new_replay(struct replay *rp, const struct session_opts *opts)
{
	struct session *s = session__alloc(opts, false);

	if (s)
		s->rp = rp;
	return s;
}

struct session *session__new(struct bpf_object *obj, const struct session_opts *opts)
{
	struct bpf_map *events = bpf_object__find_map_by_name(obj, "st_events");
	struct bpf_map *stats = bpf_object__find_map_by_name(obj, "st_stats");
	struct bpf_map *ustats = bpf_object__find_map_by_name(obj, "st_ustats");
	struct bpf_map *held = bpf_object__find_map_by_name(obj, "st_defer_held");
	struct bpf_map *backlog = bpf_object__find_map_by_name(obj, "st_backlog");
	struct session *s;

	if (!events || !stats) {
		st_err("session: BPF object has no capture maps");
		errno = ENOENT;
		return NULL;
	}
	s = session__alloc(opts, !opts->rec);
	if (!s)
		return NULL;
	s->stats_fd = bpf_map__fd(stats);
	s->ustats_fd = ustats ? bpf_map__fd(ustats) : -1;
	s->held_fd = held ? bpf_map__fd(held) : -1;
	s->ncpus = libbpf_num_possible_cpus();
	s->pump = ring_pump__new(bpf_map__fd(events),
				 (size_t)bpf_map__max_entries(events) * SESSION_QUEUE_RINGS,
				 backlog ? bpf_map__fd(backlog) : -1,
				 (size_t)bpf_map__max_entries(events) * SESSION_BACKLOG_RINGS);
	if (!s->pump || s->ncpus <= 0) {
		int err = -errno;

		st_err("session: cannot set up the ring buffer: %s", strerror(-err));
		session__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

static bool session__target_gone(const struct session *s)
{
	return s->opts.target_pid && kill(s->opts.target_pid, 0) && errno == ESRCH;
}

/*
 * The queued records to session__on_record(). Live and not recording, the
 * exits among them are noted first (exits_ahead.h): work for a process
 * whose exit is already on its way is skipped. A recording's reads must be
 * those its report makes, and a replay cannot see the live queue: both
 * look at nothing ahead.
 */
static int session__take(struct session *s)
{
	exits_ahead__clear(&s->ahead);
	if (!s->opts.rec) {
		ring_pump__peek(s->pump, exits_ahead__note, &s->ahead);
		exits_ahead__seal(&s->ahead);
	}
	return ring_pump__take(s->pump, session__on_record, s);
}

bool session__exit_ahead(const struct session *s, int pid, uint64_t ts)
{
	return s && exits_ahead__has(&s->ahead, pid, ts);
}

int session__look_ahead(struct session *s, ring_pump_fn fn, void *ctx)
{
	if (!s || !s->pump || s->opts.rec)
		return -EOPNOTSUPP;
	ring_pump__peek(s->pump, fn, ctx);
	return 0;
}

/*
 * The ring drained into the queue first: a record the kernel wrote before
 * this call (a description written before the mm went, which /proc just
 * found gone) is then among those looked at. A wait on the pump's thread:
 * for a second look, when the first found nothing.
 */
int session__look_ahead_sync(struct session *s, ring_pump_fn fn, void *ctx)
{
	if (!s || !s->pump || s->opts.rec)
		return -EOPNOTSUPP;
	ring_pump__sync(s->pump);
	ring_pump__peek(s->pump, fn, ctx);
	return 0;
}

/*
 * Whatever was captured before the stop is still output: the ring buffer is
 * drained, deferred stacks still on their way are waited for a little, and
 * the events whose stack did not come leave flagged. Events taken after the
 * stop are not wanted.
 */
static void session__drain(struct session *s)
{
	uint64_t deadline;
	int err;

	s->stop_ts = s->print_ts = mono_ns();
	s->draining = true;
	if (s->opts.rec)
		recorder__mark(s->opts.rec, REC_DRAIN, s->stop_ts);
	deadline = s->stop_ts + SESSION_DRAIN_MS * 1000000ull;
	ring_pump__pace(s->pump, SESSION_DRAIN_STEP_MS);
	ring_pump__sync(s->pump);
	session__take(s);
	while (!s->stop && joiner__waiting(s->joiner) && mono_ns() < deadline) {
		if (ring_pump__wait(s->pump, SESSION_DRAIN_STEP_MS) < 0)
			break;
		session__take(s);
	}
	if (s->stop)
		return;
	/* Held for walks that never came: as records, flushed with the rest. */
	if (s->held_fd >= 0 && (err = held_take(s->held_fd, session__on_held, s)) < 0)
		st_warn("events held in the kernel for their user stack were not all read: %s",
			strerror(-err));
	if (s->opts.rec)
		recorder__mark(s->opts.rec, REC_FLUSH, 0);
	joiner__flush(s->joiner, JOINER_LOST_PENDING);
}

static uint64_t mark__value(const struct rec_entry *e)
{
	uint64_t v;

	memcpy(&v, e->data, sizeof(v));
	return v;
}

/*
 * The live loop's decisions, as recorded: a tick with its time (the liveness
 * answers it got are in the stash), interval output, the drain's stop time,
 * the flush, the registry's forgets. A recording cut before its flush ends
 * as a live run would.
 */
static int session__run_replay(struct session *s)
{
	struct rec_entry e;
	int ret;

	while (!s->stop && (ret = replay__next(s->rp, &e)) == 1) {
		if (session_signalled) { /* Ctrl-C: print what was replayed so far */
			s->interrupted = true;
			break;
		}
		switch (e.type) {
		case REC_RING: session__on_record(s, (void *)e.data, e.len); break;
		case REC_TICK:
			if (joiner__tick(s->joiner, mark__value(&e), SESSION_TICK_NS))
				s->stop = true;
			break;
		case REC_INTERVAL:
			s->print_ts = mark__value(&e);
			if (s->opts.interval_ns && s->opts.on_interval)
				s->opts.on_interval(s->opts.ctx);
			break;
		case REC_DRAIN:
			s->stop_ts = s->print_ts = mark__value(&e);
			s->draining = true;
			break;
		case REC_FLUSH:
			s->flushed = true;
			joiner__flush(s->joiner, JOINER_LOST_PENDING);
			break;
		case REC_FORGET:
			if (s->opts.on_forget)
				s->opts.on_forget(s->opts.ctx, mark__value(&e));
			break;
		}
	}
	if (!s->stop && !s->flushed)
		joiner__flush(s->joiner, JOINER_LOST_PENDING);
	return s->stop || ret >= 0 ? 0 : ret;
}

static int session__ustats(const struct session *s, uint64_t out[ST_USTAT_MAX]);

/* The capture library's and the walker's counters, for the recording to keep. */
static void session__record_stats(struct session *s)
{
	uint64_t st[ST_STAT_MAX], ust[ST_USTAT_MAX];

	if (s->opts.rec && !session__stats(s, st))
		recorder__stats(s->opts.rec, st, ST_STAT_MAX);
	if (s->opts.rec && !session__ustats(s, ust))
		recorder__ustats(s->opts.rec, ust, ST_USTAT_MAX);
}

/* Milliseconds until @at (at least 1), or @ms when that is sooner. */
static int session__until(uint64_t at, uint64_t now, int ms)
{
	uint64_t left = at > now ? (at - now + 999999) / 1000000 : 1;

	return left < (uint64_t)ms ? (int)left : ms;
}

/*
 * How long the next poll may wait: short while the tool has work left
 * between polls (@busy), a target to watch or a recording to refresh;
 * longer otherwise, up to the end of the duration or the next interval.
 */
static int session__poll_ms(const struct session *s, bool busy, uint64_t start,
			    uint64_t next_tick)
{
	uint64_t now;
	int ms;

	if (busy || s->opts.target_pid || s->opts.rec)
		return SESSION_POLL_MS;
	now = mono_ns();
	ms = SESSION_IDLE_POLL_MS;
	if (s->opts.duration_ns)
		ms = session__until(start + s->opts.duration_ns, now, ms);
	if (s->opts.interval_ns && s->opts.on_interval)
		ms = session__until(next_tick, now, ms);
	return ms;
}

int session__run(struct session *s)
{
	uint64_t start = mono_ns(), next_tick = start + s->opts.interval_ns;
	int err = 0, gone = 0;
	bool busy = true;

	if (s->opts.on_start)
		s->opts.on_start(s->opts.ctx);
	if (s->rp)
		return session__run_replay(s);
	/* A -p target that ended while the programs loaded left nothing to trace. */
	if (session__target_gone(s))
		st_warn("process %d had exited when tracing began: its events were not traced",
			s->opts.target_pid);
	while (!s->stop && !gone) {
		uint64_t t;
		int poll_ms;

		poll_ms = session__poll_ms(s, busy, start, next_tick);
		ring_pump__pace(s->pump, poll_ms);
		err = ring_pump__wait(s->pump, poll_ms);
		s->batch_start = mono_ns();
		if (err >= 0 && !s->stop)
			err = session__take(s);
		if (err == -EINTR || err == -ECANCELED || err == -EAGAIN)
			err = 0;
		if (err < 0)
			break;
		err = 0;
		if (session_signalled) {
			s->interrupted = true;
			break;
		}
		busy = s->opts.on_poll && s->opts.on_poll(s->opts.ctx);
		gone = session__target_gone(s);
		t = mono_ns();
		/* The mark first: the liveness answers the tick gets are written after it. */
		if (s->opts.rec && recorder__mark(s->opts.rec, REC_TICK, t))
			s->failed = -EIO;
		if (joiner__tick(s->joiner, t, SESSION_TICK_NS) || s->failed)
			s->stop = true;
		if (s->opts.duration_ns && t - start >= s->opts.duration_ns)
			break;
		if (s->opts.interval_ns && t >= next_tick && s->opts.on_interval) {
			if (s->opts.rec)
				recorder__mark(s->opts.rec, REC_INTERVAL, t);
			s->print_ts = t;
			s->opts.on_interval(s->opts.ctx);
			next_tick += s->opts.interval_ns;
		}
	}
	if (!s->stop && err >= 0)
		session__drain(s);
	s->ran = true;
	if (err < 0)
		st_err("session: ring buffer poll failed: %s", strerror(-err));
	session__record_stats(s);
	return err ? err : s->failed;
}

uint64_t session__handled_before(const struct session *s)
{
	if (!s || s->rp || s->ran || !s->pump)
		return UINT64_MAX;
	return ring_pump__handled_before(s->pump);
}

bool session__draining(const struct session *s)
{
	return s->draining;
}

bool session__interrupted(const struct session *s)
{
	return s->interrupted;
}

/* Sums the per-CPU values of keys [0, @n) of the PERCPU_ARRAY @fd into @out. */
static int session__sum(const struct session *s, int fd, __u32 n, uint64_t *out)
{
	uint64_t *vals;
	__u32 k;
	int c;

	vals = calloc(s->ncpus, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		out[k] = 0;
		if (fd < 0 || bpf_map_lookup_elem(fd, &k, vals))
			continue;
		for (c = 0; c < s->ncpus; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

int session__stats(const struct session *s, uint64_t out[ST_STAT_MAX])
{
	if (s->rp) {
		memset(out, 0, ST_STAT_MAX * sizeof(*out));
		replay__stats(s->rp, out, ST_STAT_MAX);
		return 0;
	}
	return session__sum(s, s->stats_fd, ST_STAT_MAX, out);
}

/* The user-stack walker's counters: summed over CPUs, or as recorded. */
static int session__ustats(const struct session *s, uint64_t out[ST_USTAT_MAX])
{
	if (s->rp) {
		memset(out, 0, ST_USTAT_MAX * sizeof(*out));
		replay__ustats(s->rp, out, ST_USTAT_MAX);
		return 0;
	}
	return session__sum(s, s->ustats_fd, ST_USTAT_MAX, out);
}

/* Every counter the loss summary reports, now. */
static int session__losses(const struct session *s, struct session_losses *l)
{
	const struct joiner_stats *js = joiner__stats(s->joiner);
	int err = session__stats(s, l->stats);
	unsigned k;

	if (!err)
		err = session__ustats(s, l->ustats);
	if (err)
		return err;
	for (k = 0; s->ustops_replaced && k < ST_USTOP_MAX; k++)
		l->ustats[k] -= s->ustops_replaced[k] < l->ustats[k] ? s->ustops_replaced[k] :
									  l->ustats[k];
	memcpy(l->lost, js->lost, sizeof(l->lost));
	l->duplicates = js->duplicates;
	l->foreign = s->foreign;
	/* Joined in the joiner, or in the kernel (bpf/defer_hold.bpf.h). */
	l->deferred_events = js->held + js->late + l->stats[ST_STAT_JOINED];
	return 0;
}

void session__forget_pids(struct session *s, const int *pids, size_t n)
{
	joiner__forget_pids(s->joiner, pids, n);
}

void session__report_joiner(const struct session *s)
{
	joiner__report_memory(s->joiner);
}

void session__take_back_stops(struct session *s, const uint64_t *replaced)
{
	s->ustops_replaced = replaced;
}

void session__report_losses(const struct session *s)
{
	struct session_losses now;

	if (!session__losses(s, &now))
		session_losses_print(stderr, &now, NULL, "", false);
	if (s->pump)
		st_info("session: records queued between the ring buffer and the run loop: at most "
			"%llu KiB at once; behind %llu times (events counted in the kernel meanwhile)",
			(unsigned long long)(ring_pump__peak(s->pump) / 1024),
			(unsigned long long)ring_pump__backlogs(s->pump));
}

uint64_t session__print_time(const struct session *s)
{
	return s->print_ts ? s->print_ts : proc_source_now();
}

void session__report_interval_losses(struct session *s, const char *prefix)
{
	struct session_losses now;

	if (session__losses(s, &now))
		return;
	session_losses_print(stderr, &now, &s->interval_base, prefix, true);
	s->interval_base = now;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	ring_pump__free(s->pump);
	exits_ahead__free(&s->ahead);
	joiner__free(s->joiner);
	free(s);
}
