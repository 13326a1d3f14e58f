/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording reader: the header checked, then entries one at a time,
 * chunk by chunk. A recording is hostile input: every length is checked
 * before it is used, and damage (a cut, a flipped byte, a lost chunk) ends
 * the entries with one logged line; every entry before the damage is still
 * returned. Format: lib/record/format.h, docs/recording.md.
 */
#ifndef ST_RECORD_READER_H
#define ST_RECORD_READER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/record/format.h"

struct rec_entry {
	uint16_t type;     /* enum rec_type; an unknown type is returned for the caller to skip */
	const void *data;  /* 8-aligned; valid until the next rec_reader__next() */
	size_t len;
};

struct rec_reader;

/**
 * rec_reader__open() - open @path and check its header.
 *
 * Return: the reader, or NULL with errno set and one line logged naming
 * @path: EINVAL not a recording, EPROTONOSUPPORT a newer format version,
 * EBADMSG a damaged header, or the open's own error.
 */
struct rec_reader *rec_reader__open(const char *path);

/**
 * rec_reader__open_mem() - the same over @len bytes at @buf (kept, not
 * copied); @name is what messages call it.
 */
struct rec_reader *rec_reader__open_mem(const void *buf, size_t len, const char *name);

/** rec_reader__header() - Return: the checked header. */
const struct rec_header *rec_reader__header(const struct rec_reader *r);

/**
 * rec_reader__next() - the next entry.
 *
 * Return: 1 with *e set; 0 at the clean end of the recording; -EBADMSG when
 * the recording is damaged or cut short here (logged once; every later call
 * returns it too), -ENOMEM, or a read error.
 */
int rec_reader__next(struct rec_reader *r, struct rec_entry *e);

/** rec_reader__offset() - Return: bytes of the file consumed so far. */
uint64_t rec_reader__offset(const struct rec_reader *r);

/** rec_reader__size() - Return: the file's size in bytes. */
uint64_t rec_reader__size(const struct rec_reader *r);

/** rec_reader__free() - NULL is fine. */
void rec_reader__free(struct rec_reader *r);

#endif
