// SPDX-License-Identifier: GPL-2.0
/* Kernel features the capture library can do without, probed at run time (never a version). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
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

bool feature_vma_iter(char *why, size_t len)
{
	static const char *const kfuncs[] = { "bpf_iter_task_vma_new", "bpf_iter_task_vma_next",
					       "bpf_iter_task_vma_destroy" };
	static int result = -1;
	static char reason[128];
	struct btf *vm;
	size_t i;

	if (result < 0) {
		vm = btf__load_vmlinux_btf();
		result = vm != NULL;
		if (!vm)
			snprintf(reason, sizeof(reason), "no kernel BTF: %s", strerror(errno));
		for (i = 0; vm && result && i < sizeof(kfuncs) / sizeof(kfuncs[0]); i++)
			if (btf__find_by_name_kind(vm, kfuncs[i], BTF_KIND_FUNC) < 0) {
				result = 0;
				snprintf(reason, sizeof(reason), "the kernel has no %s", kfuncs[i]);
			}
		btf__free(vm);
	}
	if (why && len)
		snprintf(why, len, "%s", result ? "" : reason);
	return result;
}
