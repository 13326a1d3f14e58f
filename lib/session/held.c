// SPDX-License-Identifier: GPL-2.0
/*
 * Deferred events the kernel still holds at the end of a session: their
 * task has not returned to user space, so their user stack never came.
 * They leave as records with their cookie, for the joiner to flush as
 * "still in kernel at exit", as they would have without holding.
 */
#include <errno.h>

#include <bpf/bpf.h>

#include "bpf/defer_hold.h"
#include "lib/session/held.h"

int held_take(int fd, held_fn fn, void *ctx)
{
	struct st_defer_held h;
	__u32 key, next;
	int n = 0, err;

	/* Each pass starts over: the key just deleted cannot lead to the next one. */
	while (!bpf_map_get_next_key(fd, NULL, &next)) {
		key = next;
		if (bpf_map_lookup_and_delete_elem(fd, &key, &h)) {
			if (errno == ENOENT)
				continue; /* its walk took it meanwhile */
			return -errno;
		}
		if (h.ev.kdepth > ST_AGG_FRAMES)
			h.ev.kdepth = 0;
		err = fn(ctx, &h.ev, sizeof(h.ev) + h.ev.kdepth * sizeof(__u64));
		if (err < 0)
			return err;
		n++;
	}
	return n;
}
