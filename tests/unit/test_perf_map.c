// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/sym/perf_map: the line formats node and the JVM write,
 * hostile lines, later-lines-win overlaps, perf's trust check (symlink, FIFO,
 * owner), the byte cap, and the map a real JIT-like workload writes for its
 * anonymous executable page (tests/workloads/jit.c -m).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/sym/perf_map.h"
#include "tests/unit/check.h"

static struct perf_map *parse(const char *text)
{
	struct perf_map *pm = perf_map__parse(text, strlen(text));

	CHECK(pm != NULL);
	return pm;
}

static const char *name_at(const struct perf_map *pm, uint64_t addr)
{
	const struct perf_map_sym *s = perf_map__find(pm, addr);

	return s ? s->name : "(none)";
}

static void test_formats(void)
{
	struct perf_map *pm = parse(
		/* node --perf-basic-prof */
		"3ef414c0 398 LazyCompile:~foo /app/x.js:1\n"
		/* jcmd Compiler.perfmap: 0x-prefixed, padded */
		"0x00007f0000001000 0x0000000000000120 void java.lang.Thread.run()\n"
		/* tabs, CRLF */
		"7f0000002000\t10\tcrlf_name\r\n"
		"  7f0000003000   8   leading blanks and  spaces kept\n");
	const struct perf_map_stats *st = perf_map__stats(pm);
	size_t n;

	CHECK_STR(name_at(pm, 0x3ef414c0), "LazyCompile:~foo /app/x.js:1");
	CHECK_STR(name_at(pm, 0x3ef414c0 + 0x397), "LazyCompile:~foo /app/x.js:1");
	CHECK_STR(name_at(pm, 0x3ef414c0 + 0x398), "(none)");
	CHECK_STR(name_at(pm, 0x3ef414bf), "(none)");
	CHECK_STR(name_at(pm, 0x7f000000111f), "void java.lang.Thread.run()");
	CHECK_STR(name_at(pm, 0x7f0000001120), "(none)");
	CHECK_STR(name_at(pm, 0x7f000000200f), "crlf_name");
	CHECK_STR(name_at(pm, 0x7f0000003007), "leading blanks and  spaces kept");
	perf_map__syms(pm, &n);
	CHECK_EQ_U64(n, 4);
	CHECK_EQ_U64(st->lines, 4);
	CHECK_EQ_U64(st->bad_lines + st->partial + st->shadowed + st->truncated, 0);
	perf_map__free(pm);
}

static void test_hostile(void)
{
	struct perf_map *pm = parse("1000 10 good\n"
				    "1000 0 zero size\n"
				    "2000 10\n"                  /* no name */
				    "2000 10 \n"                 /* blank name */
				    "-1 10 negative\n"
				    "ffffffffffffffff 1 wraps to zero\n"
				    "fffffffffffffff0 20 overflows\n"
				    "10000000000000000 1 seventeen digits\n"
				    "0x 10 no digits\n"
				    "3000g 10 junk after start\n"
				    "\n"
				    "4000 10 last, no newline");
	const struct perf_map_stats *st = perf_map__stats(pm);
	size_t n;

	perf_map__syms(pm, &n);
	CHECK_EQ_U64(n, 1);
	CHECK_STR(name_at(pm, 0x1005), "good");
	CHECK_STR(name_at(pm, 0x4005), "(none)");
	CHECK_EQ_U64(st->lines, 11);
	CHECK_EQ_U64(st->bad_lines, 10);
	CHECK_EQ_U64(st->partial, 1);
	perf_map__free(pm);

	/* The last possible address is fine; NULs and high bytes are just name bytes. */
	static const char odd[] = "fffffffffffffff0 f top\n10 1 a\0b\n20 1 \xff\xfe\n";

	pm = perf_map__parse(odd, sizeof(odd) - 1);
	CHECK_STR(name_at(pm, 0xfffffffffffffffe), "top");
	CHECK_STR(name_at(pm, 0xffffffffffffffff), "(none)");
	CHECK_STR(name_at(pm, 0x10), "a");
	CHECK_STR(name_at(pm, 0x20), "\xff\xfe");
	perf_map__free(pm);

	pm = perf_map__parse("", 0);
	CHECK(pm && !perf_map__find(pm, 0) && perf_map__stats(pm)->lines == 0);
	perf_map__free(pm);
	CHECK(perf_map__find(NULL, 1) == NULL);
}

