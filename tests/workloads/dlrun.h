/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The caller half of the dlopen workloads (dlchain, dlmany): run() calls a
 * library's entry N times with callback, which makes one getppid(), so every
 * event's chain reads main -> run -> <library frames> -> callback.
 */
#ifndef ST_WORKLOAD_DLRUN_H
#define ST_WORKLOAD_DLRUN_H

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void callback(void)
{
	sink += workload_getppid();
}

NOINLINE void run(void (*entry)(void (*)(void)), int n)
{
	int i;

	for (i = 0; i < n; i++)
		entry(callback);
	sink++;
}

#endif
