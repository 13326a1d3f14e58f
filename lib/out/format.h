/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output formats by name, and which a command can write. One table, so
 * every command parses --format the same way and says the same thing when
 * it cannot write one.
 */
#ifndef ST_OUT_FORMAT_H
#define ST_OUT_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

enum out_format {
	OUT_FMT_TEXT = 0,
	OUT_FMT_FOLDED,
	OUT_FMT_JSON,
	OUT_FMT_PPROF,
	OUT_FMT_SPEEDSCOPE,
	OUT_FMT_PERF_SCRIPT,
	OUT_FMT_FLAMEGRAPH,
	OUT_FMT_CTF,
	OUT_FMT_N,
};

#define OUT_FMT_BIT(f) (1u << (f))

/* What a command that prints merged stacks writes (count, profile, offcpu, report). */
#define OUT_FMTS_STACKS                                                                  \
	(OUT_FMT_BIT(OUT_FMT_TEXT) | OUT_FMT_BIT(OUT_FMT_FOLDED) | OUT_FMT_BIT(OUT_FMT_PPROF) | \
	 OUT_FMT_BIT(OUT_FMT_SPEEDSCOPE) | OUT_FMT_BIT(OUT_FMT_PERF_SCRIPT) |              \
	 OUT_FMT_BIT(OUT_FMT_FLAMEGRAPH))

/* What a command that prints every event writes (snoop). */
#define OUT_FMTS_EVENTS                                                                  \
	(OUT_FMT_BIT(OUT_FMT_TEXT) | OUT_FMT_BIT(OUT_FMT_JSON) |                           \
	 OUT_FMT_BIT(OUT_FMT_PERF_SCRIPT) | OUT_FMT_BIT(OUT_FMT_CTF))

/**
 * out_format_parse() - the format called @name, if the command can write it.
 * @can: OUT_FMT_BIT()s of the formats the command writes
 * @err: receives one line saying why not, e.g. "format 'ctf': count cannot
 *       write it (want text, folded, ...)"
 *
 * Return: 0, -EINVAL for an unknown name, -EOPNOTSUPP for one outside @can.
 */
int out_format_parse(const char *name, unsigned can, enum out_format *fmt, char *err, size_t len);

/** out_format_name() - Return: the name --format takes for @fmt. */
const char *out_format_name(enum out_format fmt);

/** out_format_is_dir() - Return: true when @fmt writes a directory (CTF), not a file. */
bool out_format_is_dir(enum out_format fmt);

/** out_format_is_binary() - Return: true when @fmt is not text (pprof). */
bool out_format_is_binary(enum out_format fmt);

#endif
