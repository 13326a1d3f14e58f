// SPDX-License-Identifier: GPL-2.0
/* The ELF file model: identity and segments at open, the rest on first use. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elf/debug_file.h"
#include "lib/elf/elf_file.h"
#include "lib/elf/minidebug.h"
#include "lib/elf/symtab.h"
#include "lib/util/elf_section.h"
#include "lib/util/log.h"
#include "lib/util/read_file.h"
#include "lib/util/safe_open.h"

struct elf_part_slot {
	void *part;
	void (*release)(void *);
};

struct elf_file {
	char *name;
	int fd;
	Elf *elf;
	unsigned flags;      /* ELF_OPEN_* */
	struct stat st;      /* of fd */
	bool dyn;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	char build_id_hex[2 * ELF_BUILD_ID_MAX + 1];
	uint8_t hash[16];    /* content hash, when there is no build ID */
	bool hashed;
	struct elf_seg *segs;
	size_t nsegs;
	struct elf_symtab *syms; /* NULL until first use */
	bool syms_tried;
	bool has_symtab;     /* a .symtab was found: here, in the debug file or MiniDebugInfo */
	struct minidebug *mini; /* .gnu_debugdata, when its .symtab named the functions */
	void *image;         /* the file read into memory when it is not mapped (see elf_file__begin) */
	int debug_fd;        /* the separate debug file, or -1 */
	Elf *debug_elf;
	void *debug_image;
	char *debug_path;
	bool debug_tried;
	struct elf_file *alt; /* the dwz file the DWARF's .gnu_debugaltlink names */
	int alt_err;          /* 0 until looked for; then 1 found or none needed, or -errno */
	struct elf_part_slot parts[ELF_PART_MAX];
};

#define NOTE_GNU_NAME "GNU"

static int elf_file__fail(const struct elf_file *ef, int err, const char *why)
{
	if (!(ef->flags & ELF_OPEN_QUIET))
		st_err("elf: %s: %s", ef->name, why);
	return err;
}

static bool elf_file__note_build_id(struct elf_file *ef, Elf_Data *data)
{
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	while (off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof(NOTE_GNU_NAME) &&
		    !memcmp((char *)data->d_buf + name_off, NOTE_GNU_NAME,
			    sizeof(NOTE_GNU_NAME)) &&
		    nh.n_descsz > 0 && nh.n_descsz <= ELF_BUILD_ID_MAX) {
			memcpy(ef->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			ef->build_id_len = nh.n_descsz;
			return true;
		}
		off = next;
	}
	return false;
}

static void elf_file__hex_build_id(struct elf_file *ef)
{
	size_t i;

	for (i = 0; i < ef->build_id_len; i++)
		snprintf(ef->build_id_hex + 2 * i, 3, "%02x", ef->build_id[i]);
}

/* Notes larger than this are not a build ID's: the loader's PT_NOTEs are a few dozen bytes. */
#define NOTE_SEGMENT_MAX (64u << 10)

static size_t note_align(size_t n, size_t a)
{
	return (n + a - 1) & ~(a - 1);
}

/*
 * The notes of one PT_NOTE segment, read with pread and walked here (libelf's
 * elf_getdata_rawchunk() leaks on files it reads rather than maps). Every
 * length is checked against the segment. Native byte order only: other
 * files keep the SHT_NOTE path, which libelf converts.
 */
