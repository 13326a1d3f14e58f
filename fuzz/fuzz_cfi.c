// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/unwind/{cfi,table,unwinder}: CFI sections and whole ELF files. */
/*
 * Two input shapes (see fuzz/corpus/README-cfi.md):
 *  - "\x7fELF...": a whole ELF file, written to a memfd and built into a table
 *    by unwind_table__build_fd(), and built again the way the vDSO's is: a
 *    model of an image in memory (elf_cache__add_image(), as the process
 *    registry makes it) and unwind_table__of() on it; then a walk over the
 *    input bytes as a stack, and the spans (where rows came from) and
 *    segments are checked.
 *  - anything else: byte 0 bit 0 picks .debug_frame (1) or .eh_frame (0),
 *    bytes 1-4 are the section's vaddr (little-endian), the rest is the
 *    section. It is wrapped in a minimal in-memory ELF and read by cfi.c.
 * Either way the finished rows must be strictly sorted.
 */
#include <elf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/elf/elf_cache.h"
#include "lib/unwind/cfi.h"
#include "lib/unwind/table.h"
#include "lib/unwind/table_cache.h"
#include "lib/unwind/unwinder.h"

#define SEC_OFF 0x100 /* section data starts after the headers */

static void check_rows(const struct unwind_rows *v)
{
	size_t i;

	for (i = 1; i < v->n; i++)
		if (v->rows[i - 1].pc >= v->rows[i].pc)
			abort();
}

/* ELF header, one R+X PT_LOAD over everything, sections: null, the CFI section, .shstrtab. */
static uint8_t *wrap_elf(const uint8_t *sec, size_t len, uint32_t vaddr, bool debug, size_t *size)
{
	static const char strtab_eh[] = "\0.eh_frame\0.shstrtab";
	static const char strtab_dbg[] = "\0.debug_frame\0.shstrtab";
	const char *strtab = debug ? strtab_dbg : strtab_eh;
	size_t strsz = debug ? sizeof(strtab_dbg) : sizeof(strtab_eh);
	size_t shoff = (SEC_OFF + len + strsz + 7) & ~(size_t)7;
	uint8_t *img = calloc(1, shoff + 3 * sizeof(Elf64_Shdr));
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + sizeof(*eh));
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + shoff);

	if (!img)
		abort();
	*eh = (Elf64_Ehdr){ .e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
			    .e_phoff = sizeof(*eh), .e_shoff = shoff, .e_ehsize = sizeof(*eh),
			    .e_phentsize = sizeof(*ph), .e_phnum = 1,
			    .e_shentsize = sizeof(*sh), .e_shnum = 3, .e_shstrndx = 2 };
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = shoff,
			    .p_memsz = 1ULL << 32, .p_align = 0x1000 };
	memcpy(img + SEC_OFF, sec, len);
	memcpy(img + SEC_OFF + len, strtab, strsz);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS,
			      .sh_flags = debug ? 0 : SHF_ALLOC, .sh_addr = debug ? 0 : vaddr,
			      .sh_offset = SEC_OFF, .sh_size = len, .sh_addralign = 1 };
	sh[2] = (Elf64_Shdr){ .sh_name = debug ? 14 : 11, .sh_type = SHT_STRTAB,
			      .sh_offset = SEC_OFF + len, .sh_size = strsz, .sh_addralign = 1 };
	*size = shoff + 3 * sizeof(Elf64_Shdr);
	return img;
}

/*
 * Our search table (lib/unwind/cfi_search.c) must never change what libdw
 * finds: the rows and statistics of its linear search are the same.
 */
static void check_same_as_linear(Elf *elf, const struct unwind_rows *rows,
				 const struct cfi_stats *st)
{
	struct cfi_source src = { .name = "fuzz", .base = 0, .linear = true };
	struct unwind_rows lin = { 0 };
	struct cfi_stats lst = { 0 };

	cfi__read_eh_frame(elf, &src, &lin, &lst);
	unwind_rows__finish(&lin);
	if (lin.n != rows->n || (lin.n && memcmp(lin.rows, rows->rows, lin.n * sizeof(*lin.rows))) ||
	    memcmp(lin.unsupported, rows->unsupported, sizeof(lin.unsupported)) ||
	    memcmp(&lst, st, sizeof(lst)))
		abort();
	unwind_rows__release(&lin);
}

