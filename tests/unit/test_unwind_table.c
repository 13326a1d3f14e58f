// SPDX-License-Identifier: GPL-2.0
/* The table builder: sources and their merge, known rows, segments, the vDSO, errors, cache. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/elf/elf_file.h"
#include "lib/proc/registry.h"
#include "lib/unwind/table.h"
#include "tests/unit/check.h"

static char path[5][256];

static const struct unwind_row *row_at_sym(const struct unwind_table *t, const char *file,
					   const char *sym, uint64_t plus)
{
	struct elf_file *ef = elf_file__open(file);
	const struct elf_sym *s = ef ? elf_file__sym_by_name(ef, sym) : NULL;
	const struct unwind_row *r = s ? unwind_table__find(t, s->addr + plus) : NULL;

	CHECK(s != NULL);
	elf_file__free(ef);
	return r;
}

static void check_sorted(const struct unwind_table *t)
{
	size_t i;

	CHECK(t->rows.n > 10);
	for (i = 1; i < t->rows.n; i++)
		if (t->rows.rows[i - 1].pc >= t->rows.rows[i].pc)
			break;
	CHECK_EQ_U64(i, t->rows.n);
	CHECK(t->rows.rows[t->rows.n - 1].cfa == UNWIND_CFA_NONE);
	CHECK(t->covered_bytes > 0 && t->covered_bytes <= t->exec_bytes);
}

/* -fomit-frame-pointer: leaf starts with CFA = rsp + 8; _start is outermost. */
static void check_nofp(const char *file)
{
	struct unwind_table *t = unwind_table__build(file);
	const struct unwind_row *r;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U64(t->source, UNWIND_SRC_EH_FRAME);
	CHECK_EQ_U64(t->id_len, 20);
	CHECK(!t->id_is_hash);
	CHECK_EQ_U64(t->base, 0x1000);
	check_sorted(t);
	r = row_at_sym(t, file, "leaf", 0);
	CHECK(r && r->cfa == UNWIND_CFA_RSP && r->cfa_off == 8 && r->rbp == UNWIND_RBP_SAME);
	r = row_at_sym(t, file, "_start", 0);
	CHECK(r && r->cfa == UNWIND_CFA_OUTERMOST);
	unwind_table__free(t);
}

/* -fno-omit-frame-pointer: after push %rbp; mov %rsp,%rbp the CFA is rbp + 16. */
static void check_fp(const char *file)
{
	struct unwind_table *t = unwind_table__build(file);
	const struct unwind_row *r;

	CHECK(t != NULL);
	if (!t)
		return;
	r = row_at_sym(t, file, "a", 1);
	CHECK(r && r->cfa == UNWIND_CFA_RSP && r->cfa_off == 16 && r->rbp == UNWIND_RBP_SAVED &&
	      r->rbp_off == -2);
	r = row_at_sym(t, file, "a", 4);
	CHECK(r && r->cfa == UNWIND_CFA_RBP && r->cfa_off == 16 && r->rbp == UNWIND_RBP_SAVED);
	unwind_table__free(t);
}

/* SFrame: rows from .sframe; _start (crt1.o has no SFrame) comes from .eh_frame. */
static void check_sframe(const char *file)
{
	struct unwind_table *t = unwind_table__build(file);
	const struct unwind_row *r;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U64(t->source, UNWIND_SRC_SFRAME);
	CHECK_EQ_U64(t->src_fdes[UNWIND_SRC_EH_FRAME], 2);
	check_sorted(t);
	r = row_at_sym(t, file, "_start", 0);
	CHECK(r && r->cfa == UNWIND_CFA_OUTERMOST);
	r = row_at_sym(t, file, "leaf", 0);
	CHECK(r && r->cfa == UNWIND_CFA_RSP && r->cfa_off == 8);
	unwind_table__free(t);
}

/*
 * -fno-asynchronous-unwind-tables -g: _start from .eh_frame, leaf from .debug_frame, in the
 * file (@split false) or in the debug file its .gnu_debuglink names.
 */
