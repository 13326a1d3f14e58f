// SPDX-License-Identifier: GPL-2.0
/* The recording writer: entries in, compressed chunks out, memory flat. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "bpf/record.h"
#include "lib/record/writer.h"
#include "lib/util/log.h"

/*
 * zstd level 3. On the entries of a system-wide `record profile` (22 MB,
 * 1 MiB blocks, zstd -b1 -e5 on this 2-CPU VM): level 1 compresses 20.6x,
 * level 3 23.6x at about the same speed (700-900 MB/s), both decompress at
 * 1.5-2.6 GB/s, what `report` pays; gzip -6 manages 10.5x and inflates at
 * 90 MB/s. docs/recording.md has the table.
 */
#define WRITER_LEVEL_DEFAULT 3

struct rec_writer {
	char *path;
	int fd;
	int err;             /* first error; sticky */
	uint32_t seq;
	ZSTD_CCtx *cctx;
	uint8_t *raw;        /* the chunk being filled */
	size_t raw_len, raw_cap;
	uint8_t *comp;
	size_t comp_cap;
	uint64_t bytes, raw_total;
};

static int writer__fail(struct rec_writer *w, int err, const char *what)
{
	if (!w->err) {
		w->err = err;
		st_err("record: %s: %s: %s", w->path, what, strerror(-err));
	}
	return w->err;
}

static int writer__write(struct rec_writer *w, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t r;

	while (len) {
		r = write(w->fd, p, len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return writer__fail(w, r < 0 ? -errno : -EIO, "write failed");
		p += r;
		len -= r;
		w->bytes += r;
	}
	return 0;
}

static int writer__header(struct rec_writer *w)
{
	struct rec_header h = {
		.major = REC_VERSION_MAJOR, .minor = REC_VERSION_MINOR,
		.header_size = REC_HEADER_SIZE, .wire_version = ST_WIRE_VERSION,
		.sz_event = sizeof(struct st_event), .sz_ustack = sizeof(struct st_ustack),
		.sz_proc_event = sizeof(struct st_proc_event), .sz_ucopy = sizeof(struct st_ucopy),
		.compression = REC_COMPRESS_ZSTD,
	};
	struct timespec ts;

	memcpy(h.magic, REC_MAGIC, REC_MAGIC_LEN);
	clock_gettime(CLOCK_REALTIME, &ts);
	h.created_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec;
	h.crc = crc32(0, (const Bytef *)&h, offsetof(struct rec_header, crc));
	return writer__write(w, &h, sizeof(h));
}

struct rec_writer *rec_writer__open(const char *path, int level)
{
	struct rec_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w || !(w->path = strdup(path))) {
		free(w);
		st_err("record: %s: out of memory", path);
		errno = ENOMEM;
		return NULL;
	}
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	w->cctx = ZSTD_createCCtx();
	if (w->fd < 0) {
		err = writer__fail(w, -errno, "cannot create");
		goto err_free;
	}
	if (!w->cctx) {
		err = writer__fail(w, -ENOMEM, "out of memory");
		goto err_free;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel,
			       level ? level : WRITER_LEVEL_DEFAULT);
	/* zstd's own checksum: a damaged chunk fails to decompress rather than lie. */
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	err = writer__header(w);
	if (err)
		goto err_free;
	return w;
err_free:
	rec_writer__close(w);
	errno = -err;
	return NULL;
}

static int writer__reserve(uint8_t **buf, size_t *cap, size_t need)
{
	size_t c = *cap ? *cap : 64 * 1024;
	uint8_t *n;

	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c == *cap)
		return 0;
	n = realloc(*buf, c);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = c;
	return 0;
}

int rec_writer__flush(struct rec_writer *w)
{
	struct rec_chunk_hdr ch = { .magic = REC_CHUNK_MAGIC };
	size_t bound, n;

	if (w->err || !w->raw_len)
		return w->err;
	bound = ZSTD_compressBound(w->raw_len);
	if (writer__reserve(&w->comp, &w->comp_cap, bound))
		return writer__fail(w, -ENOMEM, "out of memory");
	n = ZSTD_compress2(w->cctx, w->comp, w->comp_cap, w->raw, w->raw_len);
	if (ZSTD_isError(n))
		return writer__fail(w, -EIO, ZSTD_getErrorName(n));
	ch.seq = w->seq++;
	ch.raw_len = w->raw_len;
	ch.comp_len = n;
	ch.crc = crc32(0, (const Bytef *)&ch, offsetof(struct rec_chunk_hdr, crc));
	w->raw_len = 0;
	if (writer__write(w, &ch, sizeof(ch)))
		return w->err;
	return writer__write(w, w->comp, n);
}

int rec_writer__add(struct rec_writer *w, enum rec_type type, const void *head, size_t hlen,
		    const void *tail, size_t tlen)
{
	struct rec_entry_hdr eh = { .type = type };
	size_t len = hlen + tlen, padded = (len + 7) & ~(size_t)7;

	if (w->err)
		return w->err;
	if (len > REC_ENTRY_MAX)
		return -E2BIG;
	if (writer__reserve(&w->raw, &w->raw_cap, w->raw_len + sizeof(eh) + padded))
		return writer__fail(w, -ENOMEM, "out of memory");
	eh.len = len;
	memcpy(w->raw + w->raw_len, &eh, sizeof(eh));
	if (hlen)
		memcpy(w->raw + w->raw_len + sizeof(eh), head, hlen);
	if (tlen)
		memcpy(w->raw + w->raw_len + sizeof(eh) + hlen, tail, tlen);
	memset(w->raw + w->raw_len + sizeof(eh) + len, 0, padded - len);
	w->raw_len += sizeof(eh) + padded;
	w->raw_total += sizeof(eh) + padded;
	if (w->raw_len >= REC_CHUNK_TARGET)
		return rec_writer__flush(w);
	return 0;
}

uint64_t rec_writer__bytes(const struct rec_writer *w)
{
	return w->bytes;
}

uint64_t rec_writer__raw_bytes(const struct rec_writer *w)
{
	return w->raw_total;
}

int rec_writer__close(struct rec_writer *w)
{
	int err;

	if (!w)
		return 0;
	rec_writer__flush(w);
	if (w->fd >= 0 && close(w->fd) && !w->err)
		writer__fail(w, -errno, "close failed");
	err = w->err;
	ZSTD_freeCCtx(w->cctx);
	free(w->raw);
	free(w->comp);
	free(w->path);
	free(w);
	return err;
}
