// SPDX-License-Identifier: GPL-2.0
/* Kernel features the capture library can do without, probed at run time (never a version). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/session/features.h"

bool feature_env_set(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

bool feature_task_storage(char *why, size_t len)
{
	static int result = -1; /* -1: not probed yet; else 0 or 1 */
	static char reason[128];
	int r;

	if (result < 0 && feature_env_set(FEATURE_ENV_NO_TASK_STORAGE)) {
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

bool feature_helper(enum bpf_prog_type type, enum bpf_func_id helper)
{
	return libbpf_probe_bpf_helper(type, helper, NULL) == 1;
}

/* The helpers the normal build calls that kernels before 5.17 may lack, each where it is called. */
static const struct {
	enum bpf_prog_type type;
	enum bpf_func_id helper;
	const char *name;
} compat_needs[] = {
	{ BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_loop, "bpf_loop" },
	{ BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_find_vma, "bpf_find_vma" },
	{ BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_get_current_task_btf, "bpf_get_current_task_btf" },
	{ BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, "bpf_task_pt_regs" },
	{ BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie, "bpf_get_attach_cookie" },
};

bool feature_compat(char *why, size_t len)
{
	static int result = -1; /* -1: not probed yet; else 0 or 1 */
	static char reason[96];
	size_t i;

	if (result < 0 && feature_env_set(FEATURE_ENV_COMPAT)) {
		result = 1;
		snprintf(reason, sizeof(reason), "%s=1", FEATURE_ENV_COMPAT);
	}
	for (i = 0; result < 0 && i < sizeof(compat_needs) / sizeof(compat_needs[0]); i++) {
		/* A probe that could not be made (no privileges) is no answer: the load will say. */
		if (libbpf_probe_bpf_helper(compat_needs[i].type, compat_needs[i].helper, NULL))
			continue;
		result = 1;
		snprintf(reason, sizeof(reason), "%s missing", compat_needs[i].name);
	}
	if (result < 0)
		result = 0;
	if (why && len)
		snprintf(why, len, "%s", result ? reason : "");
	return result;
}

bool feature_map(enum bpf_map_type type)
{
	return libbpf_probe_bpf_map_type(type, NULL) == 1;
}

int feature_prog_loads(enum feature_prog p, char *why, size_t len)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po);
	enum bpf_prog_type type;
	int fd = feature_prog_opts(p, &type, &po, why, len);

	if (!fd)
		fd = feature_prog_load(type, insns, 2, &po, why, len);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}
