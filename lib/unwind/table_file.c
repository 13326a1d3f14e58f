// SPDX-License-Identifier: GPL-2.0
/* A built unwind table as bytes on disk (the table cache's file format), and back, checked. */
/*
 * One file holds one table: a 256-byte header, the rows as the builder left
 * them (8 bytes each, struct unwind_row), the spans (12 bytes each), then
 * the path of the separate debug file rows came from (no NUL). Native
 * little-endian x86-64 layout, like the rows themselves: a cache is never
 * carried to another kind of machine, and the header's sizes and version
 * refuse one that was.
 *
 * The reader treats the file as hostile: it may be cut short by a crash,
 * damaged on disk, left by an older stacktap or written by someone else.
 * Every size is checked against the file's length before it is used, a
 * CRC-32 covers every byte after the checksum field, and the rows are checked
 * for what the walkers rely on (strictly sorted, known rules) — a checksum
 * finds damage, not a hostile writer, and the cache directory's owner check
 * (table_cache.c) is what keeps other users out.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/unwind/table_file.h"

#define TF_MAGIC "STUNWTAB"

/* A debug file's path longer than this is not one the builder found. */
#define TF_PATH_MAX 4096

struct tf_header {
	char magic[8];
	uint32_t version;
	uint32_t crc; /* crc32 of every byte after this field, header and payload */
	uint32_t header_size, row_size, span_size;
	uint32_t id_len;
	uint8_t id[UNWIND_ID_MAX];
	uint32_t source;
	uint64_t sig, base;
	uint64_t nrows, nspans, path_len;
	uint64_t go;
	uint64_t unsupported[UNW_UNSUP_MAX];
	uint64_t cfi[6]; /* struct cfi_stats, field by field */
	uint64_t src_fdes[UNWIND_SRC_MAX];
	uint64_t exec_bytes, covered_bytes;
};

_Static_assert(sizeof(struct tf_header) == 256, "the cache file header is 256 bytes");
/* fuzz/fuzz_table_file.c finds the key at these offsets. */
_Static_assert(offsetof(struct tf_header, id_len) == 28 && offsetof(struct tf_header, id) == 32 &&
		       offsetof(struct tf_header, sig) == 56 && offsetof(struct tf_header, base) == 64,
	       "the key's place in the header");
_Static_assert(sizeof(struct unwind_row) == 8, "rows are 8 bytes on disk");
_Static_assert(sizeof(struct unwind_span) == 12, "spans are 12 bytes on disk");

/* Where the checksum starts: right after its own field. */
#define TF_CRC_FROM (offsetof(struct tf_header, crc) + sizeof(uint32_t))

static void tf__cfi_out(const struct cfi_stats *s, uint64_t out[6])
{
	out[0] = s->cies;
	out[1] = s->fdes;
	out[2] = s->bad_entries;
	out[3] = s->signal_fdes;
	out[4] = s->skipped_fdes;
	out[5] = s->bad_rows;
}

static void tf__cfi_in(const uint64_t in[6], struct cfi_stats *s)
{
	*s = (struct cfi_stats){ .cies = in[0], .fdes = in[1], .bad_entries = in[2],
				 .signal_fdes = in[3], .skipped_fdes = in[4], .bad_rows = in[5] };
}

static void tf__header(const struct unwind_table *t, const struct table_key *key,
		       struct tf_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, TF_MAGIC, sizeof(h->magic));
	h->version = TABLE_FILE_VERSION;
	h->header_size = sizeof(*h);
	h->row_size = sizeof(struct unwind_row);
	h->span_size = sizeof(struct unwind_span);
	h->id_len = (uint32_t)key->id_len;
	memcpy(h->id, key->id, key->id_len);
	h->source = t->source;
	h->sig = key->sig;
	h->base = key->base;
	h->nrows = t->rows.n;
	h->nspans = t->nspans;
	h->path_len = t->cfi_path ? strlen(t->cfi_path) : 0;
	h->go = t->go;
	memcpy(h->unsupported, t->rows.unsupported, sizeof(h->unsupported));
	tf__cfi_out(&t->cfi, h->cfi);
	memcpy(h->src_fdes, t->src_fdes, sizeof(h->src_fdes));
	h->exec_bytes = t->exec_bytes;
	h->covered_bytes = t->covered_bytes;
}

