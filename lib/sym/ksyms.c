// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel symbols from /proc/kallsyms: text symbols sorted by address, held
 * compactly. A symbol is 16 bytes (its address and the offsets of its name
 * and module in one string blob); names are kept once and only those of
 * text symbols, modules once per run of their symbols: ~4 MB for the 120k
 * symbols of a distribution kernel, whose file is 5.4 MB. The file is read
 * in pieces, never whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sym/ksyms.h"
#include "lib/util/grow.h"
#include "lib/util/log.h"

#define KSYM_NO_MODULE UINT32_MAX

struct ksym_rec {
	uint64_t addr;
	uint32_t name;   /* offset in the blob */
	uint32_t module; /* offset in the blob; KSYM_NO_MODULE for vmlinux */
};

struct ksyms {
	struct ksym_rec *recs; /* sorted by (addr, file order) */
	size_t n, cap;
	char *blob;            /* NUL-terminated names */
	size_t blob_len, blob_cap;
	uint32_t last_module;  /* the module named last (modules come in runs) */
	size_t skipped;        /* malformed lines */
};

/*
 * One read()'s worth: kallsyms lines are under 600 bytes (KSYM_NAME_LEN is
 * 512), so a line longer than this is malformed and skipped.
 */
#define KSYMS_CHUNK (64u << 10)
/* Refuse absurd inputs: a real kallsyms is well under this, and offsets are 32-bit. */
#define KSYMS_MAX_BYTES (1ul << 30)

static bool ksyms__is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int ksyms__hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Parse one line "ADDR TYPE NAME[\t[MODULE]]" lying in [p, end), with *end
 * being the writable byte after it. Return: 1 for a text symbol (*ks filled),
 * 0 for a valid non-text line, -1 for a malformed line. *addr gets the address.
 */
static int ksyms__parse_line(char *p, char *end, struct ksym *ks, uint64_t *addr)
{
	uint64_t a = 0;
	char *name, *mod = NULL;
	int digits = 0, v;
	char type;

	for (; p < end && (v = ksyms__hexval(*p)) >= 0; p++, digits++)
		a = (a << 4) | (unsigned)v;
	if (digits == 0 || digits > 16 || p == end || !ksyms__is_blank(*p))
		return -1;
	*addr = a;
	while (p < end && ksyms__is_blank(*p))
		p++;
	if (p + 1 >= end || !*p || !ksyms__is_blank(p[1]))
		return -1;
	type = *p;
	p += 2;
	while (p < end && ksyms__is_blank(*p))
		p++;
	name = p;
	while (p < end && !ksyms__is_blank(*p) && *p)
		p++;
	if (p == name || (p < end && !*p))
		return -1;
	if (p < end) {
		*p++ = '\0';
		while (p < end && ksyms__is_blank(*p))
			p++;
		if (p < end) {
			char *close = memchr(p, ']', end - p);

			if (*p != '[' || !close || close == p + 1 || memchr(p, '\0', close - p))
				return -1;
			mod = p + 1;
			*close = '\0';
			for (p = close + 1; p < end && ksyms__is_blank(*p); p++)
				;
			if (p != end)
				return -1;
		}
	}
	*end = '\0';
	if (!strchr("tTwW", type))
		return 0;
	ks->addr = a;
	ks->name = name;
	ks->module = mod;
	return 1;
}

/* Return: the blob offset of a copy of @str, or -ENOMEM. */
static int64_t ksyms__intern(struct ksyms *ks, const char *str)
{
	size_t len = strlen(str) + 1, at = ks->blob_len;

	if (at + len > UINT32_MAX - 1 ||
	    array_reserve((void **)&ks->blob, &ks->blob_cap, at + len, 1))
		return -ENOMEM;
	memcpy(ks->blob + at, str, len);
	ks->blob_len += len;
	return at;
}

