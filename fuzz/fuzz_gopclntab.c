// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/sym/gopclntab: any bytes as a .gopclntab section. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/gopclntab.h"

static volatile size_t sink;

static void exercise(const uint8_t *data, size_t size, uint64_t text_start)
{
	const struct go_func *f;
	struct gopclntab *t;
	size_t n, i;

	t = gopclntab__parse(data, size, text_start);
	if (!t)
		return;
	f = gopclntab__funcs(t, &n);
	for (i = 0; i < n; i++) {
		if (f[i].entry >= f[i].end || (i && f[i - 1].end > f[i].entry))
			abort(); /* sorted, disjoint, never empty */
		if (gopclntab__find(t, f[i].entry) != &f[i] || gopclntab__find(t, f[i].end - 1) != &f[i])
			abort();
		if (!f[i].name[0] || strlen(f[i].name) > GOPCLNTAB_MAX_NAME)
			abort();
		sink += strlen(f[i].name);
	}
	gopclntab__free(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy: ASan sees any read past the section's end. */
	uint8_t *copy = malloc(size ? size : 1);

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	exercise(copy, size, 0);
	exercise(copy, size, 0x401000);
	free(copy);
	return 0;
}
