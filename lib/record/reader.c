// SPDX-License-Identifier: GPL-2.0
/*
 * The recording reader: a checked header, then entries chunk by chunk.
 *
 * Chunks are read, checked and decompressed one ahead of the entries
 * returned, on a second thread when there is one (lib/util/fill_ahead.h):
 * reader__fill() owns the input side (fd, offset, zstd context, the next
 * chunk's number), rec_reader__next() the chunk it returns entries from.
 * Damage found while filling is logged only when the caller reaches it,
 * so what is logged, and when, is what one thread reading in turn logs.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "lib/record/reader.h"
#include "lib/util/fill_ahead.h"
#include "lib/util/log.h"

/* One chunk, read and decompressed, or why it could not be. */
struct rec_chunk {
	uint8_t *raw;
	size_t raw_cap, raw_len;
	uint64_t end_off; /* input consumed once it was read */
	uint32_t seq;
	int ret;          /* 1 a chunk, 0 the clean end, or the error */
	char why[200];    /* the damage, when ret is -EBADMSG */
};

struct rec_reader {
	char *name;
	int fd;                  /* -1 when reading memory */
	const uint8_t *mem;
	uint64_t size, off;      /* the whole input, and how much was consumed */
	struct rec_header hdr;
	/* The filler's: */
	ZSTD_DCtx *dctx;
	uint8_t *comp;
	size_t comp_cap;
	uint64_t chunk_at;       /* file offset of the chunk being read */
	uint32_t seq;            /* the next chunk's expected number */
	/* The caller's: */
	struct fill_ahead *ahead; /* started by the first rec_reader__next() */
	struct rec_chunk chunks[2];
	struct rec_chunk *cur;   /* the chunk entries come from, or NULL */
	size_t raw_off;          /* the next entry in it */
	uint64_t consumed;       /* input consumed up to the end of cur */
	int err;                 /* sticky: damage or a read error */
	bool ended;              /* the clean end was met */
};

/* One line for damage: where it is and what is wrong, then what the caller gets. */
static int reader__log_damage(struct rec_reader *r, const char *why)
{
	st_err("%s: %s: only what comes before it is used", r->name, why);
	r->err = -EBADMSG;
	return r->err;
}

