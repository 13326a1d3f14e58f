// SPDX-License-Identifier: GPL-2.0
/* Reading a whole file whose size is not known in advance. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/util/read_file.h"

/* /proc files report size 0: start at 64 KiB and double. */
#define READ_FILE_FIRST (64 * 1024)

static int read_fd_all(int fd, size_t max, char **out, size_t *len)
{
	size_t cap = READ_FILE_FIRST, n = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= max || cap > SIZE_MAX / 2 - 1 ||
			    !(nb = realloc(buf, cap * 2 + 1))) {
				free(buf);
				return cap >= max ? -EFBIG : -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		n += r;
	}
	if (n > max) {
		free(buf);
		return -EFBIG;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

int read_file_all(const char *path, size_t max, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = read_fd_all(fd, max, out, len);
	close(fd);
	return err;
}

/* The chunk read_fd_chunks() reads at a time. */
#define READ_FD_CHUNK (64 * 1024)

ssize_t read_fd_chunks(int fd, size_t max, void (*fn)(void *ctx, const void *p, size_t n),
		       void *ctx)
{
	uint8_t *buf = malloc(READ_FD_CHUNK);
	size_t at = 0;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	while (at < max && at <= SSIZE_MAX - READ_FD_CHUNK) {
		r = pread(fd, buf, max - at < READ_FD_CHUNK ? max - at : READ_FD_CHUNK, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		fn(ctx, buf, (size_t)r);
		at += (size_t)r;
	}
	free(buf);
	return (ssize_t)at;
}
