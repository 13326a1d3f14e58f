/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report model every writer renders from: symbolized stacks with their
 * counts and weights. Stacks whose text is identical (and, when split by
 * process, whose process is identical) are one stack.
 */
#ifndef ST_REPORT_H
#define ST_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"

struct report_stack {
	int pid;              /* 0 when not split by process */
	char comm[ST_COMM_LEN];
	size_t nk, nu;        /* frames[0 .. nk) kernel, then nu user; innermost first */
	char **frames;
	uint64_t count, weight;
	unsigned flags;       /* ST_EV_* seen on any merged event */
};

struct report;

/** report__new() - @by_pid: keep processes apart. Return: NULL on ENOMEM. */
struct report *report__new(bool by_pid);

/**
 * report__add() - add @count events of total @weight with these frames.
 * @frames: nk kernel then nu user names; copied
 *
 * Return: 0 or -ENOMEM.
 */
int report__add(struct report *r, int pid, const char *comm, const char *const *frames,
		size_t nk, size_t nu, uint64_t count, uint64_t weight, unsigned flags);

/** report__sorted() - stacks by ascending count (ties by weight, then text). */
struct report_stack **report__sorted(struct report *r, size_t *n);

/** report__clear() - forget every stack (interval output). */
void report__clear(struct report *r);

/** report__free() - NULL is fine. */
void report__free(struct report *r);

#endif
