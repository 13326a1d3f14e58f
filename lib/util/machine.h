/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Preparing the machine before anything is loaded or attached: the
 * privileges to trace, the kernel's BTF, tracefs, the memlock limit. Every
 * capturing command runs this first (lib/session/run.h: st_run__prepare()),
 * so a fresh machine needs nothing done by hand.
 */
#ifndef ST_UTIL_MACHINE_H
#define ST_UTIL_MACHINE_H

#include <stddef.h>
#include <stdint.h>

/* Capability numbers newer than some libc headers. */
#define ST_CAP_SYS_ADMIN 21
#define ST_CAP_PERFMON 38
#define ST_CAP_BPF 39

/**
 * machine_prepare() - make this machine ready for our BPF programs, once per
 * process: privileges (root's CAP_SYS_ADMIN), /sys/kernel/btf/vmlinux,
 * tracefs (mounted at /sys/kernel/tracing when neither it nor
 * /sys/kernel/debug/tracing is there, as perf does), and RLIMIT_MEMLOCK
 * raised where the kernel still charges BPF memory to it.
 *
 * Every failure prints one line on stderr naming the thing and the reason.
 * Nothing is loaded or attached here except a one-entry map that measures
 * the memlock charge and is closed at once.
 *
 * Return: 0, or -errno (the command then exits 1).
 */
int machine_prepare(void);

/**
 * machine_tracefs() - where tracefs is, after a successful machine_prepare().
 *
 * Return: "/sys/kernel/tracing" or "/sys/kernel/debug/tracing"; NULL before.
 */
const char *machine_tracefs(void);

/**
 * machine_caps_missing() - what the effective capabilities @eff lack for tracing:
 * CAP_SYS_ADMIN, which CAP_BPF and CAP_PERFMON do not replace here (machine.c says why).
 * @last_cap: the kernel's /proc/sys/kernel/cap_last_cap (below ST_CAP_BPF: no CAP_BPF)
 * @buf: receives the one-line reason when something is missing
 *
 * Return: 0 when @eff is enough, else -EPERM with @buf set.
 */
int machine_caps_missing(uint64_t eff, int last_cap, char *buf, size_t len);

#endif
