// SPDX-License-Identifier: GPL-2.0
/* Every ELF file model of a session, by (device, inode) and by build ID. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/elf/elf_cache.h"
#include "lib/util/htab.h"

struct file_key {
	struct hnode node;   /* (dev, ino) */
	struct elf_file *ef; /* NULL: unusable */
	uint8_t why;         /* the caller's reason it is unusable (elf_cache__set_why) */
};

struct id_key {
	struct hnode node;   /* (first 8 bytes of the build ID, its length) */
	struct elf_file *ef;
};

struct image {
	struct image *next;
	void *bytes;
	size_t size;
	struct elf_file *ef;
};

struct elf_cache {
	struct htab files, ids;
	struct elf_file **owned; /* every model, freed with the cache */
	size_t n, cap;
	struct image *images;
};

struct elf_cache *elf_cache__new(void)
{
	return calloc(1, sizeof(struct elf_cache));
}

struct elf_file *elf_cache__get(struct elf_cache *c, uint64_t dev, uint64_t ino, bool *known)
{
	struct file_key *k = (struct file_key *)htab__first(&c->files, dev, ino);

	*known = k != NULL;
	return k ? k->ef : NULL;
}

static uint64_t id_k1(const uint8_t *id, size_t len)
{
	uint64_t k = 0;

	memcpy(&k, id, len < sizeof(k) ? len : sizeof(k));
	return k;
}

/* Return: the model that already has @ef's build ID, or NULL. */
static struct elf_file *cache__same_id(struct elf_cache *c, const struct elf_file *ef)
{
	const uint8_t *id, *other;
	size_t len = elf_file__build_id(ef, &id);
	struct hnode *n;

	if (!len)
		return NULL;
	for (n = htab__first(&c->ids, id_k1(id, len), len); n; n = hnode__next_same(n)) {
		struct id_key *k = (struct id_key *)n;

		if (elf_file__build_id(k->ef, &other) == len && !memcmp(id, other, len))
			return k->ef;
	}
	return NULL;
}

static int cache__own(struct elf_cache *c, struct elf_file *ef)
{
	const uint8_t *id;
	size_t len = elf_file__build_id(ef, &id);
	struct elf_file **v;
	struct id_key *k;

	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;

		v = cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(c->owned, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		c->owned = v;
		c->cap = cap;
	}
	if (len) {
		k = calloc(1, sizeof(*k));
		if (!k)
			return -ENOMEM;
		k->node.k1 = id_k1(id, len);
		k->node.k2 = len;
		k->ef = ef;
		if (htab__insert(&c->ids, &k->node)) {
			free(k);
			return -ENOMEM;
		}
	}
	c->owned[c->n++] = ef;
	return 0;
}

/* The model of an open fd, or the one already holding its build ID. */
static struct elf_file *cache__open(struct elf_cache *c, int fd, const char *name)
{
	struct elf_file *ef = elf_file__open_fd(fd, name, ELF_OPEN_QUIET), *same;

	if (!ef)
		return NULL;
	same = cache__same_id(c, ef);
	if (same) {
		elf_file__free(ef);
		return same;
	}
	if (cache__own(c, ef)) {
		elf_file__free(ef);
		return NULL;
	}
	return ef;
}

struct elf_file *elf_cache__add(struct elf_cache *c, uint64_t dev, uint64_t ino, int fd,
				const char *name)
{
	struct file_key *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->node.k1 = dev;
	k->node.k2 = ino;
	k->ef = fd >= 0 ? cache__open(c, fd, name) : NULL;
	if (htab__insert(&c->files, &k->node)) {
		free(k);
		return NULL; /* the model, if any, stays owned and is freed with the cache */
	}
	return k->ef;
}

void elf_cache__set_why(struct elf_cache *c, uint64_t dev, uint64_t ino, uint8_t why)
{
	struct file_key *k = (struct file_key *)htab__first(&c->files, dev, ino);

	if (k)
		k->why = why;
}

uint8_t elf_cache__why(const struct elf_cache *c, uint64_t dev, uint64_t ino)
{
	const struct file_key *k = (const struct file_key *)htab__first(&c->files, dev, ino);

	return k ? k->why : 0;
}

struct elf_file *elf_cache__add_image(struct elf_cache *c, const void *image, size_t size,
				      const char *name)
{
	struct image *im;
	int fd;

	for (im = c->images; im; im = im->next)
		if (im->size == size && !memcmp(im->bytes, image, size))
			return im->ef;
	im = calloc(1, sizeof(*im));
	if (!im || !(im->bytes = malloc(size ? size : 1))) {
		free(im);
		return NULL;
	}
	memcpy(im->bytes, image, size);
	im->size = size;
	fd = memfd_create("stacktap-image", MFD_CLOEXEC);
	if (fd >= 0 && write(fd, image, size) == (ssize_t)size)
		im->ef = cache__open(c, fd, name);
	if (fd >= 0)
		close(fd);
	/* A broken image is remembered too: the same bytes would fail again. */
	im->next = c->images;
	c->images = im;
	return im->ef;
}

size_t elf_cache__len(const struct elf_cache *c)
{
	return c->n;
}

static void node__free(struct hnode *n)
{
	free(n);
}

void elf_cache__free(struct elf_cache *c)
{
	struct image *im, *next;
	size_t i;

	if (!c)
		return;
	htab__drain(&c->files, node__free);
	htab__drain(&c->ids, node__free);
	for (i = 0; i < c->n; i++)
		elf_file__free(c->owned[i]);
	free(c->owned);
	for (im = c->images; im; im = next) {
		next = im->next;
		free(im->bytes);
		free(im);
	}
	free(c);
}
