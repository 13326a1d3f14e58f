// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/sym/demangle: C++ and Rust (legacy, v0) names demangled as
 * perf shows them, others left alone; the symbols of a real C++ workload
 * (tests/workloads/cxx_names.cc) and of rustc-built objects
 * (tests/fixtures/rust/README.md) come out exactly.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "lib/sym/demangle.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_syms.h"

static void check_demangle(const char *in, const char *want)
{
	char *out = sym_demangle(in);

	if (want)
		CHECK_STR(out, want);
	else
		CHECK(out == NULL);
	free(out);
}

static void test_literals(void)
{
	/* The names of issue 9, as perf shows them. */
	check_demangle("_ZN3app3RecINS_5ShapeELi12EE2goERKS1_iRKSt8functionIFliEE.isra.0",
		       "app::Rec<app::Shape, 12>::go(app::Shape const&, int, "
		       "std::function<long (int)> const&) [clone .isra.0]");
	check_demangle("_ZN4node5StartEiPPc", "node::Start(int, char**)");
	check_demangle("_ZN3foo3barEi", "foo::bar(int)");
	check_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi",
		       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	check_demangle("_Z1fv", "f()");
	check_demangle("_ZN3foo3barEv.cold", "foo::bar() [clone .cold]");
	check_demangle("_ZN3foo3barEv.constprop.0.isra.0",
		       "foo::bar() [clone .constprop.0] [clone .isra.0]");
	check_demangle("_Znwm@GLIBCXX_3.4", "operator new(unsigned long)@GLIBCXX_3.4");
	check_demangle("_ZN3foo3barEi@@V1", "foo::bar(int)@@V1");
	check_demangle("_ZN3foo3barEi@plt", "foo::bar(int)@plt");
	check_demangle("_Z@plt", NULL);
	check_demangle("_ZZ4mainENKUlvE_clEv", "main::{lambda()#1}::operator()() const");
	/* Rust: legacy without its hash (and LLVM's suffix), v0. */
	check_demangle("_ZN4core3fmt5write17h01234567890abcdeE", "core::fmt::write");
	check_demangle("_ZN5names5apply17h1d495b8d43a122dfE.llvm.1234567890", "names::apply");
	check_demangle("_RNvCs1234_7mycrate4main", "mycrate::main");
	/* Not mangled, malformed, absurd. */
	errno = EINVAL;
	check_demangle("main", NULL);
	CHECK_EQ_U64(errno, 0);
	check_demangle("foo.part.0", NULL);
	check_demangle("", NULL);
	check_demangle(NULL, NULL);
	errno = 0;
	check_demangle("_Z", NULL);
	CHECK_EQ_U64(errno, EINVAL);
	check_demangle("_ZZZZZZZZZZZZ", NULL);
	check_demangle("_R", NULL);
	CHECK(!sym_is_mangled("main") && !sym_is_mangled(NULL) && !sym_is_mangled("_"));
	CHECK(sym_is_mangled("_Z1fv") && sym_is_mangled("_RNvC1a1b"));
}

static void test_buf(void)
{
	char long_name[SYM_DEMANGLE_MAX_LEN + 2], buf[8];

	CHECK_EQ_U64(sym_demangle_buf("_ZN3foo3barEi", buf, sizeof(buf)), 13);
	CHECK_STR(buf, "foo::ba"); /* cut, snprintf-style */
	CHECK_EQ_U64(sym_demangle_buf("_ZN3foo3barEi", NULL, 0), 13);
	CHECK_EQ_U64(sym_demangle_buf("main", buf, sizeof(buf)), 0);
	CHECK_STR(buf, "");
	CHECK(sym_demangle_buf("_Zx", buf, sizeof(buf)) == -EINVAL);
	CHECK_STR(buf, "");
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	memcpy(long_name, "_Z", 2);
	CHECK(sym_demangle_buf(long_name, buf, sizeof(buf)) == -ENAMETOOLONG);
	errno = 0;
	CHECK(sym_demangle(long_name) == NULL && errno == ENAMETOOLONG);
}

