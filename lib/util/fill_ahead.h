/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fill-ahead: the pull-style twin of the relay (relay.h). A caller that
 * asks for one item after another (a reader's next chunk) gets each from
 * a second thread that fills the following item while the caller uses the
 * current one, so filling (reading, decompressing) and using run at once
 * on two CPUs.
 *
 * Two slots: the caller holds one, the filler fills the other. The fill
 * function touches nothing the caller does but the slot it fills (and its
 * own state, which the caller leaves alone while the fill-ahead lives).
 * Items are filled in order until a fill returns 0 or less: that item is
 * the last. With fewer than two usable CPUs, STACKTAP_ONE_THREAD=1 or a
 * thread that cannot be started, each item is filled on the caller's
 * thread when asked for: what the caller sees is the same.
 */
#ifndef ST_FILL_AHEAD_H
#define ST_FILL_AHEAD_H

#include <stdbool.h>
#include <stddef.h>

/* Fill @slot with the next item. Return: > 0, or 0 or less for the last item. */
typedef int (*fill_ahead_fn)(void *ctx, void *slot);

struct fill_ahead;

/**
 * fill_ahead__new() - fill items into the two slots @slots[0] and @slots[1],
 * one ahead of the caller when @ahead (else each when asked for, on the
 * caller's thread); the first fill starts at once.
 *
 * Return: the fill-ahead, or NULL (out of memory).
 */
struct fill_ahead *fill_ahead__new(fill_ahead_fn fill, void *ctx, void *slots[2], bool ahead);

/**
 * fill_ahead__next() - the next item's slot, once filled, with *@ret set to
 * what its fill returned. The slot returned before goes back to the filler.
 * Not to be called again after an item whose fill returned 0 or less.
 */
void *fill_ahead__next(struct fill_ahead *fa, int *ret);

/** fill_ahead__free() - stop the filler (after the fill it runs) and free. NULL is fine. */
void fill_ahead__free(struct fill_ahead *fa);

#endif
