// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/util/safe_open: what a traced process could put at a path
 * it named (a FIFO, a link to another file, a directory, a tiny file, another
 * file than the one mapped) is refused without blocking, with the reason.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/util/safe_open.h"
#include "tests/unit/check.h"

static char dir[] = "/tmp/test_safe_open.XXXXXX";

/* Two calls may share one expression (rename, symlink): the buffers take turns. */
static const char *in_dir(const char *name)
{
	static char path[4][256];
	static int turn;

	turn = (turn + 1) % 4;
	snprintf(path[turn], sizeof(path[turn]), "%s/%s", dir, name);
	return path[turn];
}

static void write_file(const char *name, size_t size)
{
	char *buf = calloc(1, size ? size : 1);
	int fd = open(in_dir(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0 && buf && write(fd, buf, size) == (ssize_t)size);
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* Return: why @name is refused (SAFE_OPEN_OK: it was opened, and is closed again). */
static enum safe_open_why why_of(const char *path, unsigned flags, const struct safe_open_id *id)
{
	enum safe_open_why why = SAFE_OPEN_ERROR;
	int fd = safe_open(AT_FDCWD, path, flags, id, &why);

	if (fd >= 0) {
		close(fd);
		return SAFE_OPEN_OK;
	}
	return why;
}

static struct safe_open_id id_of(const char *path)
{
	struct safe_open_id id = { 0 };
	struct stat st;

	if (!stat(path, &st))
		id = (struct safe_open_id){ major(st.st_dev), minor(st.st_dev), st.st_ino };
	return id;
}

int main(void)
{
	struct safe_open_id id, other;
	char link_dir[300];

	CHECK(mkdtemp(dir) != NULL);
	write_file("elf", 4096);
	write_file("tiny", 16);
	write_file("other", 4096);
	CHECK(mkfifo(in_dir("fifo"), 0666) == 0);
	CHECK(symlink(in_dir("elf"), in_dir("link")) == 0);
	CHECK(mkdir(in_dir("sub"), 0755) == 0);
	snprintf(link_dir, sizeof(link_dir), "%s/via", dir);
	CHECK(symlink(dir, link_dir) == 0);

	/* A FIFO is refused before it is opened: the open would wait for a writer for ever. */
	CHECK_EQ_U64(why_of(in_dir("fifo"), 0, NULL), SAFE_OPEN_NOT_REGULAR);
	CHECK_EQ_U64(why_of(in_dir("sub"), 0, NULL), SAFE_OPEN_NOT_REGULAR);
	CHECK_EQ_U64(why_of(in_dir("link"), 0, NULL), SAFE_OPEN_SYMLINK);
	/* A link anywhere in the path: the path changed since the kernel named it. */
	CHECK_EQ_U64(why_of(in_dir("via/elf"), 0, NULL), SAFE_OPEN_SYMLINK);
	CHECK_EQ_U64(why_of(in_dir("tiny"), 0, NULL), SAFE_OPEN_SIZE);
	CHECK_EQ_U64(why_of(in_dir("none"), 0, NULL), SAFE_OPEN_MISSING);
	CHECK_EQ_U64(why_of(in_dir("elf"), 0, NULL), SAFE_OPEN_OK);
	/* The kernel's own links may be followed; still only to a regular file. */
	CHECK_EQ_U64(why_of(in_dir("link"), SAFE_OPEN_FOLLOW, NULL), SAFE_OPEN_OK);
	CHECK_EQ_U64(why_of("/dev/null", SAFE_OPEN_FOLLOW, NULL), SAFE_OPEN_NOT_REGULAR);

	/* Found by path, a file is used only when it is the inode that was mapped. */
	id = id_of(in_dir("elf"));
	other = id_of(in_dir("other"));
	CHECK_EQ_U64(why_of(in_dir("elf"), 0, &id), SAFE_OPEN_OK);
	CHECK_EQ_U64(why_of(in_dir("other"), 0, &id), SAFE_OPEN_CHANGED);
	CHECK(rename(in_dir("other"), in_dir("elf")) == 0); /* replaced under the same name */
	CHECK_EQ_U64(why_of(in_dir("elf"), 0, &id), SAFE_OPEN_CHANGED);
	CHECK_EQ_U64(why_of(in_dir("elf"), 0, &other), SAFE_OPEN_OK);
	id.dev_minor++; /* the same inode number on another device */
	other.dev_minor++;
	CHECK_EQ_U64(why_of(in_dir("elf"), 0, &other), SAFE_OPEN_CHANGED);

	unlink(in_dir("fifo"));
	unlink(in_dir("link"));
	unlink(link_dir);
	unlink(in_dir("elf"));
	unlink(in_dir("tiny"));
	rmdir(in_dir("sub"));
	rmdir(dir);
	return CHECK_DONE();
}
