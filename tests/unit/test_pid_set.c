// SPDX-License-Identifier: GPL-2.0
/* pid_set: every pid of an unsorted list (repeats too) is in, its neighbours are not. */
#include "lib/util/pid_set.h"
#include "tests/unit/check.h"

int main(void)
{
	const int pids[] = { 907, 3, 4194304, 42, 3, 1 };
	const size_t n = sizeof(pids) / sizeof(pids[0]);
	struct pid_set s;
	size_t i;

	CHECK(pid_set__init(&s, NULL, 0) == 0);
	CHECK(!pid_set__has(&s, 0) && !pid_set__has(&s, 1));
	pid_set__free(&s);

	CHECK(pid_set__init(&s, pids, n) == 0);
	CHECK_EQ_U64(s.n, n);
	for (i = 0; i < n; i++) {
		CHECK(pid_set__has(&s, pids[i]));
		CHECK(!pid_set__has(&s, pids[i] - 1)); /* no two pids here are neighbours */
	}
	CHECK(!pid_set__has(&s, 2) && !pid_set__has(&s, 41) && !pid_set__has(&s, 4194305));
	pid_set__free(&s);
	CHECK(s.n == 0 && !pid_set__has(&s, 3));
	return CHECK_DONE();
}
