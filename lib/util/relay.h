/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A relay: items made on a second thread and used, in order, on the
 * caller's, so two stages of one loop run at once on two CPUs.
 *
 * Each item is made once and used once, make(i) before use(i), both in
 * index order: what the caller ends with is what one thread running
 * make(0), use(0), make(1), use(1), ... ends with. The price is the rule
 * that make() touches nothing use() (or prepare()) does but the slot it
 * fills (and what stays unchanged while both run); the relay's lock hands
 * each slot over.
 */
#ifndef ST_RELAY_H
#define ST_RELAY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

/* "1": every relay runs on the caller's thread alone (to compare, or to rule threads out). */
#define RELAY_ENV_ONE_THREAD "STACKTAP_ONE_THREAD"

/*
 * Slots are filled in turn: item i goes to slot i % nslots, which holds
 * what item i - nslots left there. What an item holds may be released by
 * use(), or by the next make() of its slot (on the worker, so memory goes
 * back to the thread that took it), or by the caller after relay__run().
 */
struct relay_ops {
	/*
	 * Optional. On the caller: the part of item @i done before make(),
	 * in @slot, on the caller's thread: for the first @nslots items before
	 * the worker starts, then for item i right after the use() of item
	 * i - nslots (before make(i) alone on one thread), so the caller takes
	 * a share of the work while the worker is busy. It should stop and
	 * leave the rest to make() once relay__waiting(@made, @i): the worker
	 * has made every item before and waits for this one (at once on one
	 * thread). What an item prepared and never made holds is the caller's
	 * to release after relay__run(). Return: 0 or -errno (item @i is not
	 * made).
	 */
	int (*prepare)(void *ctx, size_t i, void *slot, const size_t *made);
	/* On the worker: fill @slot with item @i. Return: 0 or -errno (no use(), no drop()). */
	int (*make)(void *ctx, size_t i, void *slot);
	/* On the caller: use item @i; the slot is not made again before this returns. */
	int (*use)(void *ctx, size_t i, void *slot);
	/* On the caller, once the worker has ended: release a made item never used. */
	void (*drop)(void *ctx, void *slot);
};

/**
 * relay__waiting() - for prepare(): has the worker made every item before
 * @i, so that it waits for item @i now? @made: prepare()'s.
 */
static inline bool relay__waiting(const size_t *made, size_t i)
{
	return __atomic_load_n(made, __ATOMIC_RELAXED) >= i;
}

/**
 * relay__run() - make and use items 0 .. @n - 1, making at most @nslots
 * ahead of their use, in @slots (@nslots of @slot_size bytes). It runs on
 * the caller's thread alone when fewer than two CPUs are usable, the worker
 * cannot be started, or RELAY_ENV_ONE_THREAD is "1".
 *
 * Return: 0, or the first error of prepare(), make() or use(): no item
 * after the one that failed is used.
 */
int relay__run(size_t n, void *slots, size_t slot_size, size_t nslots,
	       const struct relay_ops *ops, void *ctx);

/**
 * relay__two_threads() - Return: true when two CPUs are usable and
 * RELAY_ENV_ONE_THREAD does not ask for one thread (also for other
 * two-thread helpers, so one switch rules them all).
 */
bool relay__two_threads(void);

/**
 * relay__start_worker() - pthread_create() of @fn(@arg) with every signal
 * blocked in the new thread, so Ctrl-C stays the caller's.
 *
 * Return: 0 or -errno.
 */
int relay__start_worker(pthread_t *worker, void *(*fn)(void *), void *arg);

#endif
