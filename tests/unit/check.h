/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit-test harness: CHECK* record failures, CHECK_SKIP says what
 * could not run, CHECK_DONE gives the exit status tests/run.sh reads.
 */
#ifndef ST_CHECK_H
#define ST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_count, check_skips;

/* The exit status of a test that could not run at all (automake's convention). */
#define CHECK_EXIT_SKIP 77

#define CHECK(cond)                                                                        \
	do {                                                                               \
		check_count++;                                                             \
		if (!(cond)) {                                                             \
			check_failures++;                                                  \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		}                                                                          \
	} while (0)

#define CHECK_EQ_U64(a, b)                                                                 \
	do {                                                                               \
		uint64_t a_ = (a), b_ = (b);                                               \
		check_count++;                                                             \
		if (a_ != b_) {                                                            \
			check_failures++;                                                  \
			fprintf(stderr, "%s:%d: %s == %" PRIu64 ", want %" PRIu64 "\n",     \
				__FILE__, __LINE__, #a, a_, b_);                           \
		}                                                                          \
	} while (0)

#define CHECK_STR(a, b)                                                                    \
	do {                                                                               \
		const char *a_ = (a), *b_ = (b);                                           \
		check_count++;                                                             \
		if (!a_ || !b_ || strcmp(a_, b_)) {                                        \
			check_failures++;                                                  \
			fprintf(stderr, "%s:%d: %s == \"%s\", want \"%s\"\n", __FILE__,     \
				__LINE__, #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)");     \
		}                                                                          \
	} while (0)

/*
 * A part of the test that cannot run here (hidden /proc/kallsyms, a fixture
 * not built): one "SKIP what: why" line, which the runner records as a skip,
 * never as a pass.
 */
#define CHECK_SKIP(what, ...)                                                              \
	do {                                                                               \
		check_skips++;                                                             \
		fprintf(stderr, "SKIP %s: ", what);                                        \
		fprintf(stderr, __VA_ARGS__);                                              \
		fputc('\n', stderr);                                                       \
	} while (0)

/*
 * Exit status: 1 when a check failed; 77 (skip) when nothing was checked;
 * else 0. The runner counts the binary once, and each SKIP line as a skip.
 */
#define CHECK_DONE()                                                                       \
	(fprintf(stderr, "%s: %d checks, %d failed, %d skipped\n", __FILE__, check_count, \
		 check_failures, check_skips),                                             \
	 check_failures ? 1 : check_count ? 0 : CHECK_EXIT_SKIP)

#endif