/* Base-62 back-reference as Rust v0 writes it: "_" for 0, else n-1 in base 62 then "_". */
static int b62(char *out, unsigned int n)
{
	static const char d[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char tmp[16];
	int k = 0, i;

	if (n == 0)
		return sprintf(out, "_");
	for (n--; k == 0 || n; n /= 62)
		tmp[k++] = d[n % 62];
	for (i = 0; i < k; i++)
		out[i] = tmp[k - 1 - i];
	out[k] = '_';
	return k + 1;
}

/*
 * A Rust v0 name whose every tuple type holds the previous one twice by
 * back-reference: @levels levels print 2^levels tuples. libiberty would print
 * for hours; the output cap stops it.
 */
static void test_backref_bomb(void)
{
	char name[1024] = "_RINvC1a1fThhE", buf[64];
	unsigned int prev = 8, cur; /* after "_R": "INvC1a1f" is 8 bytes, then the first tuple */
	int len = (int)strlen(name);

	for (int i = 0; i < 40; i++) {
		cur = (unsigned int)len - 2;
		len += sprintf(name + len, "TB");
		len += b62(name + len, prev);
		name[len++] = 'B';
		len += b62(name + len, prev);
		name[len++] = 'E';
		prev = cur;
	}
	strcpy(name + len, "E");
	CHECK(sym_demangle_buf(name, buf, sizeof(buf)) == -E2BIG);
	CHECK_STR(buf, "");
	/* Three levels are an honest name. */
	check_demangle("_RINvC1a1fThhETB7_B7_ETBb_Bb_ETBj_Bj_EE",
		       "a::f::<(u8, u8), ((u8, u8), (u8, u8)), (((u8, u8), (u8, u8)), ((u8, u8), "
		       "(u8, u8))), ((((u8, u8), (u8, u8)), ((u8, u8), (u8, u8))), (((u8, u8), "
		       "(u8, u8)), ((u8, u8), (u8, u8))))>");
}

/*
 * Every function in @path whose name is mangled must demangle to one of
 * @want (in symbol order), and every @want must be seen.
 */
static void check_elf_names(const char *path, const char *const *want, size_t nwant)
{
	size_t i, j, nseen = 0;
	bool seen[16] = { false };
	struct test_syms ts;
	char *dm;

	CHECK(nwant <= sizeof(seen) / sizeof(seen[0]));

	CHECK(test_syms__read(path, &ts) == 0);
	for (i = 0; i < ts.n; i++) {
		if (!sym_is_mangled(ts.v[i].name))
			continue;
		dm = sym_demangle(ts.v[i].name);
		for (j = 0; dm && j < nwant && strcmp(dm, want[j]); j++)
			;
		if (!dm || j == nwant)
			fprintf(stderr, "%s: %s -> unexpected %s\n", path, ts.v[i].name,
				dm ? dm : "(null)");
		CHECK(dm && j < nwant);
		if (dm && j < nwant && !seen[j]) {
			seen[j] = true;
			nseen++;
		}
		free(dm);
	}
	CHECK_EQ_U64(nseen, nwant);
	test_syms__free(&ts);
}

#define MAP_ITER "core::iter::adapters::map::Map"
#define SQ "names::shapes::Square"
#define V0_MAP MAP_ITER "<core::slice::iter::Iter<" SQ ">, names::shapes::total<" SQ ">::{closure#0}>"

static void test_rust_fixtures(void)
{
	static const char *const legacy[] = {
		"<" MAP_ITER "<I,F> as core::iter::traits::iterator::Iterator>::fold",
		"core::iter::traits::iterator::Iterator::sum",
		"<u64 as core::iter::traits::accum::Sum>::sum",
		"names::apply",
		"names::shapes::total",
		"<" SQ " as names::shapes::Area>::area",
	};
	static const char *const v0[] = {
		"names::apply::<names::names_entry::{closure#0}>",
		"names::shapes::total::<" SQ ">",
		"<" V0_MAP " as core::iter::traits::iterator::Iterator>::fold::<u64, <u64 as "
		"core::iter::traits::accum::Sum>::sum<" V0_MAP ">::{closure#0}>",
		"<u64 as core::iter::traits::accum::Sum>::sum::<" V0_MAP ">",
		"<" V0_MAP " as core::iter::traits::iterator::Iterator>::sum::<u64>",
		"<" SQ " as names::shapes::Area>::area",
	};

	check_elf_names("tests/fixtures/rust/names-legacy.o", legacy, 6);
	check_elf_names("tests/fixtures/rust/names-v0.o", v0, 6);
}

/* The C++ workload: each link of its chain, plus what the compiler adds around it. */
static void test_cxx_workload(void)
{
	static const char *const want[] = {
		"app::leaf(int)",
		"app::Rec<app::Shape, 12>::go(app::Shape const&, int, std::function<long (int)> "
		"const&)",
		"app::Square::area(std::function<long (int)> const&) const",
		"app::Circle::area(std::function<long (int)> const&) const",
		"std::_Function_handler<long (int), main::{lambda(int)#1}>::_M_invoke("
		"std::_Any_data const&, int&&)",
		"std::_Function_handler<long (int), main::{lambda(int)#1}>::_M_manager("
		"std::_Any_data&, std::_Any_data const&, std::_Manager_operation)",
		"main::{lambda(int)#1}::operator()(int) const",
		"app::Square::~Square()",
		"app::Circle::~Circle()",
		"std::unique_ptr<app::Shape, std::default_delete<app::Shape> >::~unique_ptr()",
		"std::_Function_base::~_Function_base()",
	};
	const char *o = getenv("O") ? getenv("O") : "build";
	char path[512];

	snprintf(path, sizeof(path), "%s/workloads/cxx_names", o);
	check_elf_names(path, want, sizeof(want) / sizeof(want[0]));
}

int main(void)
{
	test_literals();
	test_buf();
	test_backref_bomb();
	test_rust_fixtures();
	test_cxx_workload();
	return CHECK_DONE();
}