static bool elf_file__segment_build_id(struct elf_file *ef, const GElf_Phdr *ph)
{
	size_t align = ph->p_align == 8 ? 8 : 4, at = 0, name_at, desc_at;
	uint32_t hdr[3]; /* namesz, descsz, type */
	bool found = false;
	uint8_t *buf;

	if (!ph->p_filesz || ph->p_filesz > NOTE_SEGMENT_MAX)
		return false;
	buf = malloc(ph->p_filesz);
	if (!buf || pread(ef->fd, buf, ph->p_filesz, (off_t)ph->p_offset) != (ssize_t)ph->p_filesz)
		goto out;
	while (!found && at + sizeof(hdr) <= ph->p_filesz) {
		memcpy(hdr, buf + at, sizeof(hdr));
		name_at = at + sizeof(hdr);
		if (hdr[0] > ph->p_filesz || hdr[1] > ph->p_filesz)
			break;
		desc_at = name_at + note_align(hdr[0], align);
		if (desc_at + hdr[1] > ph->p_filesz)
			break;
		if (hdr[2] == NT_GNU_BUILD_ID && hdr[0] == sizeof(NOTE_GNU_NAME) &&
		    !memcmp(buf + name_at, NOTE_GNU_NAME, sizeof(NOTE_GNU_NAME)) && hdr[1] > 0 &&
		    hdr[1] <= ELF_BUILD_ID_MAX) {
			memcpy(ef->build_id, buf + desc_at, hdr[1]);
			ef->build_id_len = hdr[1];
			found = true;
		}
		at = desc_at + note_align(hdr[1], align);
	}
out:
	free(buf);
	return found;
}

/* PT_NOTE first (what the loader maps), then SHT_NOTE for files without phdrs. */
static void elf_file__load_build_id(struct elf_file *ef, size_t phnum)
{
	const char *ident = elf_getident(ef->elf, NULL);
	bool native = ident && ident[EI_DATA] == ELFDATA2LSB;
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i;

	for (i = 0; native && i < phnum; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		if (elf_file__segment_build_id(ef, &ph))
			goto out;
	}
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && elf_file__note_build_id(ef, data))
			goto out;
	}
out:
	elf_file__hex_build_id(ef);
}

static int elf_file__load_segs(struct elf_file *ef, size_t phnum)
{
	GElf_Phdr ph;
	size_t i;

	ef->segs = calloc(phnum ? phnum : 1, sizeof(*ef->segs));
	if (!ef->segs)
		return elf_file__fail(ef, -ENOMEM, "out of memory");
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph))
			return elf_file__fail(ef, -EINVAL, "bad program header");
		if (ph.p_type != PT_LOAD)
			continue;
		if (ph.p_offset + ph.p_filesz < ph.p_offset || ph.p_vaddr + ph.p_memsz < ph.p_vaddr ||
		    ph.p_filesz > ph.p_memsz)
			return elf_file__fail(ef, -EINVAL, "bad PT_LOAD");
		ef->segs[ef->nsegs++] = (struct elf_seg){ .off = ph.p_offset, .filesz = ph.p_filesz,
							  .vaddr = ph.p_vaddr, .memsz = ph.p_memsz,
							  .exec = ph.p_flags & PF_X };
	}
	return 0;
}

static int elf_file__index(struct elf_file *ef)
{
	size_t phnum, shnum;
	GElf_Ehdr eh;
	int err;

	if (elf_kind(ef->elf) != ELF_K_ELF)
		return elf_file__fail(ef, -ENOEXEC, "not an ELF file");
	if (!gelf_getehdr(ef->elf, &eh))
		return elf_file__fail(ef, -EINVAL, elf_errmsg(-1));
	ef->dyn = eh.e_type == ET_DYN;
	if (elf_getphdrnum(ef->elf, &phnum) || elf_getshdrnum(ef->elf, &shnum))
		return elf_file__fail(ef, -EINVAL, elf_errmsg(-1));
	/* libelf quietly drops headers that lie past the end of the file: a truncated file. */
	if ((eh.e_phnum != PN_XNUM && phnum != eh.e_phnum) || (eh.e_shnum && shnum != eh.e_shnum))
		return elf_file__fail(ef, -EINVAL, "headers past the end of the file (truncated?)");
	err = elf_file__load_segs(ef, phnum);
	if (err)
		return err;
	elf_file__load_build_id(ef, phnum);
	return 0;
}

/*
 * mmap is faster and shares the page cache, but a file that shrinks under a
 * mapping turns reads past its new end into SIGBUS: a user who owns a mapped
 * file could kill stacktap by truncating it. Only root can shrink a file
 * root owns and nobody else may write: those are mapped. Others are read
 * into memory whole (libelf's own read mode leaks on malformed files), up to
 * a bound past which they are mapped after all (no user binary comes near).
 */
