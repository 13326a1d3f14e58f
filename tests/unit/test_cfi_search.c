// SPDX-License-Identifier: GPL-2.0
/*
 * .eh_frame read through our search table (lib/unwind/cfi_search.c), libdw's
 * handle renewed every few thousand FDEs, gives exactly the rows, counts and
 * statistics of libdw's own linear search: on libc (3,700 FDEs, one
 * renewal), a workload built without frame pointers and the largest
 * libraries of the machine that are present.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/unwind/cfi.h"
#include "lib/unwind/cfi_check.h"
#include "lib/unwind/cfi_search.h"
#include "tests/unit/check.h"

/* Rows and statistics of @path's .eh_frame, by table or linearly. */
static int read_rows(const char *path, bool linear, struct unwind_rows *rows, struct cfi_stats *st)
{
	struct cfi_source src = { .name = path, .linear = linear };
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	memset(rows, 0, sizeof(*rows));
	memset(st, 0, sizeof(*st));
	err = elf ? cfi__read_eh_frame(elf, &src, rows, st) : -1;
	elf_end(elf);
	close(fd);
	return err;
}

/* Does @path's checked .eh_frame get a search table? */
static bool searchable(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
	struct cfi_checked chk;
	bool yes = false;

	if (elf && !cfi_check__section(elf, ".eh_frame", true, true, path, &chk, NULL)) {
		yes = chk.searchable;
		cfi_check__free(&chk);
	}
	elf_end(elf);
	if (fd >= 0)
		close(fd);
	return yes;
}

/* Return: the FDEs walked, 0 when @path is absent. */
static uint64_t check_same(const char *path)
{
	struct unwind_rows a, b;
	struct cfi_stats sa, sb;

	if (access(path, R_OK))
		return 0;
	CHECK(searchable(path));
	CHECK(read_rows(path, true, &a, &sa) == 0);
	CHECK(read_rows(path, false, &b, &sb) == 0);
	CHECK(a.n > 10);
	CHECK_EQ_U64(b.n, a.n);
	CHECK(a.n == b.n && !memcmp(a.rows, b.rows, a.n * sizeof(*a.rows)));
	CHECK(!memcmp(a.unsupported, b.unsupported, sizeof(a.unsupported)));
	CHECK(!memcmp(&sa, &sb, sizeof(sa)));
	CHECK_EQ_U64(sb.bad_rows, 0);
	unwind_rows__release(&a);
	unwind_rows__release(&b);
	return sa.fdes;
}

/* Overlapping FDEs: no table (libdw's cache would answer for the other's range). */
static void check_overlap_refused(void)
{
	struct cfi_fde_span ok[] = { { 0x1000, 0x1010, 0x18 }, { 0x1010, 0x1020, 0x40 } };
	struct cfi_fde_span bad[] = { { 0x1000, 0x1020, 0x18 }, { 0x1010, 0x1018, 0x40 } };
	struct cfi_fde_span far[] = { { 0x100000000ull + 0x1000, 0x100000000ull + 0x1010, 0x18 } };
	uint8_t *hdr = NULL;
	size_t len = 0;

	CHECK(cfi_search__build(ok, 2, 0x800, &hdr, &len) == 0);
	CHECK_EQ_U64(len, 16 + 2 * 8);
	CHECK(hdr && hdr[0] == 1 && hdr[16] == 0x00 && hdr[17] == 0x08 && hdr[20] == 0x18);
	free(hdr);
	CHECK(cfi_search__build(bad, 2, 0x800, &hdr, &len) == -ENOTSUP);
	CHECK(cfi_search__build(far, 1, 0x800, &hdr, &len) == -ENOTSUP);
	CHECK(cfi_search__build(ok, 0, 0x800, &hdr, &len) == -ENOTSUP);
}

int main(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";
	char nofp[256];

	elf_version(EV_CURRENT);
	snprintf(nofp, sizeof(nofp), "%s/workloads/qsort_chain_nofp", o);
	CHECK(check_same(nofp) > 0);
	CHECK(check_same("/lib/x86_64-linux-gnu/libc.so.6") > 2048);
	check_same("/usr/lib/x86_64-linux-gnu/libstdc++.so.6");
	check_same("/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1");
	check_overlap_refused();
	return CHECK_DONE();
}
