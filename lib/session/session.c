// SPDX-License-Identifier: GPL-2.0
/* The session: the run loop every tool shares. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/session/session.h"
#include "lib/util/log.h"

/* Poll timeout: bounds how late a duration, interval or exit is noticed. */
#define SESSION_POLL_MS 50

struct session {
	struct ring_buffer *rb;
	int stats_fd;
	int ncpus;
	struct session_opts opts;
	uint64_t events;
	bool stop;
	bool interrupted;
};

static volatile sig_atomic_t session_signalled;

static void session__on_signal(int sig)
{
	session_signalled = sig;
}

void session_install_signals(void)
{
	struct sigaction sa = { .sa_handler = session__on_signal };

	/* No SA_RESTART: the poll must return so the loop sees the flag. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
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

static int session__on_record(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;
	const struct st_event *ev = data;

	if (size < sizeof(*ev) || size < sizeof(*ev) + (ev->kdepth + ev->udepth) * 8ull) {
		st_warn("session: short record of %zu bytes ignored", size);
		return 0;
	}
	s->events++;
	if (s->opts.on_event && s->opts.on_event(s->opts.ctx, ev, (const uint64_t *)(ev + 1)))
		s->stop = true;
	if (s->opts.max_events && s->events >= s->opts.max_events)
		s->stop = true;
	/* A negative return ends ring_buffer__poll's batch early, so -n N stops exactly. */
	return s->stop ? -ECANCELED : 0;
}

struct session *session__new(struct bpf_object *obj, const struct session_opts *opts)
{
	struct bpf_map *events = bpf_object__find_map_by_name(obj, "st_events");
	struct bpf_map *stats = bpf_object__find_map_by_name(obj, "st_stats");
	struct session *s;

	if (!events || !stats) {
		st_err("session: BPF object has no capture maps");
		errno = ENOENT;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->opts = *opts;
	s->stats_fd = bpf_map__fd(stats);
	s->ncpus = libbpf_num_possible_cpus();
	s->rb = ring_buffer__new(bpf_map__fd(events), session__on_record, s, NULL);
	if (!s->rb || s->ncpus <= 0) {
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

int session__run(struct session *s)
{
	uint64_t start = now_ns(), next_tick = start + s->opts.interval_ns;
	int err = 0, gone = 0;

	while (!s->stop && !gone) {
		uint64_t t;

		err = ring_buffer__poll(s->rb, SESSION_POLL_MS);
		if (err == -EINTR || err == -ECANCELED)
			err = 0;
		if (err < 0)
			break;
		err = 0;
		if (session_signalled) {
			s->interrupted = true;
			break;
		}
		gone = session__target_gone(s);
		t = now_ns();
		if (s->opts.duration_ns && t - start >= s->opts.duration_ns)
			break;
		if (s->opts.interval_ns && t >= next_tick && s->opts.on_interval) {
			s->opts.on_interval(s->opts.ctx);
			next_tick += s->opts.interval_ns;
		}
	}
	/* Whatever was captured before the stop is still output. */
	if (!s->stop && err >= 0)
		ring_buffer__consume(s->rb);
	if (err < 0)
		st_err("session: ring buffer poll failed: %s", strerror(-err));
	return err;
}

bool session__interrupted(const struct session *s)
{
	return s->interrupted;
}

int session__stats(const struct session *s, uint64_t out[ST_STAT_MAX])
{
	uint64_t *vals = calloc(s->ncpus, sizeof(*vals));
	__u32 k;
	int c;

	if (!vals)
		return -ENOMEM;
	for (k = 0; k < ST_STAT_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(s->stats_fd, &k, vals))
			continue;
		for (c = 0; c < s->ncpus; c++)
			out[k] += vals[c];
	}
	free(vals);
	return 0;
}

static const char *const loss_names[ST_STAT_MAX] = {
	[ST_DROP_RINGBUF_FULL] = "events dropped: ring buffer full (try a larger --ringbuf-kb)",
	[ST_DROP_SCRATCH_BUSY] = "events dropped: nested event on a CPU already capturing",
	[ST_STAT_KTRUNC] = "kernel stacks truncated at the depth limit",
	[ST_STAT_UTRUNC] = "user stacks truncated at the depth limit",
	[ST_STAT_KFAIL] = "kernel stacks unavailable",
	[ST_STAT_UFAIL] = "user stacks unavailable",
};

void session__report_losses(const struct session *s)
{
	uint64_t st[ST_STAT_MAX];
	int k;

	if (session__stats(s, st))
		return;
	for (k = 0; k < ST_STAT_MAX; k++)
		if (loss_names[k] && st[k])
			fprintf(stderr, "stacktap: %llu %s\n", (unsigned long long)st[k],
				loss_names[k]);
}

void session__free(struct session *s)
{
	if (!s)
		return;
	ring_buffer__free(s->rb);
	free(s);
}