#define ELF_COPY_MAX (1ull << 30)

static bool elf_file__may_map(const struct stat *st)
{
	return (st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH))) ||
	       (uint64_t)st->st_size > ELF_COPY_MAX;
}

/* Reads all of @fd into *image. Return: 0, or -errno. */
static int elf_file__read_all(int fd, const struct stat *st, void **image)
{
	size_t size = (size_t)st->st_size, at = 0;
	uint8_t *buf = malloc(size ? size : 1);
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	while (at < size) {
		r = pread(fd, buf + at, size - at, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			free(buf);
			return r < 0 ? -errno : -EINVAL; /* shrunk under us */
		}
		at += (size_t)r;
	}
	*image = buf;
	return 0;
}

/* A libelf handle on @fd: mapped, or over a private copy in *image (freed by the caller). */
static Elf *elf_file__begin(int fd, void **image)
{
	struct stat st;

	*image = NULL;
	if (fstat(fd, &st))
		return NULL;
	if (elf_file__may_map(&st) || !S_ISREG(st.st_mode))
		return elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf_file__read_all(fd, &st, image))
		return NULL;
	return elf_memory(*image, (size_t)st.st_size);
}

struct elf_file *elf_file__open_fd(int fd, const char *name, unsigned flags)
{
	struct elf_file *ef;
	int err;

	if (!name)
		name = "?";
	ef = calloc(1, sizeof(*ef));
	if (ef)
		ef->fd = ef->debug_fd = -1;
	if (!ef || !(ef->name = strdup(name))) {
		if (!(flags & ELF_OPEN_QUIET))
			st_err("elf: %s: out of memory", name);
		err = -ENOMEM;
		goto err_free;
	}
	ef->flags = flags;
	ef->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (ef->fd < 0 || fstat(ef->fd, &ef->st)) {
		err = elf_file__fail(ef, -errno, "cannot dup fd");
		goto err_free;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = elf_file__fail(ef, -EINVAL, "libelf version mismatch");
		goto err_free;
	}
	ef->elf = elf_file__begin(ef->fd, &ef->image);
	if (!ef->elf) {
		err = elf_file__fail(ef, -EINVAL, elf_errmsg(-1));
		goto err_free;
	}
	err = elf_file__index(ef);
	if (err)
		goto err_free;
	return ef;
err_free:
	elf_file__free(ef);
	errno = -err;
	return NULL;
}

struct elf_file *elf_file__open(const char *path)
{
	enum safe_open_why why;
	struct elf_file *ef;
	int fd, err;

	/* The user named it: links are fine, but never block on a FIFO or read a device. */
	fd = safe_open(AT_FDCWD, path, SAFE_OPEN_FOLLOW, NULL, &why);
	if (fd < 0) {
		err = why == SAFE_OPEN_ERROR ? errno : why == SAFE_OPEN_MISSING ? ENOENT : ENOEXEC;
		st_err("elf: %s: %s", path,
		       why == SAFE_OPEN_ERROR || why == SAFE_OPEN_MISSING ? strerror(err)
									  : safe_open_why_text(why));
		errno = err;
		return NULL;
	}
	ef = elf_file__open_fd(fd, path, 0);
	err = errno;
	close(fd);
	errno = err;
	return ef;
}

const char *elf_file__name(const struct elf_file *ef)
{
	return ef->name;
}

bool elf_file__is_dyn(const struct elf_file *ef)
{
	return ef->dyn;
}

size_t elf_file__build_id(const struct elf_file *ef, const uint8_t **id)
{
	*id = ef->build_id_len ? ef->build_id : NULL;
	return ef->build_id_len;
}

const char *elf_file__build_id_hex(const struct elf_file *ef)
{
	return ef->build_id_len ? ef->build_id_hex : NULL;
}

static void elf_file__fnv(uint64_t h[2], const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h[0] = (h[0] ^ p[i]) * 0x100000001b3ULL;
		h[1] = (h[1] ^ p[i]) * 0x100000001b3ULL;
	}
}

