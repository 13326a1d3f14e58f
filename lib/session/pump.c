// SPDX-License-Identifier: GPL-2.0
/*
 * The ring pump: a thread that drains the capture ring buffer into a queue.
 *
 * Why: the run loop used to drain the ring itself, between everything else
 * it does. Under process churn that is a lot: a process that execs gets its
 * unwind tables built when its record is read (the .eh_frame of a compiler
 * is hundreds of thousands of rows), the in-kernel counts are read while
 * exited processes are settled, and on a loaded machine the loop gets half
 * a CPU at best. Meanwhile the ring filled: events were counted in the
 * kernel for want of room (fine), then dropped (ring full), and process
 * records with them (their mappings lost). Now a thread does nothing but
 * copy records out of the ring, so the ring stays near empty however long
 * the loop spends on one record, and the loop reads the copies in the
 * ring's order as it always did.
 *
 * The queue is a list of chunks: the pump appends records under the lock,
 * the loop reads one in place outside it (a chunk is only ever appended to,
 * and only the loop frees it, once read past), then takes the lock to move
 * on. It is bounded (ring_pump__new()'s cap): past it the pump waits, the
 * kernel's ring fills, and the kernel counts what finds no room, as
 * before, so a loop that never catches up costs bounded memory.
 *
 * Before that, past a lower mark, the pump tells the kernel that user space
 * is behind (the st_backlog map): the kernel then counts the events it can
 * count itself, as when the ring is over half full, so the queue drains and
 * the pump never waits while the records only user space can use (a
 * process's exec, mappings and exit) keep coming. The mark is lifted at
 * half of it, so it does not flap.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/session/pump.h"
#include "lib/util/clock.h"
#include "lib/util/log.h"

/*
 * How long the pump sleeps in epoll until the loop sets its pace
 * (ring_pump__pace()): the capture batches its wake-ups (st_rb_flags()), so
 * records below the wake-up mark are read at this pace. The loop lengthens
 * it on a quiet machine, where each timeout is a wake-up for little.
 */
#define PUMP_POLL_MS 10
/*
 * A record is written to the ring within this long of its time stamp (the
 * program takes the time, walks, writes; programs are not preempted for
 * long): a drain that started at t has every record stamped before
 * t - PUMP_STAMP_SLACK_NS.
 */
#define PUMP_STAMP_SLACK_NS (20 * 1000000ull)
#define PUMP_CHUNK_BYTES (1u << 20) /* a chunk holds many records: one allocation for them */

struct pump_chunk {
	struct pump_chunk *next;
	size_t len;  /* bytes appended (under the lock) */
	size_t read; /* bytes the loop is done with (its own) */
	size_t cap;
	unsigned char data[];
};

/* A record in a chunk: its size, then its bytes, padded to 8. */
struct pump_rec {
	uint32_t size;
	uint32_t pad;
	unsigned char data[];
};

struct ring_pump {
	struct ring_buffer *rb;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t more;   /* a record was queued, or the pump stopped */
	pthread_cond_t room;   /* the queue went below its cap */
	pthread_cond_t synced; /* a sync was done */
	struct pump_chunk *head, *tail;
	struct pump_chunk *spare; /* the last chunk read to its end, for the next tail */
	size_t bytes, cap;
	uint64_t peak;
	uint64_t sync_asked, sync_done;
	int backlog_fd;      /* st_backlog, or -1 */
	size_t backlog_at;   /* queued bytes that make a backlog */
	bool backlogged;
	uint64_t backlogs;   /* times the mark was set */
	int err;   /* the pump stopped on this */
	bool quit;
	int pace_ms;  /* epoll timeout (atomic: the loop sets it) */
	uint64_t drained_before; /* every record stamped before this is queued (or taken) */
	uint64_t handled_before; /* ... and handled by the loop (its own, read by it) */
	int epfd;     /* the ring's epoll fd and @wake_fd */
	int wake_fd;  /* an eventfd: cuts the pump's sleep short (stop, sync) */
};

static size_t pump__rec_bytes(size_t size)
{
	return (sizeof(struct pump_rec) + size + 7) & ~(size_t)7;
}

/* A chunk with room for @need bytes at the tail. Return: it, or NULL (no memory). */
static struct pump_chunk *pump__tail(struct ring_pump *p, size_t need)
{
	size_t cap = need > PUMP_CHUNK_BYTES ? need : PUMP_CHUNK_BYTES;
	struct pump_chunk *c = p->tail;

	if (c && c->cap - c->len >= need)
		return c;
	if (p->spare && p->spare->cap >= cap) {
		c = p->spare;
		p->spare = NULL;
	} else if (!(c = malloc(sizeof(*c) + cap))) {
		return NULL;
	}
	c->next = NULL;
	c->len = c->read = 0;
	c->cap = cap;
	if (p->tail)
		p->tail->next = c;
	else
		p->head = c;
	p->tail = c;
	return c;
}

