// SPDX-License-Identifier: GPL-2.0
/* Unit test of lib/session/features: the task-storage probe, and the tests' way around it. */
#include <stdlib.h>
#include <unistd.h>

#include "lib/session/features.h"
#include "tests/unit/check.h"

/*
 * Told to, the probe answers no with that as its reason, and keeps its
 * answer: it probes once. (The real probe needs root: test_walk_cache
 * runs both ways as root.)
 */
static void test_told_no(void)
{
	char why[128] = "unset";

	setenv(FEATURE_ENV_NO_TASK_STORAGE, "1", 1);
	CHECK(!feature_task_storage(why, sizeof(why)));
	CHECK_STR(why, FEATURE_ENV_NO_TASK_STORAGE "=1");
	unsetenv(FEATURE_ENV_NO_TASK_STORAGE);
	CHECK(!feature_task_storage(NULL, 0));
	CHECK(!feature_task_storage(why, 4));
	CHECK_STR(why, "STA"); /* cut to the room given */
}

int main(void)
{
	test_told_no();
	return CHECK_DONE();
}
