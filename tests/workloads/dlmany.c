// SPDX-License-Identifier: GPL-2.0
/*
 * dlmany DIR COUNT N [GO_FIFO]: once released, for i in 0 .. COUNT-1:
 * dlopen()s DIR/libdlmany<i>.so, calls main -> run -> lib<i>_entry ->
 * lib<i>_mid -> lib<i>_leaf -> callback N times (one getppid() each), and
 * dlclose()s it, so each library lands where the one before it was. Prints
 * "lib<i> <address of lib<i>_entry>" for each.
 */
#include <dlfcn.h>
#include <string.h>

#include "dlrun.h"

static int one(const char *dir, int i, int n)
{
	char path[4096], sym[64];
	void (*entry)(void (*)(void));
	void *lib;

	snprintf(path, sizeof(path), "%s/libdlmany%d.so", dir, i);
	snprintf(sym, sizeof(sym), "lib%d_entry", i);
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	entry = lib ? (void (*)(void (*)(void)))dlsym(lib, sym) : NULL;
	if (!entry) {
		fprintf(stderr, "dlmany: %s\n", dlerror());
		return 1;
	}
	printf("lib%d %p\n", i, (void *)entry);
	run(entry, n);
	dlclose(lib);
	return 0;
}

int main(int argc, char **argv)
{
	int i, count;

	if (argc < 4) {
		fprintf(stderr, "usage: dlmany DIR COUNT N [GO_FIFO]\n");
		return 2;
	}
	workload_ready_go(argc > 4 ? argv[4] : NULL);
	count = atoi(argv[2]);
	for (i = 0; i < count; i++)
		if (one(argv[1], i, atoi(argv[3])))
			return 1;
	fflush(stdout);
	return 0;
}
