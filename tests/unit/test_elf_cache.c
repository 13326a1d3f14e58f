// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/elf/elf_cache's counting, on this test binary and copies
 * of it: a model lives while held, and its last put closes its fd, frees it
 * and forgets every key that led to it (two paths sharing a build ID, a
 * memory image); a deleted file's fd goes too; a model never held stays.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/elf/elf_cache.h"
#include "lib/util/read_file.h"
#include "tests/unit/check.h"
#include "tests/unit/fd_links.h"

static int copy_file(const char *from, const char *to)
{
	char *bytes;
	size_t len;
	int fd, err = read_file_all(from, 1u << 30, &bytes, &len);

	if (err)
		return err;
	fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, bytes, len) != (ssize_t)len)
		err = -EIO;
	if (fd >= 0)
		close(fd);
	free(bytes);
	return err;
}

/* Adds @path to @c under its own (device, inode), as the registry does. */
static struct elf_file *add_path(struct elf_cache *c, const char *path, struct stat *st)
{
	struct elf_file *ef;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, st)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	ef = elf_cache__add(c, elf_cache_dev(major(st->st_dev), minor(st->st_dev)), st->st_ino,
			    fd, path);
	close(fd);
	return ef;
}

static bool known(struct elf_cache *c, const struct stat *st)
{
	bool k;

	elf_cache__get(c, elf_cache_dev(major(st->st_dev), minor(st->st_dev)), st->st_ino, &k);
	return k;
}

/* Held twice, put twice: open until the second put, then gone with its fd and key. */
static void test_last_put_frees(const char *exe)
{
	struct elf_cache *c = elf_cache__new();
	struct elf_file *ef;
	struct stat st;

	ef = add_path(c, exe, &st);
	CHECK(ef != NULL);
	CHECK_EQ_U64(fds_to(exe), 1);
	elf_cache__hold(c, ef);
	elf_cache__hold(c, ef);
	CHECK(!elf_cache__put(c, ef));
	CHECK(known(c, &st));
	CHECK_EQ_U64(elf_cache__len(c), 1);
	CHECK(elf_cache__put(c, ef));
	CHECK(!known(c, &st));
	CHECK_EQ_U64(elf_cache__len(c), 0);
	CHECK_EQ_U64(elf_cache__released(c), 1);
	CHECK_EQ_U64(fds_to(exe), 0);
	/* Asked again: opened afresh. */
	ef = add_path(c, exe, &st);
	CHECK(ef != NULL);
	CHECK_EQ_U64(fds_to(exe), 1);
	elf_cache__free(c);
	CHECK_EQ_U64(fds_to(exe), 0);
}

/* Two paths, one build ID: one model; its last put forgets both keys. */
static void test_shared_build_id(const char *exe, const char *copy)
{
	struct elf_cache *c = elf_cache__new();
	struct elf_file *a, *b;
	struct stat sa, sb;

	a = add_path(c, exe, &sa);
	b = add_path(c, copy, &sb);
	CHECK(a != NULL);
	CHECK(a == b);
	CHECK(sa.st_ino != sb.st_ino);
	CHECK_EQ_U64(elf_cache__len(c), 1);
	elf_cache__hold(c, a);
	CHECK(elf_cache__put(c, b));
	CHECK(!known(c, &sa));
	CHECK(!known(c, &sb));
	CHECK_EQ_U64(fds_to(exe) + fds_to(copy), 0);
	elf_cache__free(c);
}

/* A binary deleted while its model is held: no fd left to "(deleted)" after the put. */
static void test_deleted_file(const char *exe, const char *gone)
{
	struct elf_cache *c = elf_cache__new();
	char deleted[PATH_MAX + 16];
	struct elf_file *ef;
	struct stat st;

	CHECK(!copy_file(exe, gone));
	ef = add_path(c, gone, &st);
	CHECK(ef != NULL);
	elf_cache__hold(c, ef);
	CHECK(!unlink(gone));
	snprintf(deleted, sizeof(deleted), "%s (deleted)", gone);
	CHECK_EQ_U64(fds_to(deleted), 1);
	CHECK(elf_cache__put(c, ef));
	CHECK_EQ_U64(fds_to(deleted), 0);
	elf_cache__free(c);
}

/* A model nobody held stays (and a put of it is ignored); unusable files keep their reason. */
static void test_unheld_and_unusable(const char *exe)
{
	struct elf_cache *c = elf_cache__new();
	struct elf_file *ef;
	struct stat st;

	ef = add_path(c, exe, &st);
	CHECK(!elf_cache__put(c, ef));
	CHECK(known(c, &st));
	CHECK_EQ_U64(elf_cache__released(c), 0);
	CHECK(elf_cache__add(c, 7, 42, -1, "/nowhere") == NULL);
	elf_cache__set_why(c, 7, 42, 3);
	CHECK_EQ_U64(elf_cache__why(c, 7, 42), 3);
	elf_cache__free(c);
}

/* A memory image's model: freed at its last put, and the same bytes make a new one. */
static void test_image(const char *exe)
{
	struct elf_cache *c = elf_cache__new();
	struct elf_file *ef, *again;
	char *bytes;
	size_t len;

	if (read_file_all(exe, 1u << 30, &bytes, &len)) {
		CHECK_SKIP("image", "cannot read %s", exe);
		elf_cache__free(c);
		return;
	}
	ef = elf_cache__add_image(c, bytes, len, "[vdso]");
	CHECK(ef != NULL);
	CHECK(elf_cache__add_image(c, bytes, len, "[vdso]") == ef);
	elf_cache__hold(c, ef);
	CHECK(elf_cache__put(c, ef));
	CHECK_EQ_U64(elf_cache__len(c), 0);
	again = elf_cache__add_image(c, bytes, len, "[vdso]");
	CHECK(again != NULL);
	CHECK_EQ_U64(elf_cache__len(c), 1);
	free(bytes);
	elf_cache__free(c);
}

int main(void)
{
	char exe[PATH_MAX], dir[] = "/tmp/st-elf-cache-XXXXXX", copy[PATH_MAX], gone[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0 || !mkdtemp(dir)) {
		CHECK_SKIP("elf_cache", "no /proc/self/exe or no temporary directory");
		return CHECK_DONE();
	}
	exe[len] = '\0';
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	snprintf(gone, sizeof(gone), "%s/gone", dir);
	test_last_put_frees(exe);
	if (!copy_file(exe, copy)) {
		test_shared_build_id(exe, copy);
		unlink(copy);
	} else {
		CHECK_SKIP("shared build ID", "cannot copy %s", exe);
	}
	test_deleted_file(exe, gone);
	test_unheld_and_unusable(exe);
	test_image(exe);
	rmdir(dir);
	return CHECK_DONE();
}
