/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A set of pids asked "is this one in?" many times: a sorted copy of a
 * list, searched by bisection. The settling of exited processes hands a
 * list to several readers (the in-kernel counts, the joiner), each of
 * which walks far more entries than there are pids.
 */
#ifndef ST_PID_SET_H
#define ST_PID_SET_H

#include <stdbool.h>
#include <stddef.h>

struct pid_set {
	int *pids; /* sorted; NULL when empty */
	size_t n;
};

/** pid_set__init() - @s from the @n pids at @pids (any order). Return: 0 or -ENOMEM. */
int pid_set__init(struct pid_set *s, const int *pids, size_t n);

/** pid_set__has() - Return: whether @pid is in @s. */
bool pid_set__has(const struct pid_set *s, int pid);

/** pid_set__free() - free @s's copy; @s is then empty. */
void pid_set__free(struct pid_set *s);

#endif
