// SPDX-License-Identifier: GPL-2.0
/* One ELF file opened with libelf: build ID, PT_LOAD table, function symbols. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sym/elf_file.h"
#include "lib/util/log.h"

/*
 * Symbols: STT_FUNC and STT_GNU_IFUNC with a section, from .symtab and
 * .dynsym merged. The table is sorted by (address, binding, name) with
 * GLOBAL before WEAK before LOCAL, and exact (address, name) duplicates
 * (the same symbol in both tables) are dropped. Aliases at one address are
 * all kept so each can be found by name, but elf_file__find_sym() returns the
 * first of them: the global name, which is the one a user links against.
 *
 * Names point into libelf's string sections (elf_strptr() checks they are
 * in bounds and terminated), so they live as long as the file is open.
 */

struct elf_seg {
	uint64_t off, filesz, vaddr, memsz;
};

struct elf_file {
	char *name;
	int fd;
	Elf *elf;
	bool dyn;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_seg *segs;
	size_t nsegs;
	struct elf_sym *syms;
	uint8_t *rank;       /* binding rank of syms[i] while sorting */
	size_t nsyms, cap;
	uint32_t *by_name;   /* indexes into syms sorted by (name, index) */
	int debug_fd;        /* separate debug file whose .symtab we use, or -1 */
	Elf *debug_elf;
};

/* Where Debian's -dbg/-dbgsym packages put separate debug files, by build ID. */
#define DEBUG_BUILD_ID_DIR "/usr/lib/debug/.build-id"


#define NOTE_GNU_NAME "GNU"

static int elf_file__fail(const struct elf_file *ef, int err, const char *why)
{
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

/* PT_NOTE first (what the loader maps), then SHT_NOTE for files without phdrs. */
static void elf_file__load_build_id(struct elf_file *ef, size_t phnum)
{
	Elf_Scn *scn = NULL;
	Elf_Data *data;
	GElf_Phdr ph;
	GElf_Shdr sh;
	size_t i;

	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(ef->elf, i, &ph) || ph.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(ef->elf, ph.p_offset, ph.p_filesz,
					    ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		if (data && elf_file__note_build_id(ef, data))
			return;
	}
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && elf_file__note_build_id(ef, data))
			return;
	}
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
		ef->segs[ef->nsegs++] = (struct elf_seg){ ph.p_offset, ph.p_filesz, ph.p_vaddr,
							  ph.p_memsz };
	}
	return 0;
}

static int elf_file__push_sym(struct elf_file *ef, const struct elf_sym *s, uint8_t rank)
{
	struct elf_sym *ns;
	uint8_t *nr;
	size_t c;

	if (ef->nsyms == ef->cap) {
		c = ef->cap ? ef->cap * 2 : 1024;
		if (c > UINT32_MAX || c > SIZE_MAX / sizeof(*ns))
			return -ENOMEM;
		ns = realloc(ef->syms, c * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		ef->syms = ns;
		nr = realloc(ef->rank, c);
		if (!nr)
			return -ENOMEM;
		ef->rank = nr;
		ef->cap = c;
	}
	ef->rank[ef->nsyms] = rank;
	ef->syms[ef->nsyms++] = *s;
	return 0;
}

static uint8_t sym__rank(unsigned char info)
{
	switch (GELF_ST_BIND(info)) {
	case STB_GLOBAL: return 0;
	case STB_WEAK: return 1;
	default: return 2;
	}
}

static int elf_file__load_symtab(struct elf_file *ef, Elf *elf, Elf_Scn *scn,
				 const GElf_Shdr *sh)
{
	struct elf_sym s;
	Elf_Data *data;
	GElf_Sym sym;
	size_t i, n, esz;
	const char *name;
	int type;

	data = elf_getdata(scn, NULL);
	esz = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!data || !esz)
		return elf_file__fail(ef, -EINVAL, "unreadable symbol table");
	n = data->d_size / esz;
	for (i = 1; i < n; i++) {
		if (i > INT32_MAX || !gelf_getsym(data, (int)i, &sym))
			break;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s = (struct elf_sym){ sym.st_value, sym.st_size, name };
		if (elf_file__push_sym(ef, &s, sym__rank(sym.st_info)))
			return elf_file__fail(ef, -ENOMEM, "out of memory");
	}
	return 0;
}

