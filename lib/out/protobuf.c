// SPDX-License-Identifier: GPL-2.0
/* The protocol buffers wire format, encoding only. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out/protobuf.h"
#include "lib/util/varint.h"

enum { PB_VARINT = 0, PB_LEN = 2 };

static int pb__reserve(struct pb_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->err)
		return b->err;
	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more) {
		if (cap > SIZE_MAX / 2) {
			b->err = -ENOMEM;
			return b->err;
		}
		cap *= 2;
	}
	p = realloc(b->data, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->data = p;
	b->cap = cap;
	return 0;
}

/* A bare varint: 7 bits a byte, low bits first, the high bit says "more". */
static void pb__raw_varint(struct pb_buf *b, uint64_t v)
{
	if (pb__reserve(b, VARINT_MAX))
		return;
	b->len = (size_t)(varint_put(b->data + b->len, v) - b->data);
}

static size_t pb__varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb__raw_varint(b, (uint64_t)field << 3 | PB_VARINT);
	pb__raw_varint(b, v);
}

void pb_varint_nz(struct pb_buf *b, uint32_t field, uint64_t v)
{
	if (v)
		pb_varint(b, field, v);
}

void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len)
{
	pb__raw_varint(b, (uint64_t)field << 3 | PB_LEN);
	pb__raw_varint(b, len);
	if (!len || pb__reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *sub)
{
	if (sub->err && !b->err)
		b->err = sub->err;
	pb_bytes(b, field, sub->data, sub->len);
}

void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t i, len = 0;

	if (!n)
		return;
	for (i = 0; i < n; i++)
		len += pb__varint_len(v[i]);
	pb__raw_varint(b, (uint64_t)field << 3 | PB_LEN);
	pb__raw_varint(b, len);
	for (i = 0; i < n; i++)
		pb__raw_varint(b, v[i]);
}

void pb_reset(struct pb_buf *b)
{
	b->len = 0;
	b->err = 0;
}

void pb_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
