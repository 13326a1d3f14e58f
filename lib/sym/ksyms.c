// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols from /proc/kallsyms: text symbols sorted by address, names in one arena. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/sym/ksyms.h"
#include "lib/util/log.h"

/*
 * The whole file is read into one buffer and parsed in place: each name and
 * module name is NUL-terminated where it lies, so the buffer is the string
 * arena and loading does one allocation per table rather than one per name.
 */
struct ksyms {
	char *text;          /* the file, names terminated in place */
	struct ksym *syms;   /* sorted by (addr, file order) */
	size_t n;
	uint64_t *name_ix;   /* open-addressing hash of names, see ksyms__slot() */
	size_t name_mask;
	size_t skipped;      /* malformed lines */
};

/*
 * /proc/kallsyms reports st_size 0: start at 4 MiB, about what a distribution
 * kernel's file takes, so reading it costs one or two reallocs.
 */
#define KSYMS_PROC_GUESS (4u << 20)
/* Refuse absurd inputs: a real kallsyms is well under this, and indexes are 32-bit. */
#define KSYMS_MAX_BYTES (1ul << 30)

static int ksyms__read_all(const char *path, char **out, size_t *len)
{
	size_t cap = KSYMS_PROC_GUESS, n = 0;
	char *buf = NULL, *nb;
	struct stat st;
	ssize_t r;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size < KSYMS_MAX_BYTES)
		cap = st.st_size + 1; /* +1 so EOF is seen without a realloc */
	for (;;) {
		if (!buf || n == cap) {
			if (buf && cap >= KSYMS_MAX_BYTES) {
				err = -EFBIG;
				goto err_free;
			}
			cap = buf ? cap * 2 : cap;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				err = -ENOMEM;
				goto err_free;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto err_free;
		}
		if (r == 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
err_free:
	free(buf);
	close(fd);
	return err;
}

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

static int ksyms__push(struct ksyms *ks, size_t *cap, const struct ksym *sym)
{
	struct ksym *n;
	size_t c;

	if (ks->n == *cap) {
		c = *cap ? *cap * 2 : 4096;
		if (c > UINT32_MAX - 1 || c > SIZE_MAX / sizeof(*n))
			return -ENOMEM;
		n = realloc(ks->syms, c * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ks->syms = n;
		*cap = c;
	}
	ks->syms[ks->n++] = *sym;
	return 0;
}

/* Return: 0, -ENOMEM, or -EACCES when every address read as zero (kptr_restrict). */
static int ksyms__parse(struct ksyms *ks, size_t len)
{
	char *p = ks->text, *end = ks->text + len, *eol;
	bool any_addr = false, any_line = false;
	size_t cap = 0;
	struct ksym sym;
	uint64_t addr;
	int r;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end; /* ks->text has a spare byte at end */
		if (eol == p)
			continue;
		r = ksyms__parse_line(p, eol, &sym, &addr);
		if (r < 0) {
			ks->skipped++;
			continue;
		}
		any_line = true;
		any_addr |= addr != 0;
		if (r == 1 && ksyms__push(ks, &cap, &sym))
			return -ENOMEM;
	}
	if (any_line && !any_addr)
		return -EACCES;
	return 0;
}

/* Names point into one buffer in file order, so comparing them keeps file order for ties. */
static int ksym__cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

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
	struct ksym *tail;

	while (k < ks->n && ksym__cmp(&ks->syms[k - 1], &ks->syms[k]) <= 0)
		k++;
	if (k >= ks->n)
		return 0;
	nt = ks->n - k;
	tail = malloc(nt * sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	qsort(ks->syms + k, nt, sizeof(*tail), ksym__cmp);
	memcpy(tail, ks->syms + k, nt * sizeof(*tail));
	/* Merge from the back: the output never overtakes the unread prefix. */
	for (i = k, j = nt, out = ks->n; j > 0; out--) {
		if (i > 0 && ksym__cmp(&ks->syms[i - 1], &tail[j - 1]) > 0)
			ks->syms[out - 1] = ks->syms[--i];
		else
			ks->syms[out - 1] = tail[--j];
	}
	free(tail);
	return 0;
}

static uint64_t ksyms__hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* A slot: 0 when empty, else (hash high 32 bits << 32) | (index + 1). */
static uint64_t ksyms__slot(uint64_t h, size_t ix)
{
	return (h & 0xffffffff00000000ull) | (uint64_t)(ix + 1);
}

/* Return: the first slot holding @name (or the empty slot where it would go). */
static size_t ksyms__probe(const struct ksyms *ks, const char *name, uint64_t h)
{
	size_t i;
	uint64_t e;

	for (i = h & ks->name_mask; (e = ks->name_ix[i]); i = (i + 1) & ks->name_mask)
		if ((e >> 32) == (h >> 32) &&
		    !strcmp(ks->syms[(uint32_t)e - 1].name, name))
			break;
	return i;
}

/* The first symbol in address order wins a name shared by several (static) functions. */
static int ksyms__index_names(struct ksyms *ks)
{
	size_t size = 16, i, slot;
	uint64_t h;

	while (size < 2 * ks->n)
		size *= 2;
	ks->name_ix = calloc(size, sizeof(*ks->name_ix));
	if (!ks->name_ix)
		return -ENOMEM;
	ks->name_mask = size - 1;
	for (i = 0; i < ks->n; i++) {
		h = ksyms__hash(ks->syms[i].name);
		slot = ksyms__probe(ks, ks->syms[i].name, h);
		if (!ks->name_ix[slot])
			ks->name_ix[slot] = ksyms__slot(h, i);
	}
	return 0;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks;
	size_t len = 0;
	int err;

	if (!path)
		path = "/proc/kallsyms";
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		err = -ENOMEM;
		goto err_log;
	}
	err = ksyms__read_all(path, &ks->text, &len);
	if (err)
		goto err_log;
	err = ksyms__parse(ks, len);
	if (err == -EACCES) {
		st_err("ksyms: %s: addresses are hidden (kernel.kptr_restrict; run as root)",
		       path);
		goto err_free;
	}
	if (err)
		goto err_log;
	err = ksyms__sort(ks);
	if (!err)
		err = ksyms__index_names(ks);
	if (err)
		goto err_log;
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

const struct ksym *ksyms__find(const struct ksyms *ks, uint64_t addr)
{
	size_t i = ksym__bound(ks->syms, ks->n, addr, true);

	if (i == 0)
		return NULL;
	/* Several names may share that start: return the first, in O(log n) too. */
	return &ks->syms[ksym__bound(ks->syms, i, ks->syms[i - 1].addr, false)];
}

const struct ksym *ksyms__by_name(const struct ksyms *ks, const char *name)
{
	uint64_t e = ks->name_ix[ksyms__probe(ks, name, ksyms__hash(name))];

	return e ? &ks->syms[(uint32_t)e - 1] : NULL;
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->n;
}

size_t ksyms__skipped(const struct ksyms *ks)
{
	return ks->skipped;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->name_ix);
	free(ks->syms);
	free(ks->text);
	free(ks);
}
