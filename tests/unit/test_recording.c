// SPDX-License-Identifier: GPL-2.0
/*
 * The recording format: what the writer writes the reader gives back, entry
 * for entry, across chunks; a recording cut at every byte, or with any byte
 * flipped, gives back a prefix of the entries and an error, never more and
 * never a crash; a newer version is refused, a newer minor read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "lib/record/reader.h"
#include "lib/record/writer.h"
#include "tests/unit/check.h"

#define MAXE 4096

struct want {
	uint16_t type;
	size_t len;
	uint8_t seed;
};

static struct want wants[MAXE];
static size_t nwant;

static void fill(uint8_t *buf, size_t len, uint8_t seed)
{
	size_t i;

	/* Compressible but not constant, like stacks: a short period plus the seed. */
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + (i % 61) * 7);
}

static void add(struct rec_writer *w, uint16_t type, size_t len, uint8_t seed)
{
	static uint8_t buf[3u << 20];
	size_t h = len / 3;

	fill(buf, len, seed);
	/* The payload goes in as head + tail and must come back as one. */
	CHECK(!rec_writer__add(w, type, buf, h, buf + h, len - h));
	wants[nwant++] = (struct want){ type, len, seed };
}

static char *read_all(const char *path, size_t *len)
{
	struct stat st;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	buf = malloc(st.st_size + 1);
	*len = read(fd, buf, st.st_size);
	close(fd);
	return buf;
}

/* Reads @buf; every entry must be the next wanted one. Return: entries read, *end the last ret. */
static size_t read_back(const void *buf, size_t len, int *end, int *open_err)
{
	static uint8_t exp[3u << 20];
	struct rec_reader *r = rec_reader__open_mem(buf, len, "test.rec");
	struct rec_entry e;
	size_t n = 0;
	int ret;

	*open_err = r ? 0 : -errno;
	if (!r)
		return 0;
	while ((ret = rec_reader__next(r, &e)) == 1) {
		if (n >= nwant || e.type != wants[n].type || e.len != wants[n].len) {
			ret = -1000;
			break;
		}
		fill(exp, e.len, wants[n].seed);
		if (memcmp(e.data, exp, e.len) || ((uintptr_t)e.data & 7)) {
			ret = -1001;
			break;
		}
		n++;
	}
	*end = ret;
	rec_reader__free(r);
	return n;
}

static char *write_sample(const char *path, size_t *len, int big)
{
	struct rec_writer *w = rec_writer__open(path, 0);
	size_t i;

	nwant = 0;
	CHECK(w != NULL);
	if (!w)
		return NULL;
	for (i = 0; i < (big ? 3000 : 40); i++) {
		add(w, REC_RING, 56 + (i % 9) * 8 + (i % 5), (uint8_t)i);
		if (i % 7 == 0)
			add(w, REC_PROC_READ, 32 + i, (uint8_t)(i * 3));
		/* Small recordings get several chunks by explicit flushes, as record's timer does. */
		if (!big && i % 10 == 9)
			CHECK(!rec_writer__flush(w));
	}
	if (big) {
		add(w, REC_FILE_DATA, 2u << 20, 7);  /* one entry bigger than a chunk */
		add(w, 999, 13, 1);                  /* a type from a newer minor */
	}
	add(w, REC_END, 24, 0);
	CHECK(!rec_writer__close(w));
	return read_all(path, len);
}

static void test_roundtrip(const char *path)
{
	size_t len, n;
	int end, oerr;
	char *buf = write_sample(path, &len, 1);

	n = read_back(buf, len, &end, &oerr);
	CHECK_EQ_U64(oerr, 0);
	CHECK_EQ_U64(n, nwant);
	CHECK_EQ_U64(end, 0);
	/* Compression works on stack-like data: well under half. */
	CHECK(len < (nwant * 100 + (2u << 20)) / 2);
	free(buf);
}

/* Every cut and every flipped byte: a prefix of the entries, an error unless the cut is clean. */
static void test_damage(const char *path)
{
	size_t len, cut, n, full, bad = 0;
	int end, oerr;
	char *buf = write_sample(path, &len, 0), *copy;

	full = nwant;
	copy = malloc(len);
	for (cut = 0; cut < len; cut++) {
		n = read_back(buf, cut, &end, &oerr);
		if (cut < REC_HEADER_SIZE) {
			bad += !(oerr == (cut < REC_MAGIC_LEN ? -EINVAL : -EBADMSG));
			continue;
		}
		/* A cut between chunks is a clean, shorter recording; anywhere else is damage. */
		bad += !(n <= full && (end == 0 || end == -EBADMSG) && !oerr);
	}
	CHECK_EQ_U64(bad, 0);
	for (cut = 0; cut < len; cut++) {
		memcpy(copy, buf, len);
		copy[cut] ^= 0x20;
		n = read_back(copy, len, &end, &oerr);
		/*
		 * Never a wrong entry: checksums cover the header, each chunk's
		 * header and each chunk's decompressed bytes (a flip zstd decodes to
		 * the same bytes is harmless and goes unnoticed).
		 */
		if (!(oerr || (n < full && end == -EBADMSG) || (n == full && end == 0))) {
			fprintf(stderr, "flip at %zu of %zu: %zu entries, end %d\n", cut, len, n, end);
			bad++;
		}
	}
	CHECK_EQ_U64(bad, 0);
	free(copy);
	free(buf);
}

static void test_versions(const char *path)
{
	struct rec_header h;
	size_t len, n;
	int end, oerr;
	char *buf = write_sample(path, &len, 0), *longer;

	memcpy(&h, buf, sizeof(h));
	h.major = REC_VERSION_MAJOR + 1;
	h.crc = crc32(0, (const Bytef *)&h, offsetof(struct rec_header, crc));
	memcpy(buf, &h, sizeof(h));
	read_back(buf, len, &end, &oerr);
	CHECK_EQ_U64(oerr, -EPROTONOSUPPORT);
	/* A newer minor with 8 more header bytes still reads. */
	h.major = REC_VERSION_MAJOR;
	h.minor = REC_VERSION_MINOR + 1;
	h.header_size = REC_HEADER_SIZE + 8;
	longer = calloc(1, len + 8);
	memcpy(longer, &h, offsetof(struct rec_header, crc));
	/* The crc is always the header's last 4 bytes. */
	h.crc = crc32(0, (const Bytef *)longer, REC_HEADER_SIZE + 4);
	memcpy(longer + REC_HEADER_SIZE + 4, &h.crc, 4);
	memcpy(longer + REC_HEADER_SIZE + 8, buf + REC_HEADER_SIZE, len - REC_HEADER_SIZE);
	n = read_back(longer, len + 8, &end, &oerr);
	CHECK_EQ_U64(oerr, 0);
	CHECK_EQ_U64(n, nwant);
	CHECK_EQ_U64(end, 0);
	read_back("#!/bin/sh\nnot a recording at all, but long enough for a header.......", 70,
		  &end, &oerr);
	CHECK_EQ_U64(oerr, -EINVAL);
	free(longer);
	free(buf);
}

int main(void)
{
	char path[] = "/tmp/stacktap-test-rec.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	test_roundtrip(path);
	test_damage(path);
	test_versions(path);
	unlink(path);
	return CHECK_DONE();
}
