// SPDX-License-Identifier: GPL-2.0
/* The rows of a table from every unwind source of a file, merged by precedence. */
/*
 * A file may describe its code in four places: .sframe, .eh_frame,
 * .debug_frame, and the .debug_frame of its separate debug file. Which one
 * covers which function varies: SFrame leaves out code gas did not assemble
 * with it (crt1.o's _start), a -fno-asynchronous-unwind-tables -g build has
 * .eh_frame only for its startup objects and the rest in .debug_frame, a
 * stripped file keeps its .debug_frame in the debug file. So every source is
 * read and the rows are merged one FDE (a function, or a part of one) at a
 * time, in this order of precedence:
 *
 *   .sframe  >  .eh_frame  >  .debug_frame (of the file, else of its debug file)
 *
 * An FDE of a later source is taken only when no earlier source has a rule
 * for any byte of its range; otherwise it is left out whole, so the rows of
 * one function never mix two sources. The order: .sframe is what the
 * file's producer made for stack tracing (and what the kernel's unwinder
 * reads); .eh_frame is the copy the program itself loads and unwinds with at
 * run time, so the exercised one; .debug_frame is for debuggers, and a debug
 * file may even belong to another build (the build-ID path and the debuglink
 * CRC guard against that). Where two sources describe the same function they
 * come from the same .cfi directives and agree (test_unwind_tables.sh checks
 * the merged rows against readelf under this same rule).
 *
 * One exception: the .debug_frame the Go toolchain writes is not used. It
 * leaves out rbp, which every Go function with a frame saves, and describes
 * the runtime's stack-switching assembly (asmcgocall, systemstack, mcall) as
 * frameless, so a walk through it reads a g pointer as a return address. Go
 * always keeps frame pointers, and those are right there: Go code has no
 * rows and the walkers take its frame-pointer rule.
 *
 * Each pass appends its rows, notes the ranges it gave (spans: where a row
 * came from, for `stacktap unwind-table`), then sorts and merges them with
 * the earlier ones; the next pass asks the merged rows what is covered.
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf_file.h"
#include "lib/unwind/sframe.h"
#include "lib/unwind/sources.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"

/* One pass: rows [0, done) are the earlier sources', finished; this one appends after them. */
struct src_pass {
	const struct unwind_table *t;
	size_t done;
};

/* The FDE filter: is any of link-time [lo, hi) covered by an earlier source's rule? */
static bool src__covered(uint64_t lo, uint64_t hi, void *ctx)
{
	const struct src_pass *p = ctx;
	const struct unwind_table *t = p->t;
	const struct unwind_rows done = { .rows = t->rows.rows, .n = p->done };
	const struct unwind_row *r;
	uint64_t end;
	size_t i;

	if (!done.n || lo < t->base || lo - t->base > UINT32_MAX)
		return false;
	end = hi - t->base > UINT32_MAX ? UINT32_MAX : hi - t->base;
	r = unwind_rows__find(&done, (uint32_t)(lo - t->base));
	if (r && r->cfa != UNWIND_CFA_NONE)
		return true;
	for (i = r ? (size_t)(r - done.rows) + 1 : 0; i < done.n && done.rows[i].pc < end; i++)
		if (done.rows[i].cfa != UNWIND_CFA_NONE)
			return true;
	return false;
}

/*
 * The FDEs a pass appended at [n0, n), as spans: every reader closes each
 * FDE's rows with a UNWIND_CFA_NONE row at its end (cfi.h, sframe.h). With
 * @out NULL only counts.
 */
static size_t src__scan(const struct unwind_rows *v, size_t n0, enum unwind_source src,
			struct unwind_span *out)
{
	const struct unwind_row *r;
	uint32_t lo = 0;
	bool open = false;
	size_t i, n = 0;

	for (i = n0; i < v->n; i++) {
		r = &v->rows[i];
		if (r->cfa != UNWIND_CFA_NONE) {
			lo = open ? lo : r->pc;
			open = true;
			continue;
		}
		if (open && r->pc > lo) {
			if (out)
				out[n] = (struct unwind_span){ .lo = lo, .hi = r->pc, .source = src };
			n++;
		}
		open = false;
	}
	return n;
}

