// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the settled log (lib/pipeline/settled_log.c): records come
 * back in the order appended, every header field and every byte of their
 * frames and places as given, 8-aligned and where they were put while
 * 5,000 more are appended (made-up sizes of 0-300 bytes each, a fixed seed,
 * over several arena chunks); a reset empties it, and it fills again.
 */
#include <stdint.h>
#include <string.h>

#include "lib/pipeline/settled_log.h"
#include "tests/unit/check.h"

#define NREC 5000

/* xorshift64: the same made-up records every run. */
static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Record @i's header and bytes (@buf: 600 bytes), all from @i. */
static void make(size_t i, struct settled_rec *h, uint8_t *buf)
{
	uint64_t s = 0x9e3779b97f4a7c15ull + i;
	size_t j;

	*h = (struct settled_rec){ .count = i + 1, .weight = (i + 1) * 10101010ull,
				   .seq = 3 * i + 7, .pid = (uint32_t)(1000000 + i),
				   .kd = (uint16_t)(i % 128), .ud = (uint16_t)(i % 1025),
				   .flags = (uint16_t)(i & 0xff), .ustop = (uint16_t)(i % 7),
				   .flen = (uint16_t)(next(&s) % 301),
				   .plen = (uint16_t)(next(&s) % 301) };
	memcpy(h->comm, "settled-0123456", sizeof(h->comm));
	h->comm[8] = (char)('a' + i % 26);
	for (j = 0; j < (size_t)h->flen + h->plen; j++)
		buf[j] = (uint8_t)next(&s);
}

/* Does record @r hold exactly what make(@i) gives? */
static int holds(const struct settled_rec *r, size_t i)
{
	struct settled_rec h;
	uint8_t buf[600];

	make(i, &h, buf);
	return r->count == h.count && r->weight == h.weight && r->seq == h.seq &&
	       r->pid == h.pid && r->kd == h.kd && r->ud == h.ud && r->flags == h.flags &&
	       r->ustop == h.ustop && r->flen == h.flen && r->plen == h.plen &&
	       !memcmp(r->comm, h.comm, sizeof(h.comm)) &&
	       !memcmp(settled_rec__frames(r), buf, h.flen) &&
	       !memcmp(settled_rec__places(r), buf + h.flen, h.plen) &&
	       !((uintptr_t)r % 8);
}

static size_t fill(struct settled_log *l, struct settled_rec **first)
{
	struct settled_rec h, *r;
	uint8_t buf[600];
	size_t i, bad = 0;

	for (i = 0; i < NREC; i++) {
		make(i, &h, buf);
		r = settled_log__append(l, &h, buf, buf + h.flen);
		bad += !r;
		if (i < 10)
			first[i] = r;
	}
	return bad;
}

int main(void)
{
	struct settled_log l = { 0 };
	struct settled_rec *first[10];
	size_t i, bad = 0;

	CHECK_EQ_U64(fill(&l, first), 0);
	CHECK_EQ_U64(l.n, NREC);
	for (i = 0; i < l.n; i++)
		bad += !holds(l.v[i], i);
	for (i = 0; i < 10; i++)
		bad += l.v[i] != first[i]; /* not moved by the appends after it */
	CHECK_EQ_U64(bad, 0);
	settled_log__reset(&l);
	CHECK_EQ_U64(l.n, 0);
	CHECK(l.v == NULL);
	CHECK_EQ_U64(fill(&l, first), 0);
	CHECK_EQ_U64(l.n, NREC);
	CHECK(holds(l.v[NREC - 1], NREC - 1));
	settled_log__reset(&l);
	return CHECK_DONE();
}
