// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for lib/elf/elf_file: the input as an ELF file in a memfd,
 * with the name sources the symbolizer builds on it (lib/sym/sources.c):
 * MiniDebugInfo merged into its symbols, its dwz link, its DWARF indexed and
 * looked up, its Go table.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/elf/elf_file.h"
#include "lib/sym/demangle.h"
#include "lib/sym/dwarf_inline.h"
#include "lib/sym/gopclntab.h"
#include "lib/sym/sources.h"

static volatile uint8_t sink;

static void exercise(struct elf_file *ef, size_t size)
{
	uint64_t probe[] = { 0, 0x40, 0x1000, 0x1130, 0x401000, size / 2, size - 1, UINT64_MAX };
	const struct elf_sym *s, *t;
	uint64_t v, o;
	const uint8_t *id;
	size_t i, len;
	char *dm;

	len = elf_file__build_id(ef, &id);
	if (len > ELF_BUILD_ID_MAX || (len && !id))
		abort();
	for (i = 0; i < len; i++) /* ASan checks every byte the API hands out */
		sink ^= id[i];
	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		if (!elf_file__offset_to_vaddr(ef, probe[i], &v) &&
		    elf_file__vaddr_to_offset(ef, v, &o))
			abort(); /* every offset that maps has a way back */
		s = elf_file__find_sym(ef, probe[i]);
		if (s && s->addr > probe[i])
			abort();
		if (!s)
			continue;
		t = elf_file__sym_by_name(ef, s->name);
		if (!t || strcmp(t->name, s->name))
			abort();
		dm = sym_demangle(s->name);
		free(dm);
	}
}

/* What the symbolizer asks of a file beyond its symbols, at the same probe addresses. */
static void exercise_sources(struct elf_file *ef, size_t size)
{
	uint64_t probe[] = { 0, 0x40, 0x1000, 0x1130, 0x401000, size / 2, size - 1, UINT64_MAX };
	struct dwarf_frame fr[DWARF_INLINE_MAX_FRAMES];
	const struct gopclntab *go;
	struct dwarf_inline *di;
	size_t i, n, k;
	Elf *alt;

	(void)elf_file__has_symtab(ef);
	if (elf_file__dwarf_alt(ef, &alt) == 0 && alt && elf_kind(alt) != ELF_K_ELF)
		abort();
	di = sources__dwarf(ef);
	go = sources__go(ef);
	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		n = di ? dwarf_inline__lookup(di, probe[i], fr, DWARF_INLINE_MAX_FRAMES) : 0;
		for (k = 0; k < n; k++)
			sink ^= (uint8_t)((fr[k].func ? fr[k].func[0] : 0) ^
					  (fr[k].file ? fr[k].file[0] : 0));
		if (go && gopclntab__find(go, probe[i]))
			sink ^= (uint8_t)gopclntab__find(go, probe[i])->name[0];
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_file *ef;
	int fd;

	fd = memfd_create("fuzz-elf", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	ef = elf_file__open_fd(fd, "fuzz", ELF_OPEN_QUIET);
	close(fd);
	if (!ef)
		return 0;
	exercise(ef, size ? size : 1);
	exercise_sources(ef, size ? size : 1);
	elf_file__free(ef);
	return 0;
}