/* Sorting moves syms and ranks together; an index array keeps that simple. */
struct sym_key {
	struct elf_sym sym;
	uint8_t rank;
};

static int sym_key__cmp_dedup(const void *pa, const void *pb)
{
	const struct sym_key *a = pa, *b = pb;
	int c;

	if (a->sym.addr != b->sym.addr)
		return a->sym.addr < b->sym.addr ? -1 : 1;
	c = strcmp(a->sym.name, b->sym.name);
	if (c)
		return c;
	return (int)a->rank - (int)b->rank;
}

static int sym_key__cmp(const void *pa, const void *pb)
{
	const struct sym_key *a = pa, *b = pb;

	if (a->sym.addr != b->sym.addr)
		return a->sym.addr < b->sym.addr ? -1 : 1;
	if (a->rank != b->rank)
		return (int)a->rank - (int)b->rank;
	return strcmp(a->sym.name, b->sym.name);
}

struct name_key {
	const char *name;
	uint32_t ix;
};

static int name_key__cmp(const void *pa, const void *pb)
{
	const struct name_key *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	if (c)
		return c;
	return a->ix < b->ix ? -1 : a->ix > b->ix;
}

/* Ties on a name go to the lowest index, i.e. the preferred symbol at the lowest address. */
static int elf_file__index_names(struct elf_file *ef)
{
	struct name_key *k;
	size_t i;

	k = calloc(ef->nsyms, sizeof(*k));
	if (!k)
		return elf_file__fail(ef, -ENOMEM, "out of memory");
	for (i = 0; i < ef->nsyms; i++)
		k[i] = (struct name_key){ ef->syms[i].name, (uint32_t)i };
	qsort(k, ef->nsyms, sizeof(*k), name_key__cmp);
	for (i = 0; i < ef->nsyms; i++)
		ef->by_name[i] = k[i].ix;
	free(k);
	return 0;
}

static int elf_file__sort_syms(struct elf_file *ef)
{
	struct sym_key *k;
	size_t i, n = 0;

	if (!ef->nsyms)
		return 0;
	k = calloc(ef->nsyms, sizeof(*k));
	ef->by_name = calloc(ef->nsyms, sizeof(*ef->by_name));
	if (!k || !ef->by_name) {
		free(k);
		return elf_file__fail(ef, -ENOMEM, "out of memory");
	}
	for (i = 0; i < ef->nsyms; i++)
		k[i] = (struct sym_key){ ef->syms[i], ef->rank[i] };
	qsort(k, ef->nsyms, sizeof(*k), sym_key__cmp_dedup);
	for (i = 0; i < ef->nsyms; i++)
		if (!n || k[i].sym.addr != k[n - 1].sym.addr ||
		    strcmp(k[i].sym.name, k[n - 1].sym.name))
			k[n++] = k[i];
	qsort(k, n, sizeof(*k), sym_key__cmp);
	for (i = 0; i < n; i++)
		ef->syms[i] = k[i].sym;
	ef->nsyms = n;
	free(k);
	return elf_file__index_names(ef);
}

/* Loads the symbol tables of @elf; *symtab tells whether a full .symtab was there. */
static int elf_file__load_tables(struct elf_file *ef, Elf *elf, bool want_dynsym, bool *symtab)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int err;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return elf_file__fail(ef, -EINVAL, "bad section header");
		if (sh.sh_type != SHT_SYMTAB && (sh.sh_type != SHT_DYNSYM || !want_dynsym))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*symtab = true;
		err = elf_file__load_symtab(ef, elf, scn, &sh);
		if (err)
			return err;
	}
	return 0;
}

/*
 * A stripped file (Debian's libc) keeps only .dynsym: its local functions,
 * such as __libc_start_call_main, are named only in the separate debug file
 * found by build ID. Its .symtab uses the same addresses as the file itself.
 * A debug file that is missing or broken just means fewer names.
 */
