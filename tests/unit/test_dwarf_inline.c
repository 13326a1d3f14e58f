// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/sym/dwarf_inline: the inline workload (-O2 -g,
 * tests/workloads/inline.c) gives the exact chain in_b2 -> in_b -> in_a with
 * the lines of each call, from the binary, from its separate debug file and
 * from its clang build (no .debug_aranges: units found by their own ranges);
 * the C++ workload shows std::function's inlined operator() inside
 * app::Square::area; and for every byte of every function of both workloads
 * the frames, names and file:line:column agree with `eu-addr2line -a -f -i`,
 * and stay the same once dwz has moved part of the DWARF to a common file.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/sym/demangle.h"
#include "lib/sym/dwarf_inline.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_syms.h"

/* Lines of tests/workloads/inline.c (its IN_* markers). */
#define IN_B2_CALL 35
#define IN_B_CALL 42
#define IN_A_CALL 49

static const char *workload(const char *name)
{
	static char path[4][512];
	static int i;
	const char *o = getenv("O") ? getenv("O") : "build";

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "%s/workloads/%s", o, name);
	return path[i];
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = s ? strlen(s) : 0, t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

/* The file offset of link-time address @addr, through the section holding it. */
static off_t file_offset(int fd, uint64_t addr)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	off_t off = -1;

	while (elf && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS && addr >= sh.sh_addr &&
		    addr < sh.sh_addr + sh.sh_size && (sh.sh_flags & SHF_EXECINSTR))
			off = (off_t)(addr - sh.sh_addr + sh.sh_offset);
	elf_end(elf);
	return off;
}

/* The address right after @caller's call of @callee (e8 rel32): a return address. */
static uint64_t return_address_in(const char *path, const struct test_sym *caller,
				  const struct test_sym *callee)
{
	uint8_t code[4096];
	uint64_t ret = 0;
	int32_t rel;
	size_t i;
	off_t off;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	off = fd >= 0 ? file_offset(fd, caller->addr) : -1;
	if (off < 0 || caller->size > sizeof(code) ||
	    pread(fd, code, caller->size, off) != (ssize_t)caller->size)
		goto out;
	for (i = 0; i + 5 <= caller->size; i++) {
		memcpy(&rel, code + i + 1, 4);
		if (code[i] == 0xe8 && caller->addr + i + 5 + (int64_t)rel == callee->addr)
			ret = caller->addr + i + 5;
	}
out:
	if (fd >= 0)
		close(fd);
	return ret;
}

static void check_chain(struct dwarf_inline *di, uint64_t pc)
{
	struct dwarf_frame f[8];
	size_t n = dwarf_inline__lookup(di, pc, f, 8);

	CHECK_EQ_U64(n, 3);
	if (n != 3)
		return;
	CHECK_STR(f[0].func, "in_b2");
	CHECK_STR(f[1].func, "in_b");
	CHECK_STR(f[2].func, "in_a");
	CHECK(f[0].inlined && f[1].inlined && !f[2].inlined);
	CHECK(ends_with(f[0].file, "tests/workloads/inline.c") && f[0].line == IN_B2_CALL);
	CHECK(ends_with(f[1].file, "tests/workloads/inline.c") && f[1].line == IN_B_CALL);
	CHECK(ends_with(f[2].file, "tests/workloads/inline.c") && f[2].line == IN_A_CALL);
	CHECK(f[0].column == 2 && f[1].column == 2 && f[2].column == 2);
	/* A chain cut to the room given keeps the innermost frames. */
	CHECK_EQ_U64(dwarf_inline__lookup(di, pc, f, 2), 2);
	CHECK_STR(f[1].func, "in_b");
}

