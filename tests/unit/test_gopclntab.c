// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/sym/gopclntab: the Go workload (tests/workloads/go_names.go)
 * named from .gopclntab, with .symtab, stripped and as a stripped PIE, checked
 * against every function symbol of the unstripped build; Go 1.15's table from
 * Go's own test data (1.2 layout); the 1.16, 1.2 and 1.20 layouts re-encoded
 * from the real table; hostile tables.
 *
 * ST_WRITE_SEEDS=DIR writes the small re-encoded tables as fuzz seeds
 * (fuzz/corpus/gopclntab/, see fuzz/corpus/README.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/sym/gopclntab.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_syms.h"

struct go_elf {
	int fd;
	Elf *elf;
	struct gopclntab *t;
};

static void go_elf__open(struct go_elf *g, const char *path)
{
	elf_version(EV_CURRENT);
	g->fd = open(path, O_RDONLY | O_CLOEXEC);
	g->elf = g->fd >= 0 ? elf_begin(g->fd, ELF_C_READ, NULL) : NULL;
	g->t = g->elf ? gopclntab__from_elf(g->elf) : NULL;
	if (!g->t)
		fprintf(stderr, "%s: no Go table: %s\n", path, strerror(errno));
	CHECK(g->t != NULL);
}

static void go_elf__close(struct go_elf *g)
{
	gopclntab__free(g->t);
	elf_end(g->elf);
	if (g->fd >= 0)
		close(g->fd);
}

/*
 * The name the runtime gives symbol @sym: .symtab calls assembly functions'
 * ABI0 symbols NAME.abi0, and the linker shortens array types in the
 * pclntab ("type..eq.[5]T" is "type..eq.[...]T" there).
 */
static void go_name_of(const char *sym, char *buf, size_t size)
{
	size_t n = 0;
	const char *s;

	for (s = sym; *s && n + 6 < size; s++) {
		if (*s == '[' && s[1] >= '0' && s[1] <= '9') {
			for (s++; *s >= '0' && *s <= '9'; s++)
				;
			if (*s != ']')
				break;
			memcpy(buf + n, "[...]", 5);
			n += 5;
			continue;
		}
		buf[n++] = *s;
	}
	buf[n] = '\0';
	if (n > 5 && !strcmp(buf + n - 5, ".abi0"))
		buf[n - 5] = '\0';
}

/* runtime.text and runtime.etext mark the ends of the text; they are no functions. */
static bool is_marker(const char *sym)
{
	return !strcmp(sym, "runtime.text") || !strcmp(sym, "runtime.etext");
}

/* Every function symbol of the unstripped build names itself through @t. */
static size_t check_against_symtab(const struct gopclntab *t, const struct test_syms *ts)
{
	const struct go_func *f;
	size_t i, checked = 0, bad = 0;
	char want[512];

	for (i = 0; i < ts->n; i++) {
		if (is_marker(ts->v[i].name))
			continue;
		go_name_of(ts->v[i].name, want, sizeof(want));
		f = gopclntab__find(t, ts->v[i].addr);
		if (!f || f->entry != ts->v[i].addr || strcmp(f->name, want)) {
			if (bad++ < 5)
				fprintf(stderr, "0x%lx %s: got %s\n", (unsigned long)ts->v[i].addr,
					want, f ? f->name : "(none)");
			continue;
		}
		checked++;
	}
	CHECK_EQ_U64(bad, 0);
	return checked;
}

static void check_known(const struct gopclntab *t, const struct test_syms *ts, const char *name)
{
	const struct test_sym *s = test_syms__find(ts, name);
	const struct go_func *f = s ? gopclntab__find(t, s->addr + 1) : NULL;

	CHECK(s != NULL);
	CHECK_STR(f ? f->name : NULL, name);
}

static bool same_funcs(const struct gopclntab *a, const struct gopclntab *b)
{
	size_t na, nb, i;
	const struct go_func *fa = gopclntab__funcs(a, &na), *fb = gopclntab__funcs(b, &nb);

	for (i = 0; na == nb && i < na; i++)
		if (fa[i].entry != fb[i].entry || fa[i].end != fb[i].end ||
		    strcmp(fa[i].name, fb[i].name))
			return false;
	return na == nb;
}

static const struct go_func *by_name(const struct gopclntab *t, const char *name)
{
	size_t n, i;
	const struct go_func *f = gopclntab__funcs(t, &n);

	for (i = 0; i < n && strcmp(f[i].name, name); i++)
		;
	return i < n ? &f[i] : NULL;
}

static void check_pie(const struct gopclntab *pie, const struct gopclntab *full)
{
	static const char *const names[] = { "main.main", "main.work", "main.leaf",
					     "runtime.goexit", "runtime.main" };
	const struct go_func *f;
	size_t np, nf, i;

	gopclntab__funcs(pie, &np);
	gopclntab__funcs(full, &nf);
	CHECK(np > 1000 && np + 50 > nf && nf + 50 > np);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		f = by_name(pie, names[i]);
		CHECK(f && gopclntab__find(pie, f->entry) == f && gopclntab__find(pie, f->end - 1) == f);
	}
}

