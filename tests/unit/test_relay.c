// SPDX-License-Identifier: GPL-2.0
/*
 * The relay: every item is made once and used once, in order, on two
 * threads where two CPUs are usable and on the caller's alone when told;
 * an error of either side stops it there, and what was made and not used
 * is dropped (each item holds an allocation, so a leak shows under ASan).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/util/relay.h"
#include "tests/unit/check.h"

#define ITEMS 1000

struct item {
	size_t *sq;      /* i * i, allocated by make */
	size_t prepared; /* i + 1, set by prepare */
};

struct run {
	size_t used[ITEMS]; /* indexes in the order they were used */
	size_t nused, nmade, ndropped, nprepared;
	size_t fail_make, fail_use, fail_prepare; /* the item whose step fails; ITEMS: none */
	size_t ahead; /* items prepared while the worker was busy before them */
	bool bad_slot, other_thread, prepared_elsewhere, bad_wait;
	pthread_t caller;
};

static int make(void *ctx, size_t i, void *slot)
{
	struct run *r = ctx;
	struct item *it = slot;

	if (!pthread_equal(pthread_self(), r->caller))
		r->other_thread = true;
	if (it->prepared != i + 1)
		r->bad_slot = true;
	if (i == r->fail_make)
		return -EIO;
	it->sq = malloc(sizeof(*it->sq));
	if (!it->sq)
		return -ENOMEM;
	*it->sq = i * i;
	__atomic_fetch_add(&r->nmade, 1, __ATOMIC_RELAXED);
	return 0;
}

static int use(void *ctx, size_t i, void *slot)
{
	struct run *r = ctx;
	struct item *it = slot;

	if (*it->sq != i * i)
		r->bad_slot = true;
	free(it->sq);
	r->used[r->nused++] = i;
	return i == r->fail_use ? -EPIPE : 0;
}

static int prepare(void *ctx, size_t i, void *slot, const size_t *made)
{
	struct run *r = ctx;
	struct item *it = slot;
	bool waiting = relay__waiting(made, i);

	if (!pthread_equal(pthread_self(), r->caller))
		r->prepared_elsewhere = true;
	/* Item 0 waits for nothing; an item the worker waits for has all before it made. */
	if ((i == 0 && !waiting) || (waiting && __atomic_load_n(&r->nmade, __ATOMIC_RELAXED) < i))
		r->bad_wait = true;
	if (!waiting)
		r->ahead++;
	if (i == r->fail_prepare)
		return -EXDEV;
	it->prepared = i + 1;
	r->nprepared++;
	return 0;
}

static void drop(void *ctx, void *slot)
{
	struct run *r = ctx;

	free(((struct item *)slot)->sq);
	r->ndropped++;
}

static const struct relay_ops ops = { .prepare = prepare, .make = make, .use = use, .drop = drop };

/* Runs ITEMS items through 3 slots. Return: relay__run()'s answer. */
static int run_items_p(struct run *r, size_t fail_make, size_t fail_use, size_t fail_prepare)
{
	struct item slots[3] = { 0 };

	*r = (struct run){ .fail_make = fail_make, .fail_use = fail_use,
			   .fail_prepare = fail_prepare, .caller = pthread_self() };
	return relay__run(ITEMS, slots, sizeof(slots[0]), 3, &ops, r);
}

static int run_items(struct run *r, size_t fail_make, size_t fail_use)
{
	return run_items_p(r, fail_make, fail_use, ITEMS);
}

static bool in_order(const struct run *r)
{
	size_t i;

	for (i = 0; i < r->nused; i++)
		if (r->used[i] != i)
			return false;
	return true;
}

static bool two_cpus(void)
{
	cpu_set_t set;

	return !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) >= 2;
}

static void test_all_in_order(bool threads)
{
	struct run r;

	CHECK_EQ_U64(run_items(&r, ITEMS, ITEMS), 0);
	CHECK_EQ_U64(r.nused, ITEMS);
	CHECK_EQ_U64(r.nmade, ITEMS);
	CHECK_EQ_U64(r.ndropped, 0);
	CHECK(in_order(&r));
	CHECK(!r.bad_slot);
	CHECK(r.other_thread == threads);
	CHECK_EQ_U64(r.nprepared, ITEMS);
	CHECK(!r.prepared_elsewhere);
	CHECK(!r.bad_wait);
	if (!threads)
		CHECK_EQ_U64(r.ahead, 0); /* alone, the worker's turn is always now */
}

/*
 * Item 400 cannot be prepared: alone, right before its make, so 0-399 are
 * used; on two threads, right after the use of item 397 (three slots ahead),
 * so 0-397 are used, and what was made after is dropped.
 */
static void test_prepare_fails(bool threads)
{
	struct run r;

	CHECK_EQ_U64(run_items_p(&r, ITEMS, ITEMS, 400), (uint64_t)-EXDEV);
	CHECK_EQ_U64(r.nprepared, 400);
	CHECK_EQ_U64(r.nused, threads ? 398 : 400);
	CHECK_EQ_U64(r.nmade, r.nused + r.ndropped);
	CHECK(in_order(&r));
	CHECK(!r.bad_slot);
	CHECK(!r.prepared_elsewhere);
}

static void test_make_fails(void)
{
	struct run r;

	CHECK_EQ_U64(run_items(&r, 500, ITEMS), (uint64_t)-EIO);
	CHECK_EQ_U64(r.nused, 500);
	CHECK_EQ_U64(r.nmade, 500);
	CHECK_EQ_U64(r.ndropped, 0);
	CHECK(in_order(&r));
	CHECK(!r.bad_slot);
}

static void test_use_fails(void)
{
	struct run r;

	CHECK_EQ_U64(run_items(&r, ITEMS, 300), (uint64_t)-EPIPE);
	CHECK_EQ_U64(r.nused, 301);
	CHECK_EQ_U64(r.nmade, r.nused + r.ndropped); /* none lost, none used past the failure */
	CHECK(r.nmade <= 301 + 3);
	CHECK(in_order(&r));
	CHECK(!r.bad_slot);
}

int main(void)
{
	bool threads = two_cpus();

	unsetenv(RELAY_ENV_ONE_THREAD);
	test_all_in_order(threads);
	test_make_fails();
	test_use_fails();
	test_prepare_fails(threads);
	setenv(RELAY_ENV_ONE_THREAD, "1", 1);
	test_all_in_order(false);
	test_make_fails();
	test_use_fails();
	test_prepare_fails(false);
	return CHECK_DONE();
}
