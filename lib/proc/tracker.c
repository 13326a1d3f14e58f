// SPDX-License-Identifier: GPL-2.0
/* The process tracker: first sight, exec, executable mmap, exit. */
#include <stdint.h>
#include <stdlib.h>

#include "lib/proc/tracker.h"
#include "lib/stack/store.h"
#include "lib/sym/symbolizer.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/copy_unwind.h"

struct proc_tracker {
	struct symbolizer *sz;
	struct bpf_tables *tables;
	struct copy_unwinder *cu;
	struct stack_store *seen; /* used as a set of pids */
};

struct proc_tracker *proc_tracker__new(struct symbolizer *sz, struct bpf_tables *tables,
				       struct copy_unwinder *cu)
{
	struct proc_tracker *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->sz = sz;
	pt->tables = tables;
	pt->cu = cu;
	pt->seen = stack_store__new();
	if (!pt->seen) {
		free(pt);
		return NULL;
	}
	return pt;
}

static void tracker__load(struct proc_tracker *pt, int pid)
{
	symbolizer__see(pt->sz, pid);
	if (pt->tables)
		bpf_tables__add_process(pt->tables, pid);
	if (pt->cu)
		copy_unwinder__see(pt->cu, pid);
}

void proc_tracker__saw(struct proc_tracker *pt, int pid)
{
	int32_t key = pid;
	struct stack_entry *e = stack_store__add(pt->seen, &key, sizeof(key), 0);

	if (e && e->count == 1)
		tracker__load(pt, pid);
}

void proc_tracker__changed(struct proc_tracker *pt, int pid)
{
	int32_t key = pid;

	stack_store__add(pt->seen, &key, sizeof(key), 0);
	/* The registry keeps what it had: frames captured before the exec still resolve. */
	symbolizer__refresh(pt->sz, pid);
	if (pt->tables)
		bpf_tables__add_process(pt->tables, pid);
	if (pt->cu)
		copy_unwinder__see(pt->cu, pid);
}

void proc_tracker__exited(struct proc_tracker *pt, int pid)
{
	if (pt->tables)
		bpf_tables__remove_process(pt->tables, pid);
}

void proc_tracker__free(struct proc_tracker *pt)
{
	if (!pt)
		return;
	stack_store__free(pt->seen);
	free(pt);
}
