// SPDX-License-Identifier: GPL-2.0
/* The process registry: executable mappings per pid, ELF files shared and held open. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/proc/maps.h"
#include "lib/proc/registry.h"
#include "lib/util/log.h"

/*
 * Three tables, each a chained hash keyed by two integers:
 *  - procs: pid -> the executable mappings as last read, sorted by start;
 *  - files: (device, inode) -> the ELF file, opened once and kept open until
 *    procs__free(), or NULL when it could not be opened (not retried);
 *  - strs:  interned mapping paths, so a user_frame's path stays valid across
 *    procs__refresh() for the life of the registry.
 * vDSO images have no inode; they are compared byte for byte instead.
 */

struct hnode {
	struct hnode *next;
	uint64_t k1, k2;
};

struct htab {
	struct hnode **b;
	size_t nb, n;
};

struct reg_file {
	struct hnode node;      /* (dev, inode) */
	struct elf_file *ef;
};

struct reg_vdso {
	struct reg_vdso *next;
	void *image;
	size_t size;
	struct reg_file file;
};

struct reg_str {
	struct hnode node;      /* (hash, length) */
	char s[];
};

struct reg_map {
	uint64_t start, end, pgoff;
	const char *path;       /* interned */
	struct reg_file *file;  /* NULL for anonymous code */
};

struct reg_proc {
	struct hnode node;      /* (pid, 0) */
	struct reg_map *maps;
	size_t n;
};

struct proc_registry {
	struct htab procs, files, strs;
	struct reg_vdso *vdsos;
};

/* The vDSO is one or two pages; anything far larger is not one. */
#define VDSO_MAX_SIZE (1u << 20)

static size_t hash__slot(size_t nb, uint64_t k1, uint64_t k2)
{
	uint64_t x = k1 * 0x9e3779b97f4a7c15ull ^ k2;

	x ^= x >> 31;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 29;
	return (size_t)x & (nb - 1);
}

/* The first node with key (k1, k2); callers walk ->next for more with equal keys. */
static struct hnode *htab__first(const struct htab *h, uint64_t k1, uint64_t k2)
{
	struct hnode *n;

	if (!h->nb)
		return NULL;
	for (n = h->b[hash__slot(h->nb, k1, k2)]; n; n = n->next)
		if (n->k1 == k1 && n->k2 == k2)
			return n;
	return NULL;
}

static struct hnode *hnode__next_same(struct hnode *n)
{
	uint64_t k1 = n->k1, k2 = n->k2;

	for (n = n->next; n; n = n->next)
		if (n->k1 == k1 && n->k2 == k2)
			return n;
	return NULL;
}

/* Keeps the load factor at or under 1 by doubling. Return: 0 or -ENOMEM. */
static int htab__insert(struct htab *h, struct hnode *node)
{
	struct hnode **nb, *n, *next;
	size_t i, size, s;

	if (h->n >= h->nb) {
		size = h->nb ? h->nb * 2 : 256;
		if (size < h->nb || size > SIZE_MAX / sizeof(*nb))
			return -ENOMEM;
		nb = calloc(size, sizeof(*nb));
		if (!nb)
			return -ENOMEM;
		for (i = 0; i < h->nb; i++) {
			for (n = h->b[i]; n; n = next) {
				next = n->next;
				s = hash__slot(size, n->k1, n->k2);
				n->next = nb[s];
				nb[s] = n;
			}
		}
		free(h->b);
		h->b = nb;
		h->nb = size;
	}
	s = hash__slot(h->nb, node->k1, node->k2);
	node->next = h->b[s];
	h->b[s] = node;
	h->n++;
	return 0;
}

/* Calls @fn on every node; @fn may free the node. */
static void htab__drain(struct htab *h, void (*fn)(struct hnode *))
{
	struct hnode *n, *next;
	size_t i;

	for (i = 0; i < h->nb; i++)
		for (n = h->b[i]; n; n = next) {
			next = n->next;
			fn(n);
		}
	free(h->b);
	h->b = NULL;
	h->nb = h->n = 0;
}

static uint64_t str__hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

/* Return: the registry's copy of @s, or NULL when out of memory. */
static const char *procs__intern(struct proc_registry *r, const char *s)
{
	uint64_t h = str__hash(s), len = strlen(s);
	struct hnode *n;
	struct reg_str *rs;

	for (n = htab__first(&r->strs, h, len); n; n = hnode__next_same(n)) {
		rs = (struct reg_str *)n;
		if (!memcmp(rs->s, s, len))
			return rs->s;
	}
	rs = malloc(sizeof(*rs) + len + 1);
	if (!rs)
		return NULL;
	memcpy(rs->s, s, len + 1);
	rs->node.k1 = h;
	rs->node.k2 = len;
	if (htab__insert(&r->strs, &rs->node)) {
		free(rs);
		return NULL;
	}
	return rs->s;
}

