// SPDX-License-Identifier: GPL-2.0
/* The stack-copy door: live, a walk reads the copy's own bytes. */
#include <stddef.h>

#include "lib/unwind/copy_source.h"

static struct copy_source_ops door;
static bool door_set;

void copy_source_set(const struct copy_source_ops *ops)
{
	door_set = ops != NULL;
	door = ops ? *ops : (struct copy_source_ops){};
}

void copy_source_begin(int pid, const struct st_ucopy *c, struct unwind_stack *s)
{
	if (door_set && door.begin)
		door.begin(door.ctx, pid, c, s);
}

void copy_source_end(int pid, const struct st_ucopy *c)
{
	if (door_set && door.end)
		door.end(door.ctx, pid, c);
}
