/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel-symbol door, twin of the proc source (lib/proc/source.h): the
 * symbolizer asks it which symbol holds a kernel address. Live it answers
 * from /proc/kallsyms, read on the first question or on a thread started
 * early (ksyms_source_preload()); a report answers from
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

/**
 * ksyms_source_find() - Return: the symbol holding @addr, or NULL; valid
 * until the next question (its names as long as the table).
 */
const struct ksym *ksyms_source_find(uint64_t addr);

/**
 * ksyms_source_live_find() - the machine's own answer, whatever the door:
 * what a recording writes down. Return: the symbol (as ksyms_source_find()),
 * or NULL.
 */
const struct ksym *ksyms_source_live_find(uint64_t addr);

/**
 * ksyms_source_preload() - start reading /proc/kallsyms on a thread of its
 * own (~50 ms, mostly the kernel's), so the first question need not wait for
 * all of it; nothing when a recording answers or it was read already. Call
 * it after the BPF programs are loaded: their symbols are then listed too.
 */
void ksyms_source_preload(void);

/**
 * ksyms_source_report() - one line on stderr: the live table's symbols and
 * memory (-v, --debug); nothing when it was not read (or is still being read).
 */
void ksyms_source_report(void);

/** ksyms_source_release() - free the live table (it is read again when asked). */
void ksyms_source_release(void);

#endif