static void elf_file__fnv_chunk(void *h, const void *p, size_t n)
{
	elf_file__fnv(h, p, n);
}

/*
 * Feeds @size bytes of @fd to @h. Return: 0, or -1 when the file could not
 * be read whole (@h is then as it was).
 */
static int elf_file__fnv_fd(uint64_t h[2], int fd, size_t size)
{
	uint64_t acc[2] = { h[0], h[1] };

	if (read_fd_chunks(fd, size, elf_file__fnv_chunk, acc) != (ssize_t)size)
		return -1;
	h[0] = acc[0];
	h[1] = acc[1];
	return 0;
}

/*
 * No build ID: two FNV-1a passes (different seeds) over the whole image make
 * a 16-byte key. A mapped file is hashed by reads, not through its mapping:
 * touching every page of it left the whole file resident in stacktap while
 * the model lived (a system-wide profile meeting Go's toolchain, which has no
 * GNU build ID, held 29 MB of `compile`, `go`, `link` and `asm` that way).
 */
static void elf_file__hash(struct elf_file *ef)
{
	uint64_t h[2] = { 0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL };
	size_t size = 0;
	const uint8_t *p = (const uint8_t *)elf_rawfile(ef->elf, &size);

	ef->hashed = true;
	if (!p)
		return;
	if (ef->image || elf_file__fnv_fd(h, ef->fd, size))
		elf_file__fnv(h, p, size);
	memcpy(ef->hash, h, sizeof(h));
}

size_t elf_file__identity(struct elf_file *ef, const uint8_t **id, bool *is_hash)
{
	*is_hash = !ef->build_id_len;
	if (ef->build_id_len)
		return elf_file__build_id(ef, id);
	if (!ef->hashed)
		elf_file__hash(ef);
	*id = ef->hash;
	return sizeof(ef->hash);
}

const struct elf_seg *elf_file__segments(const struct elf_file *ef, size_t *n)
{
	*n = ef->nsegs;
	return ef->segs;
}

int elf_file__offset_to_vaddr(const struct elf_file *ef, uint64_t off, uint64_t *vaddr)
{
	const struct elf_seg *s;
	size_t i;

	for (i = 0; i < ef->nsegs; i++) {
		s = &ef->segs[i];
		if (off >= s->off && off - s->off < s->filesz) {
			*vaddr = s->vaddr + (off - s->off);
			return 0;
		}
	}
	return -ENOENT;
}

int elf_file__vaddr_to_offset(const struct elf_file *ef, uint64_t vaddr, uint64_t *off)
{
	const struct elf_seg *s;
	size_t i;

	for (i = 0; i < ef->nsegs; i++) {
		s = &ef->segs[i];
		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = s->off + (vaddr - s->vaddr);
			return 0;
		}
	}
	return -ENOENT;
}

Elf *elf_file__elf(const struct elf_file *ef)
{
	return ef->elf;
}

/* A debug file candidate opened by the accept callback, with what it must have. */
struct debug_probe {
	const char *section; /* NULL: any ELF file */
	Elf *elf;
	void *image;
};

static void debug_probe__release(struct debug_probe *p)
{
	if (p->elf)
		elf_end(p->elf);
	free(p->image);
	p->elf = NULL;
	p->image = NULL;
}

/* Is the candidate on @fd an ELF file (with the section asked for)? Kept open if so. */
static bool elf_file__debug_accept(int fd, void *ctx)
{
	struct debug_probe *p = ctx;
	GElf_Shdr sh;

	debug_probe__release(p);
	p->elf = elf_file__begin(fd, &p->image);
	if (p->elf && elf_kind(p->elf) == ELF_K_ELF &&
	    (!p->section || elf_section_by_name(p->elf, p->section, &sh)))
		return true;
	debug_probe__release(p);
	return false;
}

