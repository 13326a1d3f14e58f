/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CTF 1.8 (Common Trace Format) traces, as babeltrace2 and Trace Compass
 * read them: a directory with a "metadata" file (TSDL text) and one stream
 * file of packets. One event class per probe, named by its spec; each event
 * has the time (CLOCK_MONOTONIC, the clock BPF stamps events with, offset
 * to the wall clock), comm, pid, tid, cpu and both stacks, each as a
 * sequence of addresses and a sequence of frame names of the same length.
 * Names travel in the event itself, so every reader shows them without a
 * symbol table of ours (docs/outputs.md says why).
 */
#ifndef ST_OUT_CTF_H
#define ST_OUT_CTF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/report/report.h"

struct ctf_opts {
	const char *const *events; /* event class names, e.g. probe specs; id = index */
	size_t nevents;
	int64_t clock_offset_ns;   /* wall clock minus CLOCK_MONOTONIC; 0: times since boot */
	const char *hostname;      /* env.hostname; NULL: none */
};

struct ctf_writer;

/**
 * ctf_writer__new() - start a trace in directory @dir (made when missing):
 * writes @dir/metadata and opens @dir/stream.
 *
 * Return: the writer, or NULL with errno set (logged).
 */
struct ctf_writer *ctf_writer__new(const char *dir, const struct ctf_opts *o);

/**
 * ctf_writer__event() - one event of class @id for @s (its ts, pid, tid, cpu,
 * comm and frames). Times must not go backwards.
 *
 * Return: 0, -EINVAL for an unknown @id, -ENOMEM or -EIO.
 */
int ctf_writer__event(struct ctf_writer *w, uint32_t id, const struct report_stack *s);

/**
 * ctf_writer__close() - write what is buffered and free @w (NULL is fine).
 *
 * Return: 0, or the first error met since ctf_writer__new().
 */
int ctf_writer__close(struct ctf_writer *w);

/**
 * out_ctf() - every stack of @r as @count events of class 0, in time order.
 *
 * Return: 0, or a negative errno (logged).
 */
int out_ctf(const char *dir, struct report *r, const struct ctf_opts *o);

#endif
