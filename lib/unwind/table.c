// SPDX-License-Identifier: GPL-2.0
/* One compact unwind table per ELF file (.sframe, .eh_frame and .debug_frame merged), and a cache. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/unwind/sources.h"
#include "lib/unwind/table.h"
#include "lib/util/log.h"

/*
 * The kernel maps segments page by page: a mapping's file offset is the
 * segment's offset rounded down to this (x86-64 only, like the rows).
 */
#define TABLE_PAGE 4096ULL

/* An ELF handle on an open file, or on @image (fd < 0) of @len bytes. */
static Elf *table__elf_begin(int fd, void *image, size_t len, const char *name)
{
	static bool versioned;
	Elf *elf;

	if (!versioned) {
		elf_version(EV_CURRENT);
		versioned = true;
	}
	elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : elf_memory(image, len);
	if (!elf) {
		st_err("unwind: %s: %s", name, elf_errmsg(-1));
		errno = EINVAL;
		return NULL;
	}
	return elf;
}

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

static int table__read_segs(Elf *elf, struct unwind_table *t)
{
	size_t i, n;
	GElf_Phdr ph;
	bool have_base = false;

	if (elf_getphdrnum(elf, &n) != 0)
		return -EINVAL;
	t->segs = calloc(n ? n : 1, sizeof(*t->segs));
	if (!t->segs)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		t->segs[t->nsegs++] = (struct unwind_seg){ .vaddr = ph.p_vaddr,
							   .offset = ph.p_offset,
							   .filesz = ph.p_filesz,
							   .exec = ph.p_flags & PF_X };
		if ((ph.p_flags & PF_X) && (!have_base || ph.p_vaddr < t->base)) {
			t->base = ph.p_vaddr;
			have_base = true;
		}
	}
	if (!have_base) {
		st_err("unwind: %s: no executable PT_LOAD segment", t->path);
		return -ENOEXEC;
	}
	return 0;
}

/* The NT_GNU_BUILD_ID note of any SHT_NOTE section. */
static size_t table__build_id(Elf *elf, uint8_t *id)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	GElf_Nhdr nh;
	size_t off, next, name_off, desc_off;
	Elf_Data *d;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		for (off = 0; d && (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0;
		     off = next) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4) || !nh.n_descsz)
				continue;
			if (nh.n_descsz > UNWIND_ID_MAX)
				nh.n_descsz = UNWIND_ID_MAX;
			memcpy(id, (char *)d->d_buf + desc_off, nh.n_descsz);
			return nh.n_descsz;
		}
	}
	return 0;
}

/* No build ID: two FNV-1a passes (different seeds) over the whole image make a 16-byte key. */
static int table__content_hash(Elf *elf, struct unwind_table *t)
{
	uint64_t h[2] = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
	size_t size, i;
	const uint8_t *p = (const uint8_t *)elf_rawfile(elf, &size);

	if (!p)
		return -EINVAL;
	for (i = 0; i < size; i++) {
		h[0] = (h[0] ^ p[i]) * 0x100000001b3ULL;
		h[1] = (h[1] ^ p[i]) * 0x100000001b3ULL;
	}
	memcpy(t->id, h, sizeof(h));
	t->id_len = sizeof(h);
	t->id_is_hash = true;
	return 0;
}

static int table__read_id(Elf *elf, struct unwind_table *t)
{
	t->id_len = table__build_id(elf, t->id);
	return t->id_len ? 0 : table__content_hash(elf, t);
}

/* Sum of executable sections, and the part of it rows give a usable rule. */
static void table__coverage(Elf *elf, struct unwind_table *t)
{
	const struct unwind_rows *v = &t->rows;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t lo, hi, a, b;
	size_t i;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS)
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

static int table__fill(Elf *elf, struct unwind_table *t)
{
	int err;

	err = table__read_segs(elf, t);
	if (!err)
		err = table__read_id(elf, t);
	if (!err)
		err = unwind_sources__read(elf, t);
	if (!err)
		table__coverage(elf, t);
	return err;
}

static struct unwind_table *table__build_elf(Elf *elf, const char *name)
{
	struct unwind_table *t = calloc(1, sizeof(*t));
	int err = -ENOMEM;

	if (!t || !(t->path = strdup(name)))
		goto err_free;
	err = table__check_elf(elf, name);
	if (!err)
		err = table__fill(elf, t);
	if (!err)
		return t;
	if (err == -ENOMEM)
		st_err("unwind: %s: out of memory", name);
err_free:
	unwind_table__free(t);
	errno = -err;
	return NULL;
}

struct unwind_table *unwind_table__build_fd(int fd, const char *name)
{
	struct unwind_table *t;
	Elf *elf = table__elf_begin(fd, NULL, 0, name);

