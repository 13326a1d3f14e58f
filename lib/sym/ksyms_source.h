/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-symbol door, twin of the proc source (lib/proc/source.h): the
 * symbolizer asks it which symbol holds a kernel address. Live it answers
 * from /proc/kallsyms, read on the first question; a report answers from
 * the symbols its recording kept.
 */
#ifndef ST_KSYMS_SOURCE_H
#define ST_KSYMS_SOURCE_H

#include <stdint.h>

#include "lib/sym/ksyms.h"

struct ksyms_source {
	/* The symbol holding @addr (greatest start <= @addr), or NULL. */
	const struct ksym *(*find)(void *ctx, uint64_t addr);
	void *ctx;
};

/** ksyms_source_set() - answer through @s (copied), or live again with NULL. */
void ksyms_source_set(const struct ksyms_source *s);

/** ksyms_source_find() - Return: the symbol holding @addr, or NULL. */
const struct ksym *ksyms_source_find(uint64_t addr);

/**
 * ksyms_source_live_find() - the machine's own answer, whatever the door:
 * what a recording writes down. Return: the symbol, or NULL.
 */
const struct ksym *ksyms_source_live_find(uint64_t addr);

/** ksyms_source_release() - free the live table (it is read again when asked). */
void ksyms_source_release(void);

#endif
