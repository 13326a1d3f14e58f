// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the SFrame reader on hand-built fixtures; "--dump ELF" prints an ELF's rows. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "lib/unwind/sframe.h"

/* Relative to the repo root, where tests/run.sh runs us. */
#define FIXTURES "tests/fixtures/sframe/"
/* The sh_addr every fixture was built for (make-fixtures.sh SEC_VADDR). */
#define FIX_VADDR 0x3000

static const char *cfa_name(unsigned cfa)
{
	static const char *const n[] = { "rsp",	 "rbp",	   "plt",  "outermost", "unsupported",
					 "none", "signal", "rsp8", "rbp8" };

	return cfa < sizeof(n) / sizeof(n[0]) ? n[cfa] : "?";
}

static const char *rbp_name(unsigned rbp)
{
	static const char *const n[] = { "same", "saved", "undefined" };

	return rbp < sizeof(n) / sizeof(n[0]) ? n[rbp] : "?";
}

/* The one text form of a row, shared by the assertions and the dump. */
static const char *row_str(const struct unwind_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%#x %s %d %s %d", r->pc, cfa_name(r->cfa), r->cfa_off,
		 rbp_name(r->rbp), r->rbp_off);
	return buf;
}

static void *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f) {
		fprintf(stderr, "%s: %s (run from the repo root)\n", path, strerror(errno));
		return NULL;
	}
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc(n ? (size_t)n : 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Read fixture @name with @base, finish, and compare with @want (NULL-terminated). */
static void check_fixture(const char *name, uint64_t base, const char *const *want,
			  const uint64_t *unsup)
{
	struct unwind_rows v = { 0 };
	char path[256], err[160] = "", buf[96];
	size_t len = 0, i;
	void *sec;
	int ret;

	snprintf(path, sizeof(path), FIXTURES "%s.sframe", name);
	sec = load(path, &len);
	CHECK(sec != NULL);
	if (!sec)
		return;
	ret = sframe__read(sec, len, FIX_VADDR, base, &v, err, sizeof(err));
	if (ret)
		fprintf(stderr, "%s: %s\n", name, err);
	CHECK_EQ_U64(ret, 0);
	unwind_rows__finish(&v);
	for (i = 0; want[i] || i < v.n; i++) {
		const char *got = i < v.n ? row_str(&v.rows[i], buf, sizeof(buf)) : "(none)";

		if (!want[i] || strcmp(got, want[i]))
			fprintf(stderr, "%s: row %zu\n", name, i);
		CHECK_STR(got, want[i] ? want[i] : "(end)");
		if (!want[i])
			break;
	}
	for (i = 0; i < UNW_UNSUP_MAX; i++)
		if (v.unsupported[i] != unsup[i])
			fprintf(stderr, "%s: unsupported %s\n", name, unwind_unsupported_name(i));
	CHECK(!memcmp(v.unsupported, unsup, sizeof(v.unsupported)));
	unwind_rows__release(&v);
	free(sec);
}

static void test_v2_basic(void)
{
	static const char *const want[] = {
		"0 rsp 8 same 0",	    "0x1 rsp 16 saved -2",    "0x4 rbp 16 saved -2",
		"0x3f rsp 8 saved -2",	    "0x40 none 0 undefined 0", "0x100 rsp 8 same 0",
		"0x201 rsp 4096 saved -2",  "0x3ff rsp 8 same 0",     "0x400 none 0 undefined 0",
		"0x1f000 rsp 8 same 0",	    "0x2f000 rsp8 8750 saved -2", /* 70,000 bytes */
		"0x3eff0 rsp 24 saved -3",  /* FDE 2's end at 0x3f000 yields to the PLT row */
		"0x3f000 plt 0 same 0",	    "0x3f030 none 0 undefined 0",
		"0x4f000 outermost 0 undefined 0", "0x4f004 rsp 8 same 0",
		"0x4f010 none 0 undefined 0", NULL,
	};
	uint64_t unsup[UNW_UNSUP_MAX] = { 0 };
	struct unwind_row r = { 0 };

	check_fixture("v2-basic", 0x1000, want, unsup);
	/* Beyond 16 bits only whole 8-byte units within 16 bits of them. */
	CHECK(unwind_row_set_cfa(&r, true, -32768) == 0 && r.cfa == UNWIND_CFA_RBP);
	CHECK(unwind_row_set_cfa(&r, false, 70000) == 0 && r.cfa == UNWIND_CFA_RSP8);
	CHECK_EQ_U64(r.cfa_off, 8750);
	CHECK(unwind_row_set_cfa(&r, false, 70001) == -1);
	CHECK(unwind_row_set_cfa(&r, false, 8 * 32768) == -1);
	CHECK(unwind_row_set_cfa(&r, true, -8 * 32768) == 0 && r.cfa == UNWIND_CFA_RBP8);
}

static void test_v2_small(void)
{
	static const char *const abs_rows[] = {
		"0x1000 rsp 8 same 0", "0x1001 rsp 16 saved -2", "0x1020 none 0 undefined 0", NULL,
	};
	static const char *const ra_rows[] = {
		"0x1000 rsp 8 same 0", "0x1001 rsp 16 saved -2",
		"0x1002 unsupported 0 undefined 0", "0x1020 none 0 undefined 0", NULL,
	};
	static const char *const shifted[] = {
		"0 rsp 16 saved -2", "0x1f none 0 undefined 0", NULL,
	};
	uint64_t none[UNW_UNSUP_MAX] = { 0 };
	uint64_t ra[UNW_UNSUP_MAX] = { [UNW_UNSUP_RA_RULE] = 1 };
	uint64_t below[UNW_UNSUP_MAX] = { [UNW_UNSUP_PC_RANGE] = 1 };

	check_fixture("v2-abs", 0, abs_rows, none);
	check_fixture("v2-ra", 0, ra_rows, ra);
	/* The first row lies below the base: counted, not emitted. */
	check_fixture("v2-abs", 0x1001, shifted, below);
}

static void test_v3_basic(void)
{
	static const char *const want[] = {
		"0 rsp 8 same 0",	     "0x1 rsp 16 saved -2",   "0x2 rsp 32 saved -2",
		"0x20 unsupported 0 undefined 0", /* fp at cfa-12 */
		"0x30 none 0 undefined 0",   "0x200 rsp 8 same 0",    "0xa00 rsp 4096 saved -2",
		"0x1200 none 0 undefined 0", "0xf000 rsp 16 same 0",
		/* PCMASK with 8-byte blocks, expanded over 0x18 bytes; FDE 2's end yields */
		"0xf100 rsp 8 same 0",	     "0xf104 rsp 16 same 0",  "0xf108 rsp 8 same 0",
		"0xf10c rsp 16 same 0",	     "0xf110 rsp 8 same 0",   "0xf114 rsp 16 same 0",
		"0xf118 none 0 undefined 0", "0xf200 plt 0 same 0",   "0xf240 none 0 undefined 0",
		"0xf300 unsupported 0 undefined 0", /* flexible FDE */
		"0xf310 none 0 undefined 0", "0xf400 unsupported 0 undefined 0", /* signal */
		"0xf410 none 0 undefined 0", "0xf500 outermost 0 undefined 0",
		"0xf508 none 0 undefined 0", NULL,
	};
	uint64_t unsup[UNW_UNSUP_MAX] = { [UNW_UNSUP_RBP_RANGE] = 1, [UNW_UNSUP_CFA_REG] = 2,
					  [UNW_UNSUP_RA_RULE] = 1 };

	check_fixture("v3-basic", 0x1000, want, unsup);
}

static void test_info(void)
{
	struct sframe_info info;
	char err[160];
	size_t len;
	void *sec = load(FIXTURES "v2-basic.sframe", &len);

	CHECK(sec != NULL);
	if (!sec)
		return;
	CHECK_EQ_U64(sframe__info(sec, len, &info, err, sizeof(err)), 0);
	CHECK_EQ_U64(info.version, 2);
	CHECK_EQ_U64(info.flags, 0x5);
	CHECK_STR(sframe__abi_name(info.abi), "amd64");
	CHECK_EQ_U64(info.auxhdr_len, 4);
	CHECK_EQ_U64(info.num_fdes, 5);
	CHECK_EQ_U64(info.num_fres, 14);
	CHECK_EQ_U64((uint64_t)(int64_t)info.cfa_fixed_ra, (uint64_t)-8);
	free(sec);
}

static void check_bad(const char *name, int want_ret, const char *want_err)
{
	struct unwind_row keep = { .pc = 7, .cfa = UNWIND_CFA_RSP, .cfa_off = 8 };
	struct unwind_rows v = { 0 };
	char path[256], err[160] = "";
	size_t len = 0;
	void *sec;

	snprintf(path, sizeof(path), FIXTURES "%s.sframe", name);
	sec = load(path, &len);
	CHECK(sec != NULL);
	if (!sec)
		return;
	/* A failed read leaves what was there before untouched. */
	CHECK_EQ_U64(unwind_rows__push(&v, &keep), 0);
	v.unsupported[UNW_UNSUP_PC_RANGE] = 5;
	CHECK_EQ_U64((uint64_t)(int64_t)sframe__read(sec, len, FIX_VADDR, 0, &v, err,
						      sizeof(err)), (uint64_t)(int64_t)want_ret);
	CHECK_STR(err, want_err);
	CHECK_EQ_U64(v.n, 1);
	CHECK_EQ_U64(v.unsupported[UNW_UNSUP_PC_RANGE], 5);
	CHECK_EQ_U64(v.unsupported[UNW_UNSUP_CFA_RANGE], 0);
	unwind_rows__release(&v);
	free(sec);
}

static void test_bad(void)
{
	check_bad("bad-magic", -EINVAL, "bad magic 0xdee3");
	check_bad("bad-version", -EOPNOTSUPP, "unknown version 4");
	check_bad("bad-abi", -EOPNOTSUPP, "ABI aarch64-le (2) not supported: only amd64 (3)");
	check_bad("bad-unsorted", -EINVAL, "FDE 1 out of order (0x1000 after 0x2000)");
	check_bad("bad-truncated-fre", -EINVAL, "FDE 0 FRE 1: truncated");
	check_bad("bad-fre-len", -EINVAL, "FRE sub-section (71 bytes at 20) past the section end");
	check_bad("bad-fre-order", -EINVAL, "FDE 0 FRE 1: start 0x4 not above 0x4");
	check_bad("bad-fre-past-size", -EINVAL,
		  "FDE 0 FRE 1: start 0x20 not below function size 32");
	check_bad("bad-num-fres", -EINVAL, "FDE 0: more FREs than the header's 1");
	check_bad("bad-num-fdes", -EINVAL, "FDE table (1000 x 20 bytes at 0) past the section end");
}

/* Every strict prefix of a good section must be refused: the FRE sub-section ends at its end. */
static void test_prefixes(const char *name)
{
	struct unwind_rows v = { 0 };
	char path[256];
	size_t len = 0, n, accepted = 0;
	void *sec;

	snprintf(path, sizeof(path), FIXTURES "%s.sframe", name);
	sec = load(path, &len);
	CHECK(sec != NULL);
	for (n = 0; sec && n < len; n++) {
		char *copy = malloc(n ? n : 1);

		memcpy(copy, sec, n);
		if (!sframe__read(copy, n, FIX_VADDR, 0, &v, NULL, 0))
			accepted++;
		free(copy);
	}
	CHECK_EQ_U64(accepted, 0);
	CHECK_EQ_U64(v.n, 0);
	unwind_rows__release(&v);
	free(sec);
}

/* --dump [--finish] ELF: the rows of ELF's .sframe with base 0, in section order. */
static int dump(const char *path, bool finish)
{
	struct unwind_rows v = { 0 };
	int fd, ret = 1;
	char err[160], buf[96];
	struct sframe_info info;
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	Elf *elf;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY);
	if (fd < 0 || !(elf = elf_begin(fd, ELF_C_READ, NULL)) || elf_getshdrstrndx(elf, &shstrndx)) {
		fprintf(stderr, "%s: not an ELF file\n", path);
		return 1;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".sframe") || !(d = elf_rawdata(scn, NULL)))
			continue;
		if (sframe__info(d->d_buf, d->d_size, &info, err, sizeof(err)) ||
		    sframe__read(d->d_buf, d->d_size, sh.sh_addr, 0, &v, err, sizeof(err))) {
			fprintf(stderr, "%s: %s\n", path, err);
			break;
		}
		printf("# version %u flags 0x%x abi %s fdes %u fres %u\n", info.version,
		       info.flags, sframe__abi_name(info.abi), info.num_fdes, info.num_fres);
		if (finish)
			unwind_rows__finish(&v);
		for (i = 0; i < v.n; i++)
			printf("%s\n", row_str(&v.rows[i], buf, sizeof(buf)));
		for (i = 0; i < UNW_UNSUP_MAX; i++)
			if (v.unsupported[i])
				printf("# unsupported %s %llu\n", unwind_unsupported_name(i),
				       (unsigned long long)v.unsupported[i]);
		ret = 0;
		break;
	}
	if (ret && !scn)
		fprintf(stderr, "%s: no .sframe section\n", path);
	unwind_rows__release(&v);
	elf_end(elf);
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2], false);
	if (argc == 4 && !strcmp(argv[1], "--dump") && !strcmp(argv[2], "--finish"))
		return dump(argv[3], true);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--dump [--finish] ELF]\n", argv[0]);
		return 2;
	}
	test_v2_basic();
	test_v2_small();
	test_v3_basic();
	test_info();
	test_bad();
	test_prefixes("v2-basic");
	test_prefixes("v3-basic");
	return CHECK_DONE();
}
