// SPDX-License-Identifier: GPL-2.0
/*
 * The joiner without BPF: events and deferred user stacks fed by hand, in
 * and out of order, duplicated, never arriving, beyond the memory bound, and
 * the answered cookies of gone processes forgotten.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/session/joiner.h"
#include "tests/unit/check.h"

#define MAX_OUT 64

struct got {
	struct st_event ev;
	uint64_t ips[16]; /* frames, then a copy's words when ST_EV_UCOPY */
};

static struct got out[MAX_OUT];
static size_t nout;
static bool alive = true;

static int emit(void *ctx, const struct st_event *ev, const uint64_t *ips)
{
	if (nout < MAX_OUT) {
		out[nout].ev = *ev;
		size_t n = ev->kdepth + ev->udepth;

		if (ev->flags & ST_EV_UCOPY)
			n += (sizeof(struct st_ucopy) + 16) / 8;
		memcpy(out[nout].ips, ips, n * 8);
	}
	nout++;
	return 0;
}

static bool task_alive(void *ctx, uint32_t pid, uint32_t tid)
{
	return alive;
}

static struct joiner *fresh(size_t max_bytes, size_t done_keep)
{
	struct joiner_opts o = {
		.max_bytes = max_bytes,
		.done_keep = done_keep,
		.emit = emit,
		.task_alive = task_alive,
		.tick_answered = true,
	};

	nout = 0;
	alive = true;
	return joiner__new(&o);
}

/* An event of tid 7 with two kernel frames (k, k + 1), deferred on @cookie (0: not). */
static int add_ev(struct joiner *j, uint64_t cookie, uint64_t k)
{
	struct st_event ev = { .kind = ST_REC_EVENT, .kdepth = 2, .pid = 7, .tid = 7 };
	uint64_t ips[2] = { k, k + 1 };

	if (cookie) {
		ev.flags = ST_EV_UDEFERRED;
		ev.cookie = cookie;
	}
	return joiner__add_event(j, &ev, ips);
}

/* A user stack of @n frames u, u + 1, ... for @cookie. */
static int add_us(struct joiner *j, uint64_t cookie, uint64_t u, uint16_t n, uint16_t stop)
{
	struct st_ustack us = { .kind = ST_REC_USTACK, .udepth = n, .stop = stop, .pid = 7,
				.tid = 7, .cookie = cookie };
	uint64_t ips[4] = { u, u + 1, u + 2, u + 3 };

	return joiner__add_ustack(j, &us, ips, NULL, 0);
}

static void test_in_order_and_shared(void)
{
	struct joiner *j = fresh(0, 0);
	const uint64_t *ips;
	size_t n;

	CHECK_EQ_U64(add_ev(j, 0, 100), 0); /* sync: straight through */
	CHECK_EQ_U64(nout, 1);
	CHECK_EQ_U64(out[0].ev.udepth, 0);
	add_ev(j, 0x100000001ull, 200);
	add_ev(j, 0x100000001ull, 300); /* same kernel entry: same cookie */
	CHECK_EQ_U64(nout, 1);
	CHECK_EQ_U64(joiner__waiting(j), 2);
	CHECK_EQ_U64(joiner__lookup(j, 0x100000001ull, &ips, &n), (uint64_t)-EAGAIN);
	CHECK_EQ_U64(joiner__lookup(j, 0x999ull, &ips, &n), (uint64_t)-ENOENT);
	CHECK_EQ_U64(add_us(j, 0x100000001ull, 900, 3, ST_USTOP_FP_END), 0);
	CHECK_EQ_U64(nout, 3);
	/* Both events, in arrival order, kernel frames then the user frames. */
	CHECK_EQ_U64(out[1].ev.kdepth, 2);
	CHECK_EQ_U64(out[1].ev.udepth, 3);
	CHECK_EQ_U64(out[1].ips[0], 200);
	CHECK_EQ_U64(out[1].ips[2], 900);
	CHECK_EQ_U64(out[1].ips[4], 902);
	CHECK_EQ_U64(out[2].ips[0], 300);
	CHECK_EQ_U64(out[2].ips[3], 901);
	CHECK(!(out[2].ev.flags & ST_EV_UFAIL));
	CHECK(joiner_lost_frame(out[2].ev.flags) == NULL);
	CHECK_EQ_U64(joiner__lookup(j, 0x100000001ull, &ips, &n), 0);
	CHECK_EQ_U64(n, 3);
	CHECK_EQ_U64(ips[1], 901);
	CHECK_EQ_U64(joiner__waiting(j), 0);
	CHECK_EQ_U64(joiner__stats(j)->joined, 2);
	CHECK_EQ_U64(joiner__stats(j)->stops[ST_USTOP_FP_END], 1);
	joiner__free(j);
}

