// SPDX-License-Identifier: GPL-2.0
/* The table cache: a loaded table equals the built one in every field, and damage is found. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/unwind/table.h"
#include "lib/unwind/table_cache.h"
#include "lib/unwind/table_file.h"
#include "tests/unit/check.h"

/* Every field a cache file carries, compared; the rest comes from the file model. */
static void check_same(const struct unwind_table *a, const struct unwind_table *b)
{
	CHECK_EQ_U64(b->rows.n, a->rows.n);
	CHECK(!memcmp(a->rows.rows, b->rows.rows, a->rows.n * sizeof(*a->rows.rows)));
	CHECK(!memcmp(a->rows.unsupported, b->rows.unsupported, sizeof(a->rows.unsupported)));
	CHECK_EQ_U64(b->nspans, a->nspans);
	CHECK(!memcmp(a->spans, b->spans, a->nspans * sizeof(*a->spans)));
	CHECK_EQ_U64(b->source, a->source);
	CHECK(!memcmp(&a->cfi, &b->cfi, sizeof(a->cfi)));
	CHECK(!memcmp(a->src_fdes, b->src_fdes, sizeof(a->src_fdes)));
	CHECK_EQ_U64(b->go, a->go);
	CHECK_EQ_U64(b->exec_bytes, a->exec_bytes);
	CHECK_EQ_U64(b->covered_bytes, a->covered_bytes);
	CHECK(!a->cfi_path == !b->cfi_path);
	if (a->cfi_path && b->cfi_path)
		CHECK_STR(b->cfi_path, a->cfi_path);
}

/* Built (and saved), then loaded: the same table. Return: the built one, for more checks. */
static struct unwind_table *check_file(const char *file)
{
	uint64_t l0, s0, d0, l1, s1, d1, l2, s2, d2;
	struct unwind_table *built, *loaded;

	if (access(file, R_OK)) {
		CHECK_SKIP(file, "not here");
		return NULL;
	}
	table_cache__stats(&l0, &s0, &d0);
	built = unwind_table__build(file);
	table_cache__stats(&l1, &s1, &d1);
	loaded = unwind_table__build(file);
	table_cache__stats(&l2, &s2, &d2);
	CHECK(built && loaded);
	if (!built || !loaded) {
		unwind_table__free(loaded);
		return built;
	}
	CHECK(built->rows.n > 0);
	CHECK_EQ_U64(s1 - s0, 1); /* built and saved */
	CHECK_EQ_U64(l1 - l0, 0);
	CHECK_EQ_U64(l2 - l1, 1); /* then loaded */
	CHECK_EQ_U64(s2 - s1, 0);
	CHECK_EQ_U64(d2 - d0, 0);
	check_same(built, loaded);
	/* Both take large rows from the mapped file; with their pages dropped, the same rows. */
	CHECK(!built->rows_map == !loaded->rows_map);
	CHECK(!loaded->rows_map == (loaded->rows_map_len < TABLE_CACHE_MAP_MIN));
	CHECK(!loaded->rows_map || !loaded->rows.cap);
	unwind_table__drop_pages(built);
	unwind_table__drop_pages(loaded);
	check_same(built, loaded);
	CHECK_EQ_U64(loaded->base, built->base);
	CHECK(loaded->id_len == built->id_len && !memcmp(built->id, loaded->id, built->id_len));
	unwind_table__free(loaded);
	return built;
}

/* Every single-bit flip of a whole cache file is refused (CRC-32 finds every one). */
static void check_flips(const struct unwind_table *t)
{
	struct table_key key = { .id_len = t->id_len, .sig = 42, .base = t->base };
	struct unwind_table out = { 0 };
	size_t len, i, refused = 0, bits = 0;
	uint8_t *buf;
	char why[160];

	memcpy(key.id, t->id, t->id_len);
	buf = table_file__encode(t, &key, &len);
	CHECK(buf != NULL);
	if (!buf)
		return;
	CHECK_EQ_U64(table_file__decode(buf, len, &key, &out, why, sizeof(why)), 0);
	check_same(t, &out);
	for (i = 0; i < len * 8; i++, bits++) {
		buf[i / 8] ^= 1u << (i % 8);
		refused += table_file__decode(buf, len, &key, &out, why, sizeof(why)) == -EINVAL;
		buf[i / 8] ^= 1u << (i % 8);
	}
	CHECK_EQ_U64(refused, bits);
	/* Cut short anywhere: refused. */
	for (i = 0, refused = 0; i < len; i++)
		refused += table_file__decode(buf, i, &key, &out, why, sizeof(why)) == -EINVAL;
	CHECK_EQ_U64(refused, len);
	/* Another key: refused, and says why. */
	key.id[0] ^= 1;
	CHECK_EQ_U64(table_file__decode(buf, len, &key, &out, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "the table of another build ID");
	key.id[0] ^= 1;
	key.sig++;
	CHECK_EQ_U64(table_file__decode(buf, len, &key, &out, why, sizeof(why)), (uint64_t)-EINVAL);
	CHECK_STR(why, "built by another stacktap or from other sources");
	key.sig--;
	key.base++;
	CHECK_EQ_U64(table_file__decode(buf, len, &key, &out, why, sizeof(why)), (uint64_t)-EINVAL);
	/* The refusals left the table read first untouched. */
	check_same(t, &out);
	unwind_rows__release(&out.rows);
	free(out.spans);
	free(out.cfi_path);
	free(buf);
}

int main(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";
	char dir[] = "/tmp/stacktap-table-cache.XXXXXX", file[256], cmd[300];
	struct unwind_table *t;

	/* Never the user's own cache: one of this test's, removed at the end. */
	if (!mkdtemp(dir))
		return 1;
	setenv(TABLE_CACHE_ENV_DIR, dir, 1);
	t = check_file("/usr/lib/x86_64-linux-gnu/libc.so.6");
	CHECK(t && t->rows_map); /* 500 KiB of rows */
	unwind_table__free(t);
	unwind_table__free(check_file("/usr/bin/python3.11"));
	unwind_table__free(check_file("/usr/bin/node"));
	snprintf(file, sizeof(file), "%s/workloads/qsort_chain_dwarf_split", o);
	t = check_file(file); /* .debug_frame from its separate debug file */
	CHECK(t && t->cfi_path != NULL);
	unwind_table__free(t);
	snprintf(file, sizeof(file), "%s/workloads/qsort_chain_sframe", o);
	t = check_file(file);
	if (t)
		check_flips(t);
	unwind_table__free(t);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK(system(cmd) == 0);
	return CHECK_DONE();
}
