// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for lib/sym/dwarf_inline (and dwarf_scopes): any bytes
 * as an ELF file with DWARF, opened through libdw, then looked up at a spread
 * of addresses, one batch sorted, one not.
 */
#include <elfutils/libdw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/dwarf_inline.h"

static volatile size_t sink;

static int consume(void *ctx, size_t idx, const struct dwarf_frame *f, size_t n)
{
	size_t i;

	if (n > DWARF_INLINE_MAX_FRAMES)
		abort();
	for (i = 0; i < n; i++) {
		sink += f[i].func ? strlen(f[i].func) : 0;
		sink += f[i].file ? strlen(f[i].file) : 0;
		sink += f[i].comp_dir ? strlen(f[i].comp_dir) : 0;
		if (i + 1 < n && !f[i].inlined)
			abort(); /* only the last frame may be the real function */
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t addrs[] = { 0, 1, 0x1000, 0x10e0, 0x1130, 0x1330, 0x1373, 0x13a0, 0x401000,
			     size, UINT64_MAX };
	uint64_t rev[sizeof(addrs) / sizeof(addrs[0])];
	struct dwarf_inline *di;
	char *copy;
	Dwarf *dw;
	Elf *elf;
	size_t i, n = sizeof(addrs) / sizeof(addrs[0]);

	elf_version(EV_CURRENT);
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	elf = elf_memory(copy, size);
	dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
	di = dw ? dwarf_inline__new(dw, "fuzz") : NULL;
	if (di) {
		dwarf_inline__batch(di, addrs, n, true, consume, NULL);
		for (i = 0; i < n; i++)
			rev[i] = addrs[n - 1 - i];
		dwarf_inline__batch(di, rev, n, false, consume, NULL);
	}
	dwarf_inline__free(di);
	dwarf_end(dw);
	elf_end(elf);
	free(copy);
	return 0;
}
