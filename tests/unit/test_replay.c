// SPDX-License-Identifier: GPL-2.0
/*
 * The replay's answers through the proc source door, from recordings
 * written here: /proc texts per (pid, file) in recorded order, liveness in
 * order, kernel symbols as the greatest recorded start at or below, and
 * mapped files found by build ID only: under --symfs (by path, by
 * .build-id, by name), in the recording (--archive), never a file with
 * another build ID at the recorded path. The ELF fixtures are those of
 * fuzz/corpus/elf_file (their README says how they were built).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elf/debug_file.h"
#include "lib/elf/elf_file.h"
#include "lib/proc/maps.h"
#include "lib/proc/source.h"
#include "lib/record/replay.h"
#include "lib/record/writer.h"
#include "lib/sym/ksyms_source.h"
#include "lib/util/build_id.h"
#include "tests/unit/check.h"

#define FIX "fuzz/corpus/elf_file/"

static char tmp[] = "/tmp/stacktap-test-replay.XXXXXX";

static void meta(struct rec_writer *w)
{
	static const char m[] = "command\0profile\0arg\0-F\0arg\0" "99";

	CHECK(!rec_writer__add(w, REC_META, m, sizeof(m), NULL, 0));
}

static void proc_read(struct rec_writer *w, int pid, const char *file, int err, const char *text)
{
	struct rec_proc_read pr = { .pid = pid, .err = err };

	strcpy(pr.file, file);
	CHECK(!rec_writer__add(w, REC_PROC_READ, &pr, sizeof(pr), text, text ? strlen(text) : 0));
}

/* The build ID of the file at @fd (closed), or -1. */
static int read_id(int fd, uint8_t *id)
{
	struct elf_file *ef = fd >= 0 ? elf_file__open_fd(fd, "fixture", ELF_OPEN_QUIET) : NULL;
	const uint8_t *p;
	int n = ef ? (int)elf_file__build_id(ef, &p) : -1;

	if (n > 0)
		memcpy(id, p, n);
	elf_file__free(ef);
	if (fd >= 0)
		close(fd);
	return n;
}

/* The identity of @fixture as mapped from @path (device 8:1, inode @ino). */
static void file_entry(struct rec_writer *w, const char *fixture, const char *path, uint64_t ino,
		       uint8_t *id, int *idlen)
{
	struct rec_file f = { .inode = ino, .dev_major = 8, .dev_minor = 1 };

	*idlen = read_id(open(fixture, O_RDONLY), id);
	CHECK(*idlen == 20);
	f.build_id_len = *idlen;
	memcpy(f.build_id, id, *idlen);
	f.path_len = strlen(path);
	CHECK(!rec_writer__add(w, REC_FILE, &f, sizeof(f), path, f.path_len));
}

static void ksym(struct rec_writer *w, uint64_t addr, const char *name)
{
	struct rec_ksym k = { .addr = addr, .name_len = strlen(name) };
	char buf[64];

	memcpy(buf, name, k.name_len + 1);
	buf[k.name_len + 1] = '\0';
	CHECK(!rec_writer__add(w, REC_KSYM, &k, sizeof(k), buf, k.name_len + 2));
}

static struct replay *open_rec(const char *path, const char *const *symfs, size_t nsymfs)
{
	struct replay_opts o = { .path = path, .symfs = symfs, .nsymfs = nsymfs,
				 .debug_dirs = symfs, .ndebug_dirs = nsymfs,
				 .no_default_dirs = true };

	return replay__open(&o, NULL, 0);
}

/* Is @fd (closed here) open on a file with build ID @id? */
static int same_id(int fd, const uint8_t *id, int len)
{
	uint8_t got[20];

	return read_id(fd, got) == len && !memcmp(got, id, len);
}

static int open_mapped(const struct proc_map *m, enum safe_open_why *why)
{
	return proc_source_open_mapped(1, m, why);
}

