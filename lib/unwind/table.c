// SPDX-License-Identifier: GPL-2.0
/* One compact unwind table per ELF file (.sframe, .eh_frame and .debug_frame merged), and a cache. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/elf/elf_cache.h"
#include "lib/elf/elf_file.h"
#include "lib/unwind/sources.h"
#include "lib/unwind/table_cache.h"
#include "lib/unwind/table.h"
#include "lib/util/log.h"
#include "lib/util/safe_open.h"

/*
 * The kernel maps segments page by page: a mapping's file offset is the
 * segment's offset rounded down to this (x86-64 only, like the rows).
 */
#define TABLE_PAGE 4096ULL

/* Only 64-bit x86 files: the row format and the unwinder are x86-64 specific. */
static int table__check_elf(Elf *elf, const char *name)
{
	GElf_Ehdr eh;

	if (elf_kind(elf) != ELF_K_ELF) {
		st_err("unwind: %s: not an ELF file", name);
		return -ENOEXEC;
	}
	if (!gelf_getehdr(elf, &eh)) {
		st_err("unwind: %s: bad ELF header: %s", name, elf_errmsg(-1));
		return -EINVAL;
	}
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		st_err("unwind: %s: not an x86-64 ELF file", name);
		return -ENOEXEC;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		st_err("unwind: %s: not an executable or shared object (e_type %u)", name,
		       eh.e_type);
		return -ENOEXEC;
	}
	return 0;
}

/* Identity and segments are the file model's (lib/elf/elf_file.c): read once, shared. */
static int table__from_model(struct elf_file *ef, struct unwind_table *t)
{
	size_t i, n, id_len;
	const struct elf_seg *seg = elf_file__segments(ef, &n);
	const uint8_t *id;
	bool have_base = false;

	t->segs = calloc(n ? n : 1, sizeof(*t->segs));
	if (!t->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		t->segs[t->nsegs++] = (struct unwind_seg){ .vaddr = seg[i].vaddr,
							   .offset = seg[i].off,
							   .filesz = seg[i].filesz,
							   .exec = seg[i].exec };
		if (seg[i].exec && (!have_base || seg[i].vaddr < t->base)) {
			t->base = seg[i].vaddr;
			have_base = true;
		}
	}
	if (!have_base) {
		st_err("unwind: %s: no executable PT_LOAD segment", t->path);
		return -ENOEXEC;
	}
	id_len = elf_file__identity(ef, &id, &t->id_is_hash);
	if (!id_len)
		return -EINVAL;
	t->id_len = id_len > UNWIND_ID_MAX ? UNWIND_ID_MAX : id_len;
	memcpy(t->id, id, t->id_len);
	return 0;
}

/* Sum of executable sections, and the part of it rows give a usable rule. */
static void table__coverage(Elf *elf, struct unwind_table *t)
{
	const struct unwind_rows *v = &t->rows;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t lo, hi, a, b;
	size_t i, file_size = 0;

	elf_rawfile(elf, &file_size);
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS)
			continue;
		/* A section past the end of the file or of the address space is damage, not code. */
		if (sh.sh_offset > file_size || sh.sh_size > file_size - sh.sh_offset ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		t->exec_bytes += sh.sh_size;
		for (i = 0; i + 1 < v->n; i++) {
			if (v->rows[i].cfa == UNWIND_CFA_NONE ||
			    v->rows[i].cfa == UNWIND_CFA_UNSUPPORTED)
				continue;
			lo = t->base + v->rows[i].pc;
			hi = t->base + v->rows[i + 1].pc;
			a = lo > sh.sh_addr ? lo : sh.sh_addr;
			b = hi < sh.sh_addr + sh.sh_size ? hi : sh.sh_addr + sh.sh_size;
			if (a < b)
				t->covered_bytes += b - a;
		}
	}
}

/* Rows from the on-disk cache when it has this file's, else built from the sources and saved. */
static int table__fill(struct elf_file *ef, struct unwind_table *t)
{
	struct table_key key;
	bool cacheable;
	int err;

	err = table__from_model(ef, t);
	if (err)
		return err;
	cacheable = !table_cache__key(ef, t, &key);
	if (cacheable) {
		err = table_cache__load(&key, t);
		if (err != -ENOENT && err != -EINVAL)
			return err; /* loaded, or out of memory */
	}
	err = unwind_sources__read(ef, t);
	if (err)
		return err;
	table__coverage(elf_file__elf(ef), t);
	/* Saved: the rows are read back mapped, so the built copy can go (table_cache__load()). */
	if (cacheable && !table_cache__save(&key, t))
		table_cache__remap(&key, t);
	return 0;
}

static struct unwind_table *table__build_model(struct elf_file *ef)
{
	struct unwind_table *t = calloc(1, sizeof(*t));
	const char *name = elf_file__name(ef);
	int err = -ENOMEM;

	if (!t || !(t->path = strdup(name)))
		goto err_free;
	t->file = ef;
	err = table__check_elf(elf_file__elf(ef), name);
	if (!err)
		err = table__fill(ef, t);
	if (!err)
		return t;
	if (err == -ENOMEM)
		st_err("unwind: %s: out of memory", name);
err_free:
	unwind_table__free(t);
	errno = -err;
	return NULL;
}

/* A file whose table could not be built: remembered so it is not tried again. */
static char table_failed;

static void table__release(void *part)
{
	if (part != &table_failed)
		unwind_table__free(part);
}

const struct unwind_table *unwind_table__of(struct elf_file *ef)
{
	void *part = elf_file__part(ef, ELF_PART_UNWIND);
	struct unwind_table *t;

	if (part)
		return part == &table_failed ? NULL : part;
	t = table__build_model(ef);
	elf_file__set_part(ef, ELF_PART_UNWIND, t ? (void *)t : &table_failed, table__release);
	return t;
}

