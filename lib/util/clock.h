/* SPDX-License-Identifier: GPL-2.0 */
/* Reading a clock in nanoseconds: one place for the timespec arithmetic. */
#ifndef ST_CLOCK_H
#define ST_CLOCK_H

#include <stdint.h>
#include <time.h>

/** clock_ns() - Return: clock @c now, in nanoseconds. */
static inline uint64_t clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * mono_ns() - Return: now on CLOCK_MONOTONIC, in nanoseconds: the clock
 * bpf_ktime_get_ns() stamps events and records with.
 */
static inline uint64_t mono_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

#endif