/* Return: an fd on @path when it still is the mapped inode, else -1. */
static int procs__open_checked(const char *path, uint64_t inode)
{
	struct stat st;
	int fd;

	/* Non-blocking: a FIFO put where the mapped file was would block the open forever. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -1;
	/* Only the inode: overlayfs reports another device in maps than stat does. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_ino != inode) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * map_files opens the very file that is mapped, even deleted or in another
 * mount namespace, but needs CAP_SYS_ADMIN; the path fallbacks then need the
 * file still in place, which the inode check verifies.
 */
static struct elf_file *procs__open_elf(int pid, const struct proc_map *m)
{
	static const char deleted[] = " (deleted)";
	size_t plen = strlen(m->path), dlen = sizeof(deleted) - 1;
	char buf[PATH_MAX + 64];
	struct elf_file *ef;
	int fd;

	snprintf(buf, sizeof(buf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, m->start,
		 m->end);
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && m->path[0] == '/' &&
	    !(plen >= dlen && !strcmp(m->path + plen - dlen, deleted))) {
		if ((size_t)snprintf(buf, sizeof(buf), "/proc/%d/root%s", pid, m->path) <
		    sizeof(buf))
			fd = procs__open_checked(buf, m->inode);
		if (fd < 0)
			fd = procs__open_checked(m->path, m->inode);
	}
	if (fd < 0) {
		st_info("procs: %d: cannot open %s", pid, m->path);
		return NULL;
	}
	ef = elf_file__open_fd(fd, m->path);
	close(fd);
	return ef;
}

/* Return: the vDSO image of @pid read from its memory (malloc'ed), or NULL. */
static void *procs__read_vdso(int pid, const struct proc_map *m, size_t *size)
{
	char path[64];
	void *buf;
	ssize_t r;
	int fd;

	if (m->end - m->start > VDSO_MAX_SIZE)
		return NULL;
	*size = m->end - m->start;
	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	buf = malloc(*size);
	r = buf ? pread(fd, buf, *size, (off_t)m->start) : -1;
	close(fd);
	if (r != (ssize_t)*size) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The vDSO as a file: images identical to one seen before share its entry. */
static struct reg_file *procs__get_vdso(struct proc_registry *r, int pid,
					const struct proc_map *m)
{
	struct reg_vdso *v;
	size_t size;
	void *image;
	int fd;

	image = procs__read_vdso(pid, m, &size);
	if (!image)
		return NULL;
	for (v = r->vdsos; v; v = v->next) {
		if (v->size == size && !memcmp(v->image, image, size)) {
			free(image);
			return &v->file;
		}
	}
	v = calloc(1, sizeof(*v));
	fd = v ? memfd_create("stacktap-vdso", MFD_CLOEXEC) : -1;
	if (fd >= 0 && write(fd, image, size) == (ssize_t)size)
		v->file.ef = elf_file__open_fd(fd, "[vdso]");
	if (fd >= 0)
		close(fd);
	if (!v || !v->file.ef) {
		free(v);
		free(image);
		return NULL;
	}
	v->image = image;
	v->size = size;
	v->next = r->vdsos;
	r->vdsos = v;
	return &v->file;
}

/* Return: the shared file of a mapping, or NULL for anonymous code or a failed open. */
static struct reg_file *procs__get_file(struct proc_registry *r, int pid,
					const struct proc_map *m)
{
	uint64_t dev = (uint64_t)m->dev_major << 32 | m->dev_minor;
	struct reg_file *f;
	struct hnode *n;

	if (!m->inode)
		return strcmp(m->path, "[vdso]") ? NULL : procs__get_vdso(r, pid, m);
	n = htab__first(&r->files, dev, m->inode);
	if (n)
		return (struct reg_file *)n;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->node.k1 = dev;
	f->node.k2 = m->inode;
	f->ef = procs__open_elf(pid, m);
	if (htab__insert(&r->files, &f->node)) {
		elf_file__free(f->ef);
		free(f);
		return NULL;
	}
	return f;
}

/* Return: the executable mappings of @maps, in order, or NULL (errno) on failure. */
static struct reg_map *procs__convert(struct proc_registry *r, int pid,
				      const struct proc_map *maps, size_t n, size_t *nx)
{
	struct reg_map *out;
	size_t i, k = 0;

	out = calloc(n ? n : 1, sizeof(*out));
	if (!out)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!(maps[i].prot & PROC_MAP_X))
			continue;
		out[k].start = maps[i].start;
		out[k].end = maps[i].end;
		out[k].pgoff = maps[i].pgoff;
		out[k].path = procs__intern(r, maps[i].path);
		if (!out[k].path) {
			free(out);
			errno = ENOMEM;
			return NULL;
		}
		out[k].file = procs__get_file(r, pid, &maps[i]);
		k++;
	}
	*nx = k;
	return out;
}