static void test_overlaps(void)
{
	/* A blob, then code reusing parts of it, then a replacement of one of those. */
	struct perf_map *pm = parse("1000 100 old_blob\n"
				    "1040 20 mid\n"
				    "1080 10 right\n"
				    "1000 10 first\n"
				    "1080 10 right_again\n"
				    "5000 10 lone\n"
				    "5000 10 lone_v2\n"
				    "5008 4 inner\n");
	const struct perf_map_sym *v;
	size_t n;

	CHECK_STR(name_at(pm, 0x1000), "first");
	CHECK_STR(name_at(pm, 0x100f), "first");
	CHECK_STR(name_at(pm, 0x1010), "old_blob");
	CHECK_STR(name_at(pm, 0x1050), "mid");
	CHECK_STR(name_at(pm, 0x1060), "old_blob");
	CHECK_STR(name_at(pm, 0x1085), "right_again");
	CHECK_STR(name_at(pm, 0x10ff), "old_blob");
	CHECK_STR(name_at(pm, 0x1100), "(none)");
	CHECK_STR(name_at(pm, 0x5007), "lone_v2");
	CHECK_STR(name_at(pm, 0x5009), "inner");
	CHECK_STR(name_at(pm, 0x500c), "lone_v2");
	v = perf_map__syms(pm, &n);
	/* first, old_blob, mid, old_blob, right_again, old_blob, lone_v2, inner, lone_v2 */
	CHECK_EQ_U64(n, 9);
	for (size_t i = 1; i < n; i++)
		CHECK(v[i - 1].end <= v[i].start && v[i].start < v[i].end);
	CHECK_EQ_U64(perf_map__stats(pm)->shadowed, 2); /* right, lone */
	perf_map__free(pm);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* perf's trust rule; run as root, so chown can hand the file to anyone. */
static void test_trust(void)
{
	char dir[] = "/tmp/stacktap-perfmap.XXXXXX", path[128], link[128], fifo[128];
	struct perf_map *pm;
	uid_t me = geteuid();

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(link, sizeof(link), "%s/perf-2.map", dir);
	snprintf(fifo, sizeof(fifo), "%s/perf-3.map", dir);
	write_file(path, "1000 10 a\n2000 10 b\n3000 10 c\n");

	pm = perf_map__open(path, 4242, 0);
	CHECK(me != 0 || pm != NULL); /* root's files are trusted for anyone */
	perf_map__free(pm);
	if (me == 0) {
		CHECK(chown(path, 4242, 4242) == 0);
		pm = perf_map__open(path, 4242, 0);
		CHECK(pm && perf_map__find(pm, 0x2000));
		perf_map__free(pm);
		errno = 0;
		CHECK(perf_map__open(path, 4343, 0) == NULL && errno == EPERM);
	}
	/* The cap: only whole lines within it count. */
	pm = perf_map__open(path, me == 0 ? 4242 : me, 15);
	CHECK(pm && perf_map__find(pm, 0x1000) && !perf_map__find(pm, 0x2000));
	CHECK(pm && perf_map__stats(pm)->truncated == 30 - 15 && perf_map__stats(pm)->partial == 1);
	perf_map__free(pm);

	CHECK(symlink(path, link) == 0);
	errno = 0;
	CHECK(perf_map__open(link, me, 0) == NULL && errno == ELOOP);
	CHECK(mkfifo(fifo, 0600) == 0);
	errno = 0;
	CHECK(perf_map__open(fifo, me, 0) == NULL && errno == EINVAL); /* and did not block */
	errno = 0;
	CHECK(perf_map__open(dir, me, 0) == NULL);
	errno = 0;
	snprintf(path + strlen(dir), sizeof(path) - strlen(dir), "/none.map");
	CHECK(perf_map__open(path, me, 0) == NULL && errno == ENOENT);

	unlink(fifo);
	unlink(link);
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	unlink(path);
	rmdir(dir);
}

/* The address of the anonymous executable mapping of @pid holding @addr, or 0. */
static uint64_t anon_exec_start(pid_t pid, uint64_t addr)
{
	char path[64], line[512], perms[8];
	unsigned long lo, hi, inode;
	uint64_t found = 0;
	int n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		n = 0;
		if (sscanf(line, "%lx-%lx %7s %*x %*x:%*x %lu %n", &lo, &hi, perms, &inode, &n) < 4)
			continue;
		if (addr >= lo && addr < hi && perms[2] == 'x' && inode == 0 &&
		    (line[n] == '\n' || line[n] == '\0'))
			found = lo;
	}
	if (f)
		fclose(f);
	return found;
}

