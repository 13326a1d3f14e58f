/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring pump: a thread that only drains the capture ring buffer into a
 * queue in user memory, so that nothing the run loop does with the records
 * (building unwind tables for a process that just exec'ed, reading the
 * in-kernel counts, symbolizing) keeps the kernel's ring from being
 * emptied. The run loop takes the records from the queue, in the ring's
 * order, on its own thread as before; only the pump touches the ring.
 */
#ifndef ST_SESSION_PUMP_H
#define ST_SESSION_PUMP_H

#include <stddef.h>
#include <stdint.h>

struct ring_pump;

/* A record, as libbpf's ring_buffer_sample_fn: a negative return stops the take (kept consumed). */
typedef int (*ring_pump_fn)(void *ctx, void *data, size_t size);

/**
 * ring_pump__new() - start a thread draining the BPF ring buffer @map_fd
 * into a queue of at most @cap_bytes; while the queue is at its cap the
 * thread waits, the kernel's ring fills, and the kernel's own accounting of
 * what finds no room takes over. From @backlog_bytes queued (until half
 * that) the ARRAY map @backlog_fd (-1: none) holds 1 at key 0: the kernel
 * counts what it can itself (bpf/state.bpf.h st_backlog).
 *
 * Return: the pump, or NULL with errno set (logged).
 */
struct ring_pump *ring_pump__new(int map_fd, size_t cap_bytes, int backlog_fd,
				 size_t backlog_bytes);

/**
 * ring_pump__wait() - wait up to @timeout_ms for a queued record.
 *
 * Return: 0, or the -errno the pump's thread stopped on.
 */
int ring_pump__wait(struct ring_pump *p, int timeout_ms);

/**
 * ring_pump__take() - hand the queued records to @fn, oldest first, until
 * the queue is empty or @fn returns negative.
 *
 * Return: the records handed, or @fn's negative return.
 */
int ring_pump__take(struct ring_pump *p, ring_pump_fn fn, void *ctx);

/**
 * ring_pump__peek() - hand the queued records to @fn, oldest first, without
 * taking them (a look ahead: what the next take will hand), until the end
 * of the queue or @fn returns negative. The pump waits meanwhile.
 */
void ring_pump__peek(struct ring_pump *p, ring_pump_fn fn, void *ctx);

/**
 * ring_pump__sync() - return once the pump has drained everything the ring
 * buffer held when called into the queue (the stop: every record taken
 * before it is read).
 */
void ring_pump__sync(struct ring_pump *p);

/**
 * ring_pump__pace() - read records that came without a wake-up (the capture
 * batches them) at least every @poll_ms: short while the loop has work or
 * a deadline near, long on a quiet machine. Stop and sync are not delayed.
 */
void ring_pump__pace(struct ring_pump *p, int poll_ms);

/**
 * ring_pump__handled_before() - for the thread taking the records: every
 * record stamped (bpf_ktime_get_ns()) before the answer has been handed to
 * its @fn by ring_pump__take().
 */
uint64_t ring_pump__handled_before(const struct ring_pump *p);

/** ring_pump__peak() - Return: the most bytes the queue held at once. */
uint64_t ring_pump__peak(const struct ring_pump *p);

/** ring_pump__backlogs() - Return: how many times the queue went past its backlog mark. */
uint64_t ring_pump__backlogs(const struct ring_pump *p);

/** ring_pump__free() - stop the thread and free the queue. NULL is fine. */
void ring_pump__free(struct ring_pump *p);

#endif
