// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/proc/maps: fixture texts field by field, bad lines, /proc/self/maps. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "tests/unit/check.h"

int main(void);

static const char normal[] =
	"7ffd1a3f0000-7ffd1a3f2000 r-xp 00000000 00:00 0                          [vdso]\n"
	"556476593000-556476595000 r--p 00000000 fe:00 247134                     /usr/bin/cat\n"
	"556476595000-55647659a000 r-xp 00002000 fe:00 247134                     /usr/bin/cat\n"
	"7f4ba5365000-7f4ba5387000 rw-p 00000000 00:00 0 \n"
	"7f0000000000-7f0000001000 r-xs 0001f000 103:0a 99  /tmp/my dir/lib foo.so\n"
	"7f0000002000-7f0000003000 rwxp 00000000 00:01 4242 /memfd:jit (deleted)\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]";

static void check_map(const struct proc_map *m, uint64_t start, uint64_t end, uint32_t prot,
		      uint64_t pgoff, uint32_t maj, uint32_t min, uint64_t ino, const char *path)
{
	CHECK_EQ_U64(m->start, start);
	CHECK_EQ_U64(m->end, end);
	CHECK_EQ_U64(m->prot, prot);
	CHECK_EQ_U64(m->pgoff, pgoff);
	CHECK_EQ_U64(m->dev_major, maj);
	CHECK_EQ_U64(m->dev_minor, min);
	CHECK_EQ_U64(m->inode, ino);
	CHECK_STR(m->path, path);
}

static void test_normal(void)
{
	struct proc_map *m = NULL;
	size_t n = 0;

	CHECK_EQ_U64(proc_maps__parse(normal, sizeof(normal) - 1, &m, &n), 0);
	CHECK_EQ_U64(n, 7);
	if (n != 7)
		return;
	check_map(&m[0], 0x556476593000, 0x556476595000, PROC_MAP_R, 0, 0xfe, 0, 247134,
		  "/usr/bin/cat");
	check_map(&m[1], 0x556476595000, 0x55647659a000, PROC_MAP_R | PROC_MAP_X, 0x2000, 0xfe, 0,
		  247134, "/usr/bin/cat");
	check_map(&m[2], 0x7f0000000000, 0x7f0000001000, PROC_MAP_R | PROC_MAP_X, 0x1f000, 0x103,
		  0xa, 99, "/tmp/my dir/lib foo.so");
	check_map(&m[3], 0x7f0000002000, 0x7f0000003000, PROC_MAP_R | PROC_MAP_W | PROC_MAP_X, 0,
		  0, 1, 4242, "/memfd:jit (deleted)");
	check_map(&m[4], 0x7f4ba5365000, 0x7f4ba5387000, PROC_MAP_R | PROC_MAP_W, 0, 0, 0, 0, "");
	check_map(&m[5], 0x7ffd1a3f0000, 0x7ffd1a3f2000, PROC_MAP_R | PROC_MAP_X, 0, 0, 0, 0,
		  "[vdso]");
	check_map(&m[6], 0xffffffffff600000, 0xffffffffff601000, PROC_MAP_X, 0, 0, 0, 0,
		  "[vsyscall]");
	proc_maps__free(m, n);
}

static void test_long_path(void)
{
	static const char head[] = "1000-2000 r-xp 00000000 08:01 7 ";
	size_t plen = 10000, len = sizeof(head) - 1 + plen;
	char *text = malloc(len);
	struct proc_map *m = NULL;
	size_t n = 0;

	CHECK(text != NULL);
	if (!text)
		return;
	memcpy(text, head, sizeof(head) - 1);
	memset(text + sizeof(head) - 1, 'a', plen);
	text[sizeof(head) - 1] = '/';
	CHECK_EQ_U64(proc_maps__parse(text, len, &m, &n), 0);
	CHECK_EQ_U64(n, 1);
	CHECK_EQ_U64(n == 1 ? strlen(m[0].path) : 0, plen);
	proc_maps__free(m, n);
	free(text);
}

static void test_bad_lines(void)
{
	static const char *const bad[] = {
		"garbage\n",
		"1000-0fff r-xp 00000000 00:00 0\n",
		"1000-1000 r-xp 00000000 00:00 0\n",
		"1000-2000 r-xq 00000000 00:00 0\n",
		"1000-2000 r-x 00000000 00:00 0\n",
		"1000-2000 r-xp 0000zz00 00:00 0\n",
		"1000-2000 r-xp 00000000 00:00\n",
		"1000-2000 r-xp 00000000 0000 0\n",
		"1000-2000 r-xp\n",
		"10000000000000000-10000000000000001 r-xp 00000000 00:00 0\n",
		"1000-2000 r-xp 00000000 00:00 0x12 /a\n",
		"1000-2000 r-xp 00000000 00:00 99999999999999999999 /a\n",
		"1000-3000 r-xp 00000000 00:00 0\n2000-4000 r-xp 00000000 00:00 0\n",
		"-2000 r-xp 00000000 00:00 0\n",
	};
	static const char nul_line[] = "1000-2000 r-xp 00000000 00:00 0 /a\0b\n";
	struct proc_map *m;
	size_t i, n;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = NULL;
		n = 0;
		CHECK_EQ_U64(proc_maps__parse(bad[i], strlen(bad[i]), &m, &n), (uint64_t)-EINVAL);
		CHECK(m == NULL);
	}
	CHECK_EQ_U64(proc_maps__parse(nul_line, sizeof(nul_line) - 1, &m, &n), (uint64_t)-EINVAL);
	m = (void *)1;
	CHECK_EQ_U64(proc_maps__parse("\n\n", 2, &m, &n), 0);
	CHECK_EQ_U64(n, 0);
	proc_maps__free(m, n);
}

static void test_self(void)
{
	char exe[PATH_MAX];
	struct proc_map *m = NULL;
	uint64_t addr = (uintptr_t)main;
	size_t n = 0, i, hit = 0;
	ssize_t len;
	pid_t child;

	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(len > 0);
	exe[len > 0 ? len : 0] = '\0';
	CHECK_EQ_U64(proc_maps__read(getpid(), &m, &n), 0);
	CHECK(n > 5);
	for (i = 0; i < n; i++) {
		if (i)
			CHECK(m[i].start >= m[i - 1].end);
		if (addr >= m[i].start && addr < m[i].end) {
			hit++;
			CHECK_STR(m[i].path, exe);
			CHECK(m[i].prot & PROC_MAP_X);
		}
	}
	CHECK_EQ_U64(hit, 1);
	proc_maps__free(m, n);

	child = fork();
	if (child == 0)
		_exit(0);
	CHECK(child > 0 && waitpid(child, NULL, 0) == child);
	CHECK_EQ_U64(proc_maps__read(child, &m, &n), (uint64_t)-ESRCH);
	CHECK_EQ_U64(proc_maps__read(0, &m, &n), (uint64_t)-EINVAL);
}

int main(void)
{
	test_normal();
	test_long_path();
	test_bad_lines();
	test_self();
	return CHECK_DONE();
}
