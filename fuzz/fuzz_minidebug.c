// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for lib/elf/minidebug: any bytes as the content of
 * .gnu_debugdata; what decompresses is opened as an ELF and its symbols read.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/minidebug.h"

/* Small, so the fuzzer spends its time on the decoder, not on memset. */
#define FUZZ_MAX_OUT (1UL << 20)

static volatile size_t sink;

static void read_symbols(Elf *elf)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d;
	const char *name;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize && i < 4096; i++) {
			if (!gelf_getsym(d, (int)i, &sym))
				break;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			sink += name ? strlen(name) : 0;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len;
	void *out;
	Elf *elf;

	elf_version(EV_CURRENT);
	if (minidebug_xz_decode(data, size, FUZZ_MAX_OUT, &out, &len))
		return 0;
	if (len > FUZZ_MAX_OUT)
		abort();
	elf = elf_memory(out, len);
	if (elf && elf_kind(elf) == ELF_K_ELF)
		read_symbols(elf);
	elf_end(elf);
	free(out);
	return 0;
}