static bool has_section(const char *path, const char *want)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstr;
	GElf_Shdr sh;

	while (elf && !elf_getshdrstrndx(elf, &shstr) && (scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstr, sh.sh_name), want))
			found = true;
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/* The chain at in_a's call of in_c in @binary, read through @dwarf_file. */
static void check_binary(const char *binary, const char *dwarf_file)
{
	const struct test_sym *a, *c;
	struct dwarf_inline *di;
	struct dwarf_frame f[4];
	struct test_syms ts;
	uint64_t ret;

	CHECK(test_syms__read(binary, &ts) == 0);
	a = test_syms__find(&ts, "in_a");
	c = test_syms__find(&ts, "in_c");
	CHECK(a && c);
	ret = a && c ? return_address_in(binary, a, c) : 0;
	CHECK(ret != 0);
	di = dwarf_inline__open(dwarf_file);
	CHECK(di != NULL);
	if (di && ret) {
		check_chain(di, ret - 1); /* pc - 1: the call, not what follows it */
		/* in_a's own first byte: itself, not inlined, at its opening line. */
		CHECK_EQ_U64(dwarf_inline__lookup(di, a->addr, f, 4), 1);
		CHECK(!strcmp(f[0].func, "in_a") && !f[0].inlined &&
		      f[0].line == IN_A_CALL - 2); /* the line of its opening brace */
		CHECK_EQ_U64(dwarf_inline__lookup(di, 0, f, 4), 0);
		CHECK_EQ_U64(dwarf_inline__lookup(di, UINT64_MAX, f, 4), 0);
		CHECK_EQ_U64(dwarf_inline__lookup(di, a->addr, f, 0), 0);
		CHECK(dwarf_inline__nr_units(di) == 1);
	}
	dwarf_inline__free(di);
	test_syms__free(&ts);
}

static void test_inline_chain(void)
{
	check_binary(workload("inline"), workload("inline"));
	check_binary(workload("inline"), workload("inline.debug"));
	CHECK(!has_section(workload("inline_clang"), ".debug_aranges"));
	check_binary(workload("inline_clang"), workload("inline_clang"));
	errno = 0;
	CHECK(dwarf_inline__open(workload("minidebug")) == NULL && errno == ENODATA);
}

struct found {
	bool std_function_inlined;
};

static int cxx_frames(void *ctx, size_t idx, const struct dwarf_frame *f, size_t n)
{
	struct found *fd = ctx;
	char *inner, *outer;

	if (n != 2)
		return 0;
	inner = sym_demangle(f[0].func);
	outer = sym_demangle(f[1].func);
	if (inner && outer && !strcmp(inner, "std::function<long (int)>::operator()(int) const") &&
	    !strcmp(outer, "app::Square::area(std::function<long (int)> const&) const") &&
	    f[0].inlined && !f[1].inlined && ends_with(f[0].file, "bits/std_function.h") &&
	    ends_with(f[1].file, "tests/workloads/cxx_names.cc") && f[1].line == 43)
		fd->std_function_inlined = true;
	free(inner);
	free(outer);
	return idx == SIZE_MAX; /* never stops */
}

/* One batch over every byte of cxx_names' app::Square::area; @ab->di and ->addrs for @cb. */
struct area_batch {
	struct dwarf_inline *di;
	const uint64_t *addrs;
	size_t n;
};

static void area_batch(bool lines, dwarf_inline_cb cb, struct area_batch *ab, void *ctx)
{
	const struct test_sym *area;
	struct test_syms ts;
	uint64_t *addrs;
	size_t i;

	ab->di = dwarf_inline__open(workload("cxx_names"));
	CHECK(ab->di && test_syms__read(workload("cxx_names"), &ts) == 0);
	area = test_syms__find(&ts, "_ZNK3app6Square4areaERKSt8functionIFliEE");
	CHECK(area && area->size);
	if (ab->di && area) {
		addrs = calloc(area->size, sizeof(*addrs));
		for (i = 0; i < area->size; i++)
			addrs[i] = area->addr + i;
		ab->addrs = addrs;
		ab->n = area->size;
		CHECK_EQ_U64(dwarf_inline__batch(ab->di, addrs, area->size, lines, cb, ctx), 0);
		free(addrs);
	}
	test_syms__free(&ts);
	dwarf_inline__free(ab->di);
}

static void test_cxx_inlined_std(void)
{
	struct found found = { false };
	struct area_batch ab;

	area_batch(true, cxx_frames, &ab, &found);
	CHECK(found.std_function_inlined);
}

/* Without lines: the same chain of names at every address, no places, no line table read. */
struct no_lines {
	struct area_batch ab;
	size_t same, differ;
};

