// SPDX-License-Identifier: GPL-2.0
/*
 * Map sizes chosen for the machine (lib/session/capture_maps.c): the ring
 * buffer by CPU count, and by sampling rate where the tool knows it; the
 * unwind row and process tables and the in-kernel count maps by memory.
 */
#include "lib/session/capture_maps.h"
#include "tests/unit/check.h"

static void test_ringbuf_by_cpus(void)
{
	CHECK_EQ_U64(capture_ringbuf_kb_auto(1), 4096);
	CHECK_EQ_U64(capture_ringbuf_kb_auto(2), 8192);
	CHECK_EQ_U64(capture_ringbuf_kb_auto(64), 65536);
	CHECK_EQ_U64(capture_ringbuf_kb_auto(0), 4096);
}

static void test_ringbuf_by_rate(void)
{
	CHECK_EQ_U64(capture_ringbuf_kb_rate(2, 0), 8192);     /* rate unknown */
	CHECK_EQ_U64(capture_ringbuf_kb_rate(2, 99), 4096);    /* the floor */
	CHECK_EQ_U64(capture_ringbuf_kb_rate(2, 499), 7984);   /* 2 x 499 Hz x 8 KiB */
	CHECK_EQ_U64(capture_ringbuf_kb_rate(2, 999), 8192);   /* never above the CPUs' size */
	CHECK_EQ_U64(capture_ringbuf_kb_rate(8, 99), 6336);    /* 8 CPUs: 32768 by count */
	CHECK_EQ_U64(capture_ringbuf_kb_rate(2, 100000), 8192);
}

#define GIB (1ull << 30)

static void test_rows_by_memory(void)
{
	CHECK_EQ_U64(capture_rows_auto(24 * GIB), 6291456); /* 1/512 in 8-byte rows: 48 MiB */
	CHECK_EQ_U64(capture_rows_auto(8 * GIB), 2097152);
	CHECK_EQ_U64(capture_rows_auto(512ull << 20), 262144); /* the floor: 2 MiB */
	CHECK_EQ_U64(capture_rows_auto(0), 262144);
	CHECK_EQ_U64(capture_rows_auto(1024 * GIB), 1ull << 27); /* --unwind-rows' own bound */
}

static void test_procs_by_memory(void)
{
	CHECK_EQ_U64(capture_procs_auto(24 * GIB), 24 * GIB / 1024 / 12296); /* 2046 */
	CHECK_EQ_U64(capture_procs_auto(4 * GIB), 1024);  /* the floor */
	CHECK_EQ_U64(capture_procs_auto(0), 1024);
	CHECK_EQ_U64(capture_procs_auto(1024 * GIB), 65536);
}

static void test_agg_by_memory(void)
{
	/* 1/128 of the memory in 1,096-byte stored stacks */
	CHECK_EQ_U64(capture_agg_auto(24 * GIB), 183692); /* 24 GiB / 128 / 1096 */
	CHECK_EQ_U64(capture_agg_auto(8 * GIB), 65536);  /* the floor: the fixed size it was */
	CHECK_EQ_U64(capture_agg_auto(0), 65536);
	CHECK_EQ_U64(capture_agg_auto(256 * GIB), 1959382);
	CHECK_EQ_U64(capture_agg_auto(4096 * GIB), 1ull << 24); /* --agg-entries' own bound */
	/* At a known rate: a minute of events, between its own floor and the memory's figure. */
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 2, 0), 183692);
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 2, 99), 16384); /* 11,880: the rate's floor */
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 2, 200), 24000);
	CHECK_EQ_U64(capture_agg_rate(1 * GIB, 2, 99), 16384); /* under the memory's floor */
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 16, 99), 95040);
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 64, 999), 183692); /* the memory's figure */
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 0, 99), 183692);
	CHECK_EQ_U64(capture_agg_rate(24 * GIB, 2, UINT64_MAX), 183692);
}

int main(void)
{
	test_ringbuf_by_cpus();
	test_ringbuf_by_rate();
	test_rows_by_memory();
	test_procs_by_memory();
	test_agg_by_memory();
	return CHECK_DONE();
}
