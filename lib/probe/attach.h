/* SPDX-License-Identifier: GPL-2.0 */
/* Attaching parsed probe specs to the capture programs of a loaded BPF object. */
#ifndef ST_PROBE_ATTACH_H
#define ST_PROBE_ATTACH_H

#include <stddef.h>

#include "lib/probe/spec.h"

struct bpf_program;

/* One program per attach kind; all call the same capture library. */
struct probe_progs {
	struct bpf_program *tracepoint;
	struct bpf_program *uprobe;
	struct bpf_program *uretprobe;
	struct bpf_program *usdt;
	struct bpf_program *kprobe;
};

struct probe_links;

/**
 * probe_links__attach() - attach every spec (wildcards expanded).
 * @pid: restrict uprobes/USDT to this process (0 = all); also picks the libc
 *       that "u:c:SYM" (and "ur:c:SYM") means
 *
 * The attach cookie of each link is the index of its spec in @specs.
 * On failure nothing stays attached and one line naming the spec is logged.
 * Return: the links, or NULL with errno: EINVAL when the spec names nothing
 * that exists (a usage error), other values for run-time failures.
 */
struct probe_links *probe_links__attach(const struct probe_spec *specs, size_t n,
					const struct probe_progs *progs, int pid);

/** probe_links__count() - how many probe points are attached. */
size_t probe_links__count(const struct probe_links *pl);

/** probe_links__free() - detach everything; NULL is fine. */
void probe_links__free(struct probe_links *pl);

#endif
