// SPDX-License-Identifier: GPL-2.0
/* Inline frames and source lines from DWARF (libdw), in batches of addresses. */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sym/dwarf_inline.h"
#include "lib/sym/dwarf_scopes.h"
#include "lib/sym/dwarf_strings.h"
#include "lib/util/grow.h"
#include "lib/util/log.h"

/* One compile unit: its DIE, and what we read of it on first use. */
struct dwi_unit {
	Dwarf_Die die;
	bool built;  /* scopes indexed (or tried) */
	bool has_files;
	bool no_lines; /* its DW_AT_comp_dir runs past its section: libdw would too */
	const char *comp_dir;
	struct dwarf_scopes scopes;
	Dwarf_Files *files;
	size_t nfiles;
};

/* One pc range of a unit; the table of them is sorted by lo. */
struct dwi_span {
	uint64_t lo, hi;
	uint32_t unit;
};

struct dwarf_inline {
	Dwarf *dw;
	struct dwarf_strings strs;
	int fd; /* >= 0 when we opened the file */
	struct dwi_unit *units;
	size_t nunits, ucap;
	struct dwi_span *spans;
	size_t nspans, scap;
	size_t last; /* the span of the previous address: sorted batches stay in it */
};

static int dwi__add_unit(struct dwarf_inline *di, Dwarf_Die *cudie)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	size_t nspans = di->nspans;

	if (di->nunits >= UINT32_MAX ||
	    array_reserve((void **)&di->units, &di->ucap, di->nunits + 1, sizeof(*di->units)))
		return -ENOMEM;
	while ((off = dwarf_ranges(cudie, off, &base, &lo, &hi)) > 0) {
		if (hi <= lo)
			continue;
		if (array_reserve((void **)&di->spans, &di->scap, di->nspans + 1, sizeof(*di->spans)))
			return -ENOMEM;
		di->spans[di->nspans++] = (struct dwi_span){ lo, hi, (uint32_t)di->nunits };
	}
	if (di->nspans == nspans)
		return 0; /* no code: types only, or a partial unit */
	memset(&di->units[di->nunits], 0, sizeof(*di->units));
	di->units[di->nunits++].die = *cudie;
	return 0;
}

static int dwi__span_cmp(const void *a, const void *b)
{
	const struct dwi_span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every compile unit with code, and the sorted table of their pc ranges. */
static int dwi__index_units(struct dwarf_inline *di)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie, subdie;
	Dwarf_Half version;
	uint8_t unit_type;
	int err;

	while (dwarf_get_units(di->dw, cu, &next, &version, &unit_type, &cudie, &subdie) == 0) {
		cu = next;
		if (dwarf_tag(&cudie) != DW_TAG_compile_unit && dwarf_tag(&cudie) != DW_TAG_skeleton_unit)
			continue;
		err = dwi__add_unit(di, &cudie);
		if (err)
			return err;
	}
	if (di->nspans)
		qsort(di->spans, di->nspans, sizeof(*di->spans), dwi__span_cmp);
	return 0;
}

/* The unit holding @addr: the span table first, then libdw's aranges. */
static struct dwi_unit *dwi__unit(struct dwarf_inline *di, uint64_t addr)
{
	size_t lo = 0, hi = di->nspans, mid;
	Dwarf_Off off;
	Dwarf_Die cudie;

