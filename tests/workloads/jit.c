// SPDX-License-Identifier: GPL-2.0
/*
 * jit N [GO_FIFO]: main -> a stub copied into an anonymous executable page
 * (no unwind table, no frame pointer: like JIT code) -> jit_leaf, N times;
 * jit_leaf makes one getppid(). A table walk must stop at the stub and say
 * why.
 */
#include <string.h>
#include <sys/mman.h>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void jit_leaf(void)
{
	sink += workload_getppid();
}

/* sub $8,%rsp; call *%rdi; add $8,%rsp; ret */
static const unsigned char stub_code[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd7,
					   0x48, 0x83, 0xc4, 0x08, 0xc3 };

int main(int argc, char **argv)
{
	void (*stub)(void (*)(void));
	void *page;
	int n, i;

	if (argc < 2) {
		fprintf(stderr, "usage: jit N [GO_FIFO]\n");
		return 2;
	}
	n = atoi(argv[1]);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	memcpy(page, stub_code, sizeof(stub_code));
	stub = (void (*)(void (*)(void)))page;
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		stub(jit_leaf);
	return 0;
}
