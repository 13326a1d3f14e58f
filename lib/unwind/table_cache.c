// SPDX-License-Identifier: GPL-2.0
/* Built unwind tables kept on disk by build ID, so a later run loads rows instead of building them. */
/*
 * Building the table of a big file is most of a -p start-up (node: 75,922
 * FDEs read through libdw, 372k rows, ~0.25 s), and the same file gives the
 * same rows every time. So a built table is written to a cache directory and
 * a later run loads its rows (one read, one checksum) instead.
 *
 * Where: $STACKTAP_CACHE_DIR, else $XDG_CACHE_HOME/stacktap, else
 * $HOME/.cache/stacktap, in an unwind/ directory there — the invoking user's
 * home, root's included, as perf keeps its build-ID cache in ~/.debug for
 * root too (no system-wide /var/cache: a fresh or read-only HOME, a test or CI
 * run just gets its own cache, and nothing outside HOME is written). An empty
 * STACKTAP_CACHE_DIR, or --no-table-cache, turns it off; so does a directory
 * that cannot be made (a -v note says why: tables are then built every run).
 *
 * Trust: a cache file feeds the BPF walker's rows, so only files in a
 * directory owned by us and writable by no one else are read, and each is
 * checked in full (table_file.c). A damaged or foreign file is ignored with
 * one warning and rebuilt over.
 *
 * The key (the file name) is the build ID plus a hash of the table format,
 * the builder — this program's own build ID, so a stacktap whose table code
 * changed never reads an older one's rows — and the sources found: which
 * unwind sections the file has, Go's notes (with them .debug_frame is left
 * out) and the separate debug file it would take .debug_frame from. A
 * stripped and an unstripped copy share a build ID but not their sections,
 * and installing a debug file changes what is built.
 *
 * Size: files beyond STACKTAP_CACHE_MAX_MB (default 256 MiB; node's table is
 * 3 MiB) are removed least recently used first after each save; a load
 * touches its file's mtime, which is what "used" means here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <link.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/elf/elf_file.h"
#include "lib/unwind/table_cache.h"
#include "lib/util/build_id.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"
#include "lib/util/parse.h"

#define TC_DEFAULT_MAX_MB 256
#define TC_SUFFIX ".tab"
/* No table is larger: the BPF row map holds at most 2^27 rows of 8 bytes (lib/session/cli.c). */
#define TC_FILE_MAX (((uint64_t)1 << 27) * 8 + (1 << 20))
/* A temporary file this old was left by a run that died between write and rename. */
#define TC_STALE_TMP_SEC 600

enum tc_state { TC_UNSET, TC_ON, TC_OFF };

static struct {
	enum tc_state state;
	char dir[PATH_MAX];
	char off_why[2 * PATH_MAX];
	uint8_t builder[BUILD_ID_MAX];
	size_t builder_len;
	uint64_t max_bytes;
	uint64_t loaded, saved, damaged;
	uint64_t total;   /* bytes of the cache's files, as last read plus what was saved since */
	bool total_known;
	bool warned;
} tc;

void table_cache__disable(void)
{
	tc.state = TC_OFF;
	snprintf(tc.off_why, sizeof(tc.off_why), "--no-table-cache");
}

/* The main program's own GNU build ID, from its note in memory. */
static int tc__builder_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	const ElfW(Phdr) *ph;
	const char *p, *end;
	const ElfW(Nhdr) *n;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while ((size_t)(end - p) >= sizeof(*n)) {
			n = (const ElfW(Nhdr) *)p;
			p += sizeof(*n) + ((n->n_namesz + 3) & ~3u);
			if (p > end || (size_t)(end - p) < n->n_descsz)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(n + 1, "GNU", 4) && n->n_descsz) {
				tc.builder_len = n->n_descsz < BUILD_ID_MAX ? n->n_descsz : BUILD_ID_MAX;
				memcpy(tc.builder, p, tc.builder_len);
			}
			p += (n->n_descsz + 3) & ~3u;
		}
	}
	return 1; /* the first object is the main program */
}