/* A text symbol: its name into the blob, its module too unless it is the last one's. */
static int ksyms__push(struct ksyms *ks, const struct ksym *sym)
{
	struct ksym_rec r = { .addr = sym->addr, .module = KSYM_NO_MODULE };
	int64_t off;

	if (ks->n >= UINT32_MAX - 1 ||
	    array_reserve((void **)&ks->recs, &ks->cap, ks->n + 1, sizeof(r)))
		return -ENOMEM;
	if ((off = ksyms__intern(ks, sym->name)) < 0)
		return off;
	r.name = off;
	if (sym->module) {
		if (ks->last_module == KSYM_NO_MODULE ||
		    strcmp(ks->blob + ks->last_module, sym->module)) {
			if ((off = ksyms__intern(ks, sym->module)) < 0)
				return off;
			ks->last_module = off;
		}
		r.module = ks->last_module;
	}
	ks->recs[ks->n++] = r;
	return 0;
}

/* What reading the file learned so far. */
struct ksyms_parse {
	bool any_addr, any_line;
	bool dropping; /* inside a line too long to hold: skipped up to its newline */
};

/* The line in [p, end); *end is writable (the newline, or the spare byte after the data). */
static int ksyms__line(struct ksyms *ks, struct ksyms_parse *st, char *p, char *end)
{
	struct ksym sym;
	uint64_t addr;
	int r;

	if (p == end)
		return 0;
	r = ksyms__parse_line(p, end, &sym, &addr);
	if (r < 0) {
		ks->skipped++;
		return 0;
	}
	st->any_line = true;
	st->any_addr |= addr != 0;
	return r == 1 ? ksyms__push(ks, &sym) : 0;
}

/*
 * The whole lines of buf[0, len), a piece of the file; @eof: no more comes.
 * Return: how many bytes of a partial last line are left at the start of
 * @buf for the next piece, or -ENOMEM.
 */
static ssize_t ksyms__lines(struct ksyms *ks, struct ksyms_parse *st, char *buf, size_t len,
			    bool eof)
{
	char *p = buf, *end = buf + len, *eol;
	int err;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol && !eof)
			break;
		if (!eol)
			eol = end; /* the buffer has a spare byte past the data */
		if (st->dropping) {
			st->dropping = false;
			continue;
		}
		if ((err = ksyms__line(ks, st, p, eol)))
			return err;
	}
	if (p >= end)
		return 0;
	if (p == buf && len == KSYMS_CHUNK) { /* a line longer than a piece: malformed */
		if (!st->dropping)
			ks->skipped++;
		st->dropping = true;
		return 0;
	}
	memmove(buf, p, end - p);
	return end - p;
}

