// SPDX-License-Identifier: GPL-2.0
/* Opening a file someone else named: checked before and after open(), never blocking. */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/util/safe_open.h"

/*
 * O_NONBLOCK: opening a FIFO for reading otherwise waits for a writer, for
 * ever (and reading a regular file ignores the flag). O_NOCTTY: a terminal
 * must not become ours. O_NOFOLLOW refuses a final symbolic link; openat2's
 * RESOLVE_NO_SYMLINKS refuses one anywhere in the path, which costs nothing
 * here: /proc/PID/maps and the kernel's mapping records name files by their
 * resolved path, so a link in it means the path changed since.
 */
#define SAFE_OFLAGS (O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)

static enum safe_open_why safe__errno_why(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
		return SAFE_OPEN_MISSING;
	case ELOOP:
		return SAFE_OPEN_SYMLINK;
	default:
		return SAFE_OPEN_ERROR;
	}
}

bool safe_open_same_file(int fd, const struct stat *st, const struct safe_open_id *want)
{
	struct statfs fs;

	if ((uint64_t)st->st_ino != want->ino)
		return false;
	if (major(st->st_dev) == want->dev_major && minor(st->st_dev) == want->dev_minor)
		return true;
	return fd >= 0 && !fstatfs(fd, &fs) && fs.f_type == OVERLAYFS_SUPER_MAGIC;
}

/* The checks that need no open file; the device waits for one (overlayfs, above). */
static enum safe_open_why safe__check(int fd, const struct stat *st,
				      const struct safe_open_id *want)
{
	if (S_ISLNK(st->st_mode))
		return SAFE_OPEN_SYMLINK;
	if (!S_ISREG(st->st_mode))
		return SAFE_OPEN_NOT_REGULAR;
	if (st->st_size < SAFE_OPEN_MIN_SIZE || (uint64_t)st->st_size > SAFE_OPEN_MAX_SIZE)
		return SAFE_OPEN_SIZE;
	if (!want || !want->ino)
		return SAFE_OPEN_OK;
	if (fd < 0)
		return (uint64_t)st->st_ino == want->ino ? SAFE_OPEN_OK : SAFE_OPEN_CHANGED;
	return safe_open_same_file(fd, st, want) ? SAFE_OPEN_OK : SAFE_OPEN_CHANGED;
}

/* openat2() where the kernel has it (5.6+), else openat() with O_NOFOLLOW. */
static int safe__open_nofollow(int dirfd, const char *path, unsigned flags)
{
	static bool no_openat2;
	struct open_how how = {
		.flags = SAFE_OFLAGS | O_NOFOLLOW,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd;

	if (flags & SAFE_OPEN_IN_ROOT)
		how.resolve |= RESOLVE_IN_ROOT;
	if (!no_openat2) {
		fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
		if (fd >= 0 || errno != ENOSYS)
			return fd;
		no_openat2 = true;
	}
	return openat(dirfd, path, SAFE_OFLAGS | O_NOFOLLOW);
}

int safe_open(int dirfd, const char *path, unsigned flags, const struct safe_open_id *want,
	      enum safe_open_why *why)
{
	bool follow = flags & SAFE_OPEN_FOLLOW;
	struct stat st;
	int fd;

	if (fstatat(dirfd, path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW)) {
		*why = safe__errno_why(errno);
		return -1;
	}
	*why = safe__check(-1, &st, want);
	if (*why)
		return -1;
	fd = follow ? openat(dirfd, path, SAFE_OFLAGS) : safe__open_nofollow(dirfd, path, flags);
	if (fd < 0) {
		*why = safe__errno_why(errno);
		return -1;
	}
	/* What was checked may have been swapped for something else since. */
	if (fstat(fd, &st))
		*why = SAFE_OPEN_ERROR;
	else
		*why = safe__check(fd, &st, want);
	if (*why) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *safe_open_why_text(enum safe_open_why why)
{
	static const char *const text[SAFE_OPEN_WHY_MAX] = {
		[SAFE_OPEN_OK] = "ok",
		[SAFE_OPEN_MISSING] = "gone (no file at its path)",
		[SAFE_OPEN_SYMLINK] = "its path is a symbolic link",
		[SAFE_OPEN_NOT_REGULAR] = "not a regular file (FIFO, device, socket or directory)",
		[SAFE_OPEN_SIZE] = "implausible size for an ELF file",
		[SAFE_OPEN_CHANGED] = "its path names another file now (device or inode differ)",
		[SAFE_OPEN_ERROR] = "cannot be opened",
		[SAFE_OPEN_OTHER_BUILD] = "another build than recorded (its build ID differs)",
		[SAFE_OPEN_NO_BUILD] = "not found by its build ID (try --symfs DIR, or record "
				       "--archive)",
	};

	return (unsigned)why < SAFE_OPEN_WHY_MAX ? text[why] : "?";
}