/* Look the debug file up (among those with @section, when given); the first found is kept. */
static void elf_file__find_debug(struct elf_file *ef, const char *section)
{
	struct debug_probe p = { .section = section };
	int fd;

	fd = debug_file__open(ef->elf, ef->name, ef->build_id, ef->build_id_len, &ef->st,
			      elf_file__debug_accept, &p, &ef->debug_path);
	if (fd < 0) {
		debug_probe__release(&p);
		return;
	}
	ef->debug_tried = true;
	ef->debug_fd = fd;
	ef->debug_elf = p.elf;
	ef->debug_image = p.image;
}

Elf *elf_file__debug_elf(struct elf_file *ef, const char **path)
{
	if (!ef->debug_tried) {
		elf_file__find_debug(ef, NULL);
		ef->debug_tried = true;
	}
	if (path)
		*path = ef->debug_elf ? ef->debug_path : NULL;
	return ef->debug_elf;
}

Elf *elf_file__debug_elf_with(struct elf_file *ef, const char *section, const char **path)
{
	GElf_Shdr sh;

	/* Not found now: a later elf_file__debug_elf() still looks for one without @section. */
	if (!ef->debug_tried)
		elf_file__find_debug(ef, section);
	if (!ef->debug_elf || !elf_section_by_name(ef->debug_elf, section, &sh))
		return NULL;
	if (path)
		*path = ef->debug_path;
	return ef->debug_elf;
}

Elf *elf_file__dwarf_elf(struct elf_file *ef)
{
	Elf *dbg = elf_file__debug_elf(ef, NULL);

	return dbg ? dbg : ef->elf;
}

/*
 * Fedora-style stripped files keep the names of their static functions in
 * MiniDebugInfo, a small ELF with a .symtab (same link-time addresses):
 * merged with .dynsym. Return: whether it named anything.
 */
static bool elf_file__add_minidebug(struct elf_file *ef)
{
	bool symtab = false;

	ef->mini = minidebug__open(ef->elf, ef->name);
	if (!ef->mini)
		return false;
	if (elf_symtab__add(ef->syms, minidebug__elf(ef->mini), false, &symtab) || !symtab) {
		/* Names may already point into it: it lives as long as the file either way. */
		return false;
	}
	return true;
}

/*
 * A stripped file (Debian's libc) keeps only .dynsym: its local functions,
 * such as __libc_start_call_main, are named only in the separate debug file,
 * or (Fedora and kin) in MiniDebugInfo. Their .symtab uses the same
 * addresses as the file itself. A debug file that is missing or broken just
 * means fewer names.
 */
static void elf_file__load_syms(struct elf_file *ef)
{
	bool symtab = false, dbg_symtab = false, mini_symtab = false;
	Elf *dbg;

	ef->syms_tried = true;
	ef->syms = elf_symtab__new(ef->name);
	if (!ef->syms || elf_symtab__add(ef->syms, ef->elf, true, &symtab))
		goto err_free;
	if (!symtab && (dbg = elf_file__debug_elf(ef, NULL)) != NULL)
		elf_symtab__add(ef->syms, dbg, false, &dbg_symtab);
	if (!symtab && !dbg_symtab)
		mini_symtab = elf_file__add_minidebug(ef);
	ef->has_symtab = symtab || dbg_symtab || mini_symtab;
	if (!elf_symtab__finish(ef->syms)) {
		st_info("elf: %s: %zu symbols%s", ef->name, elf_symtab__len(ef->syms),
			!symtab && dbg_symtab ? " (from its debug file)" :
			mini_symtab ? " (with MiniDebugInfo)" : "");
		return;
	}
err_free:
	elf_symtab__free(ef->syms);
	ef->syms = NULL;
}

const struct elf_sym *elf_file__find_sym(struct elf_file *ef, uint64_t vaddr)
{
	if (!ef->syms_tried)
		elf_file__load_syms(ef);
	return ef->syms ? elf_symtab__find(ef->syms, vaddr, ef->segs, ef->nsegs) : NULL;
}

const struct elf_sym *elf_file__sym_by_name(struct elf_file *ef, const char *name)
{
	if (!ef->syms_tried)
		elf_file__load_syms(ef);
	return ef->syms ? elf_symtab__by_name(ef->syms, name) : NULL;
}