/* Return: 0, or -errno; -EACCES when every address read as zero (kptr_restrict). */
static int ksyms__read(struct ksyms *ks, const char *path)
{
	struct ksyms_parse st = {};
	size_t have = 0, total = 0;
	ssize_t r, kept;
	char *buf;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(KSYMS_CHUNK + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		r = read(fd, buf + have, KSYMS_CHUNK - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		total += r;
		if (total > KSYMS_MAX_BYTES) {
			err = -EFBIG;
			break;
		}
		kept = ksyms__lines(ks, &st, buf, have + r, r == 0);
		if (kept < 0) {
			err = kept;
			break;
		}
		have = kept;
		if (r == 0)
			break;
	}
	free(buf);
	close(fd);
	if (!err && st.any_line && !st.any_addr)
		err = -EACCES;
	return err;
}

/* Names lie in the blob in file order, so comparing their offsets keeps file order for ties. */
static int ksym_rec__cmp(const void *pa, const void *pb)
{
	const struct ksym_rec *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/*
 * The kernel lists vmlinux in address order and appends modules, BPF and
 * ftrace trampolines: sort only the tail after the sorted prefix and merge,
 * which saves most of a full qsort (~8 ms on 120k symbols).
 */
static int ksyms__sort(struct ksyms *ks)
{
	size_t k = 1, i, j, out, nt;
	struct ksym_rec *tail;

	while (k < ks->n && ksym_rec__cmp(&ks->recs[k - 1], &ks->recs[k]) <= 0)
		k++;
	if (k >= ks->n)
		return 0;
	nt = ks->n - k;
	tail = malloc(nt * sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	qsort(ks->recs + k, nt, sizeof(*tail), ksym_rec__cmp);
	memcpy(tail, ks->recs + k, nt * sizeof(*tail));
	/* Merge from the back: the output never overtakes the unread prefix. */
	for (i = k, j = nt, out = ks->n; j > 0; out--) {
		if (i > 0 && ksym_rec__cmp(&ks->recs[i - 1], &tail[j - 1]) > 0)
			ks->recs[out - 1] = ks->recs[--i];
		else
			ks->recs[out - 1] = tail[--j];
	}
	free(tail);
	return 0;
}

/* Growth by doubling left up to half of each array unused: give it back. */
static void ksyms__trim(struct ksyms *ks)
{
	void *p;

	if (ks->n && (p = realloc(ks->recs, ks->n * sizeof(*ks->recs)))) {
		ks->recs = p;
		ks->cap = ks->n;
	}
	if (ks->blob_len && (p = realloc(ks->blob, ks->blob_len))) {
		ks->blob = p;
		ks->blob_cap = ks->blob_len;
	}
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks;
	int err;

	if (!path)
		path = "/proc/kallsyms";
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		err = -ENOMEM;
		goto err_log;
	}
	ks->last_module = KSYM_NO_MODULE;
	err = ksyms__read(ks, path);
	if (err == -EACCES) {
		st_err("ksyms: %s: addresses are hidden (kernel.kptr_restrict; run as root)",
		       path);
		goto err_free;
	}
	if (!err)
		err = ksyms__sort(ks);
	if (err)
		goto err_log;
	ksyms__trim(ks);
	if (ks->skipped)
		st_info("ksyms: %s: skipped %zu malformed lines", path, ks->skipped);
	return ks;
err_log:
	st_err("ksyms: %s: %s", path, strerror(-err));
err_free:
	ksyms__free(ks);
	errno = -err;
	return NULL;
}

size_t ksym__bound(const struct ksym *v, size_t n, uint64_t addr, bool after)
{
	size_t lo = 0, hi = n, mid;

	/* Invariant: v[< lo] are before the bound, v[>= hi] are not. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid].addr < addr || (after && v[mid].addr == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ksym__bound() over the table's own records. */
static size_t ksyms__bound(const struct ksyms *ks, size_t n, uint64_t addr, bool after)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ks->recs[mid].addr < addr || (after && ks->recs[mid].addr == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void ksyms__view(const struct ksyms *ks, size_t i, struct ksym *out)
{
	const struct ksym_rec *r = &ks->recs[i];

	out->addr = r->addr;
	out->name = ks->blob + r->name;
	out->module = r->module == KSYM_NO_MODULE ? NULL : ks->blob + r->module;
}

bool ksyms__find(const struct ksyms *ks, uint64_t addr, struct ksym *out)
{
	size_t i = ksyms__bound(ks, ks->n, addr, true);

	if (i == 0)
		return false;
	/* Several names may share that start: the first, in O(log n) too. */
	ksyms__view(ks, ksyms__bound(ks, i, ks->recs[i - 1].addr, false), out);
	return true;
}

bool ksyms__by_name(const struct ksyms *ks, const char *name, struct ksym *out)
{
	size_t i;

	for (i = 0; i < ks->n; i++)
		if (!strcmp(ks->blob + ks->recs[i].name, name)) {
			ksyms__view(ks, i, out);
			return true;
		}
	return false;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->n;
}

size_t ksyms__skipped(const struct ksyms *ks)
{
	return ks->skipped;
}

size_t ksyms__bytes(const struct ksyms *ks)
{
	return sizeof(*ks) + ks->cap * sizeof(*ks->recs) + ks->blob_cap;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->recs);
	free(ks->blob);
	free(ks);
}
