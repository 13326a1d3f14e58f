// SPDX-License-Identifier: GPL-2.0
/* The table builder on the qsort_chain workloads: sources, known rows, errors, cache. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/elf/elf_file.h"
#include "lib/unwind/table.h"
#include "tests/unit/check.h"

static char path[3][256];

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
	CHECK_EQ_U64(t->eh_fill_fdes, 2);
	check_sorted(t);
	r = row_at_sym(t, file, "_start", 0);
	CHECK(r && r->cfa == UNWIND_CFA_OUTERMOST);
	r = row_at_sym(t, file, "leaf", 0);
	CHECK(r && r->cfa == UNWIND_CFA_RSP && r->cfa_off == 8);
	unwind_table__free(t);
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

/*
 * libc's __restore_rt: its FDE's CIE says 'S' and its rules are the
 * rt_sigframe's, so it is the one SIGNAL row; the FDE starts a byte before
 * the trampoline (mov $15,%rax; syscall), for unwinders that look up pc - 1.
 */
static void check_libc_signal(void)
{
	static const unsigned char sigreturn[] = { 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 };
	const char *libc = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	struct unwind_table *t = unwind_table__build(libc);
	unsigned char code[sizeof(sigreturn)];
	size_t i, nsig = 0, nseg = 0;
	uint64_t vaddr = 0;
	FILE *f;

	CHECK(t != NULL);
	if (!t)
		return;
	for (i = 0; i < t->rows.n; i++)
		if (t->rows.rows[i].cfa == UNWIND_CFA_SIGNAL) {
			nsig++;
			vaddr = t->base + t->rows.rows[i].pc;
		}
	CHECK_EQ_U64(nsig, 1);
	for (i = 0; i < t->nsegs; i++) {
		const struct unwind_seg *g = &t->segs[i];

		if (!g->exec || vaddr < g->vaddr || vaddr - g->vaddr >= g->filesz)
			continue;
		nseg++;
		f = fopen(libc, "rb");
		CHECK(f && !fseek(f, (long)(vaddr - g->vaddr + g->offset + 1), SEEK_SET) &&
		      fread(code, 1, sizeof(code), f) == sizeof(code));
		CHECK(!memcmp(code, sigreturn, sizeof(code)));
		if (f)
			fclose(f);
	}
	CHECK_EQ_U64(nseg, 1);
	unwind_table__free(t);
}

int main(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";

	snprintf(path[0], sizeof(path[0]), "%s/workloads/qsort_chain_nofp", o);
	snprintf(path[1], sizeof(path[1]), "%s/workloads/qsort_chain_fp", o);
	snprintf(path[2], sizeof(path[2]), "%s/workloads/qsort_chain_sframe", o);
	check_nofp(path[0]);
	check_fp(path[1]);
	check_sframe(path[2]);
	check_errors();
	check_cache();
	check_libc_signal();
	return CHECK_DONE();
}
