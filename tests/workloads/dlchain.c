// SPDX-License-Identifier: GPL-2.0
/*
 * dlchain LIB N [GO_FIFO]: once released, dlopen()s LIB (libdlchain.so, no
 * frame pointers), calls main -> run -> lib_entry -> lib_mid -> lib_leaf ->
 * callback N times (callback makes one getppid()), dlclose()s it and exits.
 * The tracer never saw the library mapped before the calls.
 */
#include <dlfcn.h>

#include "dlrun.h"

int main(int argc, char **argv)
{
	void (*entry)(void (*)(void));
	void *lib;

	if (argc < 3) {
		fprintf(stderr, "usage: dlchain LIB N [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 3 ? argv[3] : NULL);
	lib = dlopen(argv[1], RTLD_NOW);
	entry = lib ? (void (*)(void (*)(void)))dlsym(lib, "lib_entry") : NULL;
	if (!entry) {
		fprintf(stderr, "dlchain: %s\n", dlerror());
		return 1;
	}
	run(entry, atoi(argv[2]));
	dlclose(lib);
	return 0;
}