static void fuzz_section(const uint8_t *data, size_t size)
{
	struct cfi_source src = { .name = "fuzz", .base = 0 };
	struct unwind_rows rows = { 0 };
	struct cfi_stats st = { 0 };
	bool debug = data[0] & 1;
	uint32_t vaddr;
	size_t img_size;
	uint8_t *img;
	Elf *elf;

	memcpy(&vaddr, data + 1, 4);
	img = wrap_elf(data + 5, size - 5, vaddr, debug, &img_size);
	elf = elf_memory((char *)img, img_size);
	if (elf) {
		if (debug)
			cfi__read_debug_frame(elf, &src, &rows, &st);
		else
			cfi__read_eh_frame(elf, &src, &rows, &st);
		unwind_rows__finish(&rows);
		check_rows(&rows);
		if (!debug)
			check_same_as_linear(elf, &rows, &st);
		elf_end(elf);
	}
	unwind_rows__release(&rows);
	free(img);
}

/* The input bytes double as a stack: walks must stop cleanly whatever they hold. */
static void fuzz_walk(const struct unwind_table *t, const uint8_t *data, size_t size)
{
	struct unwind_map map = { .start = 0x400000, .end = 0x400000 + size, .path = "fuzz" };
	struct unwind_stack stack = { 0x7f0000, data, size };
	struct unwind_frame frames[32];
	struct unwind_regs regs;
	size_t n, i;

	if (size < 24)
		return;
	unwind_map__set_table(&map, t);
	memcpy(&regs, data, sizeof(regs));
	regs.ip = 0x400000 + regs.ip % size;
	regs.sp = 0x7f0000 + regs.sp % size;
	if (unwinder__walk(&map, 1, &regs, &stack, frames, 32, &n) >= UNWIND_STOP_MAX || n > 32)
		abort();
	for (i = 1; i < n; i++)
		if (frames[i].map == 0 && frames[i].file_off != frames[i].addr - 0x400000)
			abort();
}

/* Spans sorted, each non-empty, of a known source; lookups and segment picks stay in bounds. */
static void check_table(const struct unwind_table *t, const uint8_t *data, size_t size)
{
	uint64_t v;
	size_t i;

	check_rows(&t->rows);
	if (t->covered_bytes > t->exec_bytes)
		abort();
	for (i = 0; i < t->nspans; i++)
		if (t->spans[i].lo >= t->spans[i].hi || t->spans[i].source >= UNWIND_SRC_MAX ||
		    (i && t->spans[i - 1].lo > t->spans[i].lo))
			abort();
	for (i = 0; i + 8 <= size && i < 64; i += 8) {
		memcpy(&v, data + i, sizeof(v));
		if (unwind_table__source_at(t, t->base + v % 0x100000) >= UNWIND_SRC_MAX)
			abort();
		unwind_table__map_vaddr(t, v & ~0xfffULL, &v);
	}
}

static void fuzz_elf(const uint8_t *data, size_t size)
{
	struct elf_cache *c = elf_cache__new();
	const struct unwind_table *vt;
	struct unwind_table *t;
	struct elf_file *ef;
	int fd = memfd_create("fuzz-cfi", MFD_CLOEXEC);

	if (fd < 0 || !c || write(fd, data, size) != (ssize_t)size)
		abort();
	t = unwind_table__build_fd(fd, "fuzz");
	close(fd);
	if (t) {
		check_table(t, data, size);
		fuzz_walk(t, data, size);
		unwind_table__free(t);
	}
	ef = elf_cache__add_image(c, data, size, "[vdso]");
	vt = ef ? unwind_table__of(ef) : NULL;
	if (vt) {
		check_table(vt, data, size);
		if (unwind_table__of(ef) != vt)
			abort();
	}
	elf_cache__free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool inited;

	if (!inited) {
		elf_version(EV_CURRENT);
		/* Every input is parsed: a table cached by build ID would skip mutated CFI. */
		table_cache__disable();
		inited = true;
	}
	if (size >= 4 && !memcmp(data, ELFMAG, SELFMAG))
		fuzz_elf(data, size);
	else if (size >= 5)
		fuzz_section(data, size);
	return 0;
}
