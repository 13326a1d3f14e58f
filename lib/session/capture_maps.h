/* SPDX-License-Identifier: GPL-2.0 */
/* Sizing the capture library's maps between open and load, from the common options. */
#ifndef ST_CAPTURE_MAPS_H
#define ST_CAPTURE_MAPS_H

#include <stdint.h>

struct bpf_object;
struct st_common_opts;

/** capture_ringbuf_kb_auto() - Return: the ring buffer size (KiB) for @ncpus CPUs. */
uint64_t capture_ringbuf_kb_auto(int ncpus);

/**
 * capture_ringbuf_kb_rate() - the ring buffer size (KiB) for @ncpus CPUs
 * when each CPU sends about @hz events a second (0: unknown).
 *
 * Return: the size, never more than capture_ringbuf_kb_auto()'s.
 */
uint64_t capture_ringbuf_kb_rate(int ncpus, uint64_t hz);

/** capture_rows_auto() - Return: the row table size (rows) for @mem_bytes of memory. */
uint64_t capture_rows_auto(uint64_t mem_bytes);

/** capture_procs_auto() - Return: the process table size (entries) for @mem_bytes of memory. */
uint64_t capture_procs_auto(uint64_t mem_bytes);

/**
 * capture_agg_auto() - Return: the size (entries) of each in-kernel count
 * map (bpf/aggregate.bpf.h) for @mem_bytes of memory.
 */
uint64_t capture_agg_auto(uint64_t mem_bytes);

/**
 * capture_agg_rate() - the same for a tool whose events come at a known
 * rate (@hz a second on each of @ncpus, profile -F): a minute of events,
 * all distinct, at least 16,384 (below capture_agg_auto()'s floor: every
 * read walks all the buckets), at most capture_agg_auto()'s figure.
 * 0 for @hz: capture_agg_auto().
 *
 * Return: entries.
 */
uint64_t capture_agg_rate(uint64_t mem_bytes, int ncpus, uint64_t hz);

/**
 * capture_map_bytes() - the kernel's figure of the memory of the map @fd:
 * "memlock:" of its fdinfo (a hash without prealloc: its entries in use).
 *
 * Return: bytes, 0 when unknown.
 */
uint64_t capture_map_bytes(int fd);

/**
 * capture_maps_report() - one stderr line (-v): the kernel memory of all
 * of @obj's maps now (each map's fdinfo "memlock": a preallocated map's
 * whole size, a hash without prealloc's entries in use), and the largest.
 */
void capture_maps_report(const struct bpf_object *obj);

/**
 * capture_maps_size() - size st_events (ring buffer), st_scratch_map (one
 * record per possible CPU) and, when the object has them, the unwind maps
 * and the in-kernel count maps (--agg-entries);
 * a size the options leave at 0 is the machine's (the _auto() functions);
 * the walk cache's maps are left out where it is not used
 * (st_common_opts__walk_cache()).
 *
 * Return: 0 or -errno (logged).
 */
int capture_maps_size(struct bpf_object *obj, const struct st_common_opts *o);

#endif
