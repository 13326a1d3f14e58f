// SPDX-License-Identifier: GPL-2.0
/* Parser of /proc/PID/maps text; every field of every line is checked. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/util/log.h"
#include "lib/util/read_file.h"

/*
 * A line is "START-END PERMS PGOFF MAJOR:MINOR INODE [PATH]": hex numbers
 * without a prefix, PERMS four characters [r-][w-][x-][ps], INODE decimal,
 * and PATH the rest of the line after the blanks following INODE (it may
 * hold spaces and end in " (deleted)"; both are kept).
 */

/* A cursor over one line. */
struct line {
	const char *p, *end;
};

static bool line__hex(struct line *l, unsigned max_digits, uint64_t *out)
{
	unsigned digits = 0;
	uint64_t v = 0;
	char c;

	for (; l->p < l->end; l->p++, digits++) {
		c = *l->p;
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			break;
		v = (v << 4) | (uint64_t)c;
		if (digits >= max_digits)
			return false;
	}
	*out = v;
	return digits > 0;
}

static bool line__dec(struct line *l, uint64_t *out)
{
	uint64_t v = 0;
	unsigned d;
	const char *start = l->p;

	for (; l->p < l->end && *l->p >= '0' && *l->p <= '9'; l->p++) {
		d = *l->p - '0';
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return l->p > start;
}

static bool line__char(struct line *l, char c)
{
	if (l->p == l->end || *l->p != c)
		return false;
	l->p++;
	return true;
}

/* Skip one or more blanks; false when there is none. */
static bool line__blanks(struct line *l)
{
	const char *start = l->p;

	while (l->p < l->end && (*l->p == ' ' || *l->p == '\t'))
		l->p++;
	return l->p > start;
}

static bool line__perms(struct line *l, uint32_t *prot)
{
	static const char want[] = "rwx";
	int i;

	if (l->end - l->p < 4)
		return false;
	*prot = 0;
	for (i = 0; i < 3; i++) {
		if (l->p[i] == want[i])
			*prot |= 1u << i; /* PROC_MAP_R, _W, _X in that order */
		else if (l->p[i] != '-')
			return false;
	}
	if (l->p[3] != 'p' && l->p[3] != 's')
		return false;
	l->p += 4;
	return true;
}

static const char oom[] = "out of memory";

/* Return: NULL on success, else why the line is bad. */
static const char *proc_map__parse_line(struct line *l, struct proc_map *m)
{
	uint64_t major, minor;
	size_t plen;

	if (memchr(l->p, '\0', l->end - l->p))
		return "NUL byte";
	if (!line__hex(l, 16, &m->start) || !line__char(l, '-') || !line__hex(l, 16, &m->end))
		return "bad address range";
	if (m->start >= m->end)
		return "empty or inverted range";
	if (!line__blanks(l) || !line__perms(l, &m->prot))
		return "bad permissions";
	if (!line__blanks(l) || !line__hex(l, 16, &m->pgoff))
		return "bad offset";
	if (!line__blanks(l) || !line__hex(l, 8, &major) || !line__char(l, ':') ||
	    !line__hex(l, 8, &minor))
		return "bad device";
	m->dev_major = (uint32_t)major;
	m->dev_minor = (uint32_t)minor;
	if (!line__blanks(l) || !line__dec(l, &m->inode))
		return "bad inode";
	if (l->p < l->end && !line__blanks(l))
		return "junk after inode";
	plen = l->end - l->p;
	m->path = malloc(plen + 1);
	if (!m->path)
		return oom;
	memcpy(m->path, l->p, plen);
	m->path[plen] = '\0';
	return NULL;
}

static int proc_map__cmp(const void *pa, const void *pb)
{
	const struct proc_map *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int proc_maps__grow(struct proc_map **v, size_t *cap)
{
	size_t c = *cap ? *cap * 2 : 64;
	struct proc_map *n;

	if (c < *cap || c > SIZE_MAX / sizeof(*n))
		return -ENOMEM;
	n = realloc(*v, c * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*v = n;
	*cap = c;
	return 0;
}

/* Sorted, and no two mappings overlap: resolution relies on it. */
static int proc_maps__check_order(struct proc_map *v, size_t n)
{
	size_t i;

	if (n > 1)
		qsort(v, n, sizeof(*v), proc_map__cmp);
	for (i = 1; i < n; i++) {
		if (v[i].start < v[i - 1].end) {
			st_err("maps: mappings %" PRIx64 "-%" PRIx64 " and %" PRIx64 "-%" PRIx64
			       " overlap", v[i - 1].start, v[i - 1].end, v[i].start, v[i].end);
			return -EINVAL;
		}
	}
	return 0;
}

int proc_maps__parse(const char *buf, size_t len, struct proc_map **out, size_t *n)
{
	const char *p = buf, *end = buf + len, *eol, *why;
	struct proc_map *v = NULL;
	size_t nv = 0, cap = 0, lineno = 0;
	struct line l;
	int err;

	for (; p < end; p = eol + 1) {
		eol = memchr(p, '\n', end - p);
		if (!eol)
			eol = end;
		lineno++;
		if (eol == p)
			continue;
		if (nv == cap && (err = proc_maps__grow(&v, &cap)))
			goto err_free;
		memset(&v[nv], 0, sizeof(v[nv]));
		l = (struct line){ p, eol };
		why = proc_map__parse_line(&l, &v[nv]);
		if (why) {
			st_err("maps: line %zu: %s", lineno, why);
			err = why == oom ? -ENOMEM : -EINVAL;
			goto err_free;
		}
		nv++;
	}
	err = proc_maps__check_order(v, nv);
	if (err)
		goto err_free;
	*out = v;
	*n = nv;
	return 0;
err_free:
	proc_maps__free(v, nv);
	return err;
}

/* A maps file far beyond any real one (a million mappings) is refused, not read. */
#define PROC_MAPS_MAX (256u << 20)

int proc_maps__read(int pid, struct proc_map **out, size_t *n)
{
	char path[64], *buf = NULL;
	size_t len = 0;
	int err;

	if (pid <= 0)
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	err = read_file_all(path, PROC_MAPS_MAX, &buf, &len);
	if (err == -ESRCH || err == -ENOENT)
		return -ESRCH;
	if (err) {
		st_err("maps: %s: %s", path, strerror(-err));
		return err;
	}
	err = proc_maps__parse(buf, len, out, n);
	free(buf);
	return err;
}

void proc_maps__free(struct proc_map *maps, size_t n)
{
	size_t i;

	if (!maps)
		return;
	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}
