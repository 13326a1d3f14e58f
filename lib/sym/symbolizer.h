/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer: turns raw kernel and user addresses into frame names,
 * counting what it cannot name. Kernel names come from kallsyms, user names
 * from the process registry (mappings at first sight, files kept open).
 */
#ifndef ST_SYMBOLIZER_H
#define ST_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;

struct symbolizer_stats {
	uint64_t kernel_unknown; /* kernel address outside every symbol */
	uint64_t user_no_map;    /* user address outside every known mapping */
	uint64_t user_no_sym;    /* mapped, but no symbol covers it */
	uint64_t pid_gone;       /* process exited before its mappings were read */
};

/** symbolizer__new() - Return: a symbolizer, or NULL with errno set (logged). */
struct symbolizer *symbolizer__new(void);

/**
 * symbolizer__see() - record @pid's mappings now, while it is alive.
 *
 * Return: 0, or -ESRCH when it is already gone (counted).
 */
int symbolizer__see(struct symbolizer *sz, int pid);

struct proc_map;

/** symbolizer__set_maps() - @pid's mappings as the process tracker knows them. */
int symbolizer__set_maps(struct symbolizer *sz, int pid, const struct proc_map *maps, size_t n);

struct report_frame;

/**
 * symbolizer__kernel_frame() - a kernel frame: "func" with the module
 * ("[unknown] 0xADDR" when no symbol covers it).
 * @is_return: the address is a return address (every frame but the first):
 *             it is looked up at addr - 1, see symbolizer.c
 * @buf: receives the name; @out->name points into it
 */
void symbolizer__kernel_frame(struct symbolizer *sz, uint64_t addr, bool is_return,
			      struct report_frame *out, char *buf, size_t len);

/**
 * symbolizer__user_frame() - a user frame of @pid: its function, the mapped
 * file, its build ID and the offset in it; "[unknown] 0xADDR (file)" when no
 * symbol covers it.
 * @buf: receives the name; @out->name points into it. The module and build
 *       ID strings live as long as the symbolizer.
 */
void symbolizer__user_frame(struct symbolizer *sz, int pid, uint64_t addr, bool is_return,
			    struct report_frame *out, char *buf, size_t len);

/** symbolizer__stats() - what could not be named so far. */
const struct symbolizer_stats *symbolizer__stats(const struct symbolizer *sz);

/** symbolizer__report() - one stderr line per nonzero counter. */
void symbolizer__report(const struct symbolizer *sz);

/** symbolizer__free() - NULL is fine. */
void symbolizer__free(struct symbolizer *sz);

#endif
