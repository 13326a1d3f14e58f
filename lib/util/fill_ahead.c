// SPDX-License-Identifier: GPL-2.0
/* Fill-ahead: the next item filled on a second thread while the caller uses this one. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/util/fill_ahead.h"
#include "lib/util/relay.h"

#define FILL_AHEAD_SLOTS 2

struct fill_ahead {
	fill_ahead_fn fill;
	void *ctx;
	void *slots[FILL_AHEAD_SLOTS];
	int rets[FILL_AHEAD_SLOTS];
	size_t nfilled, ntaken; /* items filled; items handed to the caller */
	pthread_mutex_t lock;
	pthread_cond_t filled;  /* an item was filled */
	pthread_cond_t freed;   /* the caller gave a slot back, or stops */
	pthread_t thread;
	bool threaded, stop;
};

/* On the filler: may item @i be filled (its slot given back, the caller still there)? */
static bool fill_ahead__wait_room(struct fill_ahead *fa, size_t i)
{
	bool go;

	pthread_mutex_lock(&fa->lock);
	/*
	 * Item i's slot held item i - SLOTS (none for the first SLOTS items),
	 * which is given back when the caller takes the item after it.
	 */
	while (i >= FILL_AHEAD_SLOTS && fa->ntaken < i - FILL_AHEAD_SLOTS + 2 && !fa->stop)
		pthread_cond_wait(&fa->freed, &fa->lock);
	go = !fa->stop;
	pthread_mutex_unlock(&fa->lock);
	return go;
}

static void *fill_ahead__filler(void *arg)
{
	struct fill_ahead *fa = arg;
	size_t i;
	int ret = 1;

	for (i = 0; ret > 0 && fill_ahead__wait_room(fa, i); i++) {
		ret = fa->fill(fa->ctx, fa->slots[i % FILL_AHEAD_SLOTS]);
		pthread_mutex_lock(&fa->lock);
		fa->rets[i % FILL_AHEAD_SLOTS] = ret;
		fa->nfilled = i + 1;
		pthread_cond_signal(&fa->filled);
		pthread_mutex_unlock(&fa->lock);
	}
	return NULL;
}

struct fill_ahead *fill_ahead__new(fill_ahead_fn fill, void *ctx, void *slots[2], bool ahead)
{
	struct fill_ahead *fa = calloc(1, sizeof(*fa));

	if (!fa)
		return NULL;
	fa->fill = fill;
	fa->ctx = ctx;
	fa->slots[0] = slots[0];
	fa->slots[1] = slots[1];
	if (!ahead || !relay__two_threads())
		return fa;
	pthread_mutex_init(&fa->lock, NULL);
	pthread_cond_init(&fa->filled, NULL);
	pthread_cond_init(&fa->freed, NULL);
	fa->threaded = !relay__start_worker(&fa->thread, fill_ahead__filler, fa);
	if (!fa->threaded) {
		pthread_cond_destroy(&fa->freed);
		pthread_cond_destroy(&fa->filled);
		pthread_mutex_destroy(&fa->lock);
	}
	return fa;
}

void *fill_ahead__next(struct fill_ahead *fa, int *ret)
{
	size_t i = fa->ntaken;
	void *slot = fa->slots[i % FILL_AHEAD_SLOTS];

	if (!fa->threaded) {
		fa->ntaken++;
		*ret = fa->fill(fa->ctx, slot);
		return slot;
	}
	pthread_mutex_lock(&fa->lock);
	fa->ntaken = i + 1; /* item i - 1's slot goes back to the filler */
	pthread_cond_signal(&fa->freed);
	while (fa->nfilled <= i)
		pthread_cond_wait(&fa->filled, &fa->lock);
	*ret = fa->rets[i % FILL_AHEAD_SLOTS];
	pthread_mutex_unlock(&fa->lock);
	return slot;
}

void fill_ahead__free(struct fill_ahead *fa)
{
	if (!fa)
		return;
	if (fa->threaded) {
		pthread_mutex_lock(&fa->lock);
		fa->stop = true;
		pthread_cond_signal(&fa->freed);
		pthread_mutex_unlock(&fa->lock);
		pthread_join(fa->thread, NULL);
		pthread_cond_destroy(&fa->freed);
		pthread_cond_destroy(&fa->filled);
		pthread_mutex_destroy(&fa->lock);
	}
	free(fa);
}
