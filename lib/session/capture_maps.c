// SPDX-License-Identifier: GPL-2.0
/* Sizing the capture library's maps between open and load. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "bpf/aggregate.h"
#include "bpf/unwind_maps.h"
#include "lib/session/aggregate.h"
#include "lib/session/capture_maps.h"
#include "lib/session/cli.h"
#include "lib/session/session.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/util/log.h"

/*
 * Sizes chosen for the machine when the options leave them (0):
 *  - the ring buffer: 4 MiB per CPU (each CPU's events share it), from
 *    4 to 64 MiB: 8 MiB on 2 CPUs, as the fixed size was. A tool that knows
 *    its rate (profile -F) asks for RINGBUF_KB_PER_RATE KiB per event per
 *    second per CPU instead, at least RINGBUF_KB_RATE_MIN and never more
 *    than the above: a second of 8 KiB events (a kernel and a user stack,
 *    or half a 16 KiB stack copy), as the session drains it many times a
 *    second. The floor is for the process records of the whole machine,
 *    which share the buffer: at 1 MiB a burst of execs while the run
 *    started (a test suite next door) dropped some. Both mappings of the
 *    buffer (libbpf maps its data twice) are resident in our RSS: on 2 CPUs
 *    8 MiB was 16 MB of it, 4 MiB is 8; on 8 CPUs at 99 Hz 8 MiB, not 32;
 *  - the row table: 1/512 of the memory (an ARRAY: reserved whole at load),
 *    at least 256k rows (2 MiB), at most 2^27 (1 GiB, --unwind-rows' own
 *    bound): 6M rows on 24 GiB, where a fixed 2M let four files of the size
 *    of the compilers' libraries (libLLVM ~950k rows, libclang-cpp ~1M,
 *    cc1plus ~520k) fill it and every later file fall back to frame
 *    pointers. No file takes more than a 1/BPF_TABLES_FILE_SHARE share;
 *  - the process table: 1/1024 of the memory in entries of 12 KiB (a HASH
 *    without prealloc: only loaded processes take memory), from 1024 to
 *    65536: 2046 on 24 GiB, where a fixed 1024 left the processes of a
 *    busy machine (test suites: 1,600 seen in 8 s) without tables;
 *  - the in-kernel counts (bpf/aggregate.bpf.h, when the tool aggregates):
 *    1/128 of the memory in stored stacks (1,096 B each), the counts map
 *    as many entries, from 65536 (the fixed size it was) to 2^24
 *    (--agg-entries' own bound): 183k on 24 GiB. Hashes without
 *    prealloc: only the stacks counted take memory, so the bound costs
 *    nothing until a busy machine needs it; a fixed 65536 filled under a
 *    test suite next door (its compilers' many malloc stacks), and every
 *    later new stack came as a record.
 */
#define RINGBUF_KB_PER_CPU 4096ull
#define RINGBUF_KB_AUTO_MIN 4096ull
#define RINGBUF_KB_AUTO_MAX 65536ull
#define RINGBUF_KB_PER_RATE 8ull
#define RINGBUF_KB_RATE_MIN 4096ull
#define ROWS_AUTO_MIN (1ull << 18)
#define ROWS_AUTO_MAX (1ull << 27)
#define ROWS_AUTO_MEM_SHARE 512
#define PROCS_AUTO_MIN 1024ull
#define PROCS_AUTO_MAX 65536ull
#define PROCS_AUTO_MEM_SHARE 1024
#define AGG_AUTO_MIN 65536ull
#define AGG_AUTO_MAX (1ull << 24)
#define AGG_AUTO_MEM_SHARE 128

uint64_t capture_ringbuf_kb_auto(int ncpus)
{
	uint64_t kb = (ncpus > 0 ? (uint64_t)ncpus : 1) * RINGBUF_KB_PER_CPU;

	return kb < RINGBUF_KB_AUTO_MIN ? RINGBUF_KB_AUTO_MIN :
	       kb > RINGBUF_KB_AUTO_MAX ? RINGBUF_KB_AUTO_MAX : kb;
}

uint64_t capture_ringbuf_kb_rate(int ncpus, uint64_t hz)
{
	uint64_t most = capture_ringbuf_kb_auto(ncpus), kb;

	if (!hz || hz > most)
		return most;
	kb = (ncpus > 0 ? (uint64_t)ncpus : 1) * hz * RINGBUF_KB_PER_RATE;
	return kb < RINGBUF_KB_RATE_MIN ? RINGBUF_KB_RATE_MIN : kb > most ? most : kb;
}

uint64_t capture_rows_auto(uint64_t mem_bytes)
{
	uint64_t rows = mem_bytes / ROWS_AUTO_MEM_SHARE / sizeof(struct unwind_row);

	return rows < ROWS_AUTO_MIN ? ROWS_AUTO_MIN : rows > ROWS_AUTO_MAX ? ROWS_AUTO_MAX : rows;
}

uint64_t capture_procs_auto(uint64_t mem_bytes)
{
	uint64_t procs = mem_bytes / PROCS_AUTO_MEM_SHARE / sizeof(struct st_uproc);

	return procs < PROCS_AUTO_MIN ? PROCS_AUTO_MIN :
	       procs > PROCS_AUTO_MAX ? PROCS_AUTO_MAX : procs;
}

uint64_t capture_agg_auto(uint64_t mem_bytes)
{
	uint64_t n = mem_bytes / AGG_AUTO_MEM_SHARE / sizeof(struct st_agg_stack);

	return n < AGG_AUTO_MIN ? AGG_AUTO_MIN : n > AGG_AUTO_MAX ? AGG_AUTO_MAX : n;
}

