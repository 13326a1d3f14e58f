// SPDX-License-Identifier: GPL-2.0
/*
 * st-recstat: where a recording's bytes go. Reads a recording's entries
 * (lib/record/reader.h) and prints, per kind of entry (entry type, and ring
 * records by their record kind), how many there are, their bytes before
 * compression, and the bytes each kind's entries take when compressed apart
 * from the others (zstd at the writer's level, in blocks of the writer's
 * chunk size): an estimate of its share of the file.
 *
 *   st-recstat FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "bpf/record.h"
#include "lib/record/reader.h"

#define KINDS (REC_TYPE_MAX + 5)
#define LEVEL 3

struct kind {
	const char *name;
	uint64_t n, raw, comp;
	uint8_t *buf;
	size_t len;
};

static struct kind kinds[KINDS];
static ZSTD_CCtx *cctx;

static void flush_kind(struct kind *k)
{
	size_t cap = ZSTD_compressBound(k->len);
	void *out = malloc(cap);
	size_t n;

	if (!k->len || !out) {
		free(out);
		return;
	}
	n = ZSTD_compressCCtx(cctx, out, cap, k->buf, k->len, LEVEL);
	if (!ZSTD_isError(n))
		k->comp += n;
	k->len = 0;
	free(out);
}

static void add(int i, const char *name, const struct rec_entry *e)
{
	struct kind *k = &kinds[i];
	struct rec_entry_hdr eh = { .type = e->type, .len = e->len };
	size_t padded = (e->len + 7) & ~(size_t)7;

	k->name = name;
	k->n++;
	k->raw += 8 + padded;
	if (!k->buf)
		k->buf = malloc(REC_CHUNK_TARGET + REC_ENTRY_MAX + 16);
	memcpy(k->buf + k->len, &eh, 8);
	memcpy(k->buf + k->len + 8, e->data, e->len);
	memset(k->buf + k->len + 8 + e->len, 0, padded - e->len);
	k->len += 8 + padded;
	if (k->len >= REC_CHUNK_TARGET)
		flush_kind(k);
}

static const char *const names[REC_TYPE_MAX] = {
	[REC_META] = "META", [REC_RING] = "RING", [REC_TICK] = "TICK",
	[REC_INTERVAL] = "INTERVAL", [REC_DRAIN] = "DRAIN", [REC_FLUSH] = "FLUSH",
	[REC_PROC_READ] = "PROC_READ", [REC_ALIVE] = "ALIVE", [REC_FILE] = "FILE",
	[REC_FILE_DATA] = "FILE_DATA", [REC_VDSO] = "VDSO", [REC_PERF_MAP] = "PERF_MAP",
	[REC_KSYM] = "KSYM", [REC_KMOD] = "KMOD", [REC_STATS] = "STATS", [REC_END] = "END",
	[REC_RING_UCOPY] = "RING_UCOPY", [REC_COPY_WALK] = "COPY_WALK", [REC_USTATS] = "USTATS",
};

int main(int argc, char **argv)
{
	struct rec_reader *r;
	struct rec_entry e;
	uint64_t raw = 0, comp = 0;
	int i, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: st-recstat FILE\n");
		return 2;
	}
	r = rec_reader__open(argv[1]);
	cctx = ZSTD_createCCtx();
	if (!r || !cctx)
		return 1;
	while ((ret = rec_reader__next(r, &e)) == 1) {
		uint16_t rk = e.len >= 2 ? *(const uint16_t *)e.data : 0;

		if (e.type == REC_RING && rk == ST_REC_EVENT &&
		    (((const struct st_event *)e.data)->flags & ST_EV_UCOPY))
			add(REC_TYPE_MAX + 3, "event+copy", &e);
		else if (e.type == REC_RING && rk == ST_REC_EVENT)
			add(REC_TYPE_MAX + 0, "RING event", &e);
		else if (e.type == REC_RING && rk == ST_REC_USTACK)
			add(REC_TYPE_MAX + 1, "RING ustack", &e);
		else if (e.type == REC_RING && rk == ST_REC_PROC)
			add(REC_TYPE_MAX + 2, "RING proc", &e);
		else if (e.type < REC_TYPE_MAX && names[e.type])
			add(e.type, names[e.type], &e);
		else
			add(REC_TYPE_MAX + 4, "other", &e);
	}
	for (i = 0; i < KINDS; i++)
		flush_kind(&kinds[i]);
	printf("%-12s %10s %14s %12s %8s\n", "entries", "count", "raw bytes", "zstd apart",
	       "B/entry");
	for (i = 0; i < KINDS; i++) {
		struct kind *k = &kinds[i];

		if (!k->n)
			continue;
		printf("%-12s %10llu %14llu %12llu %8.1f\n", k->name, (unsigned long long)k->n,
		       (unsigned long long)k->raw, (unsigned long long)k->comp,
		       (double)k->comp / k->n);
		raw += k->raw;
		comp += k->comp;
	}
	printf("%-12s %10s %14llu %12llu\nfile %llu bytes%s\n", "total", "", (unsigned long long)raw,
	       (unsigned long long)comp, (unsigned long long)rec_reader__size(r),
	       ret ? " (damaged)" : "");
	rec_reader__free(r);
	return ret ? 1 : 0;
}
