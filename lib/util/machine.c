// SPDX-License-Identifier: GPL-2.0
/*
 * Preparing the machine before anything is loaded or attached.
 *
 * The order matters: privileges first, so an unprivileged user reads one
 * line about them and nothing else; then what the programs are compiled
 * against (BTF); then what attaching needs (tracefs); then what loading
 * needs (memlock). Each step probes the machine as it is, never a kernel
 * version.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <linux/capability.h>
#include <linux/magic.h>

#include "lib/util/machine.h"
#include "lib/util/log.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

/* Where tracefs is looked for, in perf's order; the first is where it is mounted. */
static const char *const tracefs_dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

static const char *tracefs_root;

const char *machine_tracefs(void)
{
	return tracefs_root;
}

/*
 * CAP_SYS_ADMIN, even where the kernel has CAP_BPF and CAP_PERFMON: with
 * those two alone (measured, libbpf 1.1, kernel 6.18) loading fails, as
 * libbpf lists the kernel's BTF objects to resolve a kfunc the kernel may
 * lack (BPF_BTF_GET_NEXT_ID needs CAP_SYS_ADMIN), and mounting tracefs
 * needs it too. Saying so here beats an "Invalid argument" at load.
 */
int machine_caps_missing(uint64_t eff, int last_cap, char *buf, size_t len)
{
	bool bpf = eff & (1ull << ST_CAP_BPF), perfmon = eff & (1ull << ST_CAP_PERFMON);

	if (eff & (1ull << ST_CAP_SYS_ADMIN))
		return 0;
	if (last_cap < ST_CAP_BPF || !bpf || !perfmon)
		snprintf(buf, len, "tracing needs root: CAP_SYS_ADMIN is missing");
	else
		snprintf(buf, len, "tracing needs root: CAP_SYS_ADMIN is missing (CAP_BPF and "
				   "CAP_PERFMON are not enough: loading lists the kernel's BTF "
				   "objects, which needs it)");
	return -EPERM;
}

/* The kernel's highest capability number; 0 when unknown (then CAP_SYS_ADMIN decides). */
static int prepare__last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int last = 0;

	if (f) {
		if (fscanf(f, "%d", &last) != 1)
			last = 0;
		fclose(f);
	}
	return last;
}

static int prepare__privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	char why[160];
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data)) {
		st_err("capabilities: cannot read them: %s", strerror(errno));
		return -errno;
	}
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (!machine_caps_missing(eff, prepare__last_cap(), why, sizeof(why)))
		return 0;
	st_err("%s", why);
	return -EPERM;
}

static int prepare__btf(void)
{
	if (!access(VMLINUX_BTF, R_OK))
		return 0;
	st_err("%s: %s: the kernel has no BTF, which the BPF programs are relocated against "
	       "(CONFIG_DEBUG_INFO_BTF=y)", VMLINUX_BTF, strerror(errno));
	return -ENOENT;
}

static bool is_tracefs(const char *dir)
{
	struct statfs sf;

	/* statfs follows debugfs's automount of tracing/ too. */
	return !statfs(dir, &sf) && sf.f_type == TRACEFS_MAGIC;
}

static const char *prepare__find_tracefs(void)
{
	size_t i;

	for (i = 0; i < sizeof(tracefs_dirs) / sizeof(tracefs_dirs[0]); i++)
		if (is_tracefs(tracefs_dirs[i]))
			return tracefs_dirs[i];
	return NULL;
}

static int prepare__tracefs(void)
{
	char events[64];
	int err = 0;

	tracefs_root = prepare__find_tracefs();
	if (!tracefs_root) {
		/* EBUSY: another tracer mounted it just now. */
		if (mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) && errno != EBUSY)
			err = -errno;
		tracefs_root = prepare__find_tracefs();
	}
	if (!tracefs_root) {
		st_err("tracefs: not mounted at %s or %s, and mounting it at %s failed: %s",
		       tracefs_dirs[0], tracefs_dirs[1], tracefs_dirs[0],
		       strerror(err ? -err : ENODEV));
		return err ? err : -ENODEV;
	}
	snprintf(events, sizeof(events), "%s/events", tracefs_root);
	if (faccessat(AT_FDCWD, events, R_OK | X_OK, AT_EACCESS)) {
		err = -errno;
		st_err("tracefs: %s: %s%s", events, strerror(-err),
		       err == -EACCES ? " (it is root's: run as root)" : "");
		tracefs_root = NULL;
		return err;
	}
	return 0;
}

/*
 * Kernels before memcg accounting of BPF memory (5.11) charge every map to
 * RLIMIT_MEMLOCK, whose default of 8 MiB is less than one ring buffer. The
 * probe: can a one-entry map be created with the limit at 0? If only with
 * the limit restored, the kernel charges it, and the limit is raised.
 */
/*
 * A one-element map made by the bpf() system call itself: libbpf's
 * bpf_map_create() raises RLIMIT_MEMLOCK to infinity on its first call
 * where the kernel charges maps to it, and never again, so a probe through
 * it would find the limit raised, pass, and put back the old one for the
 * real maps to fail on (seen on 5.10: "failed to create: Operation not
 * permitted", ulimit -l 64 KiB).
 */
static int prepare__raw_map(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	return (int)syscall(__NR_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
}

static int prepare__memlock(void)
{
	struct rlimit old, zero, inf = { RLIM_INFINITY, RLIM_INFINITY };
	int fd, err;

	if (getrlimit(RLIMIT_MEMLOCK, &old) || old.rlim_cur == RLIM_INFINITY)
		return 0;
	zero = (struct rlimit){ 0, old.rlim_max };
	if (setrlimit(RLIMIT_MEMLOCK, &zero))
		return 0;
	fd = prepare__raw_map();
	err = fd < 0 ? -errno : 0;
	setrlimit(RLIMIT_MEMLOCK, &old);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (err != -EPERM) {
		st_err("bpf: cannot create a map: %s", strerror(-err));
		return err;
	}
	if (setrlimit(RLIMIT_MEMLOCK, &inf)) {
		err = -errno;
		st_err("memlock: this kernel charges BPF maps to RLIMIT_MEMLOCK (%llu KiB here) and "
		       "raising it failed: %s", (unsigned long long)old.rlim_cur / 1024,
		       strerror(-err));
		return err;
	}
	st_info("memlock: this kernel charges BPF maps to RLIMIT_MEMLOCK: raised to unlimited");
	return 0;
}

int machine_prepare(void)
{
	static int result = 1; /* 1: not run yet */

	if (result != 1)
		return result;
	result = prepare__privileges();
	if (!result)
		result = prepare__btf();
	if (!result)
		result = prepare__tracefs();
	if (!result)
		result = prepare__memlock();
	return result;
}
