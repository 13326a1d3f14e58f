/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire struct of an event held for its kernel entry's user-stack walk
 * (bpf/defer_hold.bpf.h), which user space takes from st_defer_held at the
 * end of a session (lib/session/held.c). Fixed-width types.
 */
#ifndef ST_DEFER_HOLD_H
#define ST_DEFER_HOLD_H

#include "bpf/aggregate.h"

/*
 * The layout aggregation counts from (header, then ST_AGG_FRAMES frame
 * slots), then the hash state of the callback that joins it. Kernel frames
 * only until the join.
 */
struct st_defer_held {
	struct st_event ev;
	__u64 ips[ST_AGG_FRAMES];
	struct st_agg_tmp tmp;
};

#endif
