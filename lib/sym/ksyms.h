/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel symbols from /proc/kallsyms, modules included, held compactly. */
#ifndef ST_KSYMS_H
#define ST_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* NULL for vmlinux symbols */
};

struct ksyms;

/**
 * ksym__bound() - binary search of symbols sorted by address.
 * @v: @n symbols, sorted by address
 * @addr: the address sought
 * @after: find the first symbol starting after @addr, not at or after it
 *
 * Return: the index of the first symbol whose start is > @addr (@after) or
 * >= @addr (!@after); @n when there is none.
 */
size_t ksym__bound(const struct ksym *v, size_t n, uint64_t addr, bool after);

/**
 * ksyms__load() - read and sort a kallsyms file.
 * @path: NULL for /proc/kallsyms (tests pass a fixture)
 *
 * Return: the table, or NULL with errno set (EACCES when addresses are hidden).
 */
struct ksyms *ksyms__load(const char *path);

/**
 * ksyms__find() - the symbol containing @addr: greatest start <= @addr
 * (the first listed of several at that start).
 * @out: filled when found; its names live as long as @ks
 *
 * Return: true when found, false when @addr is below the first symbol.
 */
bool ksyms__find(const struct ksyms *ks, uint64_t addr, struct ksym *out);

/**
 * ksyms__by_name() - look a symbol up by exact name (the first in address
 * order); a scan of the table, for rare questions.
 * @out: filled when found
 *
 * Return: true when found.
 */
bool ksyms__by_name(const struct ksyms *ks, const char *name, struct ksym *out);

/** ksyms__count() - Return: the number of text symbols kept. */
size_t ksyms__count(const struct ksyms *ks);

/** ksyms__skipped() - Return: the number of malformed lines skipped while loading. */
size_t ksyms__skipped(const struct ksyms *ks);

/** ksyms__bytes() - Return: the memory the table holds. */
size_t ksyms__bytes(const struct ksyms *ks);

/** ksyms__free() - release the table; NULL is fine. */
void ksyms__free(struct ksyms *ks);

#endif
