/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every ELF file model of a session, each opened once: keyed by (device,
 * inode), and shared by build ID, so the same library reached through two
 * paths, two containers' layers or two copies is one model with one symbol
 * table and one unwind table. A file that could not be used is remembered
 * too, so it is not tried again for every process that maps it.
 */
#ifndef ST_ELF_CACHE_H
#define ST_ELF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/elf/elf_file.h"

struct elf_cache;

/* The device part of a key: major << 32 | minor, as /proc/PID/maps and the kernel give it. */
static inline uint64_t elf_cache_dev(uint32_t major, uint32_t minor)
{
	return (uint64_t)major << 32 | minor;
}

/** elf_cache__new() - Return: an empty cache, or NULL (ENOMEM). */
struct elf_cache *elf_cache__new(void);

/**
 * elf_cache__get() - the model of the file (@dev, @ino).
 * @dev: major << 32 | minor
 * @known: receives whether the file was seen before (also when it proved unusable)
 *
 * Return: the model, or NULL (unseen, or unusable).
 */
struct elf_file *elf_cache__get(struct elf_cache *c, uint64_t dev, uint64_t ino, bool *known);

/**
 * elf_cache__add() - make the open @fd the model of (@dev, @ino); @fd < 0
 * records the file as unusable. A model with the same build ID, if any, is
 * shared instead of opening a second one.
 * @name: the file's path, for messages and its .gnu_debuglink
 *
 * Return: the model, or NULL (not an ELF file, broken, or out of memory:
 * remembered as unusable; nothing is logged).
 */
struct elf_file *elf_cache__add(struct elf_cache *c, uint64_t dev, uint64_t ino, int fd,
				const char *name);

/** elf_cache__set_why() - remember why the file (@dev, @ino), added unusable, is unusable. */
void elf_cache__set_why(struct elf_cache *c, uint64_t dev, uint64_t ino, uint8_t why);

/** elf_cache__why() - Return: the reason given by elf_cache__set_why(), or 0. */
uint8_t elf_cache__why(const struct elf_cache *c, uint64_t dev, uint64_t ino);

/**
 * elf_cache__add_image() - the model of an ELF image that exists only in
 * memory (the vDSO, read from a process); an image equal to one seen before
 * shares its model.
 *
 * Return: the model, or NULL.
 */
struct elf_file *elf_cache__add_image(struct elf_cache *c, const void *image, size_t size,
				      const char *name);

/**
 * elf_cache__hold() - one more holder of @ef (a model this cache returned;
 * NULL is ignored): it stays until as many elf_cache__put()s.
 */
void elf_cache__hold(struct elf_cache *c, struct elf_file *ef);

/**
 * elf_cache__put() - a holder of @ef lets go; at the last, @ef is freed
 * (fd closed, memory freed) and its (device, inode) keys, build-ID entry
 * and memory images are forgotten: the file is opened again when it is
 * asked for again. A model never held, and NULL, are left alone.
 *
 * Return: true when @ef was freed.
 */
bool elf_cache__put(struct elf_cache *c, struct elf_file *ef);

/** elf_cache__len() - Return: models open now. */
size_t elf_cache__len(const struct elf_cache *c);

/** elf_cache__released() - Return: models freed so far by their last elf_cache__put(). */
uint64_t elf_cache__released(const struct elf_cache *c);

/** elf_cache__free() - free every model, held or not; NULL is fine. */
void elf_cache__free(struct elf_cache *c);

#endif
