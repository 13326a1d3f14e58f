// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/sym/ksyms: fixture kallsyms texts, then the real /proc/kallsyms. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/sym/ksyms.h"
#include "tests/unit/check.h"

static const char fixture[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 t helper\n"
	"ffffffff81002000 T schedule_fix\n"
	"ffffffff81003000 D some_data\n"
	"ffffffff81004000 W weak_fn\n"
	"ffffffffc0001000 t mod_fn\t[mymod]\n"
	"ffffffffc0002000 T mod_fn2\t[other_mod]\n"
	"ffffffff81009000 t dup\n"
	"ffffffff81000800 t dup\n"
	"\n"
	"garbage line\n"
	"ffffffff8100zzzz T bad_hex\n"
	"ffffffff81005000 T\n"
	"ffffffff81006000 T name\t[unterminated\n"
	"12345678901234567 T too_long_addr\n"
	"ffffffff81007000 T two\t[mod]\textra\n"
	"ffffffff81008000 T last_fn"; /* no final newline */

static const char restricted[] =
	"0000000000000000 T _stext\n"
	"0000000000000000 t helper\n"
	"0000000000000000 t mod_fn\t[mymod]\n";

static char *write_tmp(const char *text, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_ksyms.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return NULL;
	close(fd);
	return path;
}

/* The symbol holding @addr, into *@k; NULL when none. */
static const struct ksym *find(const struct ksyms *ks, uint64_t addr, struct ksym *k)
{
	return ksyms__find(ks, addr, k) ? k : NULL;
}

static const struct ksym *by_name(const struct ksyms *ks, const char *name, struct ksym *k)
{
	return ksyms__by_name(ks, name, k) ? k : NULL;
}

static void test_fixture(void)
{
	const char *path = write_tmp(fixture, sizeof(fixture) - 1);
	struct ksyms *ks = path ? ksyms__load(path) : NULL;
	const struct ksym *s;
	struct ksym k;

	CHECK(ks != NULL);
	if (!ks)
		return;
	unlink(path);
	CHECK_EQ_U64(ksyms__count(ks), 10);
	CHECK_EQ_U64(ksyms__skipped(ks), 6);
	CHECK(find(ks, 0xffffffff80ffffffull, &k) == NULL);
	s = find(ks, 0xffffffff81000000ull, &k);
	CHECK(s && s->module == NULL);
	CHECK_STR(s ? s->name : NULL, "_stext");
	s = find(ks, 0xffffffff810007ffull, &k);
	CHECK_STR(s ? s->name : NULL, "_stext");
	s = find(ks, 0xffffffff81000800ull, &k);
	CHECK_STR(s ? s->name : NULL, "dup");
	s = find(ks, 0xffffffff81001fffull, &k);
	CHECK_STR(s ? s->name : NULL, "helper");
	s = find(ks, 0xffffffff81003500ull, &k); /* some_data is not text */
	CHECK_STR(s ? s->name : NULL, "schedule_fix");
	s = find(ks, 0xffffffff81004001ull, &k);
	CHECK_STR(s ? s->name : NULL, "weak_fn");
	s = find(ks, 0xffffffff81008123ull, &k);
	CHECK_STR(s ? s->name : NULL, "last_fn");
	s = find(ks, 0xffffffffc0001010ull, &k);
	CHECK_STR(s ? s->name : NULL, "mod_fn");
	CHECK_STR(s ? s->module : NULL, "mymod");
	s = by_name(ks, "mod_fn2", &k);
	CHECK_EQ_U64(s ? s->addr : 0, 0xffffffffc0002000ull);
	CHECK_STR(s ? s->module : NULL, "other_mod");
	s = by_name(ks, "dup", &k);
	CHECK_EQ_U64(s ? s->addr : 0, 0xffffffff81000800ull);
	CHECK(by_name(ks, "some_data", &k) == NULL);
	CHECK(by_name(ks, "bad_hex", &k) == NULL);
	CHECK(by_name(ks, "two", &k) == NULL);
	CHECK(by_name(ks, "", &k) == NULL);
	ksyms__free(ks);
}

/*
 * A file far larger than one read (64 KiB): lines split across reads, a
 * line longer than a read (skipped whole), modules in runs, symbols out of
 * order at the tail. Every symbol is found at its start and just before the
 * next one.
 */
static void test_pieces(void)
{
	enum { NSYM = 20000, LONG = 70000 };
	size_t cap = NSYM * 64 + LONG + 64, len = 0, i;
	char *text = malloc(cap), *path;
	struct ksyms *ks = NULL;
	struct ksym k;
	char want[32];
	bool all = true;

	CHECK(text != NULL);
	if (!text)
		return;
	for (i = 0; i < NSYM / 2; i++) /* vmlinux, in order */
		len += snprintf(text + len, cap - len, "%016llx T fn_%zu\n",
				0xffffffff81000000ull + i * 0x100, i);
	len += snprintf(text + len, cap - len, "ffffffff80000000 T ");
	memset(text + len, 'x', LONG);
	len += LONG;
	text[len++] = '\n';
	for (i = NSYM / 2; i < NSYM; i++) /* modules, last first, in runs of 1000 */
		len += snprintf(text + len, cap - len, "%016llx t fn_%zu\t[mod%zu]\n",
				0xffffffffc0000000ull + (NSYM - i) * 0x100, i, i / 1000);
	path = write_tmp(text, len);
	free(text);
	ks = path ? ksyms__load(path) : NULL;
	CHECK(ks != NULL);
	if (!ks)
		return;
	unlink(path);
	CHECK_EQ_U64(ksyms__count(ks), NSYM);
	CHECK_EQ_U64(ksyms__skipped(ks), 1);
	for (i = 0; i < NSYM; i++) {
		uint64_t a = i < NSYM / 2 ? 0xffffffff81000000ull + i * 0x100 :
					    0xffffffffc0000000ull + (NSYM - i) * 0x100;
		char mod[16];

		snprintf(want, sizeof(want), "fn_%zu", i);
		snprintf(mod, sizeof(mod), "mod%zu", i / 1000);
		all &= ksyms__find(ks, a, &k) && !strcmp(k.name, want) && k.addr == a &&
		       (i < NSYM / 2 ? !k.module : k.module && !strcmp(k.module, mod));
		all &= ksyms__find(ks, a + 0xff, &k) && !strcmp(k.name, want);
	}
	CHECK(all);
	CHECK(ksyms__bytes(ks) < (size_t)NSYM * 16 + NSYM * 10 + 4096);
	ksyms__free(ks);
}

/* The one binary search over sorted symbols: first at or after an address, or after it. */
static void test_bound(void)
{
	static const struct ksym v[] = { { 10, "a", NULL }, { 20, "b", NULL }, { 20, "c", NULL },
					 { 30, "d", NULL } };

	CHECK_EQ_U64(ksym__bound(v, 4, 5, false), 0);
	CHECK_EQ_U64(ksym__bound(v, 4, 5, true), 0);
	CHECK_EQ_U64(ksym__bound(v, 4, 15, false), 1);
	CHECK_EQ_U64(ksym__bound(v, 4, 20, false), 1);
	CHECK_EQ_U64(ksym__bound(v, 4, 20, true), 3);
	CHECK_EQ_U64(ksym__bound(v, 4, 30, true), 4);
	CHECK_EQ_U64(ksym__bound(v, 4, 31, false), 4);
	CHECK_EQ_U64(ksym__bound(v, 0, 20, true), 0);
}

static void test_restricted_and_missing(void)
{
	const char *path = write_tmp(restricted, sizeof(restricted) - 1);
	struct ksyms *ks;
	struct ksym k;

	CHECK(path != NULL);
	errno = 0;
	ks = ksyms__load(path);
	CHECK(ks == NULL);
	CHECK_EQ_U64(errno, EACCES);
	ksyms__free(ks);
	unlink(path);

	path = write_tmp("", 0);
	ks = ksyms__load(path);
	CHECK(ks != NULL);
	CHECK_EQ_U64(ks ? ksyms__count(ks) : 1, 0);
	CHECK(ks && !ksyms__find(ks, 0xffffffff81000000ull, &k));
	CHECK(ks && !ksyms__by_name(ks, "x", &k));
	ksyms__free(ks);
	unlink(path);

	errno = 0;
	CHECK(ksyms__load("/nonexistent/kallsyms") == NULL);
	CHECK_EQ_U64(errno, ENOENT);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_real(void)
{
	const struct ksym *s, *f;
	struct ksym k1, k2;
	struct ksyms *ks;
	double t0 = now_ms();

	ks = ksyms__load(NULL);
	if (!ks && errno == EACCES && geteuid() != 0) {
		CHECK_SKIP("real-kallsyms", "/proc/kallsyms hides addresses from non-root");
		return;
	}
	CHECK(ks != NULL);
	if (!ks)
		return;
	fprintf(stderr, "test_ksyms: /proc/kallsyms: %zu text symbols in %.1f ms, %zu bytes held\n",
		ksyms__count(ks), now_ms() - t0, ksyms__bytes(ks));
	CHECK(ksyms__count(ks) > 10000);
	CHECK_EQ_U64(ksyms__skipped(ks), 0);
	s = by_name(ks, "schedule", &k1);
	CHECK(s != NULL);
	f = s ? find(ks, s->addr + 1, &k2) : NULL;
	CHECK_STR(f ? f->name : NULL, "schedule");
	CHECK(f && f->module == NULL);
	ksyms__free(ks);
}

int main(void)
{
	test_fixture();
	test_pieces();
	test_bound();
	test_restricted_and_missing();
	test_real();
	return CHECK_DONE();
}
