// SPDX-License-Identifier: GPL-2.0
/* Raw stacks: exact dedup on arrival, symbolized once per distinct stack. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/report/raw_stacks.h"
#include "lib/session/joiner.h"
#include "lib/stack/store.h"
#include "lib/sym/event_frames.h"
#include "lib/unwind/ustop.h"

struct raw_stacks {
	struct stack_store *store;
	uint64_t total;
};

/* The dedup key: identity plus the exact frames. */
struct raw_key {
	__u32 pid;
	__u16 kd, ud;
	__u16 flags; /* ST_EV_UFAIL, ST_EV_KTHREAD and the joiner's lost reason */
	__u16 ustop; /* why the user walk ended: the stack's end mark */
	__u16 pad[2];
	char comm[ST_COMM_LEN];
	uint64_t ips[];
};

#define RAW_KEY_FLAGS (ST_EV_UFAIL | ST_EV_KTHREAD | JOINER_LOST_MASK)

struct raw_stacks *raw_stacks__new(void)
{
	struct raw_stacks *rs = calloc(1, sizeof(*rs));

	if (!rs)
		return NULL;
	rs->store = stack_store__new();
	if (!rs->store) {
		free(rs);
		return NULL;
	}
	return rs;
}

int raw_stacks__add(struct raw_stacks *rs, const struct st_event *ev, const uint64_t *ips,
		    uint64_t weight)
{
	size_t n = ev->kdepth + ev->udepth, len = sizeof(struct raw_key) + n * 8;
	struct raw_key *k = calloc(1, len);
	struct stack_entry *e;

	if (!k)
		return -ENOMEM;
	k->pid = ev->pid;
	k->kd = ev->kdepth;
	k->ud = ev->udepth;
	k->flags = ev->flags & RAW_KEY_FLAGS;
	k->ustop = ev->ustop;
	memcpy(k->comm, ev->comm, ST_COMM_LEN);
	memcpy(k->ips, ips, n * 8);
	e = stack_store__add(rs->store, k, len, weight);
	free(k);
	if (!e)
		return -ENOMEM;
	rs->total++;
	return 0;
}

int raw_stacks__report(struct raw_stacks *rs, struct symbolizer *sym, struct report *r)
{
	struct stack_entry **v = stack_store__entries(rs->store);
	size_t i, n = stack_store__len(rs->store);
	int err = 0;

	if (n && !v)
		return -ENOMEM;
	for (i = 0; i < n && !err; i++) {
		const struct raw_key *k = (const struct raw_key *)v[i]->key;
		struct event_frames ef;

		err = event_frames__build(&ef, sym, k->pid, k->ips, k->kd, k->ud,
					  k->ud ? ustop_mark(k->ustop) : joiner_lost_frame(k->flags));
		if (err)
			break;
		err = report__add(r, k->pid, k->comm, ef.v, ef.nk, ef.nu, v[i]->count,
				  v[i]->weight, k->flags);
		event_frames__release(&ef);
	}
	free(v);
	return err;
}

uint64_t raw_stacks__total(const struct raw_stacks *rs)
{
	return rs->total;
}

void raw_stacks__clear(struct raw_stacks *rs)
{
	stack_store__clear(rs->store);
	rs->total = 0;
}

void raw_stacks__free(struct raw_stacks *rs)
{
	if (!rs)
		return;
	stack_store__free(rs->store);
	free(rs);
}
