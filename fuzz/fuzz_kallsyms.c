// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for lib/sym/ksyms: the input as a kallsyms file behind /proc/self/fd/N. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/sym/ksyms.h"

static void check_table(const struct ksyms *ks)
{
	uint64_t probe[] = { 0, 1, 0xffffffff81000000ull, UINT64_MAX };
	struct ksym s, t, u;
	size_t i;

	for (i = 0; i < sizeof(probe) / sizeof(probe[0]); i++) {
		if (!ksyms__find(ks, probe[i], &s))
			continue;
		if (s.addr > probe[i])
			abort();
		/* by name finds a symbol of that name, maybe an earlier duplicate */
		if (!ksyms__by_name(ks, s.name, &t) || strcmp(t.name, s.name) || t.addr > s.addr)
			abort();
		/* at its own start, the same symbol: the first listed there */
		if (!ksyms__find(ks, s.addr, &u) || u.addr != s.addr || strcmp(u.name, s.name))
			abort();
		if (!s.module != !u.module || (s.module && strcmp(s.module, u.module)))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksyms *ks;
	char path[64];
	int fd;

	fd = memfd_create("fuzz-kallsyms", MFD_CLOEXEC);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ks = ksyms__load(path);
	if (ks)
		check_table(ks);
	ksyms__free(ks);
	close(fd);
	return 0;
}