static void check_merged(const char *file, bool split)
{
	struct unwind_table *t = unwind_table__build(file);
	char dbg[300];
	const struct unwind_row *r;
	struct elf_file *ef;
	const struct elf_sym *s;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ_U64(t->source, UNWIND_SRC_EH_FRAME);
	CHECK_EQ_U64(t->src_fdes[UNWIND_SRC_SFRAME], 0);
	CHECK_EQ_U64(t->src_fdes[UNWIND_SRC_EH_FRAME], 3);
	CHECK_EQ_U64(t->src_fdes[UNWIND_SRC_DEBUG_FRAME], 8);
	snprintf(dbg, sizeof(dbg), "%s.debug", file);
	CHECK_STR(split ? t->cfi_path : "none", split ? dbg : "none");
	check_sorted(t);
	r = row_at_sym(t, file, "_start", 0);
	CHECK(r && r->cfa == UNWIND_CFA_OUTERMOST);
	/* The split file keeps .symtab (strip-debug), so symbols come from it either way. */
	ef = elf_file__open(file);
	s = ef ? elf_file__sym_by_name(ef, "leaf") : NULL;
	CHECK(s != NULL);
	if (s) {
		r = unwind_table__find(t, s->addr);
		CHECK(r && r->cfa == UNWIND_CFA_RSP && r->cfa_off == 8);
		CHECK_EQ_U64(unwind_table__source_at(t, s->addr), UNWIND_SRC_DEBUG_FRAME);
	}
	s = ef ? elf_file__sym_by_name(ef, "_start") : NULL;
	CHECK(s && unwind_table__source_at(t, s->addr) == UNWIND_SRC_EH_FRAME);
	CHECK_EQ_U64(unwind_table__source_at(t, t->base - 1), UNWIND_SRC_NONE);
	elf_file__free(ef);
	unwind_table__free(t);
}

/* Mapping → vaddr for the layouts linkers make (offsets and vaddrs as readelf -l shows them). */
static void check_map_vaddr(void)
{
	/* LLD and mold: the text segment starts mid-page, its first page shared with the R one. */
	struct unwind_seg lld[] = {
		{ .vaddr = 0, .offset = 0, .filesz = 0x9dc },
		{ .vaddr = 0x19e0, .offset = 0x9e0, .filesz = 0x410, .exec = true },
		{ .vaddr = 0x2df0, .offset = 0xdf0, .filesz = 0x1d8 },
	};
	/* GNU ld -z separate-code: segments page-aligned in the file. */
	struct unwind_seg bfd[] = {
		{ .vaddr = 0, .offset = 0, .filesz = 0x900 },
		{ .vaddr = 0x1000, .offset = 0x1000, .filesz = 0x5000, .exec = true },
		{ .vaddr = 0x7dd0, .offset = 0x6dd0, .filesz = 0x2a0 },
	};
	struct unwind_table t = { .segs = lld, .nsegs = 3 };
	uint64_t v = 0;

	CHECK(unwind_table__map_vaddr(&t, 0, &v) == 0);
	CHECK_EQ_U64(v, 0x1000); /* not 0: the R segment also holds offset 0 */
	CHECK(unwind_table__map_vaddr(&t, 0x1000, &v) == -ENOENT);
	t.segs = bfd;
	CHECK(unwind_table__map_vaddr(&t, 0x1000, &v) == 0);
	CHECK_EQ_U64(v, 0x1000);
	CHECK(unwind_table__map_vaddr(&t, 0x3000, &v) == 0); /* text split by mprotect */
	CHECK_EQ_U64(v, 0x3000);
	CHECK(unwind_table__map_vaddr(&t, 0, &v) == 0); /* no executable segment: the one there */
	CHECK_EQ_U64(v, 0);
}

/* The [vdso] mapping as the registry's listener tells it. */
struct vdso_seen {
	struct proc_map m;
	bool found;
};

static void vdso_heard(void *ctx, int pid, const struct proc_map *maps, size_t n)
{
	struct vdso_seen *v = ctx;
	size_t i;

	(void)pid;
	for (i = 0; i < n; i++) {
		if (strcmp(maps[i].path, "[vdso]"))
			continue;
		v->m = maps[i];
		v->m.path = NULL; /* the registry's string: not kept past the call */
		v->found = true;
	}
}

/*
 * The vDSO of this process and of a child, as the views get it: the
 * registry's model of the image (read from memory) and unwind_table__of()
 * on it, rows from the vDSO's own .eh_frame, one table for both processes.
 */
