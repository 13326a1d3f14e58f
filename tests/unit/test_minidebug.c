// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/elf/minidebug: the Fedora-style stripped workload
 * (tests/workloads/minidebug.c, make-minidebug.sh) names its static functions
 * from .gnu_debugdata at the addresses of the unstripped build; the xz
 * decoder refuses corrupt, truncated, trailing and oversized input.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/elf/minidebug.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_syms.h"

static const char *workload(const char *name)
{
	static char path[2][512];
	static int i;
	const char *o = getenv("O") ? getenv("O") : "build";

	i ^= 1;
	snprintf(path[i], sizeof(path[i]), "%s/workloads/%s", o, name);
	return path[i];
}

static void test_workload(void)
{
	struct test_syms full, stripped, mini;
	const struct test_sym *want, *got;
	struct minidebug *md;
	size_t i, len;
	int fd;
	Elf *elf;

	CHECK(test_syms__read(workload("minidebug_full"), &full) == 0);
	CHECK(test_syms__read(workload("minidebug"), &stripped) == 0 && stripped.n == 0);
	fd = open(workload("minidebug"), O_RDONLY | O_CLOEXEC);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	md = minidebug__open(elf, "minidebug");
	CHECK(md != NULL);
	if (!md)
		goto out;
	CHECK(minidebug__image(md, &len) != NULL && len > 1000);
	CHECK(test_syms__read_elf(minidebug__elf(md), &mini) == 0);
	/* The static functions, where the unstripped build has them. */
	for (i = 0; i < 2; i++) {
		const char *name = i ? "md_inner" : "md_outer";

		want = test_syms__find(&full, name);
		got = test_syms__find(&mini, name);
		CHECK(want && got && want->addr == got->addr && want->size == got->size);
	}
	/* What .dynsym names is left out, as Fedora does. */
	CHECK(test_syms__find(&mini, "md_leaf") == NULL && test_syms__find(&mini, "main") == NULL);
	for (i = 0; i < mini.n; i++) {
		want = test_syms__find(&full, mini.v[i].name);
		CHECK(want && want->addr == mini.v[i].addr);
	}
	test_syms__free(&mini);
	minidebug__free(md);
out:
	elf_end(elf);
	close(fd);
	test_syms__free(&full);
	test_syms__free(&stripped);
}

static size_t xz(const void *in, size_t len, uint8_t *out, size_t cap)
{
	size_t pos = 0;

	CHECK(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, NULL, in, len, out, &pos, cap) ==
	      LZMA_OK);
	return pos;
}

static void test_decode(void)
{
	static const char text[] = "MiniDebugInfo is an xz stream";
	uint8_t packed[512], big_in[65536], *copy;
	size_t n, len;
	void *out;

	n = xz(text, sizeof(text), packed, sizeof(packed));
	CHECK(minidebug_xz_decode(packed, n, 0, &out, &len) == 0 && len == sizeof(text));
	CHECK(len == sizeof(text) && !memcmp(out, text, len));
	free(out);
	CHECK(minidebug_xz_decode(packed, n, sizeof(text) - 1, &out, &len) == -EFBIG);
	CHECK(minidebug_xz_decode(packed, n, sizeof(text), &out, &len) == 0);
	free(out);
	copy = malloc(n + 4); /* exact sizes: ASan sees any read past the input */
	for (size_t cut = 0; cut < n; cut++) {
		memcpy(copy, packed, cut);
		CHECK(minidebug_xz_decode(copy, cut, 0, &out, &len) == -EINVAL);
	}
	memcpy(copy, packed, n);
	memcpy(copy + n, "junk", 4);
	CHECK(minidebug_xz_decode(copy, n + 4, 0, &out, &len) == -EINVAL);
	copy[n / 2] ^= 0x55;
	CHECK(minidebug_xz_decode(copy, n, 0, &out, &len) == -EINVAL);
	free(copy);
	CHECK(minidebug_xz_decode(text, sizeof(text), 0, &out, &len) == -EINVAL);
	/* 64 KiB of zeros packs into ~100 bytes: a bomb in small; the cap holds. */
	memset(big_in, 0, sizeof(big_in));
	n = xz(big_in, sizeof(big_in), packed, sizeof(packed));
	CHECK(minidebug_xz_decode(packed, n, 4096, &out, &len) == -EFBIG);
	CHECK(minidebug_xz_decode(packed, n, 0, &out, &len) == 0 && len == sizeof(big_in));
	free(out);
}

/* A flipped byte inside the workload's .gnu_debugdata: refused, not crashed on. */
static void test_corrupt_section(void)
{
	char tmp[] = "/tmp/stacktap-minidebug.XXXXXX";
	struct minidebug *md;
	uint8_t buf[1 << 16];
	int in, out;
	ssize_t n;
	Elf *elf;
	GElf_Shdr sh;
	Elf_Scn *scn = NULL;
	size_t shstr;

	in = open(workload("minidebug"), O_RDONLY | O_CLOEXEC);
	out = mkstemp(tmp);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		CHECK(write(out, buf, (size_t)n) == n);
	close(in);
	elf = elf_begin(out, ELF_C_READ, NULL);
	CHECK(elf_getshdrstrndx(elf, &shstr) == 0);
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && !strcmp(elf_strptr(elf, shstr, sh.sh_name), ".gnu_debugdata"))
			break;
	CHECK(scn != NULL);
	elf_end(elf);
	if (scn) {
		CHECK(pread(out, buf, 1, (off_t)(sh.sh_offset + sh.sh_size / 2)) == 1);
		buf[0] ^= 0x5a;
		CHECK(pwrite(out, buf, 1, (off_t)(sh.sh_offset + sh.sh_size / 2)) == 1);
	}
	elf = elf_begin(out, ELF_C_READ, NULL);
	errno = 0;
	md = minidebug__open(elf, tmp);
	CHECK(md == NULL && errno == EINVAL);
	elf_end(elf);
	close(out);
	unlink(tmp);
}

int main(void)
{
	elf_version(EV_CURRENT);
	test_workload();
	test_decode();
	test_corrupt_section();
	return CHECK_DONE();
}
