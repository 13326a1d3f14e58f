// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/sym/demangle: any bytes as a symbol name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/demangle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char small[16], *name, *full;
	int len, cut;

	name = malloc(size + 1);
	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	len = sym_demangle_buf(name, NULL, 0);
	cut = sym_demangle_buf(name, small, sizeof(small));
	if (cut != len || strlen(small) >= sizeof(small))
		abort(); /* the length does not depend on the room given */
	full = sym_demangle(name);
	if ((len > 0) != !!full || (full && (strlen(full) != (size_t)len ||
					     strncmp(full, small, sizeof(small) - 1))))
		abort(); /* the two entry points agree, byte for byte */
	free(full);
	free(name);
	return 0;
}