static void check_vdso(void)
{
	struct vdso_seen seen = { 0 };
	const struct procs_listener l = { .maps = vdso_heard, .ctx = &seen };
	struct proc_registry *r = procs__new();
	const struct unwind_table *t = NULL, *child_t = NULL;
	const struct unwind_row *r0;
	struct elf_file *ef = NULL;
	uint64_t v = 1;
	pid_t child;
	size_t i;

	CHECK(r != NULL);
	if (!r)
		return;
	procs__listen(r, &l);
	CHECK_EQ_U64(procs__see(r, getpid(), procs_now()), 0);
	CHECK(seen.found);
	seen.m.path = "[vdso]";
	ef = seen.found ? procs__file(r, getpid(), &seen.m) : NULL;
	t = ef ? unwind_table__of(ef) : NULL;
	CHECK(t != NULL && unwind_table__of(ef) == t);
	child = fork();
	if (child == 0) {
		for (;;)
			pause();
	}
	seen.found = false;
	CHECK(child > 0 && procs__see(r, child, procs_now()) == 0 && seen.found);
	seen.m.path = "[vdso]";
	ef = seen.found ? procs__file(r, child, &seen.m) : NULL;
	child_t = ef ? unwind_table__of(ef) : NULL;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	CHECK(child_t == t); /* the same image: the same model, the same table */
	if (t) {
		CHECK_EQ_U64(t->source, UNWIND_SRC_EH_FRAME);
		CHECK(t->nspans > 0 && !t->id_is_hash);
		CHECK(unwind_table__map_vaddr(t, seen.m.pgoff, &v) == 0 && v == 0);
		/* Every function starts with CFA = rsp + 8 (the return address just pushed). */
		for (i = 0; i < t->nspans; i++) {
			r0 = unwind_table__find(t, t->base + t->spans[i].lo);
			CHECK(r0 && r0->cfa == UNWIND_CFA_RSP && r0->cfa_off == 8);
		}
	}
	procs__free(r);
}

static void check_errors(void)
{
	char tmp[] = "/tmp/stacktap-unwind-XXXXXX";
	int fd = mkstemp(tmp);

	CHECK(unwind_table__build("/nonexistent/stacktap") == NULL && errno == ENOENT);
	CHECK(fd >= 0 && write(fd, "not an ELF file\n", 16) == 16);
	CHECK(unwind_table__build(tmp) == NULL && errno == ENOEXEC);
	if (fd >= 0)
		close(fd);
	unlink(tmp);
}

/*
 * A file whose table cannot be built (here a copy of a workload claiming to
 * be for AArch64, as a 32-bit process's files are not x86-64 either) is
 * remembered on its model: not built, nor logged, again for every process
 * that maps it.
 */
static void check_failure_kept(void)
{
	char tmp[] = "/tmp/stacktap-unwind-XXXXXX", buf[4096];
	int fd = mkstemp(tmp), in = open(path[0], O_RDONLY);
	const uint16_t aarch64 = 183; /* EM_AARCH64 */
	struct elf_file *ef = NULL;
	ssize_t n;

	CHECK(fd >= 0 && in >= 0);
	while (fd >= 0 && in >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(fd, buf, (size_t)n) == n);
	CHECK(fd >= 0 && pwrite(fd, &aarch64, 2, 18) == 2); /* e_machine */
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	ef = elf_file__open(tmp);
	CHECK(ef != NULL);
	if (ef) {
		CHECK(unwind_table__of(ef) == NULL);
		CHECK(elf_file__part(ef, ELF_PART_UNWIND) != NULL);
		CHECK(unwind_table__of(ef) == NULL);
	}
	elf_file__free(ef);
	unlink(tmp);
}

static void check_cache(void)
{
	struct unwind_cache *c = unwind_cache__new();
	struct unwind_table *t1, *t2, *t3;
	uint64_t hits, builds;

	CHECK(c != NULL);
	if (!c)
		return;
	t1 = unwind_cache__get(c, path[0]);
	t2 = unwind_cache__get(c, path[0]);
	t3 = unwind_cache__get(c, path[1]);
	CHECK(t1 && t1 == t2 && t3 && t3 != t1);
	unwind_cache__stats(c, &hits, &builds);
	CHECK_EQ_U64(hits, 1);
	CHECK_EQ_U64(builds, 2);
	unwind_cache__free(c);
}

int main(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";

	snprintf(path[0], sizeof(path[0]), "%s/workloads/qsort_chain_nofp", o);
	snprintf(path[1], sizeof(path[1]), "%s/workloads/qsort_chain_fp", o);
	snprintf(path[2], sizeof(path[2]), "%s/workloads/qsort_chain_sframe", o);
	snprintf(path[3], sizeof(path[3]), "%s/workloads/qsort_chain_dwarf", o);
	snprintf(path[4], sizeof(path[4]), "%s/workloads/qsort_chain_dwarf_split", o);
	check_nofp(path[0]);
	check_fp(path[1]);
	check_sframe(path[2]);
	check_merged(path[3], false);
	check_merged(path[4], true);
	check_map_vaddr();
	check_vdso();
	check_errors();
	check_failure_kept();
	check_cache();
	return CHECK_DONE();
}
