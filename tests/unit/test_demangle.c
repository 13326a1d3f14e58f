// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/sym/demangle: C++ names demangled, others left alone. */
#include <errno.h>
#include <stdlib.h>

#include "lib/sym/demangle.h"
#include "tests/unit/check.h"

static void check_demangle(const char *in, const char *want)
{
	char *out = sym_demangle(in);

	if (want)
		CHECK_STR(out, want);
	else
		CHECK(out == NULL);
	free(out);
}

int main(void)
{
	check_demangle("_ZN3foo3barEi", "foo::bar(int)");
	check_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi",
		       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	check_demangle("_Z1fv", "f()");
	check_demangle("main", NULL);
	check_demangle("", NULL);
	check_demangle(NULL, NULL);
	errno = 0;
	check_demangle("_Z", NULL);
	CHECK_EQ_U64(errno, EINVAL);
	check_demangle("_ZZZZZZZZZZZZ", NULL);
	return CHECK_DONE();
}