static void test_reads_and_ksyms(void)
{
	char path[PATH_MAX], *text;
	uint64_t ts;
	struct rec_writer *w;
	struct rec_alive a = { .pid = 7, .tid = 8, .alive = 0 };
	struct replay *rp;
	const struct ksym *k;
	size_t len;

	snprintf(path, sizeof(path), "%s/reads.rec", tmp);
	w = rec_writer__open(path, 0);
	meta(w);
	proc_read(w, 7, "maps", 0, "first");
	proc_read(w, 7, "status", 0, "Tgid: 7\n");
	proc_read(w, 7, "maps", 0, "second");
	proc_read(w, 9, "maps", -ESRCH, NULL);
	CHECK(!rec_writer__add(w, REC_ALIVE, &a, sizeof(a), NULL, 0));
	ksym(w, 0xffffffff81000200ull, "b_func");
	ksym(w, 0xffffffff81000100ull, "a_func");
	CHECK(!rec_writer__close(w));
	rp = open_rec(path, NULL, 0);
	CHECK(rp != NULL);
	if (!rp)
		return;
	CHECK_STR(replay__command(rp), "profile");
	CHECK(!proc_source_read(7, "maps", &text, &len, &ts) && !strcmp(text, "first"));
	free(text);
	CHECK(!proc_source_read(7, "maps", &text, &len, &ts) && !strcmp(text, "second"));
	free(text);
	CHECK_EQ_U64(proc_source_read(7, "maps", &text, &len, &ts), (uint64_t)-ESRCH); /* none left */
	CHECK_EQ_U64(proc_source_read(9, "maps", &text, &len, &ts), (uint64_t)-ESRCH);
	CHECK(!proc_source_task_alive(7, 8));
	CHECK(proc_source_task_alive(7, 8)); /* not asked while recording: alive */
	CHECK(ksyms_source_find(0xffffffff81000000ull) == NULL);
	k = ksyms_source_find(0xffffffff81000150ull);
	CHECK(k && !strcmp(k->name, "a_func") && !k->module);
	k = ksyms_source_find(0xffffffff81000fffull);
	CHECK(k && !strcmp(k->name, "b_func"));
	/* A recording that ends without its end entry is cut short. */
	CHECK(replay__damaged(rp));
	replay__close(rp);
}

/* A counters entry (STATS or USTATS): u32 n, u32 0, u64 v[n]. */
static void counters(struct rec_writer *w, uint16_t type, const uint64_t *v, uint32_t n)
{
	uint32_t hdr[2] = { n, 0 };

	CHECK(!rec_writer__add(w, type, hdr, sizeof(hdr), v, n * sizeof(*v)));
}

/* The capture's and the walker's counters come back apart, each as recorded. */
static void test_counters(void)
{
	static const uint64_t st[3] = { 11, 12, 13 }, ust[2] = { 21, 22 };
	uint64_t out[4] = { 0 };
	char path[PATH_MAX];
	struct rec_writer *w;
	struct replay *rp;

	snprintf(path, sizeof(path), "%s/counters.rec", tmp);
	w = rec_writer__open(path, 0);
	meta(w);
	counters(w, REC_STATS, st, 3);
	counters(w, REC_USTATS, ust, 2);
	CHECK(!rec_writer__close(w));
	rp = open_rec(path, NULL, 0);
	CHECK(rp != NULL);
	if (!rp)
		return;
	CHECK(replay__damaged(rp)); /* reads to the end, which has no end entry */
	CHECK_EQ_U64(replay__stats(rp, out, 4), 3);
	CHECK(out[0] == 11 && out[2] == 13);
	memset(out, 0, sizeof(out));
	CHECK_EQ_U64(replay__ustats(rp, out, 4), 2);
	CHECK(out[0] == 21 && out[1] == 22 && out[2] == 0);
	CHECK_EQ_U64(replay__ustats(rp, out, 1), 1); /* never more than asked */
	replay__close(rp);
}

/* tiny.so copied to @to, its directories made. */
static void copy_tiny(const char *to)
{
	char cmd[PATH_MAX * 2 + 64];

	snprintf(cmd, sizeof(cmd), "mkdir -p $(dirname %s) && cp " FIX "tiny.so %s", to, to);
	CHECK(!system(cmd));
}

