/* SPDX-License-Identifier: GPL-2.0 */
/* Test helper: this test process's own mapping of an address, from /proc/self/maps. */
#ifndef ST_TEST_OWN_MAPPING_H
#define ST_TEST_OWN_MAPPING_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/maps.h"

/* The mapping of this process that holds @addr, its path copied (free it). Return: 0 or -1. */
static int own_mapping(uint64_t addr, struct proc_map *out)
{
	struct proc_map *maps;
	size_t n, i;
	int found = -1;

	if (proc_maps__read(getpid(), &maps, &n))
		return -1;
	for (i = 0; i < n; i++) {
		if (maps[i].start <= addr && addr < maps[i].end) {
			*out = maps[i];
			out->path = strdup(maps[i].path);
			found = out->path ? 0 : -1;
		}
	}
	proc_maps__free(maps, n);
	return found;
}

#endif
