/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recording writer: entries in, zstd-compressed chunks out, as they
 * come. Memory holds one chunk being filled, whatever the recording's
 * length. Format: lib/record/format.h, docs/recording.md.
 */
#ifndef ST_RECORD_WRITER_H
#define ST_RECORD_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "lib/record/format.h"

struct rec_writer;

/**
 * rec_writer__open() - create @path (mode 0600: a recording holds stack
 * memory and, archived, whole files) and write its header.
 * @level: zstd level (1-19); 0 for the default
 *
 * Return: the writer, or NULL with errno set (logged, naming @path).
 */
struct rec_writer *rec_writer__open(const char *path, int level);

/**
 * rec_writer__add() - append one entry whose payload is @head then @tail
 * (either may be empty); the chunk is compressed and written once it holds
 * REC_CHUNK_TARGET bytes.
 *
 * Return: 0, -E2BIG for a payload over REC_ENTRY_MAX, or the first write
 * error (every later call returns it too; logged once).
 */
int rec_writer__add(struct rec_writer *w, enum rec_type type, const void *head, size_t hlen,
		    const void *tail, size_t tlen);

/**
 * rec_writer__flush() - compress and write what is pending, so a reader of
 * the file as it is now sees every entry added so far.
 *
 * Return: 0 or the first write error.
 */
int rec_writer__flush(struct rec_writer *w);

/** rec_writer__bytes() - Return: bytes written to the file so far. */
uint64_t rec_writer__bytes(const struct rec_writer *w);

/** rec_writer__raw_bytes() - Return: entry bytes added so far, before compression. */
uint64_t rec_writer__raw_bytes(const struct rec_writer *w);

/**
 * rec_writer__close() - flush, close and free; NULL is fine.
 *
 * Return: 0, or the first error the writer met (the file is then incomplete).
 */
int rec_writer__close(struct rec_writer *w);

#endif
