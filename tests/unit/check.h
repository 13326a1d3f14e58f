/* SPDX-License-Identifier: GPL-2.0 */
/* A tiny unit-test harness: CHECK* record failures, TEST_MAIN prints a summary. */
#ifndef ST_CHECK_H
#define ST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures, check_count;

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

/* Exit status 0 when every check held; the runner counts the binary once. */
#define CHECK_DONE()                                                                       \
	(fprintf(stderr, "%s: %d checks, %d failed\n", __FILE__, check_count,             \
		 check_failures),                                                          \
	 check_failures ? 1 : 0)

#endif