static void elf_file__load_debug_syms(struct elf_file *ef)
{
	char path[sizeof(DEBUG_BUILD_ID_DIR) + 2 * ELF_BUILD_ID_MAX + 16];
	bool symtab = false;
	size_t i, n;

	if (ef->build_id_len < 2)
		return;
	n = snprintf(path, sizeof(path), "%s/%02x/", DEBUG_BUILD_ID_DIR, ef->build_id[0]);
	for (i = 1; i < ef->build_id_len; i++)
		n += snprintf(path + n, sizeof(path) - n, "%02x", ef->build_id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	ef->debug_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->debug_fd < 0)
		return;
	ef->debug_elf = elf_begin(ef->debug_fd, ELF_C_READ_MMAP, NULL);
	if (ef->debug_elf && elf_kind(ef->debug_elf) == ELF_K_ELF)
		elf_file__load_tables(ef, ef->debug_elf, false, &symtab);
}

static int elf_file__load_syms(struct elf_file *ef)
{
	bool symtab = false;
	int err;

	err = elf_file__load_tables(ef, ef->elf, true, &symtab);
	if (err)
		return err;
	if (!symtab)
		elf_file__load_debug_syms(ef);
	err = elf_file__sort_syms(ef);
	free(ef->rank);
	ef->rank = NULL;
	return err;
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
	return elf_file__load_syms(ef);
}

struct elf_file *elf_file__open_fd(int fd, const char *name)
{
	struct elf_file *ef;
	int err;

	if (!name)
		name = "?";
	ef = calloc(1, sizeof(*ef));
	if (ef)
		ef->fd = ef->debug_fd = -1;
	if (!ef || !(ef->name = strdup(name))) {
		st_err("elf: %s: out of memory", name);
		err = -ENOMEM;
		goto err_free;
	}
	ef->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (ef->fd < 0) {
		err = elf_file__fail(ef, -errno, "cannot dup fd");
		goto err_free;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		err = elf_file__fail(ef, -EINVAL, "libelf version mismatch");
		goto err_free;
	}
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
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
	struct elf_file *ef;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		st_err("elf: %s: %s", path, strerror(err));
		errno = err;
		return NULL;
	}
	ef = elf_file__open_fd(fd, path);
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

/* End of the PT_LOAD segment holding @vaddr, or @vaddr + 1 when none does. */
static uint64_t elf_file__seg_end(const struct elf_file *ef, uint64_t vaddr)
{
	size_t i;

	for (i = 0; i < ef->nsegs; i++)
		if (vaddr >= ef->segs[i].vaddr && vaddr - ef->segs[i].vaddr < ef->segs[i].memsz)
			return ef->segs[i].vaddr + ef->segs[i].memsz;
	return vaddr + 1;
}

/* Index of the first symbol with addr > @vaddr (when @le) or addr >= @vaddr. */
static size_t elf_file__bound(const struct elf_file *ef, uint64_t vaddr, bool le)
{
	size_t lo = 0, hi = ef->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (ef->syms[mid].addr < vaddr || (le && ef->syms[mid].addr == vaddr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct elf_sym *elf_file__find_sym(const struct elf_file *ef, uint64_t vaddr)
{
	const struct elf_sym *s;
	size_t after, first;
	uint64_t end;

	after = elf_file__bound(ef, vaddr, true);
	if (after == 0)
		return NULL;
	first = elf_file__bound(ef, ef->syms[after - 1].addr, false);
	s = &ef->syms[first];
	if (s->size) {
		end = s->addr + s->size < s->addr ? UINT64_MAX : s->addr + s->size;
	} else {
		end = elf_file__seg_end(ef, s->addr);
		if (after < ef->nsyms && ef->syms[after].addr < end)
			end = ef->syms[after].addr;
	}
	return vaddr < end ? s : NULL;
}

const struct elf_sym *elf_file__sym_by_name(const struct elf_file *ef, const char *name)
{
	size_t lo = 0, hi = ef->nsyms, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(ef->syms[ef->by_name[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < ef->nsyms && !strcmp(ef->syms[ef->by_name[lo]].name, name))
		return &ef->syms[ef->by_name[lo]];
	return NULL;
}

size_t elf_file__nr_syms(const struct elf_file *ef)
{
	return ef->nsyms;
}

void elf_file__free(struct elf_file *ef)
{
	if (!ef)
		return;
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	if (ef->debug_elf)
		elf_end(ef->debug_elf);
	if (ef->debug_fd >= 0)
		close(ef->debug_fd);
	free(ef->by_name);
	free(ef->rank);
	free(ef->syms);
	free(ef->segs);
	free(ef->name);
	free(ef);
}
