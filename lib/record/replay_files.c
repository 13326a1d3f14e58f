// SPDX-License-Identifier: GPL-2.0
/*
 * Finding a recorded file on the machine that reports: by its build ID,
 * never by its path alone.
 *
 * Where a mapping's file is looked for, in order:
 *   1. the recording itself (record --archive);
 *   2. each --symfs DIR: DIR/PATH, DIR/.build-id/xx/yyyy[/elf], DIR/BASENAME;
 *   3. perf's build-ID cache, $HOME/.debug/.build-id/xx/yyyy[/elf];
 *   4. PATH itself, where the process mapped it;
 *   5. its separate debug file (archived, --debug-dir, /usr/lib/debug):
 *      names without code, the last resort.
 * A candidate is used only when its build ID is the recorded one. One whose
 * ID differs is remembered: the frames of that file then say so. A file
 * that had no build ID is taken from DIR/PATH or PATH only when its size and
 * modification time are the recorded ones.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elf/debug_file.h"
#include "lib/elf/elf_file.h"
#include "lib/proc/maps.h"
#include "lib/record/replay_internal.h"
#include "lib/stack/store.h"
#include "lib/util/build_id.h"
#include "lib/util/log.h"

/* An archived file bigger than this is refused (the format allows more; memory does not). */
#define BLOB_MAX (4ull << 30)

struct file_key {
	uint64_t dev;  /* major << 32 | minor */
	uint64_t inode;
};

int rp_stash_file(struct replay *rp, const struct rec_file *f, const char *path)
{
	struct file_key k = { (uint64_t)f->dev_major << 32 | f->dev_minor, f->inode };
	struct stack_entry *e = stack_store__add(rp->files, &k, sizeof(k), 0);
	struct rp_file *rf;

	if (!e)
		return -ENOMEM;
	if (e->data)
		return 0; /* the first identity seen is the one the mappings meant */
	rf = calloc(1, sizeof(*rf));
	if (!rf || !(rf->path = strndup(path, f->path_len))) {
		free(rf);
		return -ENOMEM;
	}
	rf->f = *f;
	rf->fd = -1;
	e->data = rf;
	return 0;
}

static struct rp_blob *blob__get(struct replay *rp, unsigned kind, const uint8_t *id, size_t len,
				 bool create)
{
	uint8_t key[1 + REC_BUILD_ID_MAX] = { (uint8_t)kind };
	struct stack_entry *e;

	memcpy(key + 1, id, len);
	e = stack_store__add(rp->blobs, key, 1 + len, 0);
	if (!e)
		return NULL;
	if (!e->data && create) {
		struct rp_blob *b = calloc(1, sizeof(*b));

		if (b)
			b->fd = -1;
		e->data = b;
	}
	return e->data;
}

/* Pieces come in order; anything else makes the blob unusable, not the recording. */
int rp_stash_file_data(struct replay *rp, const struct rec_file_data *d, const void *bytes,
		       size_t len)
{
	struct rp_blob *b = blob__get(rp, d->kind, d->build_id, d->build_id_len, true);

	if (!b)
		return -ENOMEM;
	if (b->bad)
		return 0;
	if (!b->total && !b->filled) {
		if (!d->total || d->total > BLOB_MAX) {
			b->bad = true;
			return 0;
		}
		b->total = d->total;
		b->fd = memfd_create("stacktap-archived", MFD_CLOEXEC);
		if (b->fd < 0)
			return -errno;
	}
	if (d->total != b->total || d->offset != b->filled || len > b->total - b->filled ||
	    pwrite(b->fd, bytes, len, (off_t)d->offset) != (ssize_t)len) {
		b->bad = true;
		return 0;
	}
	b->filled += len;
	return 0;
}

/* Is the ELF file at @fd the recorded one: its build ID (or content hash) the recorded one? */
static bool same_identity(int fd, const struct rec_file *f, const char *path)
{
	struct elf_file *ef = elf_file__open_fd(fd, path, ELF_OPEN_QUIET);
	const uint8_t *id;
	bool is_hash = false, same;
	size_t n = ef ? elf_file__identity(ef, &id, &is_hash) : 0;

	same = n && n == f->build_id_len && !memcmp(id, f->build_id, n) &&
	       is_hash == !!(f->flags & REC_FILE_HASH_ID);
	elf_file__free(ef);
	return same;
}

