// SPDX-License-Identifier: GPL-2.0
/* The verifier's work on each of an object's programs, from bpf_prog_info. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/session/prog_report.h"

struct prog_figures {
	const char *name;
	unsigned long long load_ns; /* bpf_prog_info.load_time: boot-time ns as the load began */
	unsigned int verified;
};

static int prog_report__by_load(const void *a, const void *b)
{
	const struct prog_figures *x = a, *y = b;

	return x->load_ns < y->load_ns ? -1 : x->load_ns > y->load_ns;
}

/* The loaded programs of @obj into @f (at most @max). Return: how many. */
static size_t prog_report__collect(const struct bpf_object *obj, struct prog_figures *f,
				   size_t max)
{
	struct bpf_program *p;
	size_t n = 0;

	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		if (n >= max || bpf_program__fd(p) < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			continue;
		f[n].name = bpf_program__name(p);
		f[n].load_ns = info.load_time;
		f[n].verified = info.verified_insns;
		n++;
	}
	return n;
}

void prog_report(const struct bpf_object *obj)
{
	struct prog_figures f[64];
	struct timespec now;
	unsigned long long end, total = 0;
	size_t i, n;

	if (!obj || clock_gettime(CLOCK_BOOTTIME, &now))
		return;
	n = prog_report__collect(obj, f, sizeof(f) / sizeof(f[0]));
	if (!n)
		return;
	qsort(f, n, sizeof(f[0]), prog_report__by_load);
	fprintf(stderr, "stacktap: BPF programs (instructions verified, ms from load to the next):");
	for (i = 0; i < n; i++) {
		end = i + 1 < n ? f[i + 1].load_ns :
				  (unsigned long long)now.tv_sec * 1000000000ull + now.tv_nsec;
		total += f[i].verified;
		fprintf(stderr, "%s %s %u %.1f", i ? "," : "", f[i].name, f[i].verified,
			end > f[i].load_ns ? (end - f[i].load_ns) / 1e6 : 0.0);
	}
	fprintf(stderr, "; %llu in all\n", total);
}
