/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer: names decoded frames (lib/sym/event_frames.h) in one batch
 * over many events. Kernel frames come from kallsyms (a module's frames keep
 * its name); user frames already carry their file model and offset, and
 * are grouped by file and sorted by offset so each file's name sources are
 * visited once per batch, in address order. It owns the "pc - 1 for return
 * addresses" rule, and counts what it cannot name.
 *
 * A frame without a symbol is named by where it is, so the same code merges
 * across processes and runs: "[unknown] (FILE+0xOFFSET)" with the file's
 * base name, as perf names a shared object; "[unknown] ([anon])" for
 * anonymous code (JIT), as perf does; "[unknown]" outside every mapping.
 */
#ifndef ST_SYMBOLIZER_H
#define ST_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;
struct proc_registry;
struct event_frames;

struct symbolizer_stats {
	uint64_t kernel_unknown; /* kernel address outside every symbol */
	uint64_t user_no_map;    /* user address outside every mapping known at its time */
	uint64_t user_no_sym;    /* mapped, but no symbol covers it */
};

/**
 * symbolizer__new() - a symbolizer over @procs (borrowed: it must outlive it).
 *
 * Return: the symbolizer, or NULL with errno set (logged).
 */
struct symbolizer *symbolizer__new(struct proc_registry *procs);

/** symbolizer__procs() - Return: the registry user frames are decoded with. */
struct proc_registry *symbolizer__procs(const struct symbolizer *sz);

/**
 * symbolizer__name() - name every frame of @n decoded events, in one pass
 * over their addresses sorted by file and offset (kernel: by address).
 *
 * Names live as long as the symbolizer. Return: 0 or -ENOMEM.
 */
int symbolizer__name(struct symbolizer *sz, struct event_frames *efs, size_t n);

/** symbolizer__stats() - what could not be named so far. */
const struct symbolizer_stats *symbolizer__stats(const struct symbolizer *sz);

/** symbolizer__report() - one stderr line per nonzero counter. */
void symbolizer__report(const struct symbolizer *sz);

/** symbolizer__free() - NULL is fine. */
void symbolizer__free(struct symbolizer *sz);

#endif
