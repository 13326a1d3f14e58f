// SPDX-License-Identifier: GPL-2.0
/* Self-unwind: the qsort_chain workloads dump their stack in leaf(); unwind it and check each frame. */
/*
 * The chain is main → a → b → qsort (libc) → compare → c → leaf, built with
 * frame pointers, without, and with SFrame (tests/workloads/unwind.mk). Each
 * variant must unwind to exactly the same list, ending "outermost" in _start.
 *
 * Debian's libc has no .symtab: without libc6-dbg, libc frames are named from
 * .dynsym when an exported symbol covers them and "libc.so.6:?" otherwise
 * (msort_with_tmp and __libc_start_call_main are static); with libc6-dbg,
 * lib/elf/elf_file.c names them from the debug file. The list is what glibc
 * 2.36 does: qsort() tail-calls qsort_r(), whose msort_with_tmp() merge step
 * calls compare.
 */
#include <errno.h>
#include <stdbool.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/elf/elf_file.h"
#include "lib/unwind/table.h"
#include "lib/unwind/unwinder.h"
#include "tests/unit/check.h"

#define MAX_FRAMES 64

struct dump {
	char *buf;
	struct unwind_regs regs;
	struct unwind_stack stack;
	const char *maps;
	size_t maps_len;
};

static int dump__parse(struct dump *d, size_t size)
{
	uint64_t base;
	size_t slen, mlen;
	int off = 0;

	if (sscanf(d->buf,
		   "stacktap-dump 1\nip %" SCNx64 "\nsp %" SCNx64 "\nbp %" SCNx64
		   "\nstack %" SCNx64 " %zu\nmaps %zu\n%n",
		   &d->regs.ip, &d->regs.sp, &d->regs.bp, &base, &slen, &mlen, &off) != 6 ||
	    !off || (size_t)off + mlen + slen != size)
		return -EINVAL;
	d->maps = d->buf + off;
	d->maps_len = mlen;
	d->stack = (struct unwind_stack){ .base = base,
					  .data = (const uint8_t *)d->buf + off + mlen,
					  .len = slen };
	return 0;
}