void *table_file__encode(const struct unwind_table *t, const struct table_key *key, size_t *len)
{
	struct tf_header h;
	size_t rows, spans, size;
	char *buf;

	if (key->id_len > UNWIND_ID_MAX || t->rows.n > SIZE_MAX / 16 ||
	    t->nspans > SIZE_MAX / 16) {
		errno = EOVERFLOW;
		return NULL;
	}
	tf__header(t, key, &h);
	if (h.path_len > TF_PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	rows = t->rows.n * sizeof(struct unwind_row);
	spans = t->nspans * sizeof(struct unwind_span);
	size = sizeof(h) + rows + spans + h.path_len;
	buf = malloc(size);
	if (!buf)
		return NULL;
	memcpy(buf, &h, sizeof(h));
	if (rows)
		memcpy(buf + sizeof(h), t->rows.rows, rows);
	if (spans)
		memcpy(buf + sizeof(h) + rows, t->spans, spans);
	if (h.path_len)
		memcpy(buf + sizeof(h) + rows + spans, t->cfi_path, h.path_len);
	h.crc = (uint32_t)crc32_z(0, (const Bytef *)buf + TF_CRC_FROM, size - TF_CRC_FROM);
	memcpy(buf + offsetof(struct tf_header, crc), &h.crc, sizeof(h.crc));
	*len = size;
	return buf;
}

/* Sets @why and returns -EINVAL, so every check is one line. */
__attribute__((format(printf, 3, 4))) static int tf__bad(char *why, size_t len, const char *fmt,
							  ...)
{
	va_list ap;

	if (why && len) {
		va_start(ap, fmt);
		vsnprintf(why, len, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* The header's own fields and the sizes it claims, against the file's length. */
static int tf__check_frame(const struct tf_header *h, size_t len, char *why, size_t wl)
{
	uint64_t avail = len - sizeof(*h);

	if (memcmp(h->magic, TF_MAGIC, sizeof(h->magic)))
		return tf__bad(why, wl, "not a stacktap table cache file");
	if (h->version != TABLE_FILE_VERSION)
		return tf__bad(why, wl, "format version %u, not %u", h->version, TABLE_FILE_VERSION);
	if (h->header_size != sizeof(*h) || h->row_size != sizeof(struct unwind_row) ||
	    h->span_size != sizeof(struct unwind_span))
		return tf__bad(why, wl, "header, row or span size not this build's");
	if (h->nrows > avail / sizeof(struct unwind_row) ||
	    h->nspans > avail / sizeof(struct unwind_span) || h->path_len > TF_PATH_MAX ||
	    h->nrows * sizeof(struct unwind_row) + h->nspans * sizeof(struct unwind_span) +
			    h->path_len != avail)
		return tf__bad(why, wl, "%zu bytes, not what its header counts", len);
	return 0;
}

/* The figures: each within what the builder can make. */
static int tf__check_fields(const struct tf_header *h, char *why, size_t wl)
{
	if (h->id_len == 0 || h->id_len > UNWIND_ID_MAX)
		return tf__bad(why, wl, "build ID of %u bytes", h->id_len);
	if (h->source >= UNWIND_SRC_MAX || h->go > 1)
		return tf__bad(why, wl, "unknown source %u", h->source);
	if (h->covered_bytes > h->exec_bytes)
		return tf__bad(why, wl, "covers more bytes than the file has");
	return 0;
}

static int tf__check_key(const struct tf_header *h, const struct table_key *want, char *why,
			 size_t wl)
{
	if (h->id_len != want->id_len || memcmp(h->id, want->id, want->id_len))
		return tf__bad(why, wl, "the table of another build ID");
	if (h->sig != want->sig)
		return tf__bad(why, wl, "built by another stacktap or from other sources");
	if (h->base != want->base)
		return tf__bad(why, wl, "table base %#llx, not %#llx", (unsigned long long)h->base,
			       (unsigned long long)want->base);
	return 0;
}

/* Rows as the walkers need them: strictly ascending pcs, rules they know. */
static int tf__check_rows(const struct unwind_row *r, size_t n, char *why, size_t wl)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (r[i].cfa > UNWIND_CFA_LAST || r[i].rbp > UNWIND_RBP_UNDEFINED)
			return tf__bad(why, wl, "row %zu: unknown rule", i);
		if (i && r[i].pc <= r[i - 1].pc)
			return tf__bad(why, wl, "row %zu: out of order", i);
	}
	return 0;
}

static int tf__check_spans(const struct unwind_span *s, size_t n, char *why, size_t wl)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i].lo >= s[i].hi || s[i].source == UNWIND_SRC_NONE ||
		    s[i].source >= UNWIND_SRC_MAX)
			return tf__bad(why, wl, "span %zu: empty or of no source", i);
		if (i && s[i].lo < s[i - 1].hi)
			return tf__bad(why, wl, "span %zu: out of order", i);
	}
	return 0;
}

