// SPDX-License-Identifier: GPL-2.0
/*
 * Map sizes chosen for the machine (lib/session/capture_maps.c): the ring
 * buffer by CPU count, and by sampling rate where the tool knows it.
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

int main(void)
{
	test_ringbuf_by_cpus();
	test_ringbuf_by_rate();
	return CHECK_DONE();
}
