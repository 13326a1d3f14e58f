// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for the table cache's file reader (lib/unwind/table_file.c). */
/*
 * Any bytes are read as a cache file: with no key; then, with the checksum
 * made right (so mutations reach the checks behind it), with no key and with
 * the key its own header names (so the accept path of the key check is
 * reached too).
 * A file that passes is read again in place (the rows not copied) and
 * written again and read back: both reads must pass and give exactly the
 * same rows, spans and figures. Seeds: see
 * fuzz/corpus/README.md (table_file/).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "lib/unwind/table_file.h"

/* Where the header keeps the key (table_file.c's struct tf_header). */
#define CRC_OFF 12 /* the crc covers everything after it */
#define KEY_ID_LEN_OFF 28
#define KEY_ID_OFF 32
#define KEY_SIG_OFF 56
#define KEY_BASE_OFF 64

static void release(struct unwind_table *t)
{
	unwind_rows__release(&t->rows);
	free(t->spans);
	free(t->cfi_path);
	memset(t, 0, sizeof(*t));
}

static void same_or_abort(const struct unwind_table *a, const struct unwind_table *b)
{
	if (a->rows.n != b->rows.n || a->nspans != b->nspans || a->source != b->source ||
	    a->go != b->go || a->exec_bytes != b->exec_bytes ||
	    a->covered_bytes != b->covered_bytes ||
	    memcmp(a->rows.unsupported, b->rows.unsupported, sizeof(a->rows.unsupported)) ||
	    memcmp(&a->cfi, &b->cfi, sizeof(a->cfi)) ||
	    memcmp(a->src_fdes, b->src_fdes, sizeof(a->src_fdes)) ||
	    (a->rows.n && memcmp(a->rows.rows, b->rows.rows, a->rows.n * sizeof(*a->rows.rows))) ||
	    (a->nspans && memcmp(a->spans, b->spans, a->nspans * sizeof(*a->spans))) ||
	    !a->cfi_path != !b->cfi_path || (a->cfi_path && strcmp(a->cfi_path, b->cfi_path)))
		abort();
}

/* A table that was read is written and read again: it must come back the same. */
static void round_trip(const struct unwind_table *t, const struct table_key *key)
{
	struct unwind_table u = { 0 };
	size_t len;
	void *buf = table_file__encode(t, key, &len);

	if (!buf)
		return;
	if (table_file__decode(buf, len, key, &u, NULL, 0))
		abort();
	same_or_abort(t, &u);
	release(&u);
	free(buf);
}

/* A table that was read is read again in place (@data is aligned): the same, rows not copied. */
static void in_place(const uint8_t *data, size_t size, const struct unwind_table *t,
		     const struct table_key *key)
{
	struct unwind_table u = { 0 };

	if (table_file__decode_in_place(data, size, key, &u, NULL, 0))
		abort();
	if (u.rows.n && ((const uint8_t *)u.rows.rows < data ||
			 (const uint8_t *)(u.rows.rows + u.rows.n) > data + size || u.rows.cap))
		abort();
	same_or_abort(t, &u);
	u.rows.rows = NULL; /* @data's own */
	release(&u);
}

/* Reads @data (the checksum right) with the key its header names. */
static void with_key(const uint8_t *data, size_t size)
{
	struct unwind_table t = { 0 };
	struct table_key key = { .id_len = UNWIND_ID_MAX };
	uint32_t id_len;
	char why[160];

	if (!table_file__decode(data, size, NULL, &t, why, sizeof(why)))
		release(&t);
	memcpy(key.id, data + KEY_ID_OFF, UNWIND_ID_MAX);
	memcpy(&key.sig, data + KEY_SIG_OFF, sizeof(key.sig));
	memcpy(&key.base, data + KEY_BASE_OFF, sizeof(key.base));
	/* The header's id_len picks how much of the ID is the key. */
	memcpy(&id_len, data + KEY_ID_LEN_OFF, sizeof(id_len));
	key.id_len = id_len > UNWIND_ID_MAX ? UNWIND_ID_MAX : id_len;
	if (!table_file__decode(data, size, &key, &t, why, sizeof(why))) {
		in_place(data, size, &t, &key);
		round_trip(&t, &key);
		release(&t);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unwind_table t = { 0 };
	uint8_t *copy;
	uint32_t crc;
	char why[160];

	if (!table_file__decode(data, size, NULL, &t, why, sizeof(why)))
		release(&t);
	if (size < 256)
		return 0;
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	crc = (uint32_t)crc32_z(0, copy + CRC_OFF + 4, size - CRC_OFF - 4);
	memcpy(copy + CRC_OFF, &crc, sizeof(crc));
	with_key(copy, size);
	free(copy);
	return 0;
}
