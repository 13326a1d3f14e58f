// SPDX-License-Identifier: GPL-2.0
/*
 * jit [-m] N [GO_FIFO]: main -> code copied into an anonymous executable page
 * (no unwind table: like JIT code) -> jit_leaf, N times; jit_leaf makes one
 * getppid().
 *
 * Without -m the page holds one stub with no frame pointer: a table walk must
 * stop at it and say why (tests/integration/test_unwind.sh).
 *
 * With -m it holds two stubs that keep the frame-pointer chain, as JITs do
 * (main -> jit_outer -> jit_inner -> jit_leaf), and the workload writes
 * /tmp/perf-PID.map naming them before it says "ready", the way
 * node --perf-basic-prof does. The map also has an earlier line for a blob
 * that covered the whole page, so readers must let later lines win. The file
 * is left behind, as JITs leave theirs: the test removes it.
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

/* Offsets of the -m stubs in the page; the map names them. */
#define JIT_OUTER 0x00
#define JIT_INNER 0x40
#define JIT_BLOB_SIZE 0x80

/* jit_outer: push %rbp; mov %rsp,%rbp; call jit_inner; pop %rbp; ret */
static const unsigned char outer_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xe8,
					    JIT_INNER - (JIT_OUTER + 9), 0, 0, 0,
					    0x5d, 0xc3 };
/* jit_inner: push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
static const unsigned char inner_code[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };

static int write_perf_map(const unsigned char *page)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		return -1;
	}
	/* An older blob over the whole page first, then what is there now. */
	fprintf(f, "%lx %x jit_stale_blob\n", (unsigned long)page, JIT_BLOB_SIZE);
	fprintf(f, "%lx %zx jit_outer\n", (unsigned long)(page + JIT_OUTER), sizeof(outer_code));
	fprintf(f, "0x%lx 0x%zx jit_inner\n", (unsigned long)(page + JIT_INNER),
		sizeof(inner_code));
	return fclose(f);
}

int main(int argc, char **argv)
{
	void (*stub)(void (*)(void));
	unsigned char *page;
	int n, i, arg = 1, with_map = 0;

	if (argc > 1 && !strcmp(argv[1], "-m")) {
		with_map = 1;
		arg++;
	}
	if (argc <= arg) {
		fprintf(stderr, "usage: jit [-m] N [GO_FIFO]\n");
		return 2;
	}
	n = atoi(argv[arg]);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
		    -1, 0);
	if (page == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (with_map) {
		memcpy(page + JIT_OUTER, outer_code, sizeof(outer_code));
		memcpy(page + JIT_INNER, inner_code, sizeof(inner_code));
		if (write_perf_map(page))
			return 1;
	} else {
		memcpy(page, stub_code, sizeof(stub_code));
	}
	stub = (void (*)(void (*)(void)))(void *)page;
	workload_ready_go(argc > arg + 1 ? argv[arg + 1] : NULL);
	for (i = 0; i < n; i++)
		stub(jit_leaf);
	return 0;
}