static void test_files(void)
{
	char path[PATH_MAX], dir[PATH_MAX / 4], p[PATH_MAX / 2], cmd[PATH_MAX * 3];
	const char *symfs[1] = { dir };
	struct proc_map m = { .dev_major = 8, .dev_minor = 1, .inode = 42 };
	struct rec_writer *w;
	enum safe_open_why why;
	struct replay *rp;
	uint8_t id[20];
	char *found;
	int idlen, fd;

	/* Recorded: tiny.so mapped from TMP/gone/lib.so, a path that will hold another file. */
	snprintf(path, sizeof(path), "%s/files.rec", tmp);
	snprintf(p, sizeof(p), "%s/gone/lib.so", tmp);
	w = rec_writer__open(path, 0);
	meta(w);
	file_entry(w, FIX "tiny.so", p, 42, id, &idlen);
	CHECK(!rec_writer__close(w));
	m.path = p;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/gone && cp " FIX "tiny-static %s", tmp, p);
	CHECK(!system(cmd));
	snprintf(dir, sizeof(dir), "%s/empty", tmp);
	mkdir(dir, 0700);
	rp = open_rec(path, symfs, 1);
	/* Only another build ID at the path, nothing under --symfs: not used, and said so. */
	CHECK(open_mapped(&m, &why) < 0 && why == SAFE_OPEN_OTHER_BUILD);
	replay__close(rp);

	/* --symfs DIR with the file at DIR/PATH. */
	snprintf(dir, sizeof(dir), "%s/symfs1", tmp);
	snprintf(cmd, sizeof(cmd), "%s%s", dir, p);
	copy_tiny(cmd);
	rp = open_rec(path, symfs, 1);
	CHECK(same_id(open_mapped(&m, &why), id, idlen));
	replay__close(rp);

	/* --symfs DIR with the file in DIR/.build-id/xx/yyyy, perf's layout. */
	snprintf(dir, sizeof(dir), "%s/symfs2", tmp);
	CHECK(!build_id__path(dir, id, idlen, "", p, sizeof(p)));
	copy_tiny(p);
	rp = open_rec(path, symfs, 1);
	CHECK(same_id(open_mapped(&m, &why), id, idlen));
	/* A mapping the recording does not identify is not guessed at. */
	m.inode = 43;
	CHECK(open_mapped(&m, &why) < 0 && why == SAFE_OPEN_MISSING);
	m.inode = 42;
	replay__close(rp);

	/* --symfs DIR with the file as DIR/NAME. */
	snprintf(dir, sizeof(dir), "%s/symfs3", tmp);
	snprintf(cmd, sizeof(cmd), "%s/lib.so", dir);
	copy_tiny(cmd);
	rp = open_rec(path, symfs, 1);
	fd = open_mapped(&m, &why);
	CHECK(same_id(fd, id, idlen));
	replay__close(rp);

	/* --debug-dir DIR: a separate debug file by build ID, DIR/.build-id/xx/yyyy.debug. */
	snprintf(dir, sizeof(dir), "%s/debug", tmp);
	CHECK(!build_id__path(dir, id, idlen, ".debug", p, sizeof(p)));
	copy_tiny(p);
	rp = open_rec(path, symfs, 1);
	/* Through the debug-file door, as lib/elf/debug_file.c asks it. */
	fd = debug_file__open(NULL, "lib.so", id, idlen, NULL, NULL, NULL, &found);
	CHECK(found && !strcmp(found, p));
	CHECK(same_id(fd, id, idlen));
	free(found);
	id[0] ^= 1;
	CHECK(debug_file__open(NULL, "lib.so", id, idlen, NULL, NULL, NULL, &found) < 0);
	id[0] ^= 1;
	replay__close(rp);
}

/* --archive: the bytes in the recording, in pieces, and nothing else needed. */
static void test_archive(void)
{
	struct proc_map m = { .dev_major = 8, .dev_minor = 1, .inode = 42,
			      .path = "/nowhere/lib.so" };
	struct rec_file_data d = { .kind = REC_DATA_ELF };
	enum safe_open_why why;
	char path[PATH_MAX], buf[4096];
	struct rec_writer *w;
	struct replay *rp;
	struct stat st;
	uint8_t id[20];
	int idlen, fd = open(FIX "tiny.so", O_RDONLY);
	ssize_t n;

	snprintf(path, sizeof(path), "%s/archive.rec", tmp);
	w = rec_writer__open(path, 0);
	meta(w);
	file_entry(w, FIX "tiny.so", m.path, 42, id, &idlen);
	fstat(fd, &st);
	memcpy(d.build_id, id, idlen);
	d.build_id_len = idlen;
	d.total = st.st_size;
	/* Small pieces, to be put back together in order. */
	while ((n = pread(fd, buf, 1000, (off_t)d.offset)) > 0) {
		CHECK(!rec_writer__add(w, REC_FILE_DATA, &d, sizeof(d), buf, n));
		d.offset += n;
	}
	close(fd);
	CHECK(!rec_writer__close(w));
	rp = open_rec(path, NULL, 0);
	CHECK(same_id(open_mapped(&m, &why), id, idlen));
	replay__close(rp);
}

int main(void)
{
	char cmd[128];

	CHECK(mkdtemp(tmp) != NULL);
	test_reads_and_ksyms();
	test_counters();
	test_files();
	test_archive();
	/* Back to the live machine once no replay is open. */
	CHECK(proc_source_task_alive(getpid(), getpid()));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	CHECK(!system(cmd));
	return CHECK_DONE();
}