/* The workload's own map: its stubs named, in its anonymous page, later lines winning. */
static void test_jit_workload(void)
{
	const char *o = getenv("O") ? getenv("O") : "build";
	char cmd[512], fifo[64] = "/tmp/stacktap-jitgo.XXXXXX", map[64], pidpath[64];
	const struct perf_map_sym *outer, *inner, *stale;
	struct perf_map *pm;
	struct stat st;
	int pid = 0;
	FILE *w;

	CHECK(mkdtemp(fifo) != NULL);
	strcat(fifo, "/go");
	CHECK(mkfifo(fifo, 0600) == 0);
	snprintf(cmd, sizeof(cmd), "%s/workloads/jit_fp -m 3 %s", o, fifo);
	w = popen(cmd, "r");
	CHECK(w && fscanf(w, "ready %d", &pid) == 1 && pid > 0);
	snprintf(pidpath, sizeof(pidpath), "/proc/%d", pid);
	snprintf(map, sizeof(map), "/proc/%d/root/tmp/perf-%d.map", pid, pid);
	CHECK(stat(pidpath, &st) == 0);
	pm = perf_map__open(map, st.st_uid, 0);
	CHECK(pm != NULL);
	outer = perf_map__find(pm, 0);
	CHECK(outer == NULL);
	if (pm) {
		size_t n;
		const struct perf_map_sym *v = perf_map__syms(pm, &n);

		/* jit_outer, the stale blob's middle, jit_inner, its tail */
		CHECK_EQ_U64(n, 4);
		outer = &v[0];
		stale = &v[1];
		inner = &v[2];
		CHECK_STR(outer->name, "jit_outer");
		CHECK_STR(stale->name, "jit_stale_blob");
		CHECK_STR(inner->name, "jit_inner");
		CHECK_EQ_U64(inner->start - outer->start, 0x40);
		CHECK_EQ_U64(outer->end - outer->start, 11);
		CHECK_EQ_U64(inner->end - inner->start, 8);
		CHECK_EQ_U64(v[3].end - outer->start, 0x80);
		CHECK(anon_exec_start(pid, outer->start) == outer->start);
		CHECK(perf_map__find(pm, outer->start + 4) == outer);
		CHECK(perf_map__find(pm, inner->start + 6) == inner);
	}
	perf_map__free(pm);
	if (pid > 0) {
		int fd = open(fifo, O_WRONLY);

		CHECK(fd >= 0 && write(fd, "g", 1) == 1);
		close(fd);
	}
	CHECK(w && pclose(w) == 0);
	if (pid > 0) {
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", pid);
		unlink(map);
	}
	unlink(fifo);
	*strrchr(fifo, '/') = '\0';
	rmdir(fifo);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_formats();
	test_hostile();
	test_overlaps();
	test_trust();
	test_jit_workload();
	return CHECK_DONE();
}
