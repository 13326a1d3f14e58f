// SPDX-License-Identifier: GPL-2.0
/* The stack-copy door: live, it is shut and every copy is walked. */
#include "lib/unwind/copy_source.h"

static struct copy_source_ops door;

void copy_source_set(const struct copy_source_ops *ops)
{
	door = ops ? *ops : (struct copy_source_ops){};
}

bool copy_source_answer(int pid, const struct st_ucopy *c, uint64_t *out, size_t max, size_t *n,
			enum unwind_stop *stop)
{
	return door.answer && door.answer(door.ctx, pid, c, out, max, n, stop);
}

void copy_source_walked(int pid, const struct st_ucopy *c, const uint64_t *out, size_t n,
			enum unwind_stop stop)
{
	if (door.walked)
		door.walked(door.ctx, pid, c, out, n, stop);
}
