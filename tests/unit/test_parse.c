// SPDX-License-Identifier: GPL-2.0
/* The number parsers every option goes through: whole strings, ranges, bases, errno. */
#include <errno.h>
#include <stdint.h>

#include "lib/util/parse.h"
#include "tests/unit/check.h"

static void u64_ok(const char *s, uint64_t min, uint64_t max, uint64_t want)
{
	uint64_t v = 12345;

	CHECK_EQ_U64(parse_u64(s, min, max, &v), 0);
	CHECK_EQ_U64(v, want);
}

static void u64_err(const char *s, uint64_t min, uint64_t max, int err)
{
	uint64_t v = 12345;

	CHECK_EQ_U64(parse_u64(s, min, max, &v), (uint64_t)err);
	CHECK_EQ_U64(v, 12345); /* untouched on failure */
}

static void test_u64(void)
{
	u64_ok("0", 0, 10, 0);
	u64_ok("185", 1, 4194304, 185);
	u64_ok("010", 0, 100, 10); /* not octal */
	u64_ok("0x27290", 0, UINT64_MAX, 0x27290);
	u64_ok("0XfF", 0, UINT64_MAX, 255);
	u64_ok("18446744073709551615", 0, UINT64_MAX, UINT64_MAX);
	u64_err("18446744073709551616", 0, UINT64_MAX, -ERANGE);
	u64_err("0", 1, 10, -ERANGE);
	u64_err("11", 1, 10, -ERANGE);
	u64_err("", 0, 10, -EINVAL);
	u64_err(NULL, 0, 10, -EINVAL);
	u64_err("-1", 0, 10, -EINVAL);
	u64_err("+1", 0, 10, -EINVAL);
	u64_err(" 1", 0, 10, -EINVAL);
	u64_err("1 ", 0, 10, -EINVAL);
	u64_err("1k", 0, 10000, -EINVAL);
	u64_err("08x", 0, 10000, -EINVAL);
	u64_err("0x", 0, 10, -EINVAL);
	u64_err("0x-1", 0, 10, -EINVAL);
	u64_err("0xg", 0, 10, -EINVAL);
	u64_err("1.5", 0, 10, -EINVAL);
}

static void sec_ok(const char *s, uint64_t want_ns)
{
	uint64_t ns = 12345;

	CHECK_EQ_U64(parse_seconds(s, &ns), 0);
	CHECK_EQ_U64(ns, want_ns);
}

static void sec_err(const char *s, int err)
{
	uint64_t ns = 12345;

	CHECK_EQ_U64(parse_seconds(s, &ns), (uint64_t)err);
	CHECK_EQ_U64(ns, 12345);
}

static void test_seconds(void)
{
	sec_ok("0", 0);
	sec_ok("5", 5000000000ull);
	sec_ok("0.05", 50000000ull);
	sec_ok(".5", 500000000ull);
	sec_ok("2.", 2000000000ull);
	sec_ok("1e-3", 1000000ull);
	sec_ok("31536000", 31536000000000000ull); /* a year, the limit */
	sec_err("31536001", -ERANGE);
	sec_err("1e400", -ERANGE);
	sec_err("-1", -EINVAL);
	sec_err("+1", -EINVAL);
	sec_err("", -EINVAL);
	sec_err(NULL, -EINVAL);
	sec_err(".", -EINVAL);
	sec_err("1s", -EINVAL);
	sec_err("inf", -EINVAL);
	sec_err("nan", -EINVAL);
	sec_err("0x10", -EINVAL);
	sec_err(" 1", -EINVAL);
}

int main(void)
{
	test_u64();
	test_seconds();
	return CHECK_DONE();
}