/* Return: @fd when it is the recorded file; else closes it, notes @path in *other, -1. */
static int try_fd(int fd, const struct rec_file *f, const char *path, char **other)
{
	if (fd < 0)
		return -1;
	if (same_identity(fd, f, path))
		return fd;
	close(fd);
	if (!*other)
		*other = strdup(path);
	return -1;
}

/*
 * A candidate in a tree the user named (--symfs, --debug-dir, ~/.debug):
 * links are followed there (perf's build-ID cache is made of them), but
 * never into a FIFO or a device.
 */
static int try_path(const char *path, const struct rec_file *f, char **other)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return try_fd(fd, f, path, other);
}

/* The recorded path: named by the recording, so opened like any file a process names. */
static int try_recorded_path(const char *path, const struct rec_file *f, char **other)
{
	enum safe_open_why why;

	return try_fd(safe_open(AT_FDCWD, path, 0, NULL, &why), f, path, other);
}

static int try_blob(struct replay *rp, unsigned kind, const uint8_t *id, size_t len)
{
	struct rp_blob *b = len ? blob__get(rp, kind, id, len, false) : NULL;

	if (!b || b->bad || b->fd < 0 || b->filled != b->total)
		return -ENOENT;
	return fcntl(b->fd, F_DUPFD_CLOEXEC, 0);
}

/* The candidates under one directory tree: DIR/PATH, the build-ID layouts, DIR/BASENAME. */
static int try_dir(const char *dir, struct rp_file *rf, bool by_name)
{
	const struct rec_file *f = &rf->f;
	const char *base = strrchr(rf->path, '/');
	char p[PATH_MAX];
	int fd = -ENOENT;

	if (by_name && rf->path[0] == '/' &&
	    (size_t)snprintf(p, sizeof(p), "%s%s", dir, rf->path) < sizeof(p))
		fd = try_path(p, f, &rf->other);
	if (fd < 0 && !build_id__path(dir, f->build_id, f->build_id_len, "", p, sizeof(p)))
		fd = try_path(p, f, &rf->other);
	if (fd < 0 && !build_id__path(dir, f->build_id, f->build_id_len, "/elf", p, sizeof(p)))
		fd = try_path(p, f, &rf->other);
	if (fd < 0 && by_name && base && base[1] &&
	    (size_t)snprintf(p, sizeof(p), "%s/%s", dir, base + 1) < sizeof(p))
		fd = try_path(p, f, &rf->other);
	return fd;
}

/* A debug file by build ID: archived, --debug-dir, under --symfs, then /usr/lib/debug. */
static int find_debug(struct replay *rp, const uint8_t *id, size_t len, char **where,
		      char **other)
{
	struct rec_file f = { .build_id_len = len };
	char p[PATH_MAX], dir[PATH_MAX];
	size_t i;
	int fd = try_blob(rp, REC_DATA_DEBUG, id, len);

	if (fd >= 0) {
		*where = strdup("(archived in the recording)");
		return fd;
	}
	memcpy(f.build_id, id, len);
	for (i = 0; fd < 0 && i < rp->o.ndebug_dirs; i++)
		if (!build_id__path(rp->debug_dirs[i], id, len, ".debug", p, sizeof(p)))
			fd = try_path(p, &f, other);
	for (i = 0; fd < 0 && i < rp->o.nsymfs; i++) {
		if ((size_t)snprintf(dir, sizeof(dir), "%s" DEBUG_ROOT, rp->symfs[i]) <
			    sizeof(dir) &&
		    !build_id__path(dir, id, len, ".debug", p, sizeof(p)))
			fd = try_path(p, &f, other);
	}
	if (fd < 0 && !rp->o.no_default_dirs &&
	    !build_id__path(DEBUG_ROOT, id, len, ".debug", p, sizeof(p)))
		fd = try_path(p, &f, other);
	if (fd >= 0)
		*where = strdup(p);
	return fd;
}

