/* SPDX-License-Identifier: GPL-2.0 */
/* Deferred events the kernel still holds when a session ends (bpf/defer_hold.bpf.h). */
#ifndef ST_LIB_SESSION_HELD_H
#define ST_LIB_SESSION_HELD_H

#include <stddef.h>

#include "bpf/record.h"

/* One taken event: its record (header and kernel frames) of @size bytes. Return: 0 or < 0. */
typedef int (*held_fn)(void *ctx, const struct st_event *ev, size_t size);

/**
 * held_take() - take every event st_defer_held still holds out of the map
 * and hand each to @fn as the record it would have been.
 * @fd: the map's fd
 * @fn: called once per event taken
 * @ctx: passed to @fn
 *
 * An event is taken only if this call deletes it: the walk that would join
 * it in the kernel takes it only by deleting it too, so it counts once.
 *
 * Return: the number of events taken, or the first negative @fn return.
 */
int held_take(int fd, held_fn fn, void *ctx);

#endif