	if (di->last < di->nspans && di->spans[di->last].lo <= addr && addr < di->spans[di->last].hi)
		return &di->units[di->spans[di->last].unit];
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (di->spans[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo && addr < di->spans[lo - 1].hi) {
		di->last = lo - 1;
		return &di->units[di->spans[lo - 1].unit];
	}
	/* Overlapping unit ranges (rare): .debug_aranges decides. */
	if (!dwarf_addrdie(di->dw, addr, &cudie))
		return NULL;
	/* Units were added in .debug_info order: search them by DIE offset. */
	off = dwarf_dieoffset(&cudie);
	for (lo = 0, hi = di->nunits; lo < hi;) {
		mid = lo + (hi - lo) / 2;
		if (dwarf_dieoffset(&di->units[mid].die) < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < di->nunits && dwarf_dieoffset(&di->units[lo].die) == off ? &di->units[lo] : NULL;
}

static const char *dwi__file(struct dwi_unit *u, uint32_t file_plus1)
{
	if (!u->has_files) {
		u->has_files = true;
		if (u->no_lines || dwarf_getsrcfiles(&u->die, &u->files, &u->nfiles) != 0)
			u->nfiles = 0;
	}
	if (!file_plus1 || file_plus1 - 1 >= u->nfiles)
		return NULL;
	return dwarf_filesrc(u->files, file_plus1 - 1, NULL, NULL);
}

/* The innermost frame's place: the line table at @addr. */
static bool dwi__line(struct dwi_unit *u, uint64_t addr, struct dwarf_frame *f)
{
	Dwarf_Line *line = u->no_lines ? NULL : dwarf_getsrc_die(&u->die, addr);
	int n = 0;

	if (!line)
		return false;
	f->file = dwarf_linesrc(line, NULL, NULL);
	f->line = dwarf_lineno(line, &n) == 0 && n > 0 ? (uint32_t)n : 0;
	n = 0;
	f->column = dwarf_linecol(line, &n) == 0 && n > 0 ? (uint32_t)n : 0;
	return true;
}

/* What a unit's first address reads: its scopes (one walk of its DIEs) and comp_dir. */
static void dwi__build_unit(const struct dwarf_inline *di, struct dwi_unit *u)
{
	Dwarf_Attribute attr, *a = dwarf_attr(&u->die, DW_AT_comp_dir, &attr);

	u->built = true;
	if (dwarf_scopes__build(&u->scopes, &u->die, &di->strs)) /* out of memory: lines only */
		dwarf_scopes__free(&u->scopes);
	u->comp_dir = dwarf_strings__form(&di->strs, a);
	u->no_lines = a && !u->comp_dir;
}

/*
 * Without @lines the unit's line table is never read: libdw keeps every
 * table it read until the end (~29 MB for a system-wide profile's files),
 * and without --lines nothing shows what it says. The frames are the same
 * but for their places, and a pc no function covers gives none instead of
 * a nameless one (which names nothing either way).
 */
static size_t dwi__frames(const struct dwarf_inline *di, struct dwi_unit *u, uint64_t addr,
			  bool lines, struct dwarf_frame *out, size_t max)
{
	struct dwarf_scopes *s = &u->scopes;
	const struct dwarf_scope *sc;
	size_t n = 0;
	bool has_line;
	int32_t i;

	if (!u->built)
		dwi__build_unit(di, u);
	memset(out, 0, sizeof(*out));
	out->comp_dir = u->comp_dir;
	has_line = lines && dwi__line(u, addr, out);
	i = dwarf_scopes__find(s, addr);
	if (i < 0)
		return has_line ? 1 : 0;
	for (;;) {
		sc = &s->scopes[i];
		out[n].func = dwarf_scopes__name(s, i);
		out[n].inlined = sc->inlined;
		if (!sc->inlined || sc->parent < 0 || n + 1 == max)
			return n + 1;
		/* The caller's frame sits at the line of the call that was inlined. */
		n++;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].comp_dir = u->comp_dir;
		if (lines) {
			out[n].file = dwi__file(u, sc->call_file);
			out[n].line = sc->call_line;
			out[n].column = sc->call_column;
		}
		i = sc->parent;
	}
}

static size_t dwi__lookup(struct dwarf_inline *di, uint64_t addr, bool lines,
			  struct dwarf_frame *out, size_t max)
{
	struct dwi_unit *u;

	if (!max)
		return 0;
	u = dwi__unit(di, addr);
	return u ? dwi__frames(di, u, addr, lines, out, max) : 0;
}

size_t dwarf_inline__lookup(struct dwarf_inline *di, uint64_t addr, struct dwarf_frame *out,
			    size_t max)
{
	return dwi__lookup(di, addr, true, out, max);
}

int dwarf_inline__batch(struct dwarf_inline *di, const uint64_t *addrs, size_t n, bool lines,
			dwarf_inline_cb cb, void *ctx)
{
	struct dwarf_frame frames[DWARF_INLINE_MAX_FRAMES];
	size_t i, nf;
	int ret;

	for (i = 0; i < n; i++) {
		nf = dwi__lookup(di, addrs[i], lines, frames, DWARF_INLINE_MAX_FRAMES);
		ret = cb(ctx, i, frames, nf);
		if (ret)
			return ret;
	}
	return 0;
}

struct dwarf_inline *dwarf_inline__new(Dwarf *dw, const char *name)
{
	struct dwarf_inline *di = calloc(1, sizeof(*di));

	if (!di) {
		errno = ENOMEM;
		return NULL;
	}
	di->dw = dw;
	di->fd = -1;
	if (dwarf_strings__init(&di->strs, dw, name)) {
		free(di);
		errno = EINVAL;
		return NULL;
	}
	if (dwi__index_units(di)) {
		dwarf_inline__free(di);
		errno = ENOMEM;
		return NULL;
	}
	return di;
}

struct dwarf_inline *dwarf_inline__open(const char *path)
{
	struct dwarf_inline *di;
	int fd, err;
	Dwarf *dw;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		st_warn("dwarf: %s: %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		st_warn("dwarf: %s: %s", path, dwarf_errmsg(-1));
		close(fd);
		errno = ENODATA;
		return NULL;
	}
	di = dwarf_inline__new(dw, path);
	if (!di) {
		err = errno;
		dwarf_end(dw);
		close(fd);
		errno = err;
		return NULL;
	}
	di->fd = fd;
	return di;
}

size_t dwarf_inline__nr_units(const struct dwarf_inline *di)
{
	return di->nunits;
}

void dwarf_inline__free(struct dwarf_inline *di)
{
	size_t i;

	if (!di)
		return;
	for (i = 0; i < di->nunits; i++)
		dwarf_scopes__free(&di->units[i].scopes);
	free(di->units);
	free(di->spans);
	if (di->fd >= 0) {
		dwarf_end(di->dw);
		close(di->fd);
	}
	free(di);
}
