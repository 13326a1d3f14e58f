// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/elf/elf_file: this test binary, libc, debug files, and malformed files. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/elf/elf_file.h"
#include "tests/unit/check.h"

int main(void);

__attribute__((noinline)) int elf_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) static int elf_test_local(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 5 + 2;
}

/* What the dynamic loader says about one object: bias, phdrs, name. */
struct dl_obj {
	const char *want;           /* "" for the main program, else a name substring */
	uint64_t bias;
	const ElfW(Phdr) *phdr;
	int phnum;
	char name[256];
	int found;
};

static int dl_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct dl_obj *o = arg;

	if (o->want[0] ? !strstr(info->dlpi_name, o->want) : info->dlpi_name[0] != '\0')
		return 0;
	o->bias = info->dlpi_addr;
	o->phdr = info->dlpi_phdr;
	o->phnum = info->dlpi_phnum;
	snprintf(o->name, sizeof(o->name), "%s", info->dlpi_name);
	o->found = 1;
	return 1;
}

/* The build ID as the loader mapped it: PT_NOTE parsed by hand, not by libelf. */
static size_t mem_build_id(const struct dl_obj *o, const uint8_t **id)
{
	const char *p, *end;
	const ElfW(Nhdr) *nh;
	int i;

	for (i = 0; i < o->phnum; i++) {
		if (o->phdr[i].p_type != PT_NOTE)
			continue;
		p = (const char *)(o->bias + o->phdr[i].p_vaddr);
		end = p + o->phdr[i].p_memsz;
		while (p + sizeof(*nh) <= end) {
			nh = (const ElfW(Nhdr) *)p;
			p += sizeof(*nh);
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(p, "GNU", 4)) {
				*id = (const uint8_t *)p + 4;
				return nh->n_descsz;
			}
			p += (nh->n_namesz + 3) / 4 * 4 + (nh->n_descsz + 3) / 4 * 4;
		}
	}
	return 0;
}

/* File offset of @vaddr from the loader's phdrs. */
static uint64_t mem_vaddr_to_off(const struct dl_obj *o, uint64_t vaddr)
{
	int i;

	for (i = 0; i < o->phnum; i++)
		if (o->phdr[i].p_type == PT_LOAD && vaddr >= o->phdr[i].p_vaddr &&
		    vaddr < o->phdr[i].p_vaddr + o->phdr[i].p_filesz)
			return o->phdr[i].p_offset + (vaddr - o->phdr[i].p_vaddr);
	return UINT64_MAX;
}

static void test_self(void)
{
	struct dl_obj o = { .want = "" };
	const uint8_t *id = NULL, *mid = NULL;
	uint64_t vaddr, lvaddr, off, v2;
	const struct elf_sym *s;
	struct elf_file *ef;
	size_t len, mlen;

	dl_iterate_phdr(dl_cb, &o);
	CHECK(o.found);
	ef = elf_file__open("/proc/self/exe");
	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_STR(elf_file__name(ef), "/proc/self/exe");
	CHECK(elf_file__is_dyn(ef) == (o.bias != 0));
	vaddr = (uintptr_t)elf_test_target - o.bias;
	s = elf_file__find_sym(ef, vaddr);
	CHECK_STR(s ? s->name : NULL, "elf_test_target");
	s = elf_file__find_sym(ef, vaddr + 1);
	CHECK_STR(s ? s->name : NULL, "elf_test_target");
	CHECK(s && s->size > 1);
	s = elf_file__sym_by_name(ef, "elf_test_target");
	CHECK_EQ_U64(s ? s->addr : 0, vaddr);
	lvaddr = (uintptr_t)elf_test_local - o.bias;
	s = elf_file__find_sym(ef, lvaddr);
	CHECK_STR(s ? s->name : NULL, "elf_test_local");
	s = elf_file__sym_by_name(ef, "main");
	CHECK_EQ_U64(s ? s->addr : 0, (uintptr_t)main - o.bias);
	CHECK(elf_file__sym_by_name(ef, "no_such_function_here") == NULL);

	CHECK_EQ_U64(elf_file__vaddr_to_offset(ef, vaddr, &off), 0);
	CHECK_EQ_U64(off, mem_vaddr_to_off(&o, vaddr));
	CHECK_EQ_U64(elf_file__offset_to_vaddr(ef, off, &v2), 0);
	CHECK_EQ_U64(v2, vaddr);
	CHECK_EQ_U64(elf_file__offset_to_vaddr(ef, 1ull << 40, &v2), (uint64_t)-ENOENT);

	len = elf_file__build_id(ef, &id);
	mlen = mem_build_id(&o, &mid);
	CHECK_EQ_U64(len, 20);
	CHECK_EQ_U64(len, mlen);
	CHECK(id && mid && len == mlen && !memcmp(id, mid, len));
	elf_file__free(ef);
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

static void test_libc(void)
{
	struct dl_obj o = { .want = "libc.so" };
	const uint8_t *id = NULL, *mid = NULL;
	const struct elf_sym *s;
	struct elf_file *ef;
	uint64_t vaddr;
	size_t len;

	dl_iterate_phdr(dl_cb, &o);
	CHECK(o.found);
	if (!o.found)
		return;
	ef = elf_file__open(o.name);
	CHECK(ef != NULL);
	if (!ef)
		return;
	vaddr = libc_qsort() - o.bias;
	s = elf_file__sym_by_name(ef, "qsort");
	CHECK_EQ_U64(s ? s->addr : 0, vaddr);
	s = elf_file__find_sym(ef, vaddr + 4);
	CHECK(s && s->addr == vaddr);
	len = elf_file__build_id(ef, &id);
	CHECK_EQ_U64(len, mem_build_id(&o, &mid));
	CHECK(len && id && mid && !memcmp(id, mid, len));
	elf_file__free(ef);
}

static char *write_tmp(const void *data, size_t len)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_elf_file.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		return NULL;
	close(fd);
	return path;
}