/* mkdir -p with mode 0700 for what is made. */
static int tc__mkdirs(char *path)
{
	char *s;

	for (s = path + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			*s = '/';
			return -errno;
		}
		*s = '/';
	}
	return mkdir(path, 0700) && errno != EEXIST ? -errno : 0;
}

/* The root directory the environment names, or "" with @why set. */
static void tc__root(char *out, size_t len, char *why, size_t wl)
{
	const char *d = getenv(TABLE_CACHE_ENV_DIR), *x = getenv("XDG_CACHE_HOME");
	const char *h = getenv("HOME");

	out[0] = '\0';
	if (d && !*d)
		snprintf(why, wl, "%s is empty", TABLE_CACHE_ENV_DIR);
	else if (d)
		snprintf(out, len, "%s", d);
	else if (x && x[0] == '/')
		snprintf(out, len, "%s/stacktap", x);
	else if (h && h[0] == '/')
		snprintf(out, len, "%s/.cache/stacktap", h);
	else
		snprintf(why, wl, "no HOME or XDG_CACHE_HOME");
}

/* The unwind/ directory: made if missing, and ours alone, or the cache stays off. */
static void tc__open_dir(void)
{
	char root[PATH_MAX];
	const char *mb = getenv(TABLE_CACHE_ENV_MAX);
	uint64_t v = TC_DEFAULT_MAX_MB;
	struct stat st;
	int err;

	tc.state = TC_OFF;
	tc__root(root, sizeof(root), tc.off_why, sizeof(tc.off_why));
	if (!root[0])
		return;
	if (snprintf(tc.dir, sizeof(tc.dir), "%s/unwind", root) >= (int)sizeof(tc.dir)) {
		snprintf(tc.off_why, sizeof(tc.off_why), "%s: path too long", root);
		return;
	}
	err = tc__mkdirs(tc.dir);
	if (!err && stat(tc.dir, &st))
		err = -errno;
	if (err) {
		snprintf(tc.off_why, sizeof(tc.off_why), "%s: %s", tc.dir, strerror(-err));
		return;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
		snprintf(tc.off_why, sizeof(tc.off_why),
			 "%s: not a directory of ours alone (owner %u, mode %o)", tc.dir,
			 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		st_warn("table cache: %s; not used", tc.off_why);
		return;
	}
	if (mb && parse_u64(mb, 1, 1u << 20, &v)) {
		st_warn("table cache: %s '%s': want 1-1048576; using %d", TABLE_CACHE_ENV_MAX, mb,
			TC_DEFAULT_MAX_MB);
		v = TC_DEFAULT_MAX_MB;
	}
	tc.max_bytes = v << 20;
	dl_iterate_phdr(tc__builder_cb, NULL);
	if (!tc.builder_len) {
		snprintf(tc.off_why, sizeof(tc.off_why), "this program has no build ID to key on");
		return;
	}
	tc.state = TC_ON;
}

static bool tc__on(void)
{
	if (tc.state == TC_UNSET) {
		tc__open_dir();
		if (tc.state == TC_OFF)
			st_info("table cache: off: %s; tables are built every run", tc.off_why);
	}
	return tc.state == TC_ON;
}

/* FNV-1a, 64-bit: a key, not a defence (the files are checked in full anyway). */
static uint64_t tc__hash(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ULL;
	return h;
}

/* "name=size" of one section of @elf, "-" when it has none, into the key. */
static uint64_t tc__hash_scn(uint64_t h, Elf *elf, const char *name)
{
	char buf[64];
	GElf_Shdr sh;
	int n;

	if (elf_section_by_name(elf, name, &sh))
		n = snprintf(buf, sizeof(buf), "%s=%llu:%u;", name, (unsigned long long)sh.sh_size,
			     sh.sh_type);
	else
		n = snprintf(buf, sizeof(buf), "%s=-;", name);
	return tc__hash(h, buf, (size_t)n);
}

/* The separate debug file the builder would take .debug_frame from, as sources.c decides. */
static uint64_t tc__hash_debug(uint64_t h, struct elf_file *ef, Elf *elf)
{
	const char *path = NULL;
	struct stat st;
	GElf_Shdr sh;
	char buf[96];
	Elf *dbg;
	int n;

	if (elf_section_by_name(elf, ".debug_frame", &sh) ||
	    elf_section_by_name(elf, ".note.go.buildid", &sh) ||
	    elf_section_by_name(elf, ".go.buildinfo", &sh))
		return tc__hash(h, "own", 3);
	dbg = elf_file__debug_elf_with(ef, ".debug_frame", &path);
	if (!dbg || !path)
		return tc__hash(h, "nodebug", 7);
	h = tc__hash(h, path, strlen(path) + 1);
	h = tc__hash_scn(h, dbg, ".debug_frame");
	if (stat(path, &st))
		return h;
	n = snprintf(buf, sizeof(buf), "%lld:%lld.%ld", (long long)st.st_size,
		     (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	return tc__hash(h, buf, (size_t)n);
}

int table_cache__key(struct elf_file *ef, const struct unwind_table *t, struct table_key *key)
{
	Elf *elf = elf_file__elf(ef);
	uint32_t version = TABLE_FILE_VERSION;
	uint64_t h = 0xcbf29ce484222325ULL;

	if (t->id_is_hash || !t->id_len || !elf || !tc__on())
		return -ENOENT;
	h = tc__hash(h, &version, sizeof(version));
	h = tc__hash(h, tc.builder, tc.builder_len);
	h = tc__hash_scn(h, elf, ".sframe");
	h = tc__hash_scn(h, elf, ".eh_frame");
	h = tc__hash_scn(h, elf, ".debug_frame");
	/* Go's notes decide whether .debug_frame is read (sources.c): part of the sources too. */
	h = tc__hash_scn(h, elf, ".note.go.buildid");
	h = tc__hash_scn(h, elf, ".go.buildinfo");
	h = tc__hash_debug(h, ef, elf);
	memset(key, 0, sizeof(*key));
	memcpy(key->id, t->id, t->id_len);
	key->id_len = t->id_len;
	key->sig = h;
	key->base = t->base;
	return 0;
}

/* "<dir>/<build ID>-<signature>.tab" */
static int tc__path(const struct table_key *key, char *buf, size_t len)
{
	char id[2 * BUILD_ID_MAX + 1];

	build_id__hex(key->id, key->id_len, id);
	if (snprintf(buf, len, "%s/%s-%016llx" TC_SUFFIX, tc.dir, id,
		     (unsigned long long)key->sig) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* Is @fd a regular file of ours, of a size a table can have? Return: 0, -errno or -EINVAL. */
static int tc__check_file(int fd, struct stat *st, char *why, size_t wl)
{
	if (fstat(fd, st))
		return -errno;
	if (!S_ISREG(st->st_mode) || st->st_uid != geteuid()) {
		snprintf(why, wl, "not a regular file of ours");
		return -EINVAL;
	}
	if ((uint64_t)st->st_size > TC_FILE_MAX) {
		snprintf(why, wl, "%lld bytes, more than any table", (long long)st->st_size);
		return -EINVAL;
	}
	return 0;
}

/* The whole of @fd (checked by tc__check_file()) into a malloc'ed buffer. */
static int tc__slurp(int fd, const struct stat *st, void **out, size_t *len, char *why,
		     size_t wl)
{
	size_t got = 0;
	ssize_t n;
	char *buf;

	buf = malloc(st->st_size ? (size_t)st->st_size : 1);
	if (!buf)
		return -ENOMEM;
	while (got < (size_t)st->st_size) {
		n = pread(fd, buf + got, (size_t)st->st_size - got, (off_t)got);
		if (n <= 0) {
			free(buf);
			snprintf(why, wl, "read: %s", n ? strerror(errno) : "cut short");
			return -EINVAL;
		}
		got += (size_t)n;
	}
	*out = buf;
	*len = got;
	return 0;
}

/* A damaged file: the first in a run is a warning, the rest --debug lines. */
static void tc__damaged(const char *path, const char *why)
{
	tc.damaged++;
	if (!tc.warned)
		st_warn("table cache: %s: %s; ignored, the table is built again", path, why);
	else
		st_info("table cache: %s: %s; ignored, the table is built again", path, why);
	tc.warned = true;
}

/*
 * The rows of a file of TABLE_CACHE_MAP_MIN bytes or more are read in place,
 * the file mapped read-only: once they are copied into the BPF row map only
 * the pages the user-space unwinder's lookups touch come back
 * (unwind_table__drop_pages()), where a copy kept every row in memory
 * (libLLVM's and libclang-cpp's were 16 MB while a clang ran) and the read
 * made it twice over. Smaller tables are copied: a mapping each would only
 * add to the process's VMAs; so is a file that cannot be mapped. The file is
 * never changed in place (a save renames a new one over it, the trim
 * unlinks), so the mapping keeps the rows that were checked.
 *
 * Return: 0 or -errno.
 */
static int tc__read(int fd, const struct table_key *key, struct unwind_table *t, char *why,
		    size_t wl)
{
	struct stat st;
	size_t len = 0;
	void *buf = MAP_FAILED;
	int err = tc__check_file(fd, &st, why, wl);

	if (err)
		return err;
	if ((uint64_t)st.st_size >= TABLE_CACHE_MAP_MIN)
		buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (buf != MAP_FAILED) {
		len = (size_t)st.st_size;
		err = table_file__decode_in_place(buf, len, key, t, why, wl);
		if (err) {
			munmap(buf, len);
			return err;
		}
		t->rows_map = buf;
		t->rows_map_len = len;
		return 0;
	}
	buf = NULL;
	err = tc__slurp(fd, &st, &buf, &len, why, wl);
	if (!err)
		err = table_file__decode(buf, len, key, t, why, wl);
	free(buf);
	return err;
}

/* Opens the cache file of @key and reads it into @t. Return: as table_cache__load(). */
static int tc__load(const struct table_key *key, struct unwind_table *t, char *path, size_t plen)
{
	char why[160] = "";
	int fd, err;

	if (tc.state != TC_ON || tc__path(key, path, plen))
		return -ENOENT;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : (tc__damaged(path, strerror(errno)), -EINVAL);
	err = tc__read(fd, key, t, why, sizeof(why));
	if (!err)
		futimens(fd, NULL); /* used now: the last to go when the cache is trimmed */
	close(fd);
	if (err == -EINVAL)
		tc__damaged(path, why);
	return err;
}

int table_cache__load(const struct table_key *key, struct unwind_table *t)
{
	char path[PATH_MAX];
	int err = tc__load(key, t, path, sizeof(path));

	if (err)
		return err;
	tc.loaded++;
	st_info("unwind: %s: table loaded from the cache (%zu rows, %s)", t->path, t->rows.n, path);
	return 0;
}

static int tc__write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n ? -errno : -EIO;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

struct tc_entry {
	char name[NAME_MAX + 1];
	uint64_t size;
	struct timespec mtime;
};

static int tc__older(const void *pa, const void *pb)
{
	const struct tc_entry *a = pa, *b = pb;

	if (a->mtime.tv_sec != b->mtime.tv_sec)
		return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
	return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : a->mtime.tv_nsec > b->mtime.tv_nsec;
}

/* The cache's files (stale temporaries removed on the way), and their total size. */
static struct tc_entry *tc__list(DIR *d, size_t *n, uint64_t *total)
{
	struct tc_entry *v = NULL, *nv;
	size_t cap = 0, len;
	struct dirent *de;
	struct stat st;

	*n = 0;
	*total = 0;
	while ((de = readdir(d))) {
		len = strlen(de->d_name);
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
			continue;
		if (strstr(de->d_name, ".tmp.")) {
			if (time(NULL) - st.st_mtim.tv_sec > TC_STALE_TMP_SEC)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (len < sizeof(TC_SUFFIX) || strcmp(de->d_name + len - 4, TC_SUFFIX))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		memcpy(v[*n].name, de->d_name, len + 1);
		v[*n].size = (uint64_t)st.st_size;
		v[*n].mtime = st.st_mtim;
		*total += v[(*n)++].size;
	}
	return v;
}

/*
 * Least recently used files go until the rest fit the bound; @keep (just
 * written, @size bytes) stays. The directory is read at the first save of a
 * run, then only when the total known so far (plus what this run wrote) is
 * over the bound: a system-wide start saves hundreds of tables.
 */
static void tc__trim(const char *keep, uint64_t size)
{
	struct tc_entry *v;
	uint64_t total;
	size_t i, n;
	DIR *d;

	tc.total += size;
	if (tc.total_known && tc.total <= tc.max_bytes)
		return;
	d = opendir(tc.dir);
	if (!d)
		return;
	v = tc__list(d, &n, &total);
	tc.total = total;
	tc.total_known = v != NULL;
	if (v && total > tc.max_bytes) {
		qsort(v, n, sizeof(*v), tc__older);
		for (i = 0; i < n && total > tc.max_bytes; i++) {
			if (!strcmp(v[i].name, keep) || unlinkat(dirfd(d), v[i].name, 0))
				continue;
			total -= v[i].size;
			tc.total = total;
			st_info("table cache: %s/%s removed (least recently used)", tc.dir, v[i].name);
		}
	}
	free(v);
	closedir(d);
}

int table_cache__save(const struct table_key *key, const struct unwind_table *t)
{
	char path[PATH_MAX], tmp[PATH_MAX + 16];
	size_t len = 0;
	void *buf;
	int fd, err;

	if (tc.state != TC_ON || tc__path(key, path, sizeof(path)))
		return -ENOENT;
	buf = table_file__encode(t, key, &len);
	if (buf && len > TC_FILE_MAX) {
		free(buf);
		buf = NULL;
		errno = EFBIG; /* a reader would refuse it */
	}
	if (!buf) {
		err = -errno;
		st_info("table cache: %s: not saved: %s", t->path, strerror(errno));
		return err;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
	fd = mkostemp(tmp, O_CLOEXEC);
	err = fd < 0 ? -errno : tc__write_all(fd, buf, len);
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	free(buf);
	if (err) {
		if (fd >= 0)
			unlink(tmp);
		st_info("table cache: %s: not saved: %s", path, strerror(-err));
		return err;
	}
	tc.saved++;
	st_info("unwind: %s: table built (%zu rows) and saved to the cache (%s)", t->path,
		t->rows.n, path);
	tc__trim(strrchr(path, '/') + 1, len);
	return 0;
}

void table_cache__remap(const struct table_key *key, struct unwind_table *t)
{
	char path[PATH_MAX];

	if (t->rows_map)
		return;
	/*
	 * The same rows, checked again (a small table's copied again, a few
	 * KiB); on any failure the built ones simply stay.
	 */
	if (tc__load(key, t, path, sizeof(path)))
		st_info("table cache: %s: rows kept in memory", path);
}

void table_cache__stats(uint64_t *loaded, uint64_t *saved, uint64_t *damaged)
{
	*loaded = tc.loaded;
	*saved = tc.saved;
	*damaged = tc.damaged;
}

void table_cache__report(void)
{
	tc__on();
	if (tc.state != TC_ON) {
		fprintf(stderr, "stacktap: table cache: off (%s)\n", tc.off_why);
		return;
	}
	fprintf(stderr, "stacktap: table cache: %s: %llu tables loaded, %llu built and saved, "
		"%llu damaged files rebuilt\n", tc.dir, (unsigned long long)tc.loaded,
		(unsigned long long)tc.saved, (unsigned long long)tc.damaged);
}
