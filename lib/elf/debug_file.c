// SPDX-License-Identifier: GPL-2.0
/* Finding a file's separate debug file: build ID first, then .gnu_debuglink. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "lib/elf/debug_file.h"
#include "lib/util/elf_section.h"
#include "lib/util/read_file.h"
#include "lib/util/safe_open.h"

#define NCAND 4

struct candidates {
	char path[NCAND][PATH_MAX];
	bool trusted[NCAND]; /* under DEBUG_ROOT (root's): links in it may be followed */
	int n, nbyid;         /* the first nbyid are named by build ID: no CRC to check */
};

/* The .gnu_debuglink name and CRC, with the name checked to end inside the section. */
static const char *debuglink(Elf *elf, uint32_t *crc)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_by_name(elf, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *name;
	size_t len, crc_off;

	if (!d || !d->d_buf || d->d_size < 8)
		return NULL;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	crc_off = (len + 4) & ~(size_t)3;
	if (!len || len == d->d_size || crc_off + 4 > d->d_size || strchr(name, '/'))
		return NULL;
	memcpy(crc, (const char *)d->d_buf + crc_off, 4);
	return name;
}

/* Append one candidate path a + b + c + d; a path that does not fit is left out. */
static void cand__add(struct candidates *c, bool trusted, const char *a, const char *b,
		      const char *cc, const char *d)
{
	const char *part[4] = { a, b, cc, d };
	size_t len = 0, l;
	int i;

	for (i = 0; i < 4; i++) {
		l = strlen(part[i]);
		if (len + l >= PATH_MAX)
			return;
		memcpy(c->path[c->n] + len, part[i], l);
		len += l;
	}
	c->path[c->n][len] = '\0';
	c->trusted[c->n] = trusted;
	c->n++;
}