/* Stacks for several cookies out of order; an event after its stack joins at once. */
static void test_out_of_order(void)
{
	struct joiner *j = fresh(0, 0);

	add_ev(j, 0x100000001ull, 10);
	add_ev(j, 0x200000002ull, 20);
	add_ev(j, 0x300000001ull, 30);
	add_us(j, 0x300000001ull, 3000, 1, ST_USTOP_FP_END);
	CHECK_EQ_U64(nout, 1);
	CHECK_EQ_U64(out[0].ips[0], 30);
	CHECK_EQ_U64(out[0].ips[2], 3000);
	add_us(j, 0x100000001ull, 1000, 2, ST_USTOP_FP_END);
	CHECK_EQ_U64(nout, 2);
	CHECK_EQ_U64(out[1].ips[0], 10);
	CHECK_EQ_U64(out[1].ips[3], 1001);
	/* A late event of an answered entry (sent between the walk and its end). */
	add_ev(j, 0x100000001ull, 11);
	CHECK_EQ_U64(nout, 3);
	CHECK_EQ_U64(out[2].ips[0], 11);
	CHECK_EQ_U64(out[2].ips[2], 1000);
	CHECK_EQ_U64(joiner__stats(j)->late, 1);
	/* A stack nobody waits for is kept; its event, if it comes, joins. */
	add_us(j, 0x400000001ull, 4000, 1, ST_USTOP_FP_END);
	CHECK_EQ_U64(joiner__stats(j)->unclaimed, 1);
	CHECK_EQ_U64(joiner__waiting(j), 1);
	add_us(j, 0x200000002ull, 2000, 4, ST_USTOP_DEPTH);
	CHECK_EQ_U64(nout, 4);
	CHECK_EQ_U64(out[3].ev.udepth, 4);
	CHECK_EQ_U64(joiner__waiting(j), 0);
	joiner__free(j);
}

static void test_duplicates(void)
{
	struct joiner *j = fresh(0, 0);

	add_ev(j, 0x100000001ull, 10);
	add_us(j, 0x100000001ull, 1000, 2, ST_USTOP_FP_END);
	add_us(j, 0x100000001ull, 5000, 3, ST_USTOP_FP_END);
	CHECK_EQ_U64(joiner__stats(j)->duplicates, 1);
	add_ev(j, 0x100000001ull, 12);
	CHECK_EQ_U64(nout, 2);
	/* The first stack stands. */
	CHECK_EQ_U64(out[1].ev.udepth, 2);
	CHECK_EQ_U64(out[1].ips[2], 1000);
	joiner__free(j);
}

