/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol buffers wire format, encoding only: varints, packed varints,
 * length-delimited bytes and nested messages, into a growing buffer. Enough
 * for profile.proto; errors are sticky, so a writer checks once at the end.
 */
#ifndef ST_OUT_PROTOBUF_H
#define ST_OUT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	int err; /* 0, or -ENOMEM once an append failed (later appends do nothing) */
};

/** pb_varint() - field @field as a varint (wire type 0); 0 is written too. */
void pb_varint(struct pb_buf *b, uint32_t field, uint64_t v);

/** pb_varint_nz() - pb_varint() unless @v is 0 (proto3 leaves defaults out). */
void pb_varint_nz(struct pb_buf *b, uint32_t field, uint64_t v);

/** pb_bytes() - field @field as length-delimited bytes (wire type 2). */
void pb_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len);

/** pb_message() - @sub's bytes as the nested message @field. */
void pb_message(struct pb_buf *b, uint32_t field, const struct pb_buf *sub);

/** pb_packed() - @n varints as one packed repeated field (nothing when @n is 0). */
void pb_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

/** pb_reset() - empty @b, keeping its memory (for the next nested message). */
void pb_reset(struct pb_buf *b);

/** pb_free() - free @b's memory. */
void pb_free(struct pb_buf *b);

#endif