/*
 * Puts the checked copies into @t (which owns them from here); rows that
 * point into the caller's buffer (@borrowed) get no capacity: nothing may
 * grow them.
 */
static void tf__install(const struct tf_header *h, struct unwind_row *r, bool borrowed,
			struct unwind_span *s, char *path, struct unwind_table *t)
{
	unwind_rows__release(&t->rows);
	t->rows = (struct unwind_rows){ .rows = r, .n = h->nrows, .cap = borrowed ? 0 : h->nrows };
	memcpy(t->rows.unsupported, h->unsupported, sizeof(t->rows.unsupported));
	free(t->spans);
	t->spans = s;
	t->nspans = h->nspans;
	free(t->cfi_path);
	t->cfi_path = path;
	t->source = (enum unwind_source)h->source;
	t->go = h->go;
	tf__cfi_in(h->cfi, &t->cfi);
	memcpy(t->src_fdes, h->src_fdes, sizeof(t->src_fdes));
	t->exec_bytes = h->exec_bytes;
	t->covered_bytes = h->covered_bytes;
}

/*
 * The payload after @h: checked, then put in @t. The rows are copied (the
 * buffer may be unaligned for them) unless @borrow: then @t's rows are the
 * buffer's own.
 */
static int tf__payload(const struct tf_header *h, const char *p, bool borrow,
		       struct unwind_table *t, char *why, size_t wl)
{
	size_t rows = h->nrows * sizeof(struct unwind_row);
	size_t spans = h->nspans * sizeof(struct unwind_span);
	struct unwind_row *r = borrow ? (struct unwind_row *)p : malloc(rows ? rows : 1);
	struct unwind_span *s = malloc(spans ? spans : 1);
	char *path = NULL;
	int err = -ENOMEM;

	if (!r || !s)
		goto err_free;
	if (!borrow)
		memcpy(r, p, rows);
	memcpy(s, p + rows, spans);
	err = tf__check_rows(r, h->nrows, why, wl);
	if (!err)
		err = tf__check_spans(s, h->nspans, why, wl);
	if (!err && memchr(p + rows + spans, '\0', h->path_len))
		err = tf__bad(why, wl, "debug file path holds a NUL");
	if (!err && h->path_len && !(path = strndup(p + rows + spans, h->path_len)))
		err = -ENOMEM;
	if (err)
		goto err_free;
	tf__install(h, r, borrow, s, path, t);
	return 0;
err_free:
	if (!borrow)
		free(r);
	free(s);
	return err;
}

static int tf__decode(const void *buf, size_t len, const struct table_key *want, bool borrow,
		      struct unwind_table *t, char *why, size_t why_len)
{
	const char *p = buf;
	struct tf_header h;
	int err;

	if (len < sizeof(h))
		return tf__bad(why, why_len, "%zu bytes, shorter than a header", len);
	memcpy(&h, p, sizeof(h));
	err = tf__check_frame(&h, len, why, why_len);
	if (!err && h.crc != (uint32_t)crc32_z(0, (const Bytef *)p + TF_CRC_FROM, len - TF_CRC_FROM))
		err = tf__bad(why, why_len, "checksum mismatch");
	if (!err)
		err = tf__check_fields(&h, why, why_len);
	if (!err && want)
		err = tf__check_key(&h, want, why, why_len);
	return err ? err : tf__payload(&h, p + sizeof(h), borrow, t, why, why_len);
}

int table_file__decode(const void *buf, size_t len, const struct table_key *want,
		       struct unwind_table *t, char *why, size_t why_len)
{
	return tf__decode(buf, len, want, false, t, why, why_len);
}

int table_file__decode_in_place(const void *buf, size_t len, const struct table_key *want,
				struct unwind_table *t, char *why, size_t why_len)
{
	/* The rows follow the header: aligned for them when @buf is. */
	if ((uintptr_t)buf % _Alignof(struct tf_header) ||
	    (uintptr_t)((const char *)buf + sizeof(struct tf_header)) % _Alignof(struct unwind_row))
		return tf__bad(why, why_len, "not aligned for its rows");
	return tf__decode(buf, len, want, true, t, why, why_len);
}
