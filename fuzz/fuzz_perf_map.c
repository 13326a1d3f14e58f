// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/sym/perf_map: any bytes as a /tmp/perf-PID.map file. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/perf_map.h"

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct perf_map_sym *v;
	struct perf_map *pm;
	size_t n, i;

	pm = perf_map__parse((const char *)data, size);
	if (!pm)
		return 0;
	v = perf_map__syms(pm, &n);
	for (i = 0; i < n; i++) {
		if (v[i].start >= v[i].end || (i && v[i - 1].end > v[i].start))
			abort(); /* sorted, disjoint, never empty */
		if (perf_map__find(pm, v[i].start) != &v[i] ||
		    perf_map__find(pm, v[i].end - 1) != &v[i])
			abort();
		if (v[i].start && (!i || v[i - 1].end < v[i].start) &&
		    perf_map__find(pm, v[i].start - 1))
			abort(); /* a gap before it stays a gap */
		sink += strlen(v[i].name); /* ASan checks every name is terminated in bounds */
	}
	if (perf_map__stats(pm)->lines > size)
		abort();
	perf_map__free(pm);
	return 0;
}