/* Tells the kernel whether user space is behind (@on), when that changed. Lock held. */
static void pump__set_backlog(struct ring_pump *p, bool on)
{
	__u32 zero = 0, v = on;

	if (p->backlog_fd < 0 || p->backlogged == on)
		return;
	if (bpf_map_update_elem(p->backlog_fd, &zero, &v, BPF_ANY))
		return; /* not told: the ring's own half-full mark still holds */
	p->backlogged = on;
	p->backlogs += on;
}

/* libbpf's callback, on the pump's thread: the record copied into the queue. */
static int pump__on_sample(void *ctx, void *data, size_t size)
{
	struct ring_pump *p = ctx;
	size_t need = pump__rec_bytes(size);
	struct pump_chunk *c;
	struct pump_rec *r;
	int err = 0;

	pthread_mutex_lock(&p->lock);
	c = pump__tail(p, need);
	if (c) {
		r = (struct pump_rec *)(c->data + c->len);
		r->size = (uint32_t)size;
		memcpy(r->data, data, size);
		c->len += need;
		p->bytes += need;
		if (p->bytes > p->peak)
			p->peak = p->bytes;
		if (p->bytes >= p->backlog_at)
			pump__set_backlog(p, true);
		pthread_cond_signal(&p->more);
	} else {
		err = -ENOMEM;
	}
	pthread_mutex_unlock(&p->lock);
	return err;
}

static struct timespec pump__deadline(int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

/* Should the pump wait for room? Not while a sync is asked: the loop waits for it. Lock held. */
static bool pump__full(const struct ring_pump *p)
{
	return p->bytes >= p->cap && p->sync_done == p->sync_asked;
}

/*
 * Until the ring wakes the pump, the loop does (pump__wake()) or the pace
 * runs out. Never called under the lock.
 */
static void pump__sleep(struct ring_pump *p)
{
	struct epoll_event ev;
	uint64_t n;

	if (epoll_wait(p->epfd, &ev, 1, __atomic_load_n(&p->pace_ms, __ATOMIC_RELAXED)) == 1 &&
	    ev.data.fd == p->wake_fd && read(p->wake_fd, &n, sizeof(n)) < 0)
		return; /* nothing to clear: another read got it */
}

/* Cuts the pump's sleep short: it looks at quit and the syncs asked. */
static void pump__wake(struct ring_pump *p)
{
	uint64_t one = 1;

	if (write(p->wake_fd, &one, sizeof(one)) < 0)
		return; /* the counter is full: a wake-up is pending anyway */
}

static void *pump__run(void *arg)
{
	struct ring_pump *p = arg;
	struct timespec until;
	uint64_t asked, start;
	int err;

	pthread_mutex_lock(&p->lock);
	while (!p->quit) {
		if (pump__full(p)) {
			until = pump__deadline(PUMP_POLL_MS);
			pthread_cond_timedwait(&p->room, &p->lock, &until);
			continue;
		}
		asked = p->sync_asked;
		pthread_mutex_unlock(&p->lock);
		if (asked == p->sync_done)
			pump__sleep(p);
		start = mono_ns();
		/* Wake-ups are batched: read what came without one too. */
		err = ring_buffer__consume(p->rb);
		pthread_mutex_lock(&p->lock);
		if (err >= 0 && start > PUMP_STAMP_SLACK_NS)
			p->drained_before = start - PUMP_STAMP_SLACK_NS;
		if (err < 0 && err != -EINTR) {
			p->err = err;
			break;
		}
		if (p->sync_done != asked) {
			p->sync_done = asked;
			pthread_cond_broadcast(&p->synced);
		}
	}
	p->quit = true;
	pthread_cond_broadcast(&p->more);
	pthread_cond_broadcast(&p->synced);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void pump__free_chunks(struct ring_pump *p)
{
	struct pump_chunk *c, *next;

	for (c = p->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(p->spare);
	p->head = p->tail = p->spare = NULL;
}

static int pump__init_sync(struct ring_pump *p)
{
	pthread_condattr_t ca;
	int err = pthread_condattr_init(&ca);

	if (!err)
		err = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!err)
		err = pthread_mutex_init(&p->lock, NULL);
	if (!err)
		err = pthread_cond_init(&p->more, &ca);
	if (!err)
		err = pthread_cond_init(&p->room, &ca);
	if (!err)
		err = pthread_cond_init(&p->synced, &ca);
	pthread_condattr_destroy(&ca);
	return -err;
}

/* The epoll set the pump sleeps in: the ring's own epoll fd, and the wake-up eventfd. */
static int pump__init_wake(struct ring_pump *p)
{
	struct epoll_event ring = { .events = EPOLLIN }, wake = { .events = EPOLLIN };

	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->wake_fd < 0 || p->epfd < 0)
		return -errno;
	ring.data.fd = ring_buffer__epoll_fd(p->rb);
	wake.data.fd = p->wake_fd;
	if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, ring.data.fd, &ring) ||
	    epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->wake_fd, &wake))
		return -errno;
	return 0;
}

static void pump__close_wake(struct ring_pump *p)
{
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->wake_fd >= 0)
		close(p->wake_fd);
}

/* The pump's thread, with every signal blocked: Ctrl-C is for the run loop. */
static int pump__start(struct ring_pump *p)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&p->thread, NULL, pump__run, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}

