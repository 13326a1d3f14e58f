/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer's names: strings it makes ("[unknown] (libc.so.6+0x1a2b)",
 * a JIT function's name, a source path) interned for the life of the
 * symbolizer, and the demangled form of each distinct mangled name,
 * computed once (lib/sym/demangle.h) and kept.
 */
#ifndef ST_NAME_ARENA_H
#define ST_NAME_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct name_arena;

struct name_arena_stats {
	uint64_t demangled; /* distinct names demangled */
	uint64_t malformed; /* distinct names that looked mangled but were not: shown as they are */
};

/** name_arena__new() - Return: an empty arena, or NULL (ENOMEM). */
struct name_arena *name_arena__new(void);

/** name_arena__intern() - Return: the arena's copy of @s, or NULL (ENOMEM). */
const char *name_arena__intern(struct name_arena *na, const char *s);

/**
 * name_arena__demangled() - what a person reads for the symbol @raw.
 * @raw: a name as a symbol table, DWARF or a perf map has it; it must live
 *       as long as the arena (a file's strings do; intern others first)
 *
 * Plain C names come back as they are without a lookup; a mangled one is
 * demangled the first time it is seen (by its text, so the same name in two
 * files is demangled once) and its demangled form kept.
 *
 * Return: the name to show (@raw when it is not mangled or not valid), or
 * NULL when out of memory.
 */
const char *name_arena__demangled(struct name_arena *na, const char *raw);

/** name_arena__stats() - Return: what demangling did. */
const struct name_arena_stats *name_arena__stats(const struct name_arena *na);

/** name_arena__free() - NULL is fine. */
void name_arena__free(struct name_arena *na);

#endif