	if (!elf)
		return NULL;
	t = table__build_elf(elf, name);
	elf_end(elf);
	return t;
}

struct unwind_table *unwind_table__build_image(void *image, size_t len, const char *name)
{
	struct unwind_table *t;
	Elf *elf = table__elf_begin(-1, image, len, name);

	if (!elf)
		return NULL;
	t = table__build_elf(elf, name);
	elf_end(elf);
	return t;
}

/* Opens @path for reading; on failure says why once and leaves errno set. */
static int table__open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0) {
		err = errno;
		st_err("unwind: %s: %s", path, strerror(err));
		errno = err;
	}
	return fd;
}

struct unwind_table *unwind_table__build(const char *path)
{
	struct unwind_table *t;
	int fd = table__open(path), err;

	if (fd < 0)
		return NULL;
	t = unwind_table__build_fd(fd, path);
	err = errno;
	close(fd);
	errno = err;
	return t;
}

void unwind_table__free(struct unwind_table *t)
{
	if (!t)
		return;
	unwind_rows__release(&t->rows);
	free(t->spans);
	free(t->segs);
	free(t->cfi_path);
	free(t->path);
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

struct unwind_cache {
	struct unwind_table **tables;
	size_t n, cap;
	uint64_t hits, builds;
};

struct unwind_cache *unwind_cache__new(void)
{
	struct unwind_cache *c = calloc(1, sizeof(*c));

	if (!c)
		errno = ENOMEM;
	return c;
}

static struct unwind_table *cache__lookup(struct unwind_cache *c, const uint8_t *id, size_t len,
					  bool is_hash)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (c->tables[i]->id_len == len && c->tables[i]->id_is_hash == is_hash &&
		    !memcmp(c->tables[i]->id, id, len))
			return c->tables[i];
	return NULL;
}

static int cache__add(struct unwind_cache *c, struct unwind_table *t)
{
	struct unwind_table **v;
	size_t cap;

	if (c->n == c->cap) {
		cap = c->cap ? c->cap * 2 : 16;
		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(c->tables, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->tables = v;
		c->cap = cap;
	}
	c->tables[c->n++] = t;
	return 0;
}

/* The table of @elf from the cache, else built and added; @elf is ended. */
static struct unwind_table *cache__get_elf(struct unwind_cache *c, Elf *elf, const char *name)
{
	struct unwind_table *t;
	uint8_t id[UNWIND_ID_MAX];
	size_t len;

	/* Files without a build ID are hashed whole: build, then look the hash up. */
	len = elf_kind(elf) == ELF_K_ELF ? table__build_id(elf, id) : 0;
	t = len ? cache__lookup(c, id, len, false) : NULL;
	if (t) {
		c->hits++;
		elf_end(elf);
		return t;
	}
	t = table__build_elf(elf, name);
	elf_end(elf);
	if (!t)
		return NULL;
	if (t->id_is_hash) {
		struct unwind_table *old = cache__lookup(c, t->id, t->id_len, true);

		if (old) {
			unwind_table__free(t);
			c->hits++;
			return old;
		}
	}
	c->builds++;
	if (cache__add(c, t)) {
		unwind_table__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

struct unwind_table *unwind_cache__get_fd(struct unwind_cache *c, int fd, const char *name)
{
	Elf *elf = table__elf_begin(fd, NULL, 0, name);

	return elf ? cache__get_elf(c, elf, name) : NULL;
}

struct unwind_table *unwind_cache__get_image(struct unwind_cache *c, void *image, size_t len,
					     const char *name)
{
	Elf *elf = table__elf_begin(-1, image, len, name);

	return elf ? cache__get_elf(c, elf, name) : NULL;
}

struct unwind_table *unwind_cache__get(struct unwind_cache *c, const char *path)
{
	struct unwind_table *t;
	int fd = table__open(path), err;

	if (fd < 0)
		return NULL;
	t = unwind_cache__get_fd(c, fd, path);
	err = errno;
	close(fd);
	errno = err;
	return t;
}

struct unwind_table *unwind_cache__get_mapped(struct unwind_cache *c, int pid, uint64_t start,
					      uint64_t end, const char *path)
{
	char mf[96];
	struct unwind_table *t;
	int fd;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid, (unsigned long long)start,
		 (unsigned long long)end);
	fd = open(mf, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return unwind_cache__get(c, path);
	t = unwind_cache__get_fd(c, fd, path);
	close(fd);
	return t;
}

void unwind_cache__stats(const struct unwind_cache *c, uint64_t *hits, uint64_t *builds)
{
	*hits = c->hits;
	*builds = c->builds;
}

void unwind_cache__free(struct unwind_cache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++)
		unwind_table__free(c->tables[i]);
	free(c->tables);
	free(c);
}