/* --- tables re-encoded in each layout (little- or big-endian, 64-bit) --- */

struct enc {
	uint8_t *d;
	size_t n;
	bool be;
};

static void enc__set(struct enc *e, size_t at, uint64_t v, unsigned int size)
{
	for (unsigned int i = 0; i < size; i++)
		e->d[at + (e->be ? size - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static uint64_t enc__get(const struct enc *e, size_t at, unsigned int size)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)e->d[at + (e->be ? size - 1 - i : i)] << (8 * i);
	return v;
}

static uint32_t magic_of(int version)
{
	return version == 12 ? 0xfffffffb : version == 116 ? 0xfffffffa
	       : version == 118 ? 0xfffffff0 : 0xfffffff1;
}

#define FUNC_REC 40 /* bytes per _func record: entry, nameoff, then fields names ignore */
#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/*
 * @f[0..n) in the @version layout, as the Go linker lays it out:
 *   1.2:   header, nfunc, functab, file table offset, _func records, names
 *   1.16+: header words, names (funcnametab), functab, _func records
 * Pcs are stored relative to @text for 1.18+; _func records hold only the
 * entry and the name offset (the other fields zero).
 */
static struct enc encode(const struct go_func *f, size_t n, int version, uint64_t text, bool be)
{
	unsigned int fsz = version >= 118 ? 4 : 8, sz0 = fsz;
	size_t words = version == 12 ? 1 : version == 116 ? 7 : 8;
	size_t names_len = 0, names, functab, funcs, i, at, noff = 0;
	uint64_t base = version >= 118 ? text : 0;
	struct enc e = { .be = be };

	for (i = 0; i < n; i++)
		names_len += strlen(f[i].name) + 1;
	if (version == 12) {
		functab = 16;
		funcs = ALIGN8(functab + (2 * n + 1) * fsz + 4);
		names = funcs + n * FUNC_REC;
		e.n = names + names_len;
	} else {
		names = 8 + words * 8;
		functab = ALIGN8(names + names_len);
		funcs = ALIGN8(functab + (2 * n + 1) * fsz);
		e.n = funcs + n * FUNC_REC;
	}
	e.d = calloc(1, e.n);
	enc__set(&e, 0, magic_of(version), 4);
	e.d[6] = 1; /* quantum */
	e.d[7] = 8; /* pointer size */
	enc__set(&e, 8, n, 8);
	if (version >= 118)
		enc__set(&e, 8 + 2 * 8, text, 8);
	if (version != 12) {
		enc__set(&e, 8 + (version == 116 ? 2 : 3) * 8, names, 8);
		enc__set(&e, 8 + (version == 116 ? 6 : 7) * 8, functab, 8);
	}
	for (i = 0; i < n; i++) {
		at = funcs + i * FUNC_REC;
		enc__set(&e, functab + 2 * i * fsz, f[i].entry - base, fsz);
		enc__set(&e, functab + (2 * i + 1) * fsz, at - (version == 12 ? 0 : functab), fsz);
		enc__set(&e, at, f[i].entry - base, sz0);
		enc__set(&e, at + sz0, (version == 12 ? names : 0) + noff, 4);
		memcpy(e.d + names + noff, f[i].name, strlen(f[i].name));
		noff += strlen(f[i].name) + 1;
	}
	enc__set(&e, functab + 2 * n * fsz, f[n - 1].end - base, fsz);
	return e;
}

static void check_layouts(const struct gopclntab *real)
{
	static const int versions[] = { 12, 116, 118, 120 };
	const char *seeds = getenv("ST_WRITE_SEEDS");
	const struct go_func *f;
	struct gopclntab *t;
	struct enc e;
	size_t n, i;
	char path[512];

	f = gopclntab__funcs(real, &n);
	for (i = 0; i < 8; i++) {
		int v = versions[i % 4];
		bool be = i >= 4;

		e = encode(f, n, v, f[0].entry & ~0xfffULL, be);
		t = gopclntab__parse(e.d, e.n, 0);
		CHECK(t && gopclntab__version(t) == v && same_funcs(t, real));
		gopclntab__free(t);
		free(e.d);
		if (!seeds)
			continue;
		e = encode(f, 12, v, f[0].entry & ~0xfffULL, be); /* small: fuzz seeds */
		snprintf(path, sizeof(path), "%s/go%d%s.pclntab", seeds, v, be ? "-be" : "");
		FILE *out = fopen(path, "w");
		CHECK(out && fwrite(e.d, 1, e.n, out) == e.n && fclose(out) == 0);
		free(e.d);
	}
}

/* Truncated, unsorted, lying: refused or trimmed, never read past the end. */
static void check_hostile(const struct gopclntab *real)
{
	const struct go_func *f;
	struct gopclntab *t;
	struct enc e;
	size_t n, cut, got;
	uint8_t *copy;

	f = gopclntab__funcs(real, &n);
	e = encode(f, 40, 118, f[0].entry, false);
	for (cut = 0; cut < e.n; cut += 7) {
		copy = malloc(cut + 1); /* exact size: ASan sees any read past @cut */
		memcpy(copy, e.d, cut);
		t = gopclntab__parse(copy, cut, 0);
		if (t) {
			gopclntab__funcs(t, &got);
			CHECK(got + gopclntab__dropped(t) == 40);
		}
		gopclntab__free(t);
		free(copy);
	}
	/* Function 1's pc below function 0's: unsorted, refused. */
	enc__set(&e, enc__get(&e, 8 + 7 * 8, 8) + 2 * 4, 0, 4);
	enc__set(&e, enc__get(&e, 8 + 7 * 8, 8), 0x100, 4);
	errno = 0;
	CHECK(gopclntab__parse(e.d, e.n, 0) == NULL && errno == EINVAL);
	free(e.d);
	/* A _func whose entry disagrees with the table: that function only is dropped. */
	e = encode(f, 40, 116, 0, false);
	{
		uint64_t pcln = enc__get(&e, 8 + 6 * 8, 8);

		e.d[pcln + enc__get(&e, pcln + (2 * 5 + 1) * 8, 8)] ^= 1;
	}
	t = gopclntab__parse(e.d, e.n, 0);
	CHECK(t && gopclntab__dropped(t) == 1 && (gopclntab__funcs(t, &got), got == 39));
	CHECK(t && gopclntab__find(t, f[5].entry) == NULL && gopclntab__find(t, f[6].entry));
	gopclntab__free(t);
	/* Absurd counts and header bytes. */
	enc__set(&e, 8, UINT64_MAX / 2, 8);
	CHECK(gopclntab__parse(e.d, e.n, 0) == NULL);
	enc__set(&e, 8, 40, 8);
	e.d[6] = 3; /* quantum */
	CHECK(gopclntab__parse(e.d, e.n, 0) == NULL);
	e.d[6] = 1;
	e.d[7] = 2; /* pointer size */
	CHECK(gopclntab__parse(e.d, e.n, 0) == NULL);
	CHECK(gopclntab__parse(e.d, 15, 0) == NULL && gopclntab__parse(NULL, 0, 0) == NULL);
	free(e.d);
}

/* Go 1.15's table (the 1.2 layout), from Go's own tests: main.main at 0x105c280. */
static void test_go115(void)
{
	const char *path = "/usr/lib/go-1.19/src/debug/gosym/testdata/pcln115.gz";
	const struct go_func *f;
	struct gopclntab *t;
	size_t len = 0, n;
	uint8_t *buf;
	gzFile gz;
	int r;

	gz = gzopen(path, "rb");
	CHECK(gz != NULL);
	if (!gz)
		return;
	buf = malloc(1 << 20);
	while (buf && (r = gzread(gz, buf + len, (unsigned int)((1 << 20) - len))) > 0)
		len += (size_t)r;
	gzclose(gz);
	t = gopclntab__parse(buf, len, 0);
	CHECK(t && gopclntab__version(t) == 12);
	f = gopclntab__find(t, 0x105c280);
	CHECK(f && f->entry == 0x105c280);
	CHECK_STR(f ? f->name : NULL, "main.main");
	CHECK(t && by_name(t, "runtime.goexit") && by_name(t, "runtime.main"));
	if (t) {
		gopclntab__funcs(t, &n);
		CHECK(n > 1000 && gopclntab__dropped(t) == 0);
	}
	gopclntab__free(t);
	free(buf);
}

static void test_workload(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";
	struct go_elf full, stripped, pie;
	struct test_syms ts, none;
	const struct go_func *f;
	char path[512];
	size_t n;

	snprintf(path, sizeof(path), "%s/workloads/go_names", o);
	CHECK(test_syms__read(path, &ts) == 0 && ts.n > 1000);
	go_elf__open(&full, path);
	snprintf(path, sizeof(path), "%s/workloads/go_names_stripped", o);
	CHECK(test_syms__read(path, &none) == 0 && none.n == 0); /* really stripped */
	go_elf__open(&stripped, path);
	snprintf(path, sizeof(path), "%s/workloads/go_names_pie", o);
	go_elf__open(&pie, path);
	if (!full.t || !stripped.t || !pie.t)
		goto out;
	CHECK_EQ_U64(gopclntab__version(full.t), 118); /* go 1.19 */
	CHECK_EQ_U64(gopclntab__dropped(full.t), 0);
	gopclntab__funcs(full.t, &n);
	CHECK_EQ_U64(check_against_symtab(full.t, &ts), ts.n - 2);
	CHECK_EQ_U64(n, ts.n - 2); /* one entry per function symbol */
	check_known(full.t, &ts, "main.main");
	check_known(full.t, &ts, "main.work");
	check_known(full.t, &ts, "main.leaf");
	check_known(stripped.t, &ts, "main.main");
	check_known(stripped.t, &ts, "main.work");
	/* -s leaves code and table where they were: the symbols of the full build hold. */
	CHECK(same_funcs(full.t, stripped.t));
	CHECK_EQ_U64(check_against_symtab(stripped.t, &ts), ts.n - 2);
	f = by_name(stripped.t, "runtime.goexit");
	CHECK(f && f->entry == test_syms__find(&ts, "runtime.goexit.abi0")->addr);
	/* The PIE is other code: the same functions, each where its table says. */
	check_pie(pie.t, full.t);
	check_layouts(full.t);
	check_hostile(full.t);
out:
	go_elf__close(&full);
	go_elf__close(&stripped);
	go_elf__close(&pie);
	test_syms__free(&ts);
}

int main(void)
{
	test_workload();
	test_go115();
	return CHECK_DONE();
}
