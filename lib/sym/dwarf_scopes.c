// SPDX-License-Identifier: GPL-2.0
/* The function scopes of one DWARF compile unit, indexed once for many address lookups. */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/dwarf_scopes.h"
#include "lib/util/grow.h"

struct dwarf_scope_range {
	uint64_t lo, hi;
	uint32_t scope, depth;
	int32_t up; /* the range enclosing this one, or -1 */
};

/* A DIE still to visit, with the scope its code belongs to. */
struct scope_walk {
	Dwarf_Die die;
	int32_t scope;
	uint32_t depth;
};

/* Return: the attribute's value plus @bias, or 0 when absent or absurd. */
static uint32_t die_udata(Dwarf_Die *die, unsigned int name, uint32_t bias)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;

	if (!dwarf_attr(die, name, &attr) || dwarf_formudata(&attr, &v) || v >= UINT32_MAX - bias)
		return 0;
	return (uint32_t)v + bias;
}

struct scope_builder {
	struct dwarf_scopes *s;
	size_t scap, rcap;
};

/*
 * Adds @die as a scope with its pc ranges. Return: its index, -1 when it has
 * no code (nothing added), -ENOMEM.
 */
static int64_t scope__add(struct scope_builder *b, Dwarf_Die *die, bool inlined, int32_t parent,
			  uint32_t depth)
{
	struct dwarf_scopes *s = b->s;
	Dwarf_Addr base, lo, hi;
	struct dwarf_scope *sc;
	size_t nranges = s->nranges;
	ptrdiff_t off = 0;

	if (s->nscopes >= INT32_MAX ||
	    array_reserve((void **)&s->scopes, &b->scap, s->nscopes + 1, sizeof(*s->scopes)))
		return -ENOMEM;
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (array_reserve((void **)&s->ranges, &b->rcap, s->nranges + 1, sizeof(*s->ranges)))
			return -ENOMEM;
		s->ranges[s->nranges++] = (struct dwarf_scope_range){
			.lo = lo, .hi = hi, .scope = (uint32_t)s->nscopes, .depth = depth
		};
	}
	if (s->nranges == nranges)
		return -1;
	sc = &s->scopes[s->nscopes];
	memset(sc, 0, sizeof(*sc));
	sc->die = *die;
	sc->parent = parent;
	sc->inlined = inlined;
	if (inlined) {
		sc->call_file = die_udata(die, DW_AT_call_file, 1); /* DWARF 5 counts from 0 */
		sc->call_line = die_udata(die, DW_AT_call_line, 0);
		sc->call_column = die_udata(die, DW_AT_call_column, 0);
	}
	return (int64_t)s->nscopes++;
}

/* Visits @die: Return: the scope its children belong to, -2 to skip them, -ENOMEM. */
static int64_t scope__visit(struct scope_builder *b, Dwarf_Die *die, int32_t scope, uint32_t depth)
{
	int tag = dwarf_tag(die);
	int64_t idx;

	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
		idx = scope__add(b, die, tag == DW_TAG_inlined_subroutine, scope, depth);
		/* No code of its own: a declaration or an abstract instance. */
		return idx == -1 ? -2 : idx;
	default:
		return scope;
	}
}

/*
 * Pre-order walk of the unit's DIEs: the order DWARF stores them in, so each
 * DIE visited lies past the one before. A DW_AT_sibling pointing back (a
 * corrupt or hostile file) would loop forever: the walk stops there.
 */
static int scope__walk(struct scope_builder *b, Dwarf_Die *cudie)
{
	struct scope_walk *stack = NULL, cur;
	Dwarf_Off last = dwarf_dieoffset(cudie);
	size_t n = 0, cap = 0;
	Dwarf_Die child;
	int64_t inner;
	int err = 0;

	if (dwarf_child(cudie, &child) != 0)
		return 0;
	if (array_reserve((void **)&stack, &cap, n + 1, sizeof(*stack)))
		return -ENOMEM;
	stack[n++] = (struct scope_walk){ .die = child, .scope = -1 };
	while (n && !err) {
		cur = stack[n - 1];
		if (dwarf_dieoffset(&cur.die) <= last)
			break;
		last = dwarf_dieoffset(&cur.die);
		if (dwarf_siblingof(&stack[n - 1].die, &stack[n - 1].die) != 0)
			n--;
		inner = scope__visit(b, &cur.die, cur.scope, cur.depth);
		if (inner == -ENOMEM) {
			err = -ENOMEM;
		} else if (inner != -2 && dwarf_haschildren(&cur.die) &&
			   dwarf_child(&cur.die, &child) == 0) {
			if (array_reserve((void **)&stack, &cap, n + 1, sizeof(*stack)))
				err = -ENOMEM;
			else
				stack[n++] = (struct scope_walk){ .die = child,
								  .scope = (int32_t)inner,
								  .depth = cur.depth + 1 };
		}
	}
	free(stack);
	return err;
}

static int range__cmp(const void *a, const void *b)
{
	const struct dwarf_scope_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1; /* the enclosing one first */
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	/* Aliases (gas gives each symbol of an assembly function a DIE): the first DIE wins. */
	return x->scope > y->scope ? -1 : x->scope < y->scope;
}

/* Each range's enclosing range: a stack of the open ranges during one sweep. */
static int ranges__link(struct dwarf_scopes *s)
{
	int32_t *open = malloc((s->nranges + 1) * sizeof(*open));
	size_t n = 0, i;

	if (!open)
		return -ENOMEM;
	for (i = 0; i < s->nranges; i++) {
		while (n && s->ranges[open[n - 1]].hi <= s->ranges[i].lo)
			n--;
		s->ranges[i].up = n ? open[n - 1] : -1;
		open[n++] = (int32_t)i;
	}
	free(open);
	return 0;
}

int dwarf_scopes__build(struct dwarf_scopes *s, Dwarf_Die *cudie,
			const struct dwarf_strings *strs)
{
	struct scope_builder b = { .s = s };
	int err;

	s->strs = strs;
	err = scope__walk(&b, cudie);
	if (err)
		return err;
	if (s->nranges > INT32_MAX)
		return -ENOMEM;
	if (!s->nranges)
		return 0;
	qsort(s->ranges, s->nranges, sizeof(*s->ranges), range__cmp);
	return ranges__link(s);
}

int32_t dwarf_scopes__find(const struct dwarf_scopes *s, uint64_t addr)
{
	size_t lo = 0, hi = s->nranges, mid;
	int32_t i;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = (int32_t)lo - 1; i >= 0 && addr >= s->ranges[i].hi; i = s->ranges[i].up)
		;
	return i < 0 ? -1 : (int32_t)s->ranges[i].scope;
}

const char *dwarf_scopes__name(struct dwarf_scopes *s, int32_t i)
{
	struct dwarf_scope *sc = &s->scopes[i];
	Dwarf_Attribute attr;
	Dwarf_Attribute *a;

	if (sc->named)
		return sc->name;
	a = dwarf_attr_integrate(&sc->die, DW_AT_linkage_name, &attr);
	if (!a)
		a = dwarf_attr_integrate(&sc->die, DW_AT_MIPS_linkage_name, &attr);
	sc->name = dwarf_strings__form(s->strs, a);
	if (!sc->name)
		sc->name = dwarf_strings__form(s->strs,
					       dwarf_attr_integrate(&sc->die, DW_AT_name, &attr));
	sc->named = true;
	return sc->name;
}

void dwarf_scopes__free(struct dwarf_scopes *s)
{
	free(s->scopes);
	free(s->ranges);
	s->scopes = NULL;
	s->ranges = NULL;
	s->nscopes = s->nranges = 0;
}
