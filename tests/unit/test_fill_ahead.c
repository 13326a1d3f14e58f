// SPDX-License-Identifier: GPL-2.0
/*
 * The fill-ahead: items come to the caller in order, each filled once,
 * on a second thread where two CPUs are usable and on the caller's alone
 * when told or asked not to read ahead; the item the caller holds is not
 * filled over; the item whose fill returns 0 or less is the last; freeing
 * before the end stops the filler within one item of the caller.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h> /* sched_yield() */
#include <stdbool.h>
#include <stdlib.h>

#include "lib/util/fill_ahead.h"
#include "lib/util/relay.h"
#include "tests/unit/check.h"

#define ITEMS 1000

struct item {
	size_t i, sq;
};

struct run {
	size_t nfilled;   /* filler's count: the next item's index */
	size_t last;      /* the index whose fill returns last_ret */
	int last_ret;
	bool other_thread;
	pthread_t caller;
};

static int fill(void *ctx, void *slot)
{
	struct run *r = ctx;
	struct item *it = slot;
	size_t i = __atomic_load_n(&r->nfilled, __ATOMIC_RELAXED);

	if (!pthread_equal(pthread_self(), r->caller))
		r->other_thread = true;
	it->i = i;
	it->sq = i * i;
	__atomic_store_n(&r->nfilled, i + 1, __ATOMIC_RELAXED);
	return i == r->last ? r->last_ret : 1;
}

/* Takes items until the last; Return: how many, or 0 when one came wrong. */
static size_t take_all(struct run *r, bool ahead, int *last_ret)
{
	struct item slots[2];
	void *sp[2] = { &slots[0], &slots[1] };
	struct fill_ahead *fa;
	struct item *it;
	size_t n = 0;
	int ret = 1;

	r->caller = pthread_self();
	fa = fill_ahead__new(fill, r, sp, ahead);
	if (!fa)
		return 0;
	while (ret > 0) {
		it = fill_ahead__next(fa, &ret);
		if (it->i != n || it->sq != n * n)
			break;
		sched_yield(); /* the filler runs meanwhile: it must not touch this slot */
		if (it->i != n || it->sq != n * n)
			break;
		n++;
	}
	fill_ahead__free(fa);
	*last_ret = ret;
	return ret > 0 ? 0 : n;
}

static void test_all_in_order(bool ahead, bool threads)
{
	struct run r = { .last = ITEMS - 1, .last_ret = 0 };
	int ret;

	CHECK_EQ_U64(take_all(&r, ahead, &ret), ITEMS);
	CHECK_EQ_U64(ret, 0);
	CHECK_EQ_U64(r.nfilled, ITEMS);
	CHECK(r.other_thread == (ahead && threads));
}

static void test_error_is_last(bool ahead)
{
	struct run r = { .last = 300, .last_ret = -EIO };
	int ret;

	CHECK_EQ_U64(take_all(&r, ahead, &ret), 301);
	CHECK_EQ_U64(ret, (uint64_t)-EIO);
	CHECK_EQ_U64(r.nfilled, 301);
}

/* The caller stops after 10 items: the filler is at most one past the one it holds. */
static void test_free_early(bool ahead)
{
	struct run r = { .last = ITEMS - 1 };
	struct item slots[2];
	void *sp[2] = { &slots[0], &slots[1] };
	struct fill_ahead *fa;
	struct item *it = NULL;
	size_t n;
	int ret;

	r.caller = pthread_self();
	fa = fill_ahead__new(fill, &r, sp, ahead);
	CHECK(fa != NULL);
	for (n = 0; fa && n < 10; n++)
		it = fill_ahead__next(fa, &ret);
	CHECK(it && it->i == 9 && ret == 1);
	fill_ahead__free(fa);
	CHECK(r.nfilled == 10 || r.nfilled == 11);
}

int main(void)
{
	bool threads;

	unsetenv(RELAY_ENV_ONE_THREAD);
	threads = relay__two_threads();
	test_all_in_order(true, threads);
	test_all_in_order(false, threads);
	test_error_is_last(true);
	test_free_early(true);
	setenv(RELAY_ENV_ONE_THREAD, "1", 1);
	test_all_in_order(true, false);
	test_error_is_last(true);
	test_free_early(true);
	return CHECK_DONE();
}