struct ring_pump *ring_pump__new(int map_fd, size_t cap_bytes, int backlog_fd,
				 size_t backlog_bytes)
{
	struct ring_pump *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	p->cap = cap_bytes;
	p->pace_ms = PUMP_POLL_MS;
	p->epfd = p->wake_fd = -1;
	p->backlog_fd = backlog_fd;
	p->backlog_at = backlog_bytes;
	err = pump__init_sync(p);
	if (err)
		goto err_free;
	p->rb = ring_buffer__new(map_fd, pump__on_sample, p, NULL);
	if (!p->rb) {
		err = -errno;
		goto err_free;
	}
	err = pump__init_wake(p);
	if (!err)
		err = pump__start(p);
	if (err)
		goto err_free_rb;
	return p;

err_free_rb:
	pump__close_wake(p);
	ring_buffer__free(p->rb);
err_free:
	st_err("pump: cannot start draining the ring buffer: %s", strerror(-err));
	free(p);
	errno = -err;
	return NULL;
}

int ring_pump__wait(struct ring_pump *p, int timeout_ms)
{
	struct timespec until = pump__deadline(timeout_ms);
	int err;

	pthread_mutex_lock(&p->lock);
	if (!p->bytes && !p->quit)
		pthread_cond_timedwait(&p->more, &p->lock, &until);
	err = p->err;
	pthread_mutex_unlock(&p->lock);
	return err;
}

/*
 * A chunk read to its end: kept as the spare if it is a plain one. Each new
 * chunk was a fresh 1 MiB mapping whose pages faulted in as records were
 * copied: under churn the pump's page faults were ~8% of a system-wide
 * profile's own CPU. Lock held.
 */
static void pump__retire(struct ring_pump *p, struct pump_chunk *c)
{
	if (c->cap == PUMP_CHUNK_BYTES && !p->spare)
		p->spare = c;
	else
		free(c);
}

/* The oldest unread record, or NULL; chunks read to their end are retired on the way. Lock held. */
static struct pump_rec *pump__oldest(struct ring_pump *p)
{
	struct pump_chunk *c;

	while ((c = p->head) && c->read == c->len && c != p->tail) {
		p->head = c->next;
		pump__retire(p, c);
	}
	return c && c->read < c->len ? (struct pump_rec *)(c->data + c->read) : NULL;
}

int ring_pump__take(struct ring_pump *p, ring_pump_fn fn, void *ctx)
{
	struct pump_rec *r;
	size_t need;
	int n = 0, ret;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		r = pump__oldest(p);
		/* Empty: every record the pump had drained is handled. */
		if (!r)
			p->handled_before = p->drained_before;
		pthread_mutex_unlock(&p->lock);
		if (!r)
			return n;
		ret = fn(ctx, r->data, r->size); /* read in place: the pump only appends */
		need = pump__rec_bytes(r->size);
		pthread_mutex_lock(&p->lock);
		p->head->read += need;
		if (p->bytes >= p->cap && p->bytes - need < p->cap)
			pthread_cond_signal(&p->room);
		p->bytes -= need;
		if (p->bytes < p->backlog_at / 2)
			pump__set_backlog(p, false);
		pthread_mutex_unlock(&p->lock);
		if (ret < 0)
			return ret;
		n++;
	}
}

void ring_pump__peek(struct ring_pump *p, ring_pump_fn fn, void *ctx)
{
	const struct pump_chunk *c;
	const struct pump_rec *r;
	size_t at;

	/* Under the lock: the pump may be appending to the tail, and moves nothing else. */
	pthread_mutex_lock(&p->lock);
	for (c = p->head; c; c = c->next) {
		for (at = c->read; at < c->len; at += pump__rec_bytes(r->size)) {
			r = (const struct pump_rec *)(c->data + at);
			if (fn(ctx, (void *)r->data, r->size) < 0)
				goto out;
		}
	}
out:
	pthread_mutex_unlock(&p->lock);
}

void ring_pump__sync(struct ring_pump *p)
{
	uint64_t ticket;

	pthread_mutex_lock(&p->lock);
	ticket = ++p->sync_asked;
	pthread_cond_signal(&p->room);
	pump__wake(p);
	while (p->sync_done < ticket && !p->quit)
		pthread_cond_wait(&p->synced, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void ring_pump__pace(struct ring_pump *p, int poll_ms)
{
	__atomic_store_n(&p->pace_ms, poll_ms, __ATOMIC_RELAXED);
}

uint64_t ring_pump__handled_before(const struct ring_pump *p)
{
	return p->handled_before; /* the loop's own: it wrote it */
}

uint64_t ring_pump__peak(const struct ring_pump *p)
{
	return p ? p->peak : 0;
}

uint64_t ring_pump__backlogs(const struct ring_pump *p)
{
	return p ? p->backlogs : 0;
}

void ring_pump__free(struct ring_pump *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->quit = true;
	pthread_cond_signal(&p->room);
	pump__wake(p);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pump__close_wake(p);
	ring_buffer__free(p->rb);
	pump__free_chunks(p);
	pthread_cond_destroy(&p->more);
	pthread_cond_destroy(&p->room);
	pthread_cond_destroy(&p->synced);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