static void cand__by_id(struct candidates *c, const uint8_t *id, size_t id_len)
{
	char hex[2 * 64 + 1], sub[8];
	size_t i;

	if (id_len < 2 || id_len > 64)
		return;
	for (i = 0; i < id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(sub, sizeof(sub), "/%.2s/", hex);
	cand__add(c, true, DEBUG_ROOT "/.build-id", sub, hex + 2, ".debug");
}

static void cand__by_link(struct candidates *c, const char *name, const char *link)
{
	const char *slash = strrchr(name, '/');
	size_t dlen = slash ? (size_t)(slash - name) : 1;
	char dir[PATH_MAX];

	if (dlen >= sizeof(dir))
		return;
	memcpy(dir, slash ? name : ".", dlen);
	dir[dlen] = '\0';
	cand__add(c, false, dir, "/", link, "");
	cand__add(c, false, dir, "/.debug/", link, "");
	if (dir[0] == '/')
		cand__add(c, true, DEBUG_ROOT, dir, "/", link);
}

static struct debug_source by_id_source;

void debug_file_set_source(const struct debug_source *s)
{
	memset(&by_id_source, 0, sizeof(by_id_source));
	if (s)
		by_id_source = *s;
}

/* A file at @fd that is @self is no debug file of it. */
static bool debug__is_self(int fd, const struct stat *self)
{
	struct stat st;

	return fstat(fd, &st) || (self && st.st_ino == self->st_ino && st.st_dev == self->st_dev);
}

/* Through the door when one is set (a report): the debug file by build ID, or -1. */
static int debug__by_source(const uint8_t *id, size_t id_len, const struct stat *self,
			    debug_file_accept accept, void *ctx, char **path)
{
	int fd = by_id_source.open_by_id(by_id_source.ctx, id, id_len, path);

	if (fd >= 0 && (debug__is_self(fd, self) || (accept && !accept(fd, ctx)))) {
		close(fd);
		free(*path);
		*path = NULL;
		fd = -1;
	}
	return fd;
}

static void crc_chunk(void *crc, const void *p, size_t n)
{
	*(uint32_t *)crc = (uint32_t)crc32(*(uint32_t *)crc, p, (uInt)n);
}

/* CRC-32 of the whole file, read (not mapped: the file may shrink under us). */
static uint32_t file_crc(int fd)
{
	uint32_t crc = 0;

	read_fd_chunks(fd, SIZE_MAX, crc_chunk, &crc);
	return crc;
}

int debug_file__open(Elf *elf, const char *name, const uint8_t *id, size_t id_len,
		     const struct stat *self, debug_file_accept accept, void *ctx, char **path)
{
	struct candidates *c = calloc(1, sizeof(*c));
	enum safe_open_why why;
	const char *link;
	uint32_t crc = 0;
	int i, fd = -1;

	*path = NULL;
	if (by_id_source.open_by_id && id_len) {
		fd = debug__by_source(id, id_len, self, accept, ctx, path);
		if (fd >= 0) {
			free(c);
			return fd;
		}
	}
	if (!c)
		return -1;
	if (!by_id_source.open_by_id)
		cand__by_id(c, id, id_len);
	c->nbyid = c->n;
	link = debuglink(elf, &crc);
	if (link)
		cand__by_link(c, name, link);
	for (i = 0; i < c->n && fd < 0; i++) {
		fd = safe_open(AT_FDCWD, c->path[i], c->trusted[i] ? SAFE_OPEN_FOLLOW : 0, NULL,
			       &why);
		if (fd < 0)
			continue;
		/* A debuglink naming the file itself (e.g. "foo" next to "foo") is no debug file. */
		if (debug__is_self(fd, self) || (accept && !accept(fd, ctx)) ||
		    (i >= c->nbyid && file_crc(fd) != crc)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0)
		*path = strdup(c->path[i - 1]);
	if (fd >= 0 && !*path) {
		close(fd);
		fd = -1;
	}
	free(c);
	return fd;
}

/* .gnu_debugaltlink: the dwz file's name, NUL, then its build ID. Return: the name, or NULL. */
static const char *altlink(Elf *elf, uint8_t *id, size_t *id_len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = elf_section_by_name(elf, ".gnu_debugaltlink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	const char *name;
	size_t len;

	if (!d || !d->d_buf || !d->d_size)
		return NULL;
	name = d->d_buf;
	len = strnlen(name, d->d_size);
	if (!len || len == d->d_size)
		return NULL;
	*id_len = d->d_size - len - 1;
	if (*id_len > DEBUG_ALT_ID_MAX)
		*id_len = 0; /* not a build ID we know: the file is found by name, unchecked */
	memcpy(id, name + len + 1, *id_len);
	return name;
}

int debug_file__open_alt(Elf *dbg, const char *dbg_path, uint8_t *id, size_t *id_len,
			 char **path)
{
	struct candidates *c;
	enum safe_open_why why;
	const char *name;
	int i, fd = -ENOENT;

	*path = NULL;
	*id_len = 0;
	name = altlink(dbg, id, id_len);
	if (!name)
		return -ENODATA;
	/* A report finds the dwz file by build ID through its door, as it finds debug files. */
	if (by_id_source.open_by_id && *id_len) {
		fd = by_id_source.open_by_id(by_id_source.ctx, id, *id_len, path);
		if (fd >= 0)
			return fd;
		*path = NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (!by_id_source.open_by_id)
		cand__by_id(c, id, *id_len);
	if (name[0] == '/')
		cand__add(c, !strncmp(name, DEBUG_ROOT "/", sizeof(DEBUG_ROOT)), name, "", "", "");
	else
		cand__by_link(c, dbg_path, name);
	for (i = 0; i < c->n && fd < 0; i++)
		fd = safe_open(AT_FDCWD, c->path[i], c->trusted[i] ? SAFE_OPEN_FOLLOW : 0, NULL,
			       &why);
	*path = strdup(fd >= 0 ? c->path[i - 1] : name);
	free(c);
	return fd >= 0 ? fd : -ENOENT;
}
