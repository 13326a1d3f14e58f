// SPDX-License-Identifier: GPL-2.0
/*
 * Every ELF file model of a session, by (device, inode) and by build ID.
 *
 * A model is counted: whoever keeps its pointer past the moment it was
 * handed out holds it (elf_cache__hold()), and the last elf_cache__put()
 * frees it, with every key that leads to it. Each model holds an open fd
 * and its tables: on a machine where binaries are rebuilt all day, keeping
 * every model ever opened held hundreds of fds (deleted files among them,
 * their disk space pinned) and grew memory with every new binary. A model
 * nobody ever held lives as long as the cache, as before counting.
 */
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
	struct file_key *next_of_model; /* the other keys of ef (a build ID shared) */
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

/* A model and everything that leads to it, so the last put can undo it all. */
struct model {
	struct hnode node;        /* (the model's address, 0) */
	struct elf_file *ef;
	uint64_t refs;            /* elf_cache__hold()s not put yet */
	struct id_key *id;        /* its build-ID key, or NULL */
	struct file_key *keys;    /* its (dev, ino) keys, through next_of_model */
};

struct elf_cache {
	struct htab files, ids;
	struct htab models;       /* struct model: every model, freed with the cache at the latest */
	struct image *images;
	uint64_t released;        /* models freed by their last put */
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

static struct model *cache__model(const struct elf_cache *c, const struct elf_file *ef)
{
	return (struct model *)htab__first(&c->models, (uint64_t)(uintptr_t)ef, 0);
}

/* Return: 0, or -ENOMEM (then @ef is not the cache's: the caller frees it). */
static int cache__own(struct elf_cache *c, struct elf_file *ef)
{
	const uint8_t *id;
	size_t len = elf_file__build_id(ef, &id);
	struct model *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->node.k1 = (uint64_t)(uintptr_t)ef;
	m->ef = ef;
	if (len) {
		m->id = calloc(1, sizeof(*m->id));
		if (!m->id)
			goto err_free_model;
		m->id->node.k1 = id_k1(id, len);
		m->id->node.k2 = len;
		m->id->ef = ef;
		if (htab__insert(&c->ids, &m->id->node))
			goto err_free_id;
	}
	if (htab__insert(&c->models, &m->node))
		goto err_remove_id;
	return 0;
err_remove_id:
	if (m->id)
		htab__remove(&c->ids, &m->id->node);
err_free_id:
	free(m->id);
err_free_model:
	free(m);
	return -ENOMEM;
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
	struct model *m;

	if (!k)
		return NULL;
	k->node.k1 = dev;
	k->node.k2 = ino;
	k->ef = fd >= 0 ? cache__open(c, fd, name) : NULL;
	if (htab__insert(&c->files, &k->node)) {
		free(k);
		return NULL; /* the model, if any, stays owned and is freed with the cache */
	}
	m = k->ef ? cache__model(c, k->ef) : NULL;
	if (m) {
		k->next_of_model = m->keys;
		m->keys = k;
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

void elf_cache__hold(struct elf_cache *c, struct elf_file *ef)
{
	struct model *m = ef ? cache__model(c, ef) : NULL;

	if (m)
		m->refs++;
}

static void image__free(struct image *im)
{
	free(im->bytes);
	free(im);
}

/* The images of @ef leave the list: the same bytes seen again make a new model. */
static void cache__drop_images(struct elf_cache *c, const struct elf_file *ef)
{
	struct image **p = &c->images, *im;

	while ((im = *p)) {
		if (im->ef == ef) {
			*p = im->next;
			image__free(im);
		} else {
			p = &im->next;
		}
	}
}

/* Every way to @m goes, then @m and its model: the file is opened afresh if mapped again. */
static void cache__drop(struct elf_cache *c, struct model *m)
{
	struct file_key *k, *next;

	for (k = m->keys; k; k = next) {
		next = k->next_of_model;
		htab__remove(&c->files, &k->node);
		free(k);
	}
	if (m->id) {
		htab__remove(&c->ids, &m->id->node);
		free(m->id);
	}
	cache__drop_images(c, m->ef);
	htab__remove(&c->models, &m->node);
	elf_file__free(m->ef);
	free(m);
	c->released++;
}

bool elf_cache__put(struct elf_cache *c, struct elf_file *ef)
{
	struct model *m = ef ? cache__model(c, ef) : NULL;

	if (!m || !m->refs || --m->refs)
		return false;
	cache__drop(c, m);
	return true;
}

size_t elf_cache__len(const struct elf_cache *c)
{
	return c->models.n;
}

uint64_t elf_cache__released(const struct elf_cache *c)
{
	return c->released;
}

static void node__free(struct hnode *n)
{
	free(n);
}

static void model__free(struct hnode *n)
{
	elf_file__free(((struct model *)n)->ef);
	free(n);
}

void elf_cache__free(struct elf_cache *c)
{
	struct image *im, *next;

	if (!c)
		return;
	htab__drain(&c->files, node__free);
	htab__drain(&c->ids, node__free);
	htab__drain(&c->models, model__free);
	for (im = c->images; im; im = next) {
		next = im->next;
		image__free(im);
	}
	free(c);
}