/* Ends a pass that appended rows from @n0: its spans noted, all rows sorted and merged. */
static int src__end_pass(struct unwind_table *t, size_t n0, enum unwind_source src)
{
	size_t add = src__scan(&t->rows, n0, src, NULL);
	struct unwind_span *v;

	if (add) {
		if (add > SIZE_MAX / sizeof(*v) - t->nspans)
			return -ENOMEM;
		v = realloc(t->spans, (t->nspans + add) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->spans = v;
		t->nspans += src__scan(&t->rows, n0, src, v + t->nspans);
		t->src_fdes[src] += add;
		if (t->source == UNWIND_SRC_NONE)
			t->source = src;
	}
	unwind_rows__finish(&t->rows);
	return 0;
}

static int src__sframe(Elf *elf, struct unwind_table *t)
{
	char why[160] = "";
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_by_name(elf, ".sframe", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	size_t n0 = t->rows.n;
	int err;

	if (!scn)
		return 0;
	if (!d || !d->d_buf) {
		st_warn("unwind: %s: cannot read .sframe; using the other sources", t->path);
		return 0;
	}
	err = sframe__read(d->d_buf, d->d_size, sh.sh_addr, t->base, &t->rows, why, sizeof(why));
	if (err == -ENOMEM)
		return err;
	if (err) {
		st_warn("unwind: %s: .sframe: %s; using the other sources", t->path, why);
		return 0;
	}
	return src__end_pass(t, n0, UNWIND_SRC_SFRAME);
}

/*
 * The FDEs of one CFI section (@src: .eh_frame or .debug_frame of @elf, named
 * @name) that no earlier source covers.
 *
 * Return: 0, -ENOENT (no such section), -EINVAL (unreadable, logged; nothing
 * appended), -ENOMEM.
 */
static int src__cfi(Elf *elf, const char *name, struct unwind_table *t, enum unwind_source src)
{
	struct src_pass p = { .t = t, .done = t->rows.n };
	struct cfi_source cs = { .name = name, .base = t->base, .skip = src__covered,
				 .skip_ctx = &p };
	int err;

	if (src == UNWIND_SRC_EH_FRAME)
		err = cfi__read_eh_frame(elf, &cs, &t->rows, &t->cfi);
	else
		err = cfi__read_debug_frame(elf, &cs, &t->rows, &t->cfi);
	return err ? err : src__end_pass(t, p.done, src);
}

/*
 * The .debug_frame of @ef's separate debug file, as the file model finds it
 * (build ID, then .gnu_debuglink with its CRC; lib/elf/debug_file.h): only
 * a candidate that has a .debug_frame is considered, so the CRC of a debug
 * file without one (most: gcc writes .eh_frame) is never computed for this.
 *
 * Return: 0, -ENOENT (no debug file with a .debug_frame), -EINVAL, -ENOMEM.
 */
static int src__debug(struct elf_file *ef, struct unwind_table *t)
{
	const char *path;
	Elf *dbg = elf_file__debug_elf_with(ef, ".debug_frame", &path);
	int err;

	if (!dbg)
		return -ENOENT;
	err = src__cfi(dbg, path, t, UNWIND_SRC_DEBUG_FRAME);
	if (!err && !(t->cfi_path = strdup(path)))
		err = -ENOMEM;
	return err;
}

static int src__cmp_span(const void *pa, const void *pb)
{
	const struct unwind_span *a = pa, *b = pb;

	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Spans of all passes in address order, touching ones of one source joined. */
static void src__sort_spans(struct unwind_table *t)
{
	size_t i, out = 0;

	if (!t->nspans)
		return;
	qsort(t->spans, t->nspans, sizeof(*t->spans), src__cmp_span);
	for (i = 1; i < t->nspans; i++) {
		if (t->spans[i].lo == t->spans[out].hi && t->spans[i].source == t->spans[out].source)
			t->spans[out].hi = t->spans[i].hi;
		else
			t->spans[++out] = t->spans[i];
	}
	t->nspans = out + 1;
}

/* Built by the Go toolchain (its build-ID note or its build-info section)? */
static bool src__is_go(Elf *elf)
{
	GElf_Shdr sh;

	return elf_section_by_name(elf, ".note.go.buildid", &sh) ||
	       elf_section_by_name(elf, ".go.buildinfo", &sh);
}

/* A missing source is no error; an unreadable one (logged) lets the others go on. */
static int src__go_on(int err, bool *unreadable)
{
	if (err == -EINVAL)
		*unreadable = true;
	return err == -ENOENT || err == -EINVAL ? 0 : err;
}

int unwind_sources__read(struct elf_file *ef, struct unwind_table *t)
{
	Elf *elf = elf_file__elf(ef);
	bool unreadable = false;
	int err;

	err = src__sframe(elf, t);
	if (!err)
		err = src__go_on(src__cfi(elf, t->path, t, UNWIND_SRC_EH_FRAME), &unreadable);
	t->go = src__is_go(elf);
	if (!err && !t->go) {
		err = src__cfi(elf, t->path, t, UNWIND_SRC_DEBUG_FRAME);
		if (err == -ENOENT)
			err = src__debug(ef, t);
		err = src__go_on(err, &unreadable);
	}
	if (err)
		return err;
	src__sort_spans(t);
	return !t->rows.n && unreadable ? -EINVAL : 0;
}

enum unwind_source unwind_table__source_at(const struct unwind_table *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->nspans, mid;
	uint64_t pc;

	if (vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return UNWIND_SRC_NONE;
	pc = vaddr - t->base;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->spans[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || pc >= t->spans[lo - 1].hi)
		return UNWIND_SRC_NONE;
	return (enum unwind_source)t->spans[lo - 1].source;
}