size_t elf_file__nr_syms(struct elf_file *ef)
{
	if (!ef->syms_tried)
		elf_file__load_syms(ef);
	return ef->syms ? elf_symtab__len(ef->syms) : 0;
}

bool elf_file__has_symtab(struct elf_file *ef)
{
	if (!ef->syms_tried)
		elf_file__load_syms(ef);
	return ef->has_symtab;
}

/* The dwz file of the DWARF, found and checked by lib/elf/debug_file.c. */
static void elf_file__find_alt(struct elf_file *ef)
{
	uint8_t want[ELF_BUILD_ID_MAX];
	const uint8_t *id;
	const char *dpath = NULL;
	Elf *dwarf_elf = elf_file__debug_elf(ef, &dpath);
	size_t want_len = 0;
	char *path = NULL;
	int fd;

	if (!dwarf_elf)
		dwarf_elf = ef->elf;
	fd = debug_file__open_alt(dwarf_elf, dpath ? dpath : ef->name, want, &want_len, &path);
	if (fd == -ENODATA) {
		ef->alt_err = 1; /* no .gnu_debugaltlink: nothing to find */
		return;
	}
	if (fd >= 0) {
		ef->alt = elf_file__open_fd(fd, path, ELF_OPEN_QUIET);
		close(fd);
	}
	if (ef->alt && (elf_file__build_id(ef->alt, &id) != want_len || memcmp(id, want, want_len))) {
		elf_file__free(ef->alt);
		ef->alt = NULL;
	}
	ef->alt_err = ef->alt ? 1 : -ENOENT;
	if (!ef->alt)
		st_info("elf: %s: the dwz file its DWARF names (%s) was not found or does not match",
			ef->name, path ? path : "?");
	free(path);
}

int elf_file__dwarf_alt(struct elf_file *ef, Elf **alt)
{
	if (!ef->alt_err)
		elf_file__find_alt(ef);
	*alt = ef->alt ? ef->alt->elf : NULL;
	return ef->alt_err < 0 ? ef->alt_err : 0;
}

void *elf_file__part(const struct elf_file *ef, enum elf_part which)
{
	return (unsigned)which < ELF_PART_MAX ? ef->parts[which].part : NULL;
}

void elf_file__set_part(struct elf_file *ef, enum elf_part which, void *part,
			void (*release)(void *))
{
	struct elf_part_slot *s;

	if ((unsigned)which >= ELF_PART_MAX)
		return;
	s = &ef->parts[which];
	if (s->part && s->release)
		s->release(s->part);
	s->part = part;
	s->release = release;
}

void elf_file__drop_pages(struct elf_file *ef)
{
	size_t size = 0;
	char *raw;

	if (!ef || ef->image || !ef->elf)
		return;
	raw = elf_rawfile(ef->elf, &size);
	/*
	 * MADV_PAGEOUT, not DONTNEED: should libelf have read the file into
	 * memory after all, its pages are swapped out or kept, never zeroed.
	 */
	if (raw && size)
		madvise(raw, size, MADV_PAGEOUT);
}

bool elf_file__unlinked(const struct elf_file *ef)
{
	struct stat st;

	return ef && ef->fd >= 0 && !fstat(ef->fd, &st) && st.st_nlink == 0;
}

void elf_file__free(struct elf_file *ef)
{
	int i;

	if (!ef)
		return;
	for (i = 0; i < ELF_PART_MAX; i++)
		if (ef->parts[i].part && ef->parts[i].release)
			ef->parts[i].release(ef->parts[i].part);
	elf_symtab__free(ef->syms);
	minidebug__free(ef->mini);
	elf_file__free(ef->alt);
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	if (ef->debug_elf)
		elf_end(ef->debug_elf);
	if (ef->debug_fd >= 0)
		close(ef->debug_fd);
	free(ef->image);
	free(ef->debug_image);
	free(ef->debug_path);
	free(ef->segs);
	free(ef->name);
	free(ef);
}
