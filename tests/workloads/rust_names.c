// SPDX-License-Identifier: GPL-2.0
/*
 * rust_names LIB N [GO_FIFO]: dlopen() LIB, one of the Rust libraries linked
 * from tests/fixtures/rust/ (legacy or v0 mangling), and call its
 * names_entry() N times:
 *
 *   main -> names_entry -> names::shapes::total<Square> -> Iterator::sum
 *        -> <u64 as Sum>::sum -> Map::fold -> <Square as Area>::area
 *
 * (the shape of the chain is rustc's; the test traces it at area). The
 * library is opened before "ready", so its mappings are known at first sight.
 */
#include <dlfcn.h>

#include "golib.h"

int main(int argc, char **argv)
{
	unsigned long long (*entry)(unsigned long long);
	volatile unsigned long long sink = 0;
	void *lib;
	long n, i;

	if (argc < 3) {
		fprintf(stderr, "usage: rust_names LIB N [GO_FIFO]\n");
		return 2;
	}
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "rust_names: %s\n", dlerror());
		return 1;
	}
	*(void **)&entry = dlsym(lib, "names_entry");
	if (!entry) {
		fprintf(stderr, "rust_names: %s\n", dlerror());
		return 1;
	}
	n = atol(argv[2]);
	workload_ready_go(argc > 3 ? argv[3] : NULL);
	for (i = 0; i < n; i++)
		sink += entry((unsigned long long)i);
	return 0;
}