static int no_lines_frames(void *ctx, size_t idx, const struct dwarf_frame *f, size_t n)
{
	struct no_lines *nl = ctx;
	struct dwarf_frame w[8];
	size_t k, nw = dwarf_inline__lookup(nl->ab.di, nl->ab.addrs[idx], w, 8);
	bool same;

	if (nw == 1 && !w[0].func)
		nw = 0; /* a place and no function: without lines, no frame */
	same = n == nw;
	for (k = 0; same && k < n; k++)
		same = f[k].func == w[k].func && f[k].inlined == w[k].inlined && !f[k].file &&
		       !f[k].line && !f[k].column;
	if (same)
		nl->same++;
	else
		nl->differ++;
	return 0;
}

static void test_batch_without_lines(void)
{
	struct no_lines nl = { 0 };

	area_batch(false, no_lines_frames, &nl.ab, &nl);
	CHECK(nl.ab.n > 0);
	CHECK_EQ_U64(nl.same, nl.ab.n);
	CHECK_EQ_U64(nl.differ, 0);
}

/* --- agreement with eu-addr2line on every byte of every function --- */

struct eu_reader {
	FILE *f;
	char line[4096];
	bool have; /* line holds the next unread line */
};

static const char *eu__next(struct eu_reader *r)
{
	if (!r->have && !fgets(r->line, sizeof(r->line), r->f))
		return NULL;
	r->have = false;
	r->line[strcspn(r->line, "\n")] = '\0';
	return r->line;
}

/* Our frame as eu-addr2line prints its place: comp_dir joined to relative files. */
static void loc_of(const struct dwarf_frame *f, char *buf, size_t size)
{
	if (!f->file)
		snprintf(buf, size, "??:0");
	else if (f->column)
		snprintf(buf, size, "%s%s%s:%u:%u", f->file[0] != '/' && f->comp_dir ? f->comp_dir : "",
			 f->file[0] != '/' && f->comp_dir ? "/" : "", f->file, f->line, f->column);
	else
		snprintf(buf, size, "%s%s%s:%u", f->file[0] != '/' && f->comp_dir ? f->comp_dir : "",
			 f->file[0] != '/' && f->comp_dir ? "/" : "", f->file, f->line);
}

/* One address's block of eu-addr2line output against our frames. Return: true if equal. */
static bool eu__same(struct eu_reader *r, uint64_t addr, const struct dwarf_frame *f, size_t n)
{
	char want[4200], *cut;
	const char *l;
	size_t i;

	l = eu__next(r);
	if (!l || strtoull(l, NULL, 16) != addr)
		return false;
	for (i = 0; i < n; i++) {
		l = eu__next(r);
		if (!l)
			return false;
		snprintf(want, sizeof(want), "%s", l);
		cut = strstr(want, " inlined at ");
		if (cut)
			*cut = '\0';
		if (strcmp(want, f[i].func ? f[i].func : "??"))
			return false;
		l = eu__next(r);
		loc_of(&f[i], want, sizeof(want));
		if (!l || strcmp(l, want))
			return false;
	}
	/* eu-addr2line has no more frames for this address. */
	l = eu__next(r);
	if (l)
		r->have = true;
	return !l || !strncmp(l, "0x", 2);
}

/*
 * GCC nests a lambda's operator() inside its closure type; libdw's
 * dwarf_getscopes() does not look there, so eu-addr2line falls back to the
 * symbol. We find the DIE (DW_AT_name "operator()"): the integrator names
 * the real function from the symbol table anyway.
 */
#define LAMBDA_SYM "_ZZ4mainENKUliE_clEi"