/*
 * Every read of the counts (each settling of exited processes, at least once
 * a second) walks all the buckets of the hash, a power of two above its
 * bound, however few counts it holds: 262,144 buckets on 24 GiB took a
 * quarter of a system-wide profile's own CPU. A tool at a fixed rate cannot
 * make more new counts than events: a minute's worth, all distinct, is
 * ample, and a map that fills only sends new stacks as records (exact).
 * Its own floor, below AGG_AUTO_MIN: under churn the reads come several
 * times a second (each settling of 64 exits), and 65,536 buckets for the
 * 11,880 samples of a minute at 99 Hz on 2 CPUs made the bucket walk a fifth
 * of a system-wide profile's own CPU.
 */
#define AGG_RATE_SECS 60ull
#define AGG_RATE_MIN 16384ull

uint64_t capture_agg_rate(uint64_t mem_bytes, int ncpus, uint64_t hz)
{
	uint64_t cap = capture_agg_auto(mem_bytes), n;

	if (!hz || ncpus <= 0 || hz > cap / (uint64_t)ncpus / AGG_RATE_SECS)
		return cap;
	n = (uint64_t)ncpus * hz * AGG_RATE_SECS;
	return n < AGG_RATE_MIN ? AGG_RATE_MIN : n;
}

static uint64_t capture__mem_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

/* capture__skip_maps() - the maps named @names are not created. */
static int capture__skip_maps(struct bpf_object *obj, const char *const *names, size_t n)
{
	struct bpf_map *m;
	size_t i;
	int err;

	for (i = 0; i < n; i++) {
		m = bpf_object__find_map_by_name(obj, names[i]);
		if (m && (err = bpf_map__set_autocreate(m, false)))
			return err;
	}
	return 0;
}

/*
 * Maps of a feature that is off are not created: the code that uses them is
 * dead (its switch is read-only data: st_config.walk_cache, .met_filter),
 * and libbpf leaves their loads poisoned for the verifier to drop with it.
 * The met filter's table alone is ~3 MB of kernel memory.
 */
static int capture__feature_maps(struct bpf_object *obj, const struct st_common_opts *o)
{
	static const char *const walk_cache[] = { "st_ucaches", "st_uregions" };
	static const char *const met[] = { "st_met", "st_met_scratch" };
	int err = 0;

	if (!st_common_opts__walk_cache(o))
		err = capture__skip_maps(obj, walk_cache, sizeof(walk_cache) / sizeof(walk_cache[0]));
	if (!err && !st_common_opts__met_filter(o))
		err = capture__skip_maps(obj, met, sizeof(met) / sizeof(met[0]));
	return err;
}

int capture_maps_size(struct bpf_object *obj, const struct st_common_opts *o)
{
	struct bpf_map *scratch = bpf_object__find_map_by_name(obj, "st_scratch_map");
	int ncpus = libbpf_num_possible_cpus(), err;

	if (!scratch || ncpus <= 0) {
		st_err("capture: BPF object has no scratch map or CPU count unknown");
		return -ENOENT;
	}
	err = bpf_map__set_max_entries(scratch, ncpus);
	if (!err)
		err = session_set_ringbuf_size(obj, (o->ringbuf_kb ? o->ringbuf_kb :
						     capture_ringbuf_kb_rate(ncpus, o->event_hz)) * 1024);
	if (!err && bpf_object__find_map_by_name(obj, "st_urows"))
		err = bpf_tables_size(obj, o->unwind_rows ? o->unwind_rows :
					   capture_rows_auto(capture__mem_bytes()),
				      capture_procs_auto(capture__mem_bytes()));
	if (!err && bpf_object__find_map_by_name(obj, "st_agg_stacks"))
		err = agg_size(obj, o->agg_entries ? o->agg_entries :
					 capture_agg_rate(capture__mem_bytes(), ncpus, o->event_hz));
	if (!err)
		err = capture__feature_maps(obj, o);
	if (err)
		st_err("capture: cannot size the BPF maps: %s", strerror(-err));
	return err;
}

uint64_t capture_map_bytes(int fd)
{
	char path[64], line[128];
	unsigned long long bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %llu", &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

#define REPORT_MAPS_LISTED 6 /* the largest maps named; the rest only in the sum */

void capture_maps_report(const struct bpf_object *obj)
{
	const struct bpf_map *m, *top[REPORT_MAPS_LISTED] = { NULL };
	uint64_t bytes[REPORT_MAPS_LISTED] = { 0 }, b, sum = 0;
	char list[512];
	size_t i, k, len = 0;
	int n = 0;

	if (!obj)
		return;
	bpf_object__for_each_map(m, obj) {
		if (bpf_map__fd(m) < 0)
			continue; /* not created (the walk cache where it is off) */
		b = capture_map_bytes(bpf_map__fd(m));
		sum += b;
		n++;
		for (i = 0; i < REPORT_MAPS_LISTED && bytes[i] >= b; i++)
			;
		for (k = REPORT_MAPS_LISTED - 1; i < REPORT_MAPS_LISTED && k > i; k--) {
			top[k] = top[k - 1];
			bytes[k] = bytes[k - 1];
		}
		if (i < REPORT_MAPS_LISTED) {
			top[i] = m;
			bytes[i] = b;
		}
	}
	list[0] = '\0';
	for (i = 0; i < REPORT_MAPS_LISTED && top[i] && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s %llu",
					i ? ", " : "", bpf_map__name(top[i]),
					(unsigned long long)(bytes[i] / 1024));
	fprintf(stderr, "stacktap: BPF maps: %llu KiB of kernel memory now in %d maps; the largest "
			"(KiB): %s\n", (unsigned long long)(sum / 1024), n, list);
}
