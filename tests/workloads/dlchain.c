// SPDX-License-Identifier: GPL-2.0
/*
 * dlchain LIB N [GO_FIFO]: once released, dlopen()s LIB (libdlchain.so, no
 * frame pointers), calls main -> run -> lib_entry -> lib_mid -> lib_leaf ->
 * callback N times (callback makes one getppid()), dlclose()s it and exits.
 * The tracer never saw the library mapped before the calls.
 */
#include <dlfcn.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void callback(void)
{
	sink += workload_getppid();
}

NOINLINE void run(void (*entry)(void (*)(void)), int n)
{
	int i;

	for (i = 0; i < n; i++)
		entry(callback);
	sink++;
}

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