static void test_bad_files(void)
{
	Elf64_Ehdr eh = { 0 };
	char head[512];
	struct elf_file *ef;
	const uint8_t *id;
	const char *path;
	FILE *f;

	path = write_tmp("hello, not an ELF file\n", 23);
	errno = 0;
	CHECK(path && elf_file__open(path) == NULL);
	CHECK_EQ_U64(errno, ENOEXEC);
	unlink(path);

	errno = 0;
	CHECK(elf_file__open("/nonexistent/file") == NULL);
	CHECK_EQ_U64(errno, ENOENT);

	/* The head of a real ELF file: its program headers point past the end. */
	f = fopen("/proc/self/exe", "rb");
	CHECK(f && fread(head, 1, sizeof(head), f) == sizeof(head));
	if (f)
		fclose(f);
	((Elf64_Ehdr *)head)->e_phoff = sizeof(head) - 8;
	path = write_tmp(head, sizeof(head));
	errno = 0;
	CHECK(path && elf_file__open(path) == NULL);
	CHECK_EQ_U64(errno, EINVAL);
	unlink(path);

	/* A bare header: valid, with no segments, symbols or build ID. */
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	path = write_tmp(&eh, sizeof(eh));
	ef = path ? elf_file__open(path) : NULL;
	CHECK(ef != NULL);
	CHECK(ef && !elf_file__is_dyn(ef));
	CHECK(ef && elf_file__build_id(ef, &id) == 0 && id == NULL);
	CHECK(ef && elf_file__find_sym(ef, 0x401000) == NULL);
	CHECK(ef && elf_file__sym_by_name(ef, "main") == NULL);
	elf_file__free(ef);
	unlink(path);
}

/*
 * fuzz/corpus/elf_file/tiny.so (built as fuzz/corpus/README.md says): .symtab
 * and .dynsym both list tiny_weak (0x310, WEAK), tiny_global and tiny_alias
 * (0x320, GLOBAL), _start; .symtab adds tiny_local (0x300, LOCAL, size 4).
 */
static void test_tiny(void)
{
	struct elf_file *ef = elf_file__open("fuzz/corpus/elf_file/tiny.so");
	const struct elf_sym *s;
	const uint8_t *id;

	CHECK(ef != NULL);
	if (!ef)
		return;
	CHECK_EQ_U64(elf_file__nr_syms(ef), 5);
	CHECK(elf_file__is_dyn(ef));
	CHECK_EQ_U64(elf_file__build_id(ef, &id), 20);
	CHECK(id && !memcmp(id, "\x11\xd9\x86\x74\x5e\x21\x49\xd1\x7a\xad"
			    "\xfc\xfa\x29\xc0\xd8\x11\x5d\xaf\x23\x58", 20));
	s = elf_file__find_sym(ef, 0x300);
	CHECK_STR(s ? s->name : NULL, "tiny_local");
	CHECK(elf_file__find_sym(ef, 0x304) == NULL); /* past tiny_local's 4 bytes */
	CHECK(elf_file__find_sym(ef, 0x2ff) == NULL);
	s = elf_file__find_sym(ef, 0x313);
	CHECK_STR(s ? s->name : NULL, "tiny_weak");
	s = elf_file__find_sym(ef, 0x330);
	CHECK_STR(s ? s->name : NULL, "tiny_alias"); /* globals tie: by name */
	CHECK(elf_file__find_sym(ef, 0x331) == NULL);
	s = elf_file__sym_by_name(ef, "tiny_global");
	CHECK_EQ_U64(s ? s->addr : 0, 0x320);
	CHECK_EQ_U64(s ? s->size : 0, 17);
	elf_file__free(ef);
}

/* Two FNV-1a passes over @n bytes: the identity of a file without a build ID, by hand. */
static void fnv_pair(const uint8_t *p, size_t n, uint64_t h[2])
{
	size_t i;

	h[0] = 0xcbf29ce484222325ULL;
	h[1] = 0x84222325cbf29ce4ULL;
	for (i = 0; i < n; i++) {
		h[0] = (h[0] ^ p[i]) * 0x100000001b3ULL;
		h[1] = (h[1] ^ p[i]) * 0x100000001b3ULL;
	}
}