/* A table that owns its model: the standalone builds below. */
static struct unwind_table *table__build_owned(struct elf_file *ef)
{
	struct unwind_table *t;
	int err;

	if (!ef)
		return NULL;
	t = table__build_model(ef);
	if (!t) {
		err = errno;
		elf_file__free(ef);
		errno = err;
		return NULL;
	}
	t->owns_file = true;
	return t;
}

struct unwind_table *unwind_table__build_fd(int fd, const char *name)
{
	return table__build_owned(elf_file__open_fd(fd, name, 0));
}

struct unwind_table *unwind_table__build(const char *path)
{
	return table__build_owned(elf_file__open(path));
}

void unwind_table__drop_pages(const struct unwind_table *t)
{
	if (!t || !t->rows_map)
		return;
	/* Our own read-only private mapping of a file: DONTNEED only unmaps, nothing is lost. */
	madvise(t->rows_map, t->rows_map_len, MADV_DONTNEED);
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	if (t->rows_map) {
		munmap(t->rows_map, t->rows_map_len);
		t->rows.rows = NULL; /* they were the mapping's */
	}
	unwind_rows__release(&t->rows);
	free(t->spans);
	free(t->segs);
	free(t->cfi_path);
	free(t->path);
	if (t->owns_file)
		elf_file__free(t->file);
	free(t);
}

const struct unwind_row *unwind_table__find(const struct unwind_table *t, uint64_t vaddr)
{
	if (vaddr < t->base || vaddr - t->base > UINT32_MAX)
		return NULL;
	return unwind_rows__find(&t->rows, (uint32_t)(vaddr - t->base));
}

/* The PT_LOAD a mapping at file offset @pgoff maps: an executable one whose pages hold it. */
static const struct unwind_seg *table__seg_of_map(const struct unwind_table *t, uint64_t pgoff)
{
	const struct unwind_seg *any = NULL, *s;
	size_t i;

	for (i = 0; i < t->nsegs; i++) {
		s = &t->segs[i];
		if (s->filesz > UINT64_MAX - s->offset || pgoff < (s->offset & ~(TABLE_PAGE - 1)) ||
		    pgoff >= s->offset + s->filesz)
			continue;
		if (s->exec)
			return s;
		if (!any && pgoff >= s->offset)
			any = s;
	}
	return any;
}

int unwind_table__map_vaddr(const struct unwind_table *t, uint64_t pgoff, uint64_t *vaddr)
{
	const struct unwind_seg *s = table__seg_of_map(t, pgoff);

	if (!s)
		return -ENOENT;
	/* p_vaddr and p_offset agree modulo the page size, so this may step back a part page. */
	*vaddr = s->vaddr - s->offset + pgoff;
	return 0;
}

char *unwind_table__id_hex(const struct unwind_table *t, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < t->id_len && 2 * i + 2 < len; i++)
		snprintf(buf + 2 * i, 3, "%02x", t->id[i]);
	return buf;
}

const char *unwind_source_name(enum unwind_source s)
{
	switch (s) {
	case UNWIND_SRC_SFRAME:
		return "sframe";
	case UNWIND_SRC_EH_FRAME:
		return "eh_frame";
	case UNWIND_SRC_DEBUG_FRAME:
		return "debug_frame";
	default:
		return "none";
	}
}

/* --- cache ----------------------------------------------------------------- */

/* Tables hang on their file models; the cache only finds the models by path. */
struct unwind_cache {
	struct elf_cache *files;
	uint64_t hits, builds;
};

struct unwind_cache *unwind_cache__new(void)
{
	struct unwind_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->files = elf_cache__new();
	if (!c || !c->files) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

/* The model of @path; a file seen before (by device and inode) is not opened again. */
static struct elf_file *cache__model(struct unwind_cache *c, const char *path)
{
	enum safe_open_why why;
	struct elf_file *ef;
	struct stat st;
	bool known;
	int fd, err;

	fd = safe_open(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL, &why);
	if (fd < 0 || fstat(fd, &st)) {
		err = why == SAFE_OPEN_MISSING ? ENOENT : ENOEXEC;
		st_err("unwind: %s: %s", path, safe_open_why_text(why));
		if (fd >= 0)
			close(fd);
		errno = err;
		return NULL;
	}
	ef = elf_cache__get(c->files, elf_cache_dev(major(st.st_dev), minor(st.st_dev)),
			    st.st_ino, &known);
	if (!known)
		ef = elf_cache__add(c->files, elf_cache_dev(major(st.st_dev), minor(st.st_dev)),
				    st.st_ino, fd, path);
	close(fd);
	if (!ef) {
		st_err("unwind: %s: not a readable ELF file", path);
		errno = ENOEXEC;
	}
	return ef;
}

struct unwind_table *unwind_cache__get(struct unwind_cache *c, const char *path)
{
	struct elf_file *ef = cache__model(c, path);
	const struct unwind_table *t;
	bool built;

	if (!ef)
		return NULL;
	built = elf_file__part(ef, ELF_PART_UNWIND) != NULL;
	t = unwind_table__of(ef);
	if (built)
		c->hits++;
	else if (t)
		c->builds++;
	return (struct unwind_table *)t;
}

void unwind_cache__stats(const struct unwind_cache *c, uint64_t *hits, uint64_t *builds)
{
	*hits = c->hits;
	*builds = c->builds;
}

void unwind_cache__free(struct unwind_cache *c)
{
	if (!c)
		return;
	elf_cache__free(c->files);
	free(c);
}
