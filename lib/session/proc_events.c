// SPDX-License-Identifier: GPL-2.0
/* Attaching the process lifecycle probes of bpf/proc_events.bpf.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "lib/session/proc_events.h"
#include "lib/util/log.h"

static const char *const proc_progs[] = {
	"st_proc_exec",        "st_proc_exit",         "st_proc_fork",
	"st_proc_mmap_enter",  "st_proc_mmap_exit",    "st_proc_munmap_enter",
	"st_proc_munmap_exit",
};
#define NPROGS (sizeof(proc_progs) / sizeof(proc_progs[0]))

struct proc_events {
	struct bpf_link *links[NPROGS];
};

struct proc_events *proc_events__attach(struct bpf_object *obj)
{
	struct proc_events *pe = calloc(1, sizeof(*pe));
	size_t i;
	int err;

	if (!pe)
		return NULL;
	for (i = 0; i < NPROGS; i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(obj, proc_progs[i]);

		pe->links[i] = p ? bpf_program__attach(p) : NULL;
		if (!pe->links[i]) {
			err = p ? -errno : -ENOENT;
			st_err("proc events: cannot attach %s: %s", proc_progs[i], strerror(-err));
			proc_events__free(pe);
			errno = -err;
			return NULL;
		}
	}
	return pe;
}

void proc_events__free(struct proc_events *pe)
{
	size_t i;

	if (!pe)
		return;
	for (i = 0; i < NPROGS; i++)
		bpf_link__destroy(pe->links[i]);
	free(pe);
}
