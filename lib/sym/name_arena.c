// SPDX-License-Identifier: GPL-2.0
/* The symbolizer's interned names and each distinct mangled name demangled once. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stack/store.h"
#include "lib/sym/demangle.h"
#include "lib/sym/name_arena.h"

/*
 * A small cache by the raw name's address in front of the table by text: a
 * batch asks for the same few symbols (a file's strings never move) over
 * and over, and a pointer compare is cheaper than hashing a C++ name.
 */
#define ARENA_FAST_SLOTS 4096

/* Most demangled names fit here; longer ones get an exact-size buffer. */
#define ARENA_DEMANGLE_BUF 1024

struct arena_fast {
	const char *raw, *shown;
};

struct name_arena {
	struct stack_store *strs;    /* interned strings */
	struct stack_store *mangled; /* mangled text -> data: its demangled form */
	struct arena_fast fast[ARENA_FAST_SLOTS];
	struct name_arena_stats stats;
};

struct name_arena *name_arena__new(void)
{
	struct name_arena *na = calloc(1, sizeof(*na));

	if (!na)
		return NULL;
	na->strs = stack_store__new();
	na->mangled = stack_store__new();
	if (!na->strs || !na->mangled) {
		name_arena__free(na);
		return NULL;
	}
	return na;
}

const char *name_arena__intern(struct name_arena *na, const char *s)
{
	struct stack_entry *e = stack_store__add(na->strs, s, strlen(s) + 1, 0);

	return e ? (const char *)e->key : NULL;
}

/* @raw demangled into the arena, or @raw itself when it does not demangle. */
static const char *arena__demangle(struct name_arena *na, const char *raw)
{
	char small[ARENA_DEMANGLE_BUF], *buf = small;
	const char *shown = raw;
	int len;

	len = sym_demangle_buf(raw, small, sizeof(small));
	if (len >= (int)sizeof(small)) {
		buf = malloc((size_t)len + 1);
		if (!buf)
			return NULL;
		len = sym_demangle_buf(raw, buf, (size_t)len + 1);
	}
	if (len > 0) {
		shown = name_arena__intern(na, buf);
		na->stats.demangled++;
	} else {
		na->stats.malformed++;
	}
	if (buf != small)
		free(buf);
	return shown;
}

const char *name_arena__demangled(struct name_arena *na, const char *raw)
{
	struct arena_fast *slot;
	struct stack_entry *e;

	if (!sym_is_mangled(raw))
		return raw;
	slot = &na->fast[((uintptr_t)raw >> 3) % ARENA_FAST_SLOTS];
	if (slot->raw == raw)
		return slot->shown;
	e = stack_store__add(na->mangled, raw, strlen(raw) + 1, 0);
	if (!e)
		return NULL;
	if (!e->data)
		e->data = (void *)arena__demangle(na, (const char *)e->key);
	if (e->data)
		*slot = (struct arena_fast){ raw, e->data };
	return e->data;
}

const struct name_arena_stats *name_arena__stats(const struct name_arena *na)
{
	return &na->stats;
}

void name_arena__free(struct name_arena *na)
{
	if (!na)
		return;
	stack_store__free(na->strs);
	stack_store__free(na->mangled);
	free(na);
}
