// SPDX-License-Identifier: GPL-2.0
/* Workload: main → a → b → qsort (libc) → compare → c → leaf; leaf dumps regs, stack, maps. */
/*
 * Built three ways by tests/workloads/unwind.mk (frame pointers, no frame
 * pointers, SFrame). Usage: qsort_chain [-n N -g GO_FIFO] [DUMP_FILE]: the
 * chain runs N times (default 1), after "ready PID" and a byte on GO_FIFO
 * when one is given (for tracers that attach by pid). With DUMP_FILE, the
 * first call of leaf() writes the state an unwinder starts from:
 *
 *   stacktap-dump 1\n
 *   ip 0x..\n sp 0x..\n bp 0x..\n
 *   stack 0xBASE LEN\n
 *   maps LEN\n
 *   <LEN bytes of /proc/self/maps><LEN bytes of stack from BASE = sp>
 *
 * leaf() also makes one getppid syscall, so BPF tests can probe
 * sys_enter_getppid and expect this exact chain. It stays free of stacktap
 * code: the unwinding is done by the tests on the dump.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "golib.h"

/* No inlining, no cloning, no identical-code folding: every function keeps its own frame. */
#define NOINL __attribute__((noinline, noipa))

/* Enough for any stack this chain has; the copy is cut there. */
#define STACK_CAP (256 * 1024)
#define MAPS_CAP (1024 * 1024)

static uint8_t stack_copy[STACK_CAP];
static char maps_text[MAPS_CAP];
static const char *dump_path;
static int leaf_calls;
volatile int sink;

static size_t read_maps(void)
{
	size_t len = 0;
	ssize_t r;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	while (len < MAPS_CAP && (r = read(fd, maps_text + len, MAPS_CAP - len)) > 0)
		len += (size_t)r;
	close(fd);
	return len;
}

/* End of the mapping holding @sp, from the maps text. */
static uint64_t stack_end(size_t len, uint64_t sp)
{
	const char *p = maps_text, *end = maps_text + len;
	unsigned long long lo, hi;

	while (p < end) {
		if (sscanf(p, "%llx-%llx", &lo, &hi) == 2 && lo <= sp && sp < hi)
			return hi;
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			break;
		p++;
	}
	return 0;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t w;

	while (len) {
		w = write(fd, p, len);
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

NOINL static void dump(uint64_t ip, uint64_t sp, uint64_t bp)
{
	char head[256];
	size_t maps_len = read_maps(), stack_len;
	uint64_t top = stack_end(maps_len, sp);
	int fd, n;

	stack_len = top > sp ? (size_t)(top - sp) : 0;
	if (stack_len > STACK_CAP)
		stack_len = STACK_CAP;
	memcpy(stack_copy, (const void *)(uintptr_t)sp, stack_len);
	n = snprintf(head, sizeof(head),
		     "stacktap-dump 1\nip %#" PRIx64 "\nsp %#" PRIx64 "\nbp %#" PRIx64
		     "\nstack %#" PRIx64 " %zu\nmaps %zu\n",
		     ip, sp, bp, sp, stack_len, maps_len);
	fd = open(dump_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write_all(fd, head, (size_t)n) || write_all(fd, maps_text, maps_len) ||
	    write_all(fd, stack_copy, stack_len)) {
		perror(dump_path);
		exit(1);
	}
	close(fd);
}

NOINL void leaf(void)
{
	uint64_t ip, sp, bp;
	long ppid;

	/* One asm: the three values belong to the same instant and the same pc. */
	__asm__ volatile("lea 0(%%rip), %0\n\t"
			 "mov %%rsp, %1\n\t"
			 "mov %%rbp, %2"
			 : "=r"(ip), "=r"(sp), "=r"(bp));
	__asm__ volatile("syscall" : "=a"(ppid) : "a"(110L) /* SYS_getppid */ : "rcx", "r11", "memory");
	if (dump_path && leaf_calls++ == 0)
		dump(ip, sp, bp);
	sink += (int)(ppid & 1);
}

NOINL int c(int x)
{
	leaf();
	return x + sink;
}

NOINL static int compare(const void *pa, const void *pb)
{
	int a = *(const int *)pa, b = *(const int *)pb;

	c(a);
	return (a > b) - (a < b);
}

NOINL void b(void)
{
	/* Two elements: exactly one compare call, from msort's merge step. */
	int v[2] = { 2, 1 };

	qsort(v, 2, sizeof(v[0]), compare);
	sink += v[0];
}

NOINL void a(void)
{
	b();
	sink++;
}

int main(int argc, char **argv)
{
	int n = 1, opt;

	while ((opt = getopt(argc, argv, "n:g:")) != -1) {
		if (opt == 'n')
			n = atoi(optarg);
		else if (opt == 'g')
			workload_ready_go(optarg);
		else
			return 2;
	}
	if (optind < argc)
		dump_path = argv[optind];
	while (n-- > 0)
		a();
	return sink == -1;
}
