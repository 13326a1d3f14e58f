// SPDX-License-Identifier: GPL-2.0
/* Names of JIT code from /tmp/perf-PID.map ("START SIZE NAME" lines), read as perf does. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/sym/perf_map.h"
#include "lib/util/log.h"

/*
 * Lines beyond this many are not parsed (counted as truncated): it bounds the
 * memory a hostile file of tiny lines can make us take (~100 bytes per line
 * while resolving overlaps). A JIT writes one line per compiled blob; node
 * apps that run for days stay well below.
 */
#define PERF_MAP_MAX_LINES (4U << 20)

/* One parsed line; seq is its position in the file (later wins). */
struct pm_line {
	uint64_t start, end;
	uint32_t name; /* offset of the NUL-terminated name in pm->text */
	uint32_t seq;
};

struct perf_map {
	char *text; /* the file's bytes, each line's end turned into a NUL */
	struct perf_map_sym *syms;
	size_t nsyms;
	struct perf_map_stats stats;
};

static int hex__digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One hex number at *p (optional "0x"), at most 64 bits. Return: false if none or too big. */
static bool pm__hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d, n = 0;

	if (end - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x' && hex__digit(s[2]) >= 0)
		s += 2;
	for (; s < end && (d = hex__digit(*s)) >= 0; s++, n++) {
		if (v >> 60)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*p = s;
	*out = v;
	return n > 0;
}

static const char *pm__blanks(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

/* Parse [s, eol) into *l. Return: false for a bad line. */
static bool pm__line(const char *text, const char *s, const char *eol, struct pm_line *l)
{
	uint64_t start, size;
	const char *name;

	s = pm__blanks(s, eol);
	if (!pm__hex(&s, eol, &start) || s == eol || (*s != ' ' && *s != '\t'))
		return false;
	s = pm__blanks(s, eol);
	if (!pm__hex(&s, eol, &size) || s == eol || (*s != ' ' && *s != '\t'))
		return false;
	name = pm__blanks(s, eol);
	if (eol > name && eol[-1] == '\r')
		eol--;
	if (name == eol || !size || start + size < start || start + size == 0)
		return false;
	l->start = start;
	l->end = start + size;
	l->name = (uint32_t)(name - text);
	return true;
}

/* Split text into lines, parse each; NUL-terminates names in place. */
static struct pm_line *pm__lines(struct perf_map *pm, size_t len, size_t *nlines)
{
	char *s = pm->text, *end = pm->text + len, *eol;
	struct pm_line *v = NULL, *nv;
	size_t n = 0, cap = 0;

	for (; s < end; s = eol + 1) {
		eol = memchr(s, '\n', (size_t)(end - s));
		if (!eol) {
			pm->stats.partial++;
			break;
		}
		pm->stats.lines++;
		if (n == PERF_MAP_MAX_LINES) {
			pm->stats.truncated += (size_t)(end - s);
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				goto err_free;
			v = nv;
		}
		if (eol - s >= PERF_MAP_MAX_LINE || !pm__line(pm->text, s, eol, &v[n])) {
			pm->stats.bad_lines++;
			continue;
		}
		if (eol > s && eol[-1] == '\r')
			eol[-1] = '\0';
		*eol = '\0';
		v[n].seq = (uint32_t)n;
		n++;
	}
	*nlines = n;
	return v ? v : calloc(1, sizeof(*v));

err_free:
	free(v);
	return NULL;
}

static int pm__cmp_start(const void *a, const void *b)
{
	const struct pm_line *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int pm__cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A max-heap of line indexes keyed by seq: the latest line covering the sweep point on top. */
struct pm_heap {
	uint32_t *v;
	size_t n;
	const struct pm_line *lines;
};

static bool pm_heap__less(const struct pm_heap *h, size_t a, size_t b)
{
	return h->lines[h->v[a]].seq < h->lines[h->v[b]].seq;
}

static void pm_heap__swap(struct pm_heap *h, size_t a, size_t b)
{
	uint32_t t = h->v[a];

	h->v[a] = h->v[b];
	h->v[b] = t;
}

static void pm_heap__push(struct pm_heap *h, uint32_t idx)
{
	size_t i = h->n++;

	h->v[i] = idx;
	for (; i && pm_heap__less(h, (i - 1) / 2, i); i = (i - 1) / 2)
		pm_heap__swap(h, (i - 1) / 2, i);
}

static void pm_heap__pop(struct pm_heap *h)
{
	size_t i = 0, c;

	h->v[0] = h->v[--h->n];
	for (; (c = 2 * i + 1) < h->n; i = c) {
		if (c + 1 < h->n && pm_heap__less(h, c, c + 1))
			c++;
		if (!pm_heap__less(h, i, c))
			break;
		pm_heap__swap(h, i, c);
	}
}

static void pm__emit(struct perf_map *pm, const struct pm_line *l, uint64_t from, uint64_t to,
		     bool *kept)
{
	struct perf_map_sym *last = pm->nsyms ? &pm->syms[pm->nsyms - 1] : NULL;
	const char *name = pm->text + l->name;

	if (last && last->end == from && last->name == name) {
		last->end = to;
		return;
	}
	pm->syms[pm->nsyms++] = (struct perf_map_sym){ .start = from, .end = to, .name = name };
	if (kept)
		kept[l->seq] = true;
}

/*
 * Overlaps: sweep the sorted boundaries with the lines covering each
 * elementary segment in a heap; the latest line owns the segment. Lines that
 * own nothing are counted as shadowed.
 */
static int pm__resolve(struct perf_map *pm, const struct pm_line *l, size_t n)
{
	struct pm_heap heap = { .lines = l };
	uint64_t *bounds = malloc(2 * n * sizeof(*bounds) + 1);
	bool *kept = calloc(n + 1, sizeof(*kept));
	size_t nb = 0, i, j = 0, k;
	int err = -ENOMEM;

	heap.v = malloc(n * sizeof(*heap.v) + 1);
	if (!bounds || !heap.v || !kept)
		goto out;
	for (i = 0; i < n; i++) {
		bounds[nb++] = l[i].start;
		bounds[nb++] = l[i].end;
	}
	qsort(bounds, nb, sizeof(*bounds), pm__cmp_u64);
	for (i = k = 0; i < nb; i++)
		if (!k || bounds[k - 1] != bounds[i])
			bounds[k++] = bounds[i];
	for (i = 0; i < k; i++) {
		while (j < n && l[j].start <= bounds[i])
			pm_heap__push(&heap, (uint32_t)j++);
		while (heap.n && l[heap.v[0]].end <= bounds[i])
			pm_heap__pop(&heap);
		if (heap.n && i + 1 < k)
			pm__emit(pm, &l[heap.v[0]], bounds[i], bounds[i + 1], kept);
	}
	for (i = 0; i < n; i++)
		pm->stats.shadowed += !kept[i];
	err = 0;
out:
	free(bounds);
	free(heap.v);
	free(kept);
	return err;
}

static int pm__build(struct perf_map *pm, size_t len)
{
	struct pm_line *l;
	uint64_t max_end = 0;
	bool overlap = false;
	size_t n, i;
	int err;

	l = pm__lines(pm, len, &n);
	if (!l)
		return -ENOMEM;
	qsort(l, n, sizeof(*l), pm__cmp_start);
	for (i = 0; i < n && !overlap; i++) {
		overlap = l[i].start < max_end;
		max_end = l[i].end > max_end ? l[i].end : max_end;
	}
	err = -ENOMEM;
	pm->syms = malloc((overlap ? 2 * n : n) * sizeof(*pm->syms) + 1);
	if (!pm->syms)
		goto out;
	err = 0;
	if (!overlap) {
		for (i = 0; i < n; i++)
			pm__emit(pm, &l[i], l[i].start, l[i].end, NULL);
		goto out;
	}
	err = pm__resolve(pm, l, n);
out:
	free(l);
	return err;
}

/* Takes @text (malloc'ed, @len bytes plus room for one more). */
static struct perf_map *pm__from_text(char *text, size_t len)
{
	struct perf_map *pm = calloc(1, sizeof(*pm));

	if (!pm) {
		free(text);
		errno = ENOMEM;
		return NULL;
	}
	pm->text = text;
	pm->text[len] = '\0';
	if (pm__build(pm, len)) {
		perf_map__free(pm);
		errno = ENOMEM;
		return NULL;
	}
	return pm;
}

struct perf_map *perf_map__parse(const char *text, size_t len)
{
	size_t keep = len < PERF_MAP_MAX_BYTES ? len : PERF_MAP_MAX_BYTES;
	struct perf_map *pm;
	char *copy;

	copy = malloc(keep + 1);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(copy, text, keep);
	pm = pm__from_text(copy, keep);
	if (pm)
		pm->stats.truncated += len - keep;
	return pm;
}

/* perf's rule: a regular file owned by the process's user or by root. */
static int pm__trusted(int fd, const char *path, uid_t owner, struct stat *st)
{
	if (fstat(fd, st))
		return -errno;
	if (!S_ISREG(st->st_mode)) {
		st_warn("perf-map: %s: not a regular file, ignored", path);
		return -EINVAL;
	}
	if (st->st_uid != 0 && st->st_uid != owner) {
		st_warn("perf-map: %s: owned by uid %u, not by the process's (%u) or root, ignored",
			path, (unsigned)st->st_uid, (unsigned)owner);
		return -EPERM;
	}
	return 0;
}

/* Read up to @cap bytes; *len gets what was read, the rest of the file is counted. */
static char *pm__read(int fd, const struct stat *st, size_t cap, size_t *len, size_t *over)
{
	size_t size = st->st_size > 0 && (uint64_t)st->st_size < cap ? (size_t)st->st_size : cap;
	size_t n = 0;
	char *buf, *nb;
	ssize_t r;

	size = size < 4096 ? 4096 : size;
	size = size < cap ? size : cap;
	buf = malloc(size + 1);
	while (buf) {
		if (n == size) { /* the file grew while we read */
			if (size == cap)
				break;
			size = size > cap / 2 ? cap : size * 2;
			nb = realloc(buf, size + 1);
			if (!nb)
				goto err_free;
			buf = nb;
		}
		r = read(fd, buf + n, size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto err_free;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (!buf)
		errno = ENOMEM;
	*len = n;
	*over = n == cap && (uint64_t)st->st_size > cap ? (size_t)((uint64_t)st->st_size - cap) : 0;
	return buf;

err_free:
	free(buf);
	return NULL;
}

char *perf_map__read_text_fd(int fd, const char *name, uid_t owner, size_t max_bytes,
			    size_t *len, size_t *over)
{
	struct stat st;
	char *text;
	int err;

	err = pm__trusted(fd, name, owner, &st);
	if (err) {
		errno = -err;
		return NULL;
	}
	/* Name offsets are 32-bit: no cap may pass 4 GiB. */
	if (!max_bytes || max_bytes > UINT32_MAX - 1)
		max_bytes = max_bytes ? UINT32_MAX - 1 : PERF_MAP_MAX_BYTES;
	text = pm__read(fd, &st, max_bytes, len, over);
	if (!text) {
		err = errno;
		st_warn("perf-map: %s: %s", name, strerror(err));
		errno = err;
	}
	return text;
}

struct perf_map *perf_map__read_fd(int fd, const char *name, uid_t owner, size_t max_bytes)
{
	struct perf_map *pm;
	size_t len, over;
	char *text = perf_map__read_text_fd(fd, name, owner, max_bytes, &len, &over);

	if (!text)
		return NULL;
	pm = pm__from_text(text, len);
	if (pm)
		pm->stats.truncated += over;
	return pm;
}

struct perf_map *perf_map__open(const char *path, uid_t owner, size_t max_bytes)
{
	struct perf_map *pm;
	int fd, err;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ELOOP)
			st_warn("perf-map: %s: a symbolic link, ignored", path);
		errno = err;
		return NULL;
	}
	pm = perf_map__read_fd(fd, path, owner, max_bytes);
	err = errno;
	close(fd);
	errno = err;
	return pm;
}

const struct perf_map_sym *perf_map__find(const struct perf_map *pm, uint64_t addr)
{
	size_t lo = 0, hi = pm ? pm->nsyms : 0, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pm->syms[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (pm ? pm->nsyms : 0) && pm->syms[lo].start <= addr ? &pm->syms[lo] : NULL;
}

const struct perf_map_sym *perf_map__syms(const struct perf_map *pm, size_t *n)
{
	*n = pm->nsyms;
	return pm->syms;
}

const struct perf_map_stats *perf_map__stats(const struct perf_map *pm)
{
	return &pm->stats;
}

void perf_map__free(struct perf_map *pm)
{
	if (!pm)
		return;
	free(pm->syms);
	free(pm->text);
	free(pm);
}