/* Run one workload and read what its leaf() dumped. */
static int dump__take(const char *variant, struct dump *d)
{
	char cmd[512], path[64];
	const char *o = getenv("O") ? getenv("O") : "build";
	FILE *f;
	long size;

	snprintf(path, sizeof(path), "/tmp/stacktap-unwind-%d.dump", (int)getpid());
	snprintf(cmd, sizeof(cmd), "%s/workloads/qsort_chain_%s %s", o, variant, path);
	if (system(cmd) != 0)
		return -ENOENT;
	f = fopen(path, "rb");
	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	d->buf = malloc((size_t)size + 1);
	if (!d->buf || fread(d->buf, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		return -EIO;
	}
	d->buf[size] = '\0';
	fclose(f);
	unlink(path);
	return dump__parse(d, (size_t)size);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* "file:function" for our binaries and exported libc functions, "file:?" otherwise. */
static void frame_name(const struct proc_map *pm, const struct unwind_frame *f, char *out,
		       size_t len)
{
	struct elf_file *ef;
	const struct elf_sym *s = NULL;
	uint64_t vaddr;

	if (f->map < 0) {
		snprintf(out, len, "?:%#" PRIx64, f->addr);
		return;
	}
	ef = pm[f->map].path[0] == '/' ? elf_file__open(pm[f->map].path) : NULL;
	/* Return addresses name the caller: look up addr - 1 beyond frame 0 (done by caller). */
	if (ef && !elf_file__offset_to_vaddr(ef, f->file_off, &vaddr))
		s = elf_file__find_sym(ef, vaddr);
	snprintf(out, len, "%s:%s",
		 strncmp(base_name(pm[f->map].path), "qsort_chain_", 12) ? base_name(pm[f->map].path)
									  : "exe",
		 s ? s->name : "?");
	elf_file__free(ef);
}

static struct unwind_map *maps__build(struct unwind_cache *cache, const struct proc_map *pm,
				      size_t n)
{
	struct unwind_map *m = calloc(n ? n : 1, sizeof(*m));
	size_t i;

	for (i = 0; m && i < n; i++) {
		m[i] = (struct unwind_map){ .start = pm[i].start, .end = pm[i].end,
					    .pgoff = pm[i].pgoff, .path = pm[i].path };
		if ((pm[i].prot & PROC_MAP_X) && pm[i].path[0] == '/')
			unwind_map__set_table(&m[i], unwind_cache__get(cache, pm[i].path));
	}
	return m;
}

static void check_variant(struct unwind_cache *cache, const char *variant, const char *want)
{
	struct unwind_frame frames[MAX_FRAMES];
	struct proc_map *pm = NULL;
	struct unwind_map *maps = NULL;
	struct dump d = { 0 };
	enum unwind_stop why;
	char got[4096] = "", name[256];
	size_t n, npm = 0, i;

	CHECK(dump__take(variant, &d) == 0);
	CHECK(d.buf && proc_maps__parse(d.maps, d.maps_len, &pm, &npm) == 0);
	maps = d.buf ? maps__build(cache, pm, npm) : NULL;
	if (!maps || !npm)
		goto out;
	why = unwinder__walk(maps, npm, &d.regs, &d.stack, frames, MAX_FRAMES, &n);
	for (i = 0; i < n; i++) {
		struct unwind_frame f = frames[i];

		if (i > 0)
			f.file_off--; /* a return address: name the call, not what follows it */
		frame_name(pm, &f, name, sizeof(name));
		strncat(got, i ? " " : "", sizeof(got) - strlen(got) - 1);
		strncat(got, name, sizeof(got) - strlen(got) - 1);
	}
	strncat(got, " | ", sizeof(got) - strlen(got) - 1);
	strncat(got, unwind_stop_name(why), sizeof(got) - strlen(got) - 1);
	fprintf(stderr, "%s: %s\n", variant, got);
	CHECK_STR(got, want);
	/* Every frame carries its file's build ID and an offset inside the mapping. */
	for (i = 0; i < n; i++) {
		CHECK(frames[i].map >= 0 && frames[i].build_id_len == 20);
		CHECK(frames[i].addr >= maps[frames[i].map].start &&
		      frames[i].addr < maps[frames[i].map].end);
	}
out:
	free(maps);
	proc_maps__free(pm, npm);
	free(d.buf);
}

/* Is libc's separate debug file (libc6-dbg) installed, so static functions have names? */
static bool libc_debug_installed(void)
{
	struct elf_file *ef = elf_file__open("/usr/lib/x86_64-linux-gnu/libc.so.6");
	const uint8_t *id;
	size_t len = ef ? elf_file__build_id(ef, &id) : 0, i;
	char path[128] = "/usr/lib/debug/.build-id/";
	bool ok;

	for (i = 0; i < len; i++)
		snprintf(path + strlen(path), sizeof(path) - strlen(path), i == 1 ? "/%02x" : "%02x",
			 id[i]);
	strncat(path, ".debug", sizeof(path) - strlen(path) - 1);
	ok = len && access(path, R_OK) == 0;
	elf_file__free(ef);
	return ok;
}

int main(void)
{
	static const char want_dbg[] =
		"exe:leaf exe:c exe:compare libc.so.6:msort_with_tmp.part.0 libc.so.6:qsort_r "
		"exe:b exe:a exe:main libc.so.6:__libc_start_call_main libc.so.6:__libc_start_main "
		"exe:_start | outermost";
	static const char want_nodbg[] =
		"exe:leaf exe:c exe:compare libc.so.6:? libc.so.6:qsort_r exe:b exe:a exe:main "
		"libc.so.6:? libc.so.6:__libc_start_main exe:_start | outermost";
	const char *want = libc_debug_installed() ? want_dbg : want_nodbg;
	struct unwind_cache *cache = unwind_cache__new();
	uint64_t hits, builds;

	CHECK(cache != NULL);
	if (!cache)
		return CHECK_DONE();
	check_variant(cache, "fp", want);
	check_variant(cache, "nofp", want);
	check_variant(cache, "sframe", want);
	/* libc and ld.so are built once and shared by the three runs. */
	unwind_cache__stats(cache, &hits, &builds);
	CHECK_EQ_U64(builds, 3 + 2);
	CHECK(hits >= 4);
	unwind_cache__free(cache);
	return CHECK_DONE();
}
