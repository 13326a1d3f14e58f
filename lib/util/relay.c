// SPDX-License-Identifier: GPL-2.0
/* A relay: items made on a worker thread, used in order on the caller's (relay.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/relay.h"

struct relay {
	const struct relay_ops *ops;
	void *ctx;
	unsigned char *slots;
	size_t n, slot_size, nslots;
	pthread_mutex_t lock;
	pthread_cond_t made; /* an item was made, or the worker ended */
	pthread_cond_t used; /* a slot was freed, or the caller gave up */
	size_t nmade, nused;  /* items made, items used (failed or not) */
	size_t nprepared;     /* items prepared: the worker makes no item past them */
	int make_err;         /* make()'s error: the worker ended there */
	bool worker_done, stop;
};

static void *relay__slot(const struct relay *rl, size_t i)
{
	return rl->slots + (i % rl->nslots) * rl->slot_size;
}

/* On the worker: may item @i be made (its slot used, the caller still there)? */
static bool relay__wait_room(struct relay *rl, size_t i)
{
	bool go;

	pthread_mutex_lock(&rl->lock);
	while ((i - rl->nused >= rl->nslots || i >= rl->nprepared) && !rl->stop)
		pthread_cond_wait(&rl->used, &rl->lock);
	go = !rl->stop;
	pthread_mutex_unlock(&rl->lock);
	return go;
}

static void *relay__worker(void *arg)
{
	struct relay *rl = arg;
	size_t i;
	int err = 0;

	for (i = 0; i < rl->n && !err && relay__wait_room(rl, i); i++) {
		err = rl->ops->make(rl->ctx, i, relay__slot(rl, i));
		pthread_mutex_lock(&rl->lock);
		if (err)
			rl->make_err = err;
		else /* read by prepare() without the lock: relay__waiting() */
			__atomic_store_n(&rl->nmade, i + 1, __ATOMIC_RELAXED);
		pthread_cond_signal(&rl->made);
		pthread_mutex_unlock(&rl->lock);
	}
	pthread_mutex_lock(&rl->lock);
	rl->worker_done = true;
	pthread_cond_signal(&rl->made);
	pthread_mutex_unlock(&rl->lock);
	return NULL;
}

static int relay__prepare(const struct relay_ops *ops, void *ctx, size_t i, void *slot,
			  const size_t *made)
{
	return ops->prepare ? ops->prepare(ctx, i, slot, made) : 0;
}

/* On the caller: wait for item @i. Return: true when it was made. */
static bool relay__wait_made(struct relay *rl, size_t i)
{
	bool made;

	pthread_mutex_lock(&rl->lock);
	while (rl->nmade <= i && !rl->worker_done)
		pthread_cond_wait(&rl->made, &rl->lock);
	made = rl->nmade > i;
	pthread_mutex_unlock(&rl->lock);
	return made;
}

/* On the caller: the first items' part before make(), each handed to the worker at once. */
static int relay__prepare_first(struct relay *rl)
{
	size_t i;
	int err = 0;

	for (i = 0; i < rl->n && i < rl->nslots && !err; i++) {
		err = relay__prepare(rl->ops, rl->ctx, i, relay__slot(rl, i), &rl->nmade);
		pthread_mutex_lock(&rl->lock);
		if (!err)
			rl->nprepared = i + 1;
		rl->stop = err != 0;
		pthread_cond_signal(&rl->used);
		pthread_mutex_unlock(&rl->lock);
	}
	return err;
}

/* On the caller: use what the worker makes, then end it. Return: 0 or the first error. */
static int relay__drive(struct relay *rl, pthread_t worker)
{
	size_t i;
	int err = relay__prepare_first(rl);

	for (i = 0; i < rl->n && !err && relay__wait_made(rl, i); i++) {
		err = rl->ops->use(rl->ctx, i, relay__slot(rl, i));
		/* The slot is the caller's until nused moves past it: the next item's part first. */
		if (!err && i + rl->nslots < rl->n)
			err = relay__prepare(rl->ops, rl->ctx, i + rl->nslots, relay__slot(rl, i),
					     &rl->nmade);
		pthread_mutex_lock(&rl->lock);
		rl->nused = i + 1;
		if (!err && i + rl->nslots < rl->n)
			rl->nprepared = i + rl->nslots + 1;
		rl->stop = err != 0;
		pthread_cond_signal(&rl->used);
		pthread_mutex_unlock(&rl->lock);
	}
	pthread_join(worker, NULL);
	for (i = rl->nused; i < rl->nmade; i++)
		rl->ops->drop(rl->ctx, relay__slot(rl, i));
	return err ? err : rl->make_err;
}

/* The same items on the caller's thread alone. */
static int relay__one_thread(size_t n, void *slots, const struct relay_ops *ops, void *ctx)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		err = relay__prepare(ops, ctx, i, slots, &i); /* every item before is made */
		if (!err)
			err = ops->make(ctx, i, slots);
		if (!err)
			err = ops->use(ctx, i, slots);
	}
	return err;
}

bool relay__two_threads(void)
{
	const char *one = getenv(RELAY_ENV_ONE_THREAD);
	cpu_set_t set;

	if (one && !strcmp(one, "1"))
		return false;
	return !sched_getaffinity(0, sizeof(set), &set) && CPU_COUNT(&set) >= 2;
}

int relay__start_worker(pthread_t *worker, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	/* Signals (Ctrl-C) stay the caller's: the worker starts with them blocked. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(worker, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -err;
}

int relay__run(size_t n, void *slots, size_t slot_size, size_t nslots,
	       const struct relay_ops *ops, void *ctx)
{
	struct relay rl = { .ops = ops, .ctx = ctx, .slots = slots, .n = n,
			    .slot_size = slot_size, .nslots = nslots };
	pthread_t worker;
	int err;

	if (n < 2 || nslots < 2 || !relay__two_threads())
		return relay__one_thread(n, slots, ops, ctx);
	pthread_mutex_init(&rl.lock, NULL);
	pthread_cond_init(&rl.made, NULL);
	pthread_cond_init(&rl.used, NULL);
	err = relay__start_worker(&worker, relay__worker, &rl);
	if (err)
		err = relay__one_thread(n, slots, ops, ctx);
	else
		err = relay__drive(&rl, worker);
	pthread_cond_destroy(&rl.used);
	pthread_cond_destroy(&rl.made);
	pthread_mutex_destroy(&rl.lock);
	return err;
}