static void test_never_arrives(void)
{
	struct joiner *j = fresh(0, 0);
	uint64_t s = 1000000000ull;

	add_ev(j, 0x100000001ull, 10);
	add_ev(j, 0x100000001ull, 11);
	add_ev(j, 0x200000001ull, 20);
	CHECK_EQ_U64(joiner__tick(j, 1 * s, s), 0);
	CHECK_EQ_U64(nout, 0);
	alive = false;
	joiner__tick(j, 1 * s + 10, s); /* too soon: no look at all */
	joiner__tick(j, 2 * s, s);      /* seen gone once: still waits */
	CHECK_EQ_U64(nout, 0);
	joiner__tick(j, 3 * s, s);      /* gone at two ticks: given up */
	CHECK_EQ_U64(nout, 3);
	CHECK(out[0].ev.flags & ST_EV_UFAIL);
	CHECK_EQ_U64(out[0].ev.udepth, 0);
	CHECK_EQ_U64(out[0].ev.kdepth, 2);
	CHECK_STR(joiner_lost_frame(out[0].ev.flags), "[user stack lost: task exited]");
	CHECK_EQ_U64(joiner__stats(j)->lost[JOINER_LOST_EXITED], 3);
	/* A stack that comes after all is unclaimed, not re-emitted. */
	add_us(j, 0x100000001ull, 1000, 1, ST_USTOP_FP_END);
	CHECK_EQ_U64(nout, 3);
	/* End of session: what waits leaves flagged. */
	alive = true;
	add_ev(j, 0x300000001ull, 30);
	CHECK_EQ_U64(joiner__flush(j, JOINER_LOST_PENDING), 0);
	CHECK_EQ_U64(nout, 4);
	CHECK_STR(joiner_lost_frame(out[3].ev.flags),
		  "[user stack lost: still in kernel at exit]");
	CHECK_EQ_U64(joiner__waiting(j), 0);
	joiner__free(j);
}

/* A walk that read nothing, and one whose record did not fit. */
static void test_failed_walks(void)
{
	struct joiner *j = fresh(0, 0);

	add_ev(j, 0x100000001ull, 10);
	add_us(j, 0x100000001ull, 0, 0, ST_USTOP_READ_FAILED);
	add_ev(j, 0x200000001ull, 20);
	add_us(j, 0x200000001ull, 0, 0, ST_USTOP_NONE);
	CHECK_EQ_U64(nout, 2);
	CHECK_STR(joiner_lost_frame(out[0].ev.flags), "[user stack lost: walk failed]");
	CHECK_STR(joiner_lost_frame(out[1].ev.flags), "[user stack lost: ring buffer full]");
	CHECK_EQ_U64(joiner__stats(j)->lost[JOINER_LOST_WALK], 1);
	CHECK_EQ_U64(joiner__stats(j)->lost[JOINER_LOST_RINGBUF], 1);
	joiner__free(j);
}

/* The bound: the oldest waiting cookie is given up, newer ones still join. */
static void test_memory_bound(void)
{
	struct joiner *j = fresh(1024, 2);
	uint64_t c;

	for (c = 1; c <= 20; c++)
		add_ev(j, (c << 32) | 1, c * 10);
	CHECK(joiner__stats(j)->bytes <= 1024);
	CHECK(joiner__stats(j)->peak_bytes <= 1024 + 256);
	CHECK(joiner__stats(j)->lost[JOINER_LOST_MEMORY] > 0);
	CHECK_EQ_U64(nout, joiner__stats(j)->lost[JOINER_LOST_MEMORY]);
	/* The first ones went, oldest first. */
	CHECK_EQ_U64(out[0].ips[0], 10);
	CHECK_STR(joiner_lost_frame(out[0].ev.flags), "[user stack lost: out of memory]");
	CHECK_EQ_U64(nout + joiner__waiting(j), 20);
	/* The newest still joins. */
	add_us(j, (20ull << 32) | 1, 777, 1, ST_USTOP_FP_END);
	CHECK_EQ_U64(out[nout - 1].ips[0], 200);
	CHECK_EQ_U64(out[nout - 1].ips[2], 777);
	/* Answered cookies beyond done_keep are forgotten: lookups say ENOENT. */
	for (c = 30; c < 34; c++) {
		const uint64_t *ips;
		size_t n;

		add_us(j, (c << 32) | 1, c, 1, ST_USTOP_FP_END);
		CHECK_EQ_U64(joiner__lookup(j, (c << 32) | 1, &ips, &n), 0);
	}
	{
		const uint64_t *ips;
		size_t n;

		CHECK_EQ_U64(joiner__lookup(j, (30ull << 32) | 1, &ips, &n), (uint64_t)-ENOENT);
	}
	joiner__free(j);
}