static void compare_with_eu(const char *path, size_t *compared, size_t *differ)
{
	char tmp[] = "/tmp/stacktap-addrs.XXXXXX", cmd[1200];
	struct dwarf_frame f[DWARF_INLINE_MAX_FRAMES];
	struct eu_reader r = { 0 };
	struct dwarf_inline *di;
	struct test_syms ts;
	size_t i, n, na = 0, k;
	uint64_t a, *addrs = NULL;
	bool *lambda = NULL;
	FILE *out;

	di = dwarf_inline__open(path);
	CHECK(di && test_syms__read(path, &ts) == 0);
	out = fdopen(mkstemp(tmp), "w");
	/* Every byte of every function the workload itself defines (not crt's). */
	for (i = 0; di && i < ts.n; i++) {
		for (a = ts.v[i].addr; a < ts.v[i].addr + ts.v[i].size; a++) {
			if (!dwarf_inline__lookup(di, a, f, 1) || !f[0].func)
				continue;
			addrs = realloc(addrs, (na + 1) * sizeof(*addrs));
			lambda = realloc(lambda, (na + 1) * sizeof(*lambda));
			addrs[na] = a;
			lambda[na++] = !strcmp(ts.v[i].name, LAMBDA_SYM);
			fprintf(out, "0x%lx\n", (unsigned long)a);
		}
	}
	fclose(out);
	snprintf(cmd, sizeof(cmd), "eu-addr2line -a -f -i -e %s < %s", path, tmp);
	r.f = popen(cmd, "r");
	CHECK(r.f != NULL);
	for (i = 0; r.f && i < na; i++) {
		n = dwarf_inline__lookup(di, addrs[i], f, DWARF_INLINE_MAX_FRAMES);
		if (lambda[i]) {
			CHECK(n == 1 && !strcmp(f[0].func, "operator()"));
			f[0].func = LAMBDA_SYM;
		}
		(*compared)++;
		if (!eu__same(&r, addrs[i], f, n)) {
			if ((*differ)++ < 3)
				fprintf(stderr, "%s: 0x%lx differs from eu-addr2line\n", path,
					(unsigned long)addrs[i]);
			/* resynchronise on the next address block */
			while (eu__next(&r) && strncmp(r.line, "0x", 2))
				;
			r.have = true;
		}
	}
	k = r.f ? (size_t)pclose(r.f) : 1;
	CHECK_EQ_U64(k, 0);
	unlink(tmp);
	free(addrs);
	free(lambda);
	test_syms__free(&ts);
	dwarf_inline__free(di);
}

static void test_against_eu_addr2line(void)
{
	size_t compared = 0, differ = 0;

	compare_with_eu(workload("inline"), &compared, &differ);
	compare_with_eu(workload("cxx_names"), &compared, &differ);
	CHECK(compared > 1000);
	CHECK_EQ_U64(differ, 0);
}

static bool same_frames(const struct dwarf_frame *a, size_t na, const struct dwarf_frame *b,
			size_t nb)
{
	for (size_t i = 0; na == nb && i < na; i++)
		if (a[i].inlined != b[i].inlined || a[i].line != b[i].line ||
		    a[i].column != b[i].column || !a[i].func != !b[i].func ||
		    !a[i].file != !b[i].file || (a[i].func && strcmp(a[i].func, b[i].func)) ||
		    (a[i].file && strcmp(a[i].file, b[i].file)))
			return false;
	return na == nb;
}

/* dwz'ed copies (names and files then come from the .gnu_debugaltlink file) answer alike. */
static void test_dwz(const char *name)
{
	struct dwarf_frame f[DWARF_INLINE_MAX_FRAMES], g[DWARF_INLINE_MAX_FRAMES];
	struct dwarf_inline *orig, *dwz;
	size_t i, n, m, compared = 0, inlined = 0, differ = 0;
	struct test_syms ts;
	char path[600];
	uint64_t a;

	snprintf(path, sizeof(path), "dwz/%s", name);
	orig = dwarf_inline__open(workload(name));
	dwz = dwarf_inline__open(workload(path));
	CHECK(orig && dwz && test_syms__read(workload(name), &ts) == 0);
	if (!orig || !dwz)
		goto out;
	for (i = 0; i < ts.n; i++) {
		for (a = ts.v[i].addr; a < ts.v[i].addr + ts.v[i].size; a++) {
			n = dwarf_inline__lookup(orig, a, f, DWARF_INLINE_MAX_FRAMES);
			m = dwarf_inline__lookup(dwz, a, g, DWARF_INLINE_MAX_FRAMES);
			differ += !same_frames(f, n, g, m);
			inlined += n > 1;
			compared++;
		}
	}
	fprintf(stderr, "%s: %zu addresses, %zu with inline frames\n", name, compared, inlined);
	CHECK(compared > 400 && inlined > 200); /* not vacuous */
	CHECK_EQ_U64(differ, 0);
	test_syms__free(&ts);
out:
	dwarf_inline__free(orig);
	dwarf_inline__free(dwz);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_inline_chain();
	test_cxx_inlined_std();
	test_batch_without_lines();
	test_against_eu_addr2line();
	test_dwz("inline");
	test_dwz("cxx_names");
	return CHECK_DONE();
}
