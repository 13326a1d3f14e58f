// SPDX-License-Identifier: GPL-2.0
/* The user-stack walker's counters (bpf/ustack.bpf.h st_ustats): how walks ended. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/session/ustats.h"
#include "lib/unwind/ustop.h"
#include "lib/util/log.h"

int ustats__read(struct bpf_object *obj, uint64_t out[ST_USTAT_MAX])
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "st_ustats");
	int ncpus = libbpf_num_possible_cpus(), c, fd;
	uint64_t *v;
	__u32 k;

	if (!map)
		return -ENOENT;
	if (ncpus <= 0)
		return ncpus ? ncpus : -EINVAL;
	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	fd = bpf_map__fd(map);
	for (k = 0; k < ST_USTAT_MAX; k++) {
		out[k] = 0;
		if (bpf_map_lookup_elem(fd, &k, v))
			continue;
		for (c = 0; c < ncpus; c++)
			out[k] += v[c];
	}
	free(v);
	return 0;
}

void ustats__report(struct bpf_object *obj)
{
	uint64_t v[ST_USTAT_MAX], early = 0;
	unsigned k;

	if (ustats__read(obj, v))
		return;
	for (k = 0; k < ST_USTOP_MAX; k++) {
		if (!ustop_early(k) || !v[k])
			continue;
		early += v[k];
		fprintf(stderr, "stacktap: %llu user stacks stopped early: %s\n",
			(unsigned long long)v[k], ustop_reason(k));
	}
	st_info("user-stack walks: %llu, %llu complete, %llu truncated, %llu stopped early; "
		"%llu signal frames, %llu stack switches, %llu uretprobe returns, %llu frames by "
		"frame pointer",
		(unsigned long long)v[ST_USTAT_WALKS], (unsigned long long)v[ST_USTOP_OUTERMOST],
		(unsigned long long)v[ST_USTOP_DEPTH], (unsigned long long)early,
		(unsigned long long)v[ST_USTAT_SIGNAL_FRAMES],
		(unsigned long long)v[ST_USTAT_SWITCHES], (unsigned long long)v[ST_USTAT_URETPROBE],
		(unsigned long long)v[ST_USTAT_FP_FRAMES]);
}
