/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pprof: a gzipped profile.proto (github.com/google/pprof/proto), as `go tool
 * pprof`, Pyroscope and most profilers read it. Sample types follow the
 * report's info: events/count; samples/count + cpu/nanoseconds; blocks/count +
 * offcpu/nanoseconds. User locations sit at their file offset in a mapping
 * that names the file and its build ID, so pprof can symbolize them again
 * from the same binary elsewhere; inline frames are lines of the location of
 * the frame that follows them.
 */
#ifndef ST_OUT_PPROF_H
#define ST_OUT_PPROF_H

#include <stdint.h>
#include <stdio.h>

#include "lib/report/report.h"

struct pprof_opts {
	const char *comment;    /* one free-form line, e.g. the command; NULL: none */
	uint64_t time_ns;       /* when the profile was taken (Unix ns); 0: unknown */
	uint64_t duration_ns;   /* how long; 0: unknown */
};

/**
 * out_pprof() - write @r to @f as a gzipped profile.proto.
 *
 * Return: 0, -ENOMEM, or -EIO when @f could not be written.
 */
int out_pprof(FILE *f, struct report *r, const struct pprof_opts *o);

#endif
