// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/proc/registry: frames of a child resolve after it has exited. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc/registry.h"
#include "tests/unit/check.h"

__attribute__((noinline)) int reg_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 3;
}

static int main_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1; /* the first object is the main program */
}

/* What the test expects for @addr, computed from this process's own view. */
struct expect {
	char exe[PATH_MAX];
	uint64_t file_off;
	const uint8_t *build_id;
	size_t build_id_len;
};

static int expect__init(struct expect *e, struct elf_file *self, uint64_t addr)
{
	uint64_t bias = 0;
	ssize_t len;

	len = readlink("/proc/self/exe", e->exe, sizeof(e->exe) - 1);
	if (len <= 0)
		return -1;
	e->exe[len] = '\0';
	dl_iterate_phdr(main_bias_cb, &bias);
	e->build_id_len = elf_file__build_id(self, &e->build_id);
	return elf_file__vaddr_to_offset(self, addr - bias, &e->file_off);
}

static void check_frame(struct proc_registry *r, int pid, uint64_t addr, const struct expect *e)
{
	struct user_frame f;

	CHECK_EQ_U64(procs__resolve(r, pid, addr, &f), 0);
	CHECK_STR(f.sym, "reg_test_target");
	CHECK_EQ_U64(f.sym_off, 3);
	CHECK_EQ_U64(f.file_off, e->file_off);
	CHECK_STR(f.path, e->exe);
	CHECK_EQ_U64(f.build_id_len, 20);
	CHECK(f.build_id && f.build_id_len == e->build_id_len &&
	      !memcmp(f.build_id, e->build_id, e->build_id_len));
}

/* The vDSO is read from the child's memory; its symbols must name its functions. */
static void check_vdso(struct proc_registry *r, int pid)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), bias = 0;
	const struct elf_sym *s;
	struct elf_file *ef;
	struct user_frame f;

	CHECK(base != 0);
	ef = procs__find_elf(r, pid, base + 0x10, &bias);
	CHECK(ef != NULL);
	s = ef ? elf_file__sym_by_name(ef, "__vdso_clock_gettime") : NULL;
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_EQ_U64(procs__resolve(r, pid, s->addr + bias + 1, &f), 0);
	CHECK_STR(f.path, "[vdso]");
	CHECK_STR(f.sym, "__vdso_clock_gettime");
	CHECK_EQ_U64(f.sym_off, 1);
}

/* qsort as libc defines it: &qsort may be a sanitizer's interceptor. */
static uint64_t libc_qsort(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, "qsort") : NULL;

	if (h)
		dlclose(h);
	return (uintptr_t)f;
}

int main(void)
{
	uint64_t addr = (uintptr_t)reg_test_target + 3;
	struct proc_registry *r;
	struct elf_file *self;
	struct user_frame f, g;
	struct expect e;
	pid_t child;

	self = elf_file__open("/proc/self/exe");
	CHECK(self != NULL);
	if (!self || expect__init(&e, self, addr))
		return CHECK_DONE() | 1;
	r = procs__new();
	CHECK(r != NULL);
	if (!r)
		return CHECK_DONE();
	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	CHECK(child > 0);
	CHECK_EQ_U64(procs__see(r, child), 0);
	CHECK_EQ_U64(procs__see(r, child), 0);
	kill(child, SIGKILL);
	CHECK(waitpid(child, NULL, 0) == child);

	check_frame(r, child, addr, &e);
	check_vdso(r, child);
	CHECK_EQ_U64(procs__refresh(r, child), (uint64_t)-ESRCH);
	check_frame(r, child, addr, &e); /* the old mappings survive a failed refresh */
	CHECK_EQ_U64(procs__resolve(r, child, 0x10, &f), (uint64_t)-ENOENT);
	CHECK_EQ_U64(procs__resolve(r, child + 1000000, addr, &f), (uint64_t)-ESRCH);
	CHECK_EQ_U64(procs__see(r, child), 0); /* already known: no re-read */

	/* This process maps the same file: the open file (and its build ID) is shared. */
	CHECK_EQ_U64(procs__see(r, getpid()), 0);
	CHECK_EQ_U64(procs__refresh(r, getpid()), 0);
	check_frame(r, getpid(), addr, &e);
	CHECK(procs__resolve(r, getpid(), addr, &f) == 0 &&
	      procs__resolve(r, child, addr, &g) == 0 && f.build_id == g.build_id &&
	      f.path == g.path);
	CHECK(procs__resolve(r, getpid(), libc_qsort() + 1, &f) == 0 && f.path &&
	      strstr(f.path, "/libc.so") && f.sym_off == 1 && f.build_id_len == 20);
	CHECK_STR(f.sym, "qsort");

	procs__free(r);
	elf_file__free(self);
	CHECK(reg_test_target(1) == 10);
	return CHECK_DONE();
}