static int locate(struct replay *rp, struct rp_file *rf)
{
	const struct rec_file *f = &rf->f;
	char *where = NULL;
	size_t i;
	int fd;

	if (f->flags & REC_FILE_UNREADABLE)
		return -1;
	fd = try_blob(rp, REC_DATA_ELF, f->build_id, f->build_id_len);
	for (i = 0; fd < 0 && i < rp->o.nsymfs; i++)
		fd = try_dir(rp->symfs[i], rf, true);
	if (fd < 0 && rp->home_debug && !(f->flags & REC_FILE_HASH_ID))
		fd = try_dir(rp->home_debug, rf, false);
	if (fd < 0 && rf->path[0] == '/' && !rp->o.no_recorded_paths)
		fd = try_recorded_path(rf->path, f, &rf->other);
	if (fd < 0 && !(f->flags & REC_FILE_HASH_ID))
		fd = find_debug(rp, f->build_id, f->build_id_len, &where, &rf->other);
	free(where);
	return fd;
}

int rp_files__open_mapped(struct replay *rp, int pid, const struct proc_map *m,
			  enum safe_open_why *why)
{
	struct file_key k = { (uint64_t)m->dev_major << 32 | m->dev_minor, m->inode };
	struct stack_entry *e = stack_store__add(rp->files, &k, sizeof(k), 0);
	struct rp_file *rf = e ? e->data : NULL;
	int fd;

	*why = SAFE_OPEN_MISSING;
	if (!rf) {
		rp->counts.no_identity++;
		return -1;
	}
	rf->used = true;
	if (!rf->state) {
		fd = locate(rp, rf);
		rf->state = fd < 0 ? -1 : 1;
		rf->fd = fd;
		rf->why = rf->other ? SAFE_OPEN_OTHER_BUILD :
			  rf->f.flags & REC_FILE_UNREADABLE ? SAFE_OPEN_MISSING : SAFE_OPEN_NO_BUILD;
	}
	if (rf->state < 0) {
		*why = rf->why;
		return -1;
	}
	fd = fcntl(rf->fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		*why = SAFE_OPEN_ERROR;
	return fd;
}

int rp_files__open_debug(struct replay *rp, const uint8_t *id, size_t len, char **path)
{
	char *other = NULL;
	int fd;

	*path = NULL;
	if (len < 2 || len > REC_BUILD_ID_MAX)
		return -1;
	fd = find_debug(rp, id, len, path, &other);
	free(other);
	if (fd >= 0 && !*path) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Each file that could not be used, with its build ID and where another
 * build was seen, at the end with --debug; the registry's summary already
 * says how many, why, and the first one.
 */
void rp_files__report(const struct replay *rp)
{
	struct stack_entry **v = stack_store__entries(rp->files);
	char hex[2 * REC_BUILD_ID_MAX + 1];
	size_t i;

	for (i = 0; v && i < stack_store__len(rp->files); i++) {
		const struct rp_file *rf = v[i]->data;

		if (!rf || !rf->used || rf->state >= 0)
			continue;
		build_id__hex(rf->f.build_id, rf->f.build_id_len, hex);
		if (rf->why == SAFE_OPEN_OTHER_BUILD)
			st_info("report: %s: build ID %s not found; %s has another", rf->path,
				*hex ? hex : "(none)", rf->other);
		else if (rf->f.flags & REC_FILE_UNREADABLE)
			st_info("report: %s: could not be read while recording", rf->path);
		else
			st_info("report: %s: build ID %s not found", rf->path, *hex ? hex : "(none)");
	}
	free(v);
}

void rp_files__free(struct replay *rp)
{
	struct stack_entry **v;
	size_t i;

	v = rp->files ? stack_store__entries(rp->files) : NULL;
	for (i = 0; v && i < stack_store__len(rp->files); i++) {
		struct rp_file *rf = v[i]->data;

		if (!rf)
			continue;
		if (rf->fd >= 0)
			close(rf->fd);
		free(rf->path);
		free(rf->other);
		free(rf);
	}
	free(v);
	v = rp->blobs ? stack_store__entries(rp->blobs) : NULL;
	for (i = 0; v && i < stack_store__len(rp->blobs); i++) {
		struct rp_blob *b = v[i]->data;

		if (b && b->fd >= 0)
			close(b->fd);
		free(b);
	}
	free(v);
	stack_store__free(rp->files);
	stack_store__free(rp->blobs);
}
