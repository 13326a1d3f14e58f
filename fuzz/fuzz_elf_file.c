// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/elf/elf_file: the input as an ELF file in a memfd. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/sym/demangle.h"
#include "lib/elf/elf_file.h"

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
	elf_file__free(ef);
	return 0;
}