/*
 * tiny.so with its build ID note's type changed: no build ID, so the
 * identity is the hash of the whole file, whether it is mapped (a root-owned
 * file: hashed by reads) or read into memory; both give the hash of its bytes.
 */
static void test_no_build_id(void)
{
	static const uint8_t id[] = "\x11\xd9\x86\x74\x5e\x21\x49\xd1";
	char path[] = "/tmp/st-elf-noid.XXXXXX";
	uint8_t buf[64 * 1024], *at;
	const uint8_t *got;
	uint64_t want[2];
	struct elf_file *ef;
	bool is_hash;
	FILE *f = fopen("fuzz/corpus/elf_file/tiny.so", "rb");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	int fd;

	if (f)
		fclose(f);
	at = n ? memmem(buf, n, id, sizeof(id) - 1) : NULL;
	CHECK(at != NULL && at - buf >= 8);
	if (!at)
		return;
	at[-8] = 0x99; /* the note's type: NT_GNU_BUILD_ID no more */
	fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, buf, n) == (ssize_t)n && fchmod(fd, 0644) == 0);
	ef = fd >= 0 ? elf_file__open(path) : NULL;
	CHECK(ef != NULL);
	if (ef) {
		fnv_pair(buf, n, want);
		CHECK_EQ_U64(elf_file__build_id(ef, &got), 0);
		CHECK_EQ_U64(elf_file__identity(ef, &got, &is_hash), 16);
		CHECK(is_hash && !memcmp(got, want, 16));
	}
	elf_file__free(ef);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

/* Copy @from to @to, with @extra bytes appended (to change a debug file's CRC). */
static int copy_file(const char *from, const char *to, const char *extra)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[4096];
	size_t n;
	int err = in && out ? 0 : -1;

	while (!err && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			err = -1;
	if (!err && extra && fputs(extra, out) < 0)
		err = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		err = -1;
	return err;
}

/* @dir/qsort_chain_dwarf_split and its debug file next to it, the latter changed when @bad. */
static struct elf_file *split_copy(const char *dir, const char *o, bool bad)
{
	char from[300], to[300];

	snprintf(from, sizeof(from), "%s/workloads/qsort_chain_dwarf_split", o);
	snprintf(to, sizeof(to), "%s/qsort_chain_dwarf_split", dir);
	if (copy_file(from, to, NULL))
		return NULL;
	strcat(from, ".debug");
	strcat(to, ".debug");
	if (copy_file(from, to, bad ? "x" : NULL))
		return NULL;
	to[strlen(to) - strlen(".debug")] = '\0';
	return elf_file__open(to);
}

/*
 * The debug file as the unwind table asks for it (with a .debug_frame) and as
 * symbols do (any): libc's (libc6-dbg, by build ID) has no .debug_frame, so
 * the first finds nothing and the second still finds it; a split workload's
 * (by .gnu_debuglink) has one, and is then the file's debug file for both;
 * with its CRC wrong it is found by neither.
 */
static void test_debug_with(void)
{
	struct dl_obj o = { .want = "libc.so" };
	const char *env = getenv("O"), *p = NULL;
	char dir[] = "/tmp/test_elf_debug.XXXXXX", want[300];
	struct elf_file *ef;
	Elf *dbg;

	dl_iterate_phdr(dl_cb, &o);
	ef = o.found ? elf_file__open(o.name) : NULL;
	CHECK(ef != NULL);
	CHECK(ef && elf_file__debug_elf_with(ef, ".debug_frame", &p) == NULL);
	dbg = ef ? elf_file__debug_elf(ef, &p) : NULL;
	CHECK(dbg && p && !strncmp(p, "/usr/lib/debug/.build-id/", 25));
	CHECK(ef && elf_file__debug_elf_with(ef, ".symtab", NULL) == dbg);
	elf_file__free(ef);

	CHECK(mkdtemp(dir) != NULL);
	ef = split_copy(dir, env ? env : "build", false);
	CHECK(ef != NULL);
	dbg = ef ? elf_file__debug_elf_with(ef, ".debug_frame", &p) : NULL;
	snprintf(want, sizeof(want), "%s/qsort_chain_dwarf_split.debug", dir);
	CHECK(dbg != NULL);
	CHECK_STR(dbg ? p : NULL, want);
	CHECK(ef && elf_file__debug_elf(ef, NULL) == dbg);
	elf_file__free(ef);
	ef = split_copy(dir, env ? env : "build", true);
	CHECK(ef != NULL);
	CHECK(ef && elf_file__debug_elf_with(ef, ".debug_frame", NULL) == NULL);
	CHECK(ef && elf_file__debug_elf(ef, NULL) == NULL);
	elf_file__free(ef);
	unlink(want);
	want[strlen(want) - strlen(".debug")] = '\0';
	unlink(want);
	rmdir(dir);
}

int main(void)
{
	test_tiny();
	test_no_build_id();
	test_self();
	test_libc();
	test_debug_with();
	test_bad_files();
	CHECK(elf_test_target(1) == 4 && elf_test_local(1) == 7);
	return CHECK_DONE();
}