/* A stack sent with a copy (the walk met unloaded code): each joined event carries it. */
static void test_copy_forwarded(void)
{
	struct joiner *j = fresh(0, 0);
	struct st_ustack us = { .kind = ST_REC_USTACK, .udepth = 1, .stop = ST_USTOP_NO_MAPPING,
				.flags = ST_EV_UCOPY | ST_EV_UNLOADED, .pid = 7, .tid = 7,
				.cookie = 0x100000001ull };
	struct {
		struct st_ucopy c;
		uint64_t bytes[2];
	} copy = { { .ip = 0x401000, .sp = 0x7ff0, .len = 16, .want = 16 }, { 0xaa, 0xbb } };
	uint64_t uip = 0x401000;

	add_ev(j, 0x100000001ull, 10);
	add_ev(j, 0x100000001ull, 20);
	CHECK_EQ_U64(joiner__add_ustack(j, &us, &uip, &copy, sizeof(copy)), 0);
	CHECK_EQ_U64(nout, 2);
	CHECK(out[0].ev.flags & ST_EV_UCOPY);
	CHECK(out[1].ev.flags & ST_EV_UNLOADED);
	/* kernel 2, user 1, then the st_ucopy (32 bytes) and its 16 bytes. */
	CHECK_EQ_U64(out[1].ips[2], 0x401000);
	CHECK_EQ_U64(out[1].ips[3], 0x401000); /* st_ucopy.ip */
	CHECK_EQ_U64(out[1].ips[4], 0x7ff0);   /* st_ucopy.sp */
	CHECK_EQ_U64(out[1].ips[7], 0xaa);
	CHECK_EQ_U64(out[1].ips[8], 0xbb);
	/* A late event of the same entry gets it too. */
	add_ev(j, 0x100000001ull, 30);
	CHECK(out[2].ev.flags & ST_EV_UCOPY);
	CHECK_EQ_U64(out[2].ips[8], 0xbb);
	CHECK(joiner__stats(j)->bytes >= sizeof(copy));
	joiner__free(j);
}

/* Event then stack with a copy, for cookie @pid << 32 | 1 of process @pid. */
static void answer_with_copy(struct joiner *j, uint32_t pid)
{
	struct st_event ev = { .kind = ST_REC_EVENT, .kdepth = 2, .pid = pid, .tid = pid,
			       .flags = ST_EV_UDEFERRED, .cookie = (uint64_t)pid << 32 | 1 };
	struct st_ustack us = { .kind = ST_REC_USTACK, .udepth = 1, .stop = ST_USTOP_NO_MAPPING,
				.flags = ST_EV_UCOPY | ST_EV_UNLOADED, .pid = pid, .tid = pid,
				.cookie = ev.cookie };
	struct {
		struct st_ucopy c;
		uint64_t bytes[2];
	} copy = { { .ip = 0x401000, .sp = 0x7ff0, .len = 16, .want = 16 }, { 0xaa, 0xbb } };
	uint64_t kips[2] = { 10, 11 }, uip = 0x401000;

	CHECK_EQ_U64(joiner__add_event(j, &ev, kips), 0);
	CHECK_EQ_U64(joiner__add_ustack(j, &us, &uip, &copy, sizeof(copy)), 0);
}

/* Gone processes' answered cookies go with their copies; the others stay for late events. */
static void test_forget_pids(void)
{
	struct joiner *j = fresh(0, 0);
	const int gone[] = { 103, 200, 101 }; /* 200: never seen */
	const uint64_t *ips;
	size_t n, each;
	uint32_t pid;

	for (pid = 100; pid < 110; pid++)
		answer_with_copy(j, pid);
	CHECK_EQ_U64(nout, 10);
	each = joiner__stats(j)->bytes / 10;
	CHECK_EQ_U64(joiner__stats(j)->bytes, each * 10);
	CHECK_EQ_U64(joiner__forget_pids(j, gone, 3), 2);
	CHECK_EQ_U64(joiner__stats(j)->gone_done, 2);
	CHECK_EQ_U64(joiner__stats(j)->bytes, each * 8);
	CHECK_EQ_U64(joiner__lookup(j, (uint64_t)101 << 32 | 1, &ips, &n), (uint64_t)-ENOENT);
	CHECK_EQ_U64(joiner__lookup(j, (uint64_t)103 << 32 | 1, &ips, &n), (uint64_t)-ENOENT);
	CHECK_EQ_U64(joiner__lookup(j, (uint64_t)102 << 32 | 1, &ips, &n), 0);
	CHECK(n == 1 && ips[0] == 0x401000);
	CHECK_EQ_U64(joiner__forget_pids(j, gone, 3), 0);
	joiner__free(j);
}

