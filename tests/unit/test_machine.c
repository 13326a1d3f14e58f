// SPDX-License-Identifier: GPL-2.0
/*
 * Preparing the machine: which capabilities are enough, the exact line for
 * each shortfall, and machine_prepare() itself on this machine (ready and
 * tracefs found or mounted as root; the one privileges line otherwise).
 */
#include <errno.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <linux/magic.h>

#include "lib/util/machine.h"
#include "tests/unit/check.h"

#define CAP(n) (1ull << (n))

static void test_caps(void)
{
	char why[256] = "";

	CHECK_EQ_U64(machine_caps_missing(CAP(ST_CAP_SYS_ADMIN), 40, why, sizeof(why)), 0);
	CHECK_EQ_U64(machine_caps_missing(CAP(ST_CAP_SYS_ADMIN), 37, why, sizeof(why)), 0);
	CHECK_EQ_U64(machine_caps_missing(~0ull, 40, why, sizeof(why)), 0);
	CHECK_EQ_U64(machine_caps_missing(0, 40, why, sizeof(why)), (uint64_t)-EPERM);
	CHECK_STR(why, "tracing needs root: CAP_SYS_ADMIN is missing");
	CHECK_EQ_U64(machine_caps_missing(CAP(ST_CAP_BPF), 40, why, sizeof(why)),
		     (uint64_t)-EPERM);
	CHECK_STR(why, "tracing needs root: CAP_SYS_ADMIN is missing");
	CHECK_EQ_U64(machine_caps_missing(CAP(ST_CAP_BPF) | CAP(ST_CAP_PERFMON), 40, why,
					  sizeof(why)), (uint64_t)-EPERM);
	CHECK_STR(why, "tracing needs root: CAP_SYS_ADMIN is missing (CAP_BPF and CAP_PERFMON are "
		       "not enough: loading lists the kernel's BTF objects, which needs it)");
	/* A kernel before CAP_BPF: the bits mean nothing there. */
	CHECK_EQ_U64(machine_caps_missing(CAP(ST_CAP_BPF) | CAP(ST_CAP_PERFMON), 37, why,
					  sizeof(why)), (uint64_t)-EPERM);
	CHECK_STR(why, "tracing needs root: CAP_SYS_ADMIN is missing");
}

static void test_prepare_here(void)
{
	struct statfs sf;
	int err = machine_prepare();

	if (geteuid() != 0) {
		CHECK_EQ_U64(err, (uint64_t)-EPERM);
		CHECK(machine_tracefs() == NULL);
		return;
	}
	CHECK_EQ_U64(err, 0);
	CHECK(machine_tracefs() != NULL);
	CHECK(machine_tracefs() && !statfs(machine_tracefs(), &sf) && sf.f_type == TRACEFS_MAGIC);
	CHECK_EQ_U64(machine_prepare(), 0); /* once per process, the same answer */
}

int main(void)
{
	test_caps();
	test_prepare_here();
	return CHECK_DONE();
}