static int reader__damage(struct rec_reader *r, const char *fmt, ...)
{
	char why[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return reader__log_damage(r, why);
}

/* On the filler: damage in chunk @c, said when the caller reaches it. */
static int chunk__damage(struct rec_chunk *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/* Reads exactly @len bytes. Return: @len, fewer at the end of the input, or -errno. */
static ssize_t reader__read(struct rec_reader *r, void *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	if (r->fd < 0) {
		got = r->size - r->off < len ? r->size - r->off : len;
		memcpy(buf, r->mem + r->off, got);
		r->off += got;
		return got;
	}
	while (got < len) {
		n = read(r->fd, (uint8_t *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (!n)
			break;
		got += n;
	}
	r->off += got;
	return got;
}

/*
 * Every version keeps the magic, major, minor and header_size where they
 * are, and ends its header with the crc32 of the bytes before it, so any
 * header can be checked before its version is judged.
 */
static int reader__check_header(struct rec_reader *r, const uint8_t *h, size_t n)
{
	uint32_t crc;

	if (n < r->hdr.header_size) {
		st_err("%s: cut short in its header (%zu bytes)", r->name, n);
		return -EBADMSG;
	}
	memcpy(&crc, h + r->hdr.header_size - 4, 4);
	if (crc32(0, h, r->hdr.header_size - 4) != crc) {
		st_err("%s: header damaged (checksum mismatch)", r->name);
		return -EBADMSG;
	}
	if (r->hdr.major < REC_VERSION_MAJOR_MIN || r->hdr.major > REC_VERSION_MAJOR) {
		st_err("%s: recording format version %u.%u; this stacktap reads versions %u.x to "
		       "%u.x%s", r->name, r->hdr.major, r->hdr.minor, REC_VERSION_MAJOR_MIN,
		       REC_VERSION_MAJOR,
		       r->hdr.major > REC_VERSION_MAJOR ? ": upgrade stacktap to report it" : "");
		return -EPROTONOSUPPORT;
	}
	if (r->hdr.compression != REC_COMPRESS_ZSTD) {
		st_err("%s: unknown compression %u", r->name, r->hdr.compression);
		return -EBADMSG;
	}
	return 0;
}

/* Header sizes a reader accepts: newer minors may add fields before the crc. */
#define REC_HEADER_SIZE_MAX 4096

static int reader__header(struct rec_reader *r)
{
	uint8_t h[REC_HEADER_SIZE_MAX];
	ssize_t n = reader__read(r, h, REC_HEADER_SIZE), m;

	if (n < 0) {
		st_err("%s: %s", r->name, strerror(-n));
		return n;
	}
	if (n < REC_MAGIC_LEN || memcmp(h, REC_MAGIC, REC_MAGIC_LEN)) {
		st_err("%s: not a stacktap recording", r->name);
		return -EINVAL;
	}
	if (n >= REC_MAGIC_LEN + 8)
		memcpy(&r->hdr, h, n < (ssize_t)sizeof(r->hdr) ? (size_t)n : sizeof(r->hdr));
	if (n == REC_HEADER_SIZE && (r->hdr.header_size < REC_HEADER_SIZE ||
				     r->hdr.header_size > REC_HEADER_SIZE_MAX)) {
		st_err("%s: header damaged (size %u)", r->name, r->hdr.header_size);
		return -EBADMSG;
	}
	if (n == REC_HEADER_SIZE && r->hdr.header_size > REC_HEADER_SIZE) {
		m = reader__read(r, h + n, r->hdr.header_size - n);
		if (m < 0)
			return m;
		n += m;
	}
	if (n < REC_HEADER_SIZE)
		r->hdr.header_size = REC_HEADER_SIZE; /* for the "cut short" message */
	return reader__check_header(r, h, n);
}

static struct rec_reader *reader__new(const char *name)
{
	struct rec_reader *r = calloc(1, sizeof(*r));

	if (!r || !(r->name = strdup(name)) || !(r->dctx = ZSTD_createDCtx())) {
		if (r)
			free(r->name);
		free(r);
		st_err("%s: out of memory", name);
		errno = ENOMEM;
		return NULL;
	}
	r->fd = -1;
	return r;
}

static struct rec_reader *reader__start(struct rec_reader *r)
{
	int err = reader__header(r);

	if (err) {
		rec_reader__free(r);
		errno = -err;
		return NULL;
	}
	return r;
}

struct rec_reader *rec_reader__open(const char *path)
{
	struct rec_reader *r = reader__new(path);
	struct stat st;
	int err;

	if (!r)
		return NULL;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		err = errno;
		st_err("%s: %s", path, strerror(err));
		rec_reader__free(r);
		errno = err;
		return NULL;
	}
	r->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	return reader__start(r);
}

struct rec_reader *rec_reader__open_mem(const void *buf, size_t len, const char *name)
{
	struct rec_reader *r = reader__new(name);

	if (!r)
		return NULL;
	r->mem = buf;
	r->size = len;
	return reader__start(r);
}

const struct rec_header *rec_reader__header(const struct rec_reader *r)
{
	return &r->hdr;
}

static int reader__grow(uint8_t **buf, size_t *cap, size_t need)
{
	uint8_t *n;

	if (need <= *cap)
		return 0;
	n = realloc(*buf, need);
	if (!n)
		return -ENOMEM;
	*buf = n;
	*cap = need;
	return 0;
}

/* Checks a chunk header against everything it can be checked against before allocating. */
static int reader__check_chunk(struct rec_reader *r, struct rec_chunk *c,
			       const struct rec_chunk_hdr *ch)
{
	if (ch->magic != REC_CHUNK_MAGIC ||
	    crc32(0, (const Bytef *)ch, offsetof(struct rec_chunk_hdr, crc)) != ch->crc)
		return chunk__damage(c, "chunk %u at byte %llu damaged (bad chunk header)", r->seq,
				      (unsigned long long)r->chunk_at);
	if (ch->seq != r->seq)
		return chunk__damage(c, "chunk %u at byte %llu is numbered %u (chunks lost)",
				      r->seq, (unsigned long long)r->chunk_at, ch->seq);
	if (!ch->raw_len || ch->raw_len > REC_CHUNK_MAX || !ch->comp_len ||
	    ch->comp_len > ZSTD_compressBound(ch->raw_len))
		return chunk__damage(c, "chunk %u at byte %llu damaged (sizes %u/%u)", r->seq,
				      (unsigned long long)r->chunk_at, ch->comp_len, ch->raw_len);
	if (ch->comp_len > r->size - r->off)
		return chunk__damage(c, "cut short at byte %llu, in chunk %u",
				      (unsigned long long)r->size, r->seq);
	return 0;
}

static int reader__decompress(struct rec_reader *r, struct rec_chunk *c,
			      const struct rec_chunk_hdr *ch)
{
	unsigned long long content;
	size_t n;

	content = ZSTD_getFrameContentSize(r->comp, ch->comp_len);
	if (content != ch->raw_len)
		return chunk__damage(c, "chunk %u at byte %llu damaged (not the frame written)",
				     r->seq, (unsigned long long)r->chunk_at);
	if (reader__grow(&c->raw, &c->raw_cap, ch->raw_len))
		return -ENOMEM;
	n = ZSTD_decompressDCtx(r->dctx, c->raw, ch->raw_len, r->comp, ch->comp_len);
	if (ZSTD_isError(n) || n != ch->raw_len)
		return chunk__damage(c, "chunk %u at byte %llu damaged (%s)", r->seq,
				     (unsigned long long)r->chunk_at,
				     ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short");
	c->raw_len = n;
	return 0;
}

/* On the filler: read the next chunk into @c. Return: 1, 0 at the clean end, or the error. */
static int reader__chunk(struct rec_reader *r, struct rec_chunk *c)
{
	struct rec_chunk_hdr ch;
	ssize_t n;
	int err;

	r->chunk_at = r->off;
	n = reader__read(r, &ch, sizeof(ch));
	if (n <= 0)
		return n;
	if (n < (ssize_t)sizeof(ch))
		return chunk__damage(c, "cut short at byte %llu, in chunk %u's header",
				     (unsigned long long)r->off, r->seq);
	err = reader__check_chunk(r, c, &ch);
	if (err)
		return err;
	if (reader__grow(&r->comp, &r->comp_cap, ch.comp_len))
		return -ENOMEM;
	n = reader__read(r, r->comp, ch.comp_len);
	if (n < 0)
		return n;
	if (n < ch.comp_len)
		return chunk__damage(c, "cut short at byte %llu, in chunk %u",
				     (unsigned long long)r->off, r->seq);
	err = reader__decompress(r, c, &ch);
	if (err)
		return err;
	c->seq = r->seq++;
	return 1;
}

/* fill_ahead_fn: the next chunk, or the end or damage the caller meets there. */
static int reader__fill(void *ctx, void *slot)
{
	struct rec_reader *r = ctx;
	struct rec_chunk *c = slot;

	c->why[0] = 0;
	c->ret = reader__chunk(r, c);
	c->end_off = r->off;
	return c->ret;
}

/* On the caller: move to the next chunk. Return: 1, 0 at the clean end, or the error. */
static int reader__next_chunk(struct rec_reader *r)
{
	void *slots[2] = { &r->chunks[0], &r->chunks[1] };
	int ret;

	/* A pipe is read no further than asked: its writer may wait for us. */
	if (!r->ahead &&
	    !(r->ahead = fill_ahead__new(reader__fill, r, slots, r->size != UINT64_MAX)))
		return r->err = -ENOMEM;
	r->cur = fill_ahead__next(r->ahead, &ret);
	r->raw_off = 0;
	r->consumed = r->cur->end_off;
	if (ret == -EBADMSG)
		return reader__log_damage(r, r->cur->why);
	if (ret < 0)
		r->err = ret;
	r->ended = !ret;
	return ret;
}

int rec_reader__next(struct rec_reader *r, struct rec_entry *e)
{
	struct rec_entry_hdr eh;
	size_t left, padded;
	int ret;

	if (r->err || r->ended)
		return r->err;
	while (!r->cur || r->raw_off >= r->cur->raw_len) {
		ret = reader__next_chunk(r);
		if (ret <= 0)
			return ret;
	}
	left = r->cur->raw_len - r->raw_off;
	if (left < sizeof(eh))
		return reader__damage(r, "chunk %u damaged (entry header cut)", r->cur->seq);
	memcpy(&eh, r->cur->raw + r->raw_off, sizeof(eh));
	padded = ((size_t)eh.len + 7) & ~(size_t)7;
	if (eh.len > REC_ENTRY_MAX || padded > left - sizeof(eh))
		return reader__damage(r, "chunk %u damaged (an entry of %u bytes runs past it)",
				      r->cur->seq, eh.len);
	e->type = eh.type;
	e->len = eh.len;
	e->data = r->cur->raw + r->raw_off + sizeof(eh);
	r->raw_off += sizeof(eh) + padded;
	return 1;
}

uint64_t rec_reader__offset(const struct rec_reader *r)
{
	return r->cur ? r->consumed : r->off;
}

uint64_t rec_reader__size(const struct rec_reader *r)
{
	return r->size;
}

void rec_reader__free(struct rec_reader *r)
{
	if (!r)
		return;
	fill_ahead__free(r->ahead); /* first: the filler uses what follows */
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	free(r->comp);
	free(r->chunks[0].raw);
	free(r->chunks[1].raw);
	free(r->name);
	free(r);
}
