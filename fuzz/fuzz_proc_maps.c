// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/proc/maps: any text, checked against the parser's promises. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/proc/maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proc_map *m = NULL;
	size_t n = 0, i;

	if (proc_maps__parse((const char *)data, size, &m, &n))
		return 0;
	for (i = 0; i < n; i++) {
		if (m[i].start >= m[i].end || (i && m[i].start < m[i - 1].end) ||
		    strlen(m[i].path) > size || m[i].prot > 7)
			abort();
	}
	proc_maps__free(m, n);
	return 0;
}