/*
 * Answered cookies with a copy whose task is gone at two ticks go too,
 * whether or not their process is ever forgotten (its records lost); one
 * without a copy stays for the bound; one whose task lives stays.
 */
static void test_tick_answered(void)
{
	struct joiner *j = fresh(0, 0);
	uint64_t s = 1000000000ull;
	const uint64_t *ips;
	size_t n, plain;
	uint32_t pid;

	add_ev(j, 0x700000001ull, 10);
	add_us(j, 0x700000001ull, 1000, 2, ST_USTOP_FP_END); /* no copy */
	plain = joiner__stats(j)->bytes;
	for (pid = 100; pid < 103; pid++)
		answer_with_copy(j, pid);
	CHECK_EQ_U64(nout, 4);
	CHECK_EQ_U64(joiner__tick(j, 1 * s, s), 0); /* alive: all stay */
	alive = false;
	CHECK_EQ_U64(joiner__tick(j, 2 * s, s), 0); /* gone once: still kept */
	CHECK_EQ_U64(joiner__lookup(j, (uint64_t)101 << 32 | 1, &ips, &n), 0);
	alive = true;
	CHECK_EQ_U64(joiner__tick(j, 3 * s, s), 0); /* alive again: starts over */
	alive = false;
	CHECK_EQ_U64(joiner__tick(j, 4 * s, s), 0);
	CHECK_EQ_U64(joiner__stats(j)->gone_done, 0);
	CHECK_EQ_U64(joiner__tick(j, 5 * s, s), 0); /* gone at two ticks: the copies go */
	CHECK_EQ_U64(joiner__stats(j)->gone_done, 3);
	for (pid = 100; pid < 103; pid++)
		CHECK_EQ_U64(joiner__lookup(j, (uint64_t)pid << 32 | 1, &ips, &n),
			     (uint64_t)-ENOENT);
	CHECK_EQ_U64(joiner__lookup(j, 0x700000001ull, &ips, &n), 0);
	CHECK(n == 2 && ips[0] == 1000 && ips[1] == 1001);
	CHECK_EQ_U64(joiner__stats(j)->bytes, plain);
	CHECK_EQ_U64(nout, 4); /* nothing emitted by forgetting */
	joiner__free(j);
}

/* Without tick_answered (a replay, a recording) the ticks ask nothing of answered cookies. */
static void test_tick_answered_off(void)
{
	struct joiner *j = joiner__new(&(struct joiner_opts){ .emit = emit,
							       .task_alive = task_alive });
	uint64_t s = 1000000000ull;
	const uint64_t *ips;
	size_t n;

	nout = 0;
	answer_with_copy(j, 100);
	alive = false;
	CHECK_EQ_U64(joiner__tick(j, 1 * s, s), 0);
	CHECK_EQ_U64(joiner__tick(j, 2 * s, s), 0);
	CHECK_EQ_U64(joiner__tick(j, 3 * s, s), 0);
	CHECK_EQ_U64(joiner__stats(j)->gone_done, 0);
	CHECK_EQ_U64(joiner__lookup(j, (uint64_t)100 << 32 | 1, &ips, &n), 0);
	CHECK(n == 1 && ips[0] == 0x401000);
	joiner__free(j);
}

int main(void)
{
	test_in_order_and_shared();
	test_out_of_order();
	test_duplicates();
	test_never_arrives();
	test_failed_walks();
	test_memory_bound();
	test_copy_forwarded();
	test_forget_pids();
	test_tick_answered();
	test_tick_answered_off();
	return CHECK_DONE();
}
