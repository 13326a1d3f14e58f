// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/out/protobuf (the pprof writer's encoder) and lib/out/format (--format names). */
#include <errno.h>

#include "lib/out/format.h"
#include "lib/out/protobuf.h"
#include "tests/unit/check.h"

/* @b holds exactly the @n bytes of @want. */
static void check_bytes(const struct pb_buf *b, const uint8_t *want, size_t n, const char *what)
{
	check_count++;
	if (b->err || b->len != n || memcmp(b->data, want, n)) {
		size_t i;

		check_failures++;
		fprintf(stderr, "%s: err %d, %zu bytes:", what, b->err, b->len);
		for (i = 0; i < b->len; i++)
			fprintf(stderr, " %02x", b->data[i]);
		fprintf(stderr, "\n");
	}
}

static void test_varints(void)
{
	/* Field 1 varint: tag 0x08; the values at each 7-bit boundary (protobuf's encoding guide). */
	static const uint8_t want[] = {
		0x08, 0x00, 0x08, 0x7f, 0x08, 0x80, 0x01, 0x08, 0xac, 0x02,
		0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};
	struct pb_buf b = {};

	pb_varint(&b, 1, 0);
	pb_varint(&b, 1, 127);
	pb_varint(&b, 1, 128);
	pb_varint(&b, 1, 300);
	pb_varint(&b, 1, UINT64_MAX);
	pb_varint_nz(&b, 1, 0); /* left out */
	check_bytes(&b, want, sizeof(want), "varints");
	pb_free(&b);
}

static void test_length_delimited(void)
{
	/* "testing" as field 2 (the guide's example), then field 16 (a two-byte tag). */
	static const uint8_t want[] = {
		0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g', 0x82, 0x01, 0x00,
	};
	struct pb_buf b = {};

	pb_bytes(&b, 2, "testing", 7);
	pb_bytes(&b, 16, "", 0);
	check_bytes(&b, want, sizeof(want), "bytes");
	pb_free(&b);
}

static void test_packed_and_nested(void)
{
	/* Packed [3, 270, 86942] as field 4 (the guide's example), inside message field 3. */
	static const uint8_t want[] = {
		0x1a, 0x08, 0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05,
	};
	static const uint64_t v[] = { 3, 270, 86942 };
	struct pb_buf outer = {}, inner = {};

	pb_packed(&inner, 4, v, 3);
	pb_packed(&inner, 5, v, 0); /* nothing for an empty list */
	pb_message(&outer, 3, &inner);
	check_bytes(&outer, want, sizeof(want), "packed in nested");
	pb_reset(&inner);
	CHECK_EQ_U64(inner.len, 0);
	pb_free(&inner);
	pb_free(&outer);
}

static void test_growth(void)
{
	struct pb_buf b = {};
	size_t i;

	for (i = 0; i < 100000; i++)
		pb_varint(&b, 1, i);
	CHECK_EQ_U64(b.err, 0);
	/* 128 one-byte values, 16256 two-byte ones, the rest three bytes; each with a tag. */
	CHECK_EQ_U64(b.len, 100000 + 128 + 16256 * 2 + (100000 - 128 - 16256) * 3);
	pb_free(&b);
}

static void test_formats(void)
{
	enum out_format f = OUT_FMT_N;
	char err[256];

	CHECK_EQ_U64(out_format_parse("pprof", OUT_FMTS_STACKS, &f, err, sizeof(err)), 0);
	CHECK_EQ_U64(f, OUT_FMT_PPROF);
	CHECK_EQ_U64(out_format_parse("ctf", OUT_FMTS_EVENTS, &f, err, sizeof(err)), 0);
	CHECK_EQ_U64(f, OUT_FMT_CTF);
	CHECK_EQ_U64(out_format_parse("ctf", OUT_FMTS_STACKS, &f, err, sizeof(err)), -EOPNOTSUPP);
	CHECK_STR(err, "format 'ctf': not one this command writes (want text, folded, pprof, "
		       "speedscope, perf-script or flamegraph)");
	CHECK_EQ_U64(out_format_parse("svg", OUT_FMTS_EVENTS, &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "format 'svg': unknown (want text, json, perf-script or ctf)");
	CHECK_EQ_U64(out_format_parse("", OUT_FMT_BIT(OUT_FMT_TEXT), &f, err, sizeof(err)), -EINVAL);
	CHECK_STR(err, "format '': unknown (want text)");
	CHECK_STR(out_format_name(OUT_FMT_PERF_SCRIPT), "perf-script");
	CHECK(out_format_is_dir(OUT_FMT_CTF) && !out_format_is_dir(OUT_FMT_FLAMEGRAPH));
	CHECK(out_format_is_binary(OUT_FMT_PPROF) && !out_format_is_binary(OUT_FMT_TEXT));
}

int main(void)
{
	test_varints();
	test_length_delimited();
	test_packed_and_nested();
	test_growth();
	test_formats();
	return CHECK_DONE();
}
