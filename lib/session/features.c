// SPDX-License-Identifier: GPL-2.0
/* Kernel features the capture library can do without, probed at run time (never a version). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "lib/session/features.h"

bool feature_task_storage(char *why, size_t len)
{
	static int result = -1; /* -1: not probed yet; else 0 or 1 */
	static char reason[128];
	const char *fake = getenv(FEATURE_ENV_NO_TASK_STORAGE);
	int r;

	if (result < 0 && fake && !strcmp(fake, "1")) {
		result = 0;
		snprintf(reason, sizeof(reason), "%s=1", FEATURE_ENV_NO_TASK_STORAGE);
	} else if (result < 0) {
		r = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL);
		result = r == 1;
		if (r < 0)
			snprintf(reason, sizeof(reason), "its probe failed: %s", strerror(-r));
		else if (!r)
			snprintf(reason, sizeof(reason), "the kernel has no BPF task storage");
	}
	if (why && len)
		snprintf(why, len, "%s", result ? "" : reason);
	return result;
}