static struct reg_proc *procs__lookup(const struct proc_registry *r, int pid)
{
	return (struct reg_proc *)htab__first(&r->procs, (uint64_t)pid, 0);
}

/* Install @maps as @pid's mappings (a new entry when @p is NULL). Return: 0 or -ENOMEM. */
static int procs__install(struct proc_registry *r, int pid, struct reg_proc *p,
			  const struct proc_map *maps, size_t n)
{
	struct reg_map *rm;
	size_t nx = 0;

	rm = procs__convert(r, pid, maps, n, &nx);
	if (!rm)
		goto err_nomem;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || (p->node.k1 = (uint64_t)pid, htab__insert(&r->procs, &p->node))) {
			free(p);
			free(rm);
			goto err_nomem;
		}
	}
	free(p->maps);
	p->maps = rm;
	p->n = nx;
	return 0;
err_nomem:
	st_err("procs: %d: out of memory", pid);
	return -ENOMEM;
}

/* Read @pid's maps into @p (a new entry when NULL). Return: 0, -ESRCH, -ENOMEM. */
static int procs__load(struct proc_registry *r, int pid, struct reg_proc *p)
{
	struct proc_map *maps;
	size_t n;
	int err;

	err = proc_maps__read(pid, &maps, &n);
	if (err)
		return err;
	err = procs__install(r, pid, p, maps, n);
	proc_maps__free(maps, n);
	return err;
}

int procs__set_maps(struct proc_registry *r, int pid, const struct proc_map *maps, size_t n)
{
	return procs__install(r, pid, procs__lookup(r, pid), maps, n);
}

struct proc_registry *procs__new(void)
{
	struct proc_registry *r = calloc(1, sizeof(*r));

	if (!r)
		st_err("procs: out of memory");
	return r;
}

int procs__see(struct proc_registry *r, int pid)
{
	if (procs__lookup(r, pid))
		return 0;
	return procs__load(r, pid, NULL);
}

int procs__refresh(struct proc_registry *r, int pid)
{
	return procs__load(r, pid, procs__lookup(r, pid));
}

/* Return: the mapping of @p holding @addr, or NULL. */
static const struct reg_map *reg_proc__find(const struct reg_proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= p->maps[lo - 1].end)
		return NULL;
	return &p->maps[lo - 1];
}

int procs__resolve(struct proc_registry *r, int pid, uint64_t addr, struct user_frame *out)
{
	const struct reg_proc *p = procs__lookup(r, pid);
	const struct reg_map *m;
	const struct elf_sym *s;
	struct elf_file *ef;
	uint64_t vaddr;

	if (!p)
		return -ESRCH;
	m = reg_proc__find(p, addr);
	if (!m)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	out->path = m->path;
	out->file_off = addr - m->start + m->pgoff;
	ef = m->file ? m->file->ef : NULL;
	if (!ef)
		return 0;
	out->build_id_len = elf_file__build_id(ef, &out->build_id);
	if (elf_file__offset_to_vaddr(ef, out->file_off, &vaddr))
		return 0;
	s = elf_file__find_sym(ef, vaddr);
	if (s) {
		out->sym = s->name;
		out->sym_off = vaddr - s->addr;
	}
	return 0;
}

struct elf_file *procs__find_elf(struct proc_registry *r, int pid, uint64_t addr,
				 uint64_t *bias)
{
	const struct reg_proc *p = procs__lookup(r, pid);
	const struct reg_map *m = p ? reg_proc__find(p, addr) : NULL;
	uint64_t vaddr;

	if (!m || !m->file || !m->file->ef ||
	    elf_file__offset_to_vaddr(m->file->ef, addr - m->start + m->pgoff, &vaddr))
		return NULL;
	*bias = addr - vaddr;
	return m->file->ef;
}

static void reg_proc__free(struct hnode *n)
{
	struct reg_proc *p = (struct reg_proc *)n;

	free(p->maps);
	free(p);
}

static void reg_file__free(struct hnode *n)
{
	struct reg_file *f = (struct reg_file *)n;

	elf_file__free(f->ef);
	free(f);
}

static void reg_str__free(struct hnode *n)
{
	free((struct reg_str *)n);
}

void procs__free(struct proc_registry *r)
{
	struct reg_vdso *v, *next;

	if (!r)
		return;
	htab__drain(&r->procs, reg_proc__free);
	htab__drain(&r->files, reg_file__free);
	htab__drain(&r->strs, reg_str__free);
	for (v = r->vdsos; v; v = next) {
		next = v->next;
		elf_file__free(v->file.ef);
		free(v->image);
		free(v);
	}
	free(r);
}
