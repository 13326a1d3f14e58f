// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/proc/registry: frames of a child resolve after it has
 * exited, files are shared between processes, a forked child starts with its
 * parent's mappings, and an exec, a munmap or a new file at the same address
 * change the answer from their moment on; an exec read late is read at the
 * first event.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/elf/elf_file.h"
#include "lib/proc/lifecycle.h"
#include "lib/proc/registry.h"
#include "tests/unit/check.h"
#include "tests/unit/own_mapping.h"

__attribute__((noinline)) int reg_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 7 + 3;
}

static int main_bias_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1; /* the first object is the main program */
}

/* What the test expects for @addr, computed from this process's own view. */
struct expect {
	char exe[PATH_MAX];
	uint64_t file_off;
	const uint8_t *build_id;
	size_t build_id_len;
};

static int expect__init(struct expect *e, struct elf_file *self, uint64_t addr)
{
	uint64_t bias = 0;
	ssize_t len;

	len = readlink("/proc/self/exe", e->exe, sizeof(e->exe) - 1);
	if (len <= 0)
		return -1;
	e->exe[len] = '\0';
	dl_iterate_phdr(main_bias_cb, &bias);
	e->build_id_len = elf_file__build_id(self, &e->build_id);
	return elf_file__vaddr_to_offset(self, addr - bias, &e->file_off);
}

/* The symbol at a resolved location, and the offset into it. */
static const char *loc_sym(const struct proc_loc *loc, uint64_t *sym_off)
{
	const struct elf_sym *s;
	uint64_t vaddr;

	if (!loc->file || elf_file__offset_to_vaddr(loc->file, loc->file_off, &vaddr))
		return NULL;
	s = elf_file__find_sym(loc->file, vaddr);
	if (s)
		*sym_off = vaddr - s->addr;
	return s ? s->name : NULL;
}

static void check_frame(struct proc_registry *r, int pid, uint64_t addr, const struct expect *e)
{
	struct proc_loc loc;
	uint64_t sym_off = 0;
	const uint8_t *id = NULL;

	CHECK_EQ_U64(procs__resolve(r, pid, procs_now(), addr, &loc), 0);
	CHECK_STR(loc_sym(&loc, &sym_off), "reg_test_target");
	CHECK_EQ_U64(sym_off, 3);
	CHECK_EQ_U64(loc.file_off, e->file_off);
	CHECK_STR(loc.path, e->exe);
	CHECK(loc.file && elf_file__build_id(loc.file, &id) == 20 && e->build_id_len == 20 &&
	      !memcmp(id, e->build_id, 20));
}

/* The vDSO is read from the child's memory; its symbols must name its functions. */
static void check_vdso(struct proc_registry *r, int pid)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), bias = 0, sym_off = 0;
	const struct elf_sym *s;
	struct elf_file *ef;
	struct proc_loc loc;

	CHECK(base != 0);
	ef = procs__find_elf(r, pid, procs_now(), base + 0x10, &bias);
	CHECK(ef != NULL);
	s = ef ? elf_file__sym_by_name(ef, "__vdso_clock_gettime") : NULL;
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_EQ_U64(procs__resolve(r, pid, procs_now(), s->addr + bias + 1, &loc), 0);
	CHECK_STR(loc.path, "[vdso]");
	CHECK_STR(loc_sym(&loc, &sym_off), "__vdso_clock_gettime");
	CHECK_EQ_U64(sym_off, 1);
}

/* qsort as libc defines it: &qsort may be a sanitizer's interceptor. */
static uint64_t libc_qsort(void)
{
	void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *f = h ? dlsym(h, "qsort") : NULL;

	if (h)
		dlclose(h);
	return (uintptr_t)f;
}

/* A child that waits to be killed: a live process to read /proc of. */
static pid_t paused_child(void)
{
	pid_t child = fork();

	if (child == 0) {
		for (;;)
			pause();
	}
	CHECK(child > 0);
	return child;
}

/* A child read from /proc, killed: its frames still resolve, its file shared with ours. */
static void check_live_and_gone(struct proc_registry *r, uint64_t addr, const struct expect *e)
{
	struct proc_loc f, g;
	uint64_t sym_off = 0;
	pid_t child;

	child = paused_child();
	CHECK_EQ_U64(procs__see(r, child, procs_now()), 0);
	CHECK_EQ_U64(procs__see(r, child, procs_now()), 0);
	kill(child, SIGKILL);
	CHECK(waitpid(child, NULL, 0) == child);

	check_frame(r, child, addr, e);
	check_vdso(r, child);
	CHECK_EQ_U64(procs__resolve(r, child, procs_now(), 0x10, &f), (uint64_t)-ENOENT);
	CHECK_EQ_U64(procs__resolve(r, child + 1000000, procs_now(), addr, &f),
		     (uint64_t)-ESRCH);
	CHECK_EQ_U64(procs__see(r, child, procs_now()), 0); /* already known: no re-read */

	/* This process maps the same file: the model (and its build ID) is shared. */
	CHECK_EQ_U64(procs__see(r, getpid(), procs_now()), 0);
	check_frame(r, getpid(), addr, e);
	CHECK(procs__resolve(r, getpid(), procs_now(), addr, &f) == 0 &&
	      procs__resolve(r, child, procs_now(), addr, &g) == 0 && f.file == g.file &&
	      f.path == g.path);
	CHECK(procs__resolve(r, getpid(), procs_now(), libc_qsort() + 1, &f) == 0 && f.path &&
	      strstr(f.path, "/libc.so"));
	CHECK_STR(loc_sym(&f, &sym_off), "qsort");
	CHECK_EQ_U64(sym_off, 1);
}

/*
 * Records replayed at made-up times on made-up pids, with this test's own
 * file: a child forked at t=100 resolves its parent's code, the parent's
 * later dlclose does not change the child, the child's exec at t=300 ends
 * it, and the same address holds another file after a munmap and a map.
 */
static void check_times(struct proc_registry *r, uint64_t addr)
{
	const int parent = 2000000001, child = 2000000002;
	struct proc_map m = { 0 }, lib;
	struct proc_loc loc;

	CHECK_EQ_U64(own_mapping(addr, &m), 0);
	if (!m.path)
		return;
	CHECK_EQ_U64(procs__set_maps(r, parent, 50, &m, 1), 0);
	procs__fork(r, parent, child, 100);
	CHECK_EQ_U64(procs__resolve(r, child, 99, addr, &loc), (uint64_t)-ENOENT);
	CHECK(procs__resolve(r, child, 150, addr, &loc) == 0 && loc.file != NULL);
	procs__unmap(r, parent, 200, m.start, m.end);
	CHECK(procs__resolve(r, child, 250, addr, &loc) == 0 && loc.file != NULL);
	CHECK_EQ_U64(procs__resolve(r, parent, 250, addr, &loc), (uint64_t)-ENOENT);
	CHECK(procs__resolve(r, parent, 199, addr, &loc) == 0 && loc.file != NULL);
	procs__exec(r, child, 300);
	CHECK_EQ_U64(procs__resolve(r, child, 301, addr, &loc), (uint64_t)-ENOENT);
	CHECK(procs__resolve(r, child, 299, addr, &loc) == 0 && loc.file != NULL);
	/* Another file at the same address from t=400: a file we cannot open (inode 1). */
	lib = m;
	lib.inode = 1;
	lib.path = "/nonexistent/libother.so";
	procs__map(r, parent, 400, &lib);
	CHECK(procs__resolve(r, parent, 450, addr, &loc) == 0 && !loc.file && loc.file_backed &&
	      !strcmp(loc.path, "/nonexistent/libother.so"));
	CHECK(procs__epoch(r, parent, 450) == 400 && procs__epoch(r, parent, 399) == 200 &&
	      procs__epoch(r, parent, 199) == 0);
	CHECK_EQ_U64(procs__stats(r)->refused[SAFE_OPEN_MISSING], 1);
	free(m.path);
}

/*
 * procs__read_exec_late(): an exec reads nothing (a live child's vDSO, which
 * no record names, is unknown); the child's first event reads /proc, and
 * from then on its code and its vDSO resolve.
 */
static void check_exec_late(uint64_t addr, const struct expect *e)
{
	struct proc_registry *r = procs__new();
	uint64_t base = getauxval(AT_SYSINFO_EHDR), bias = 0;
	pid_t child;

	CHECK(r != NULL);
	if (!r)
		return;
	procs__read_exec_late(r, true);
	child = paused_child();
	procs__exec(r, child, procs_now());
	CHECK(procs__find_elf(r, child, procs_now(), base + 0x10, &bias) == NULL);
	/* Its fork reads nothing either: the grandchild inherits what is known. */
	procs__fork(r, child, 2000000003, procs_now());
	CHECK(procs__find_elf(r, child, procs_now(), base + 0x10, &bias) == NULL);
	/* Its exit on its way (procs__see_ending()): still no read, and it says so. */
	CHECK_EQ_U64(procs__see_ending(r, child, procs_now()), PROCS_RECORDS_ONLY);
	CHECK_EQ_U64(procs__see_ending(r, 2000000003, procs_now()), PROCS_RECORDS_ONLY);
	CHECK(procs__find_elf(r, child, procs_now(), base + 0x10, &bias) == NULL);
	CHECK_EQ_U64(procs__see(r, child, procs_now()), 0);
	CHECK_EQ_U64(procs__see_ending(r, child, procs_now()), 0); /* read: not records-only */
	check_frame(r, child, addr, e);
	check_vdso(r, child);
	kill(child, SIGKILL);
	CHECK(waitpid(child, NULL, 0) == child);
	procs__free(r);
}

/* What procs__find_exits() told its caller of: the last pid and time, and how many. */
struct found_exits {
	int pid, n;
	uint64_t ts;
};

static void note_found(void *ctx, int pid, uint64_t ts)
{
	struct found_exits *f = ctx;

	f->pid = pid;
	f->ts = ts;
	f->n++;
}

/*
 * Two children known alive, one killed with no exit record (lost): the
 * look for lost exits finds exactly that one, queues its exit as the record
 * would have, and the next look finds nothing new; this process stays.
 */
static void check_find_exits(void)
{
	struct proc_registry *r = procs__new();
	struct found_exits found = {};
	pid_t kept = 0, killed = 0;
	uint64_t t;
	size_t due;
	int i;

	CHECK(r != NULL);
	if (!r)
		return;
	for (i = 0; i < 2; i++) {
		pid_t c = paused_child();

		CHECK_EQ_U64(procs__see(r, c, procs_now()), 0);
		*(i ? &killed : &kept) = c;
	}
	CHECK_EQ_U64(procs__see(r, getpid(), procs_now()), 0);
	kill(killed, SIGKILL);
	CHECK(waitpid(killed, NULL, 0) == killed);
	t = procs_now();
	CHECK_EQ_U64(procs__find_exits(r, t, note_found, &found), 1);
	CHECK_EQ_U64(found.n, 1);
	CHECK_EQ_U64(found.pid, killed);
	CHECK_EQ_U64(found.ts, t);
	CHECK_EQ_U64(procs__gone_ready(r, t + 1, &due), 1);
	CHECK_EQ_U64(due, 1);
	CHECK_EQ_U64(procs__stats(r)->exits_found, 1);
	CHECK_EQ_U64(procs__find_exits(r, procs_now(), note_found, &found), 0); /* gone: not again */
	CHECK_EQ_U64(found.n, 1);
	CHECK_EQ_U64(procs__gone_ready(r, procs_now(), &due), 1);
	kill(kept, SIGKILL);
	CHECK(waitpid(kept, NULL, 0) == kept);
	procs__free(r);
}

/*
 * A process met only after it was gone (its read fails: known from the event
 * alone, no mapping) never gets an exit record: the look for mapless exits
 * finds exactly it, not a gone process whose mappings were read (that one's
 * record would come), nor a live one, and counts it apart from lost records.
 */
static void check_find_mapless_exits(void)
{
	struct proc_registry *r = procs__new();
	struct found_exits found = {};
	pid_t read_then_gone = paused_child(), met_gone = paused_child();
	uint64_t t;
	size_t due;

	CHECK(r != NULL);
	if (!r)
		goto out;
	CHECK_EQ_U64(procs__see(r, read_then_gone, procs_now()), 0);
	CHECK_EQ_U64(procs__see(r, getpid(), procs_now()), 0);
	kill(read_then_gone, SIGKILL);
	kill(met_gone, SIGKILL);
	CHECK(waitpid(read_then_gone, NULL, 0) == read_then_gone);
	CHECK(waitpid(met_gone, NULL, 0) == met_gone);
	CHECK_EQ_U64(procs__see(r, met_gone, procs_now()), -ESRCH);
	CHECK(procs__mapless(r, met_gone));
	CHECK(!procs__exited(r, met_gone));
	t = procs_now();
	CHECK_EQ_U64(procs__find_mapless_exits(r, t, note_found, &found), 1);
	CHECK_EQ_U64(found.n, 1);
	CHECK_EQ_U64(found.pid, met_gone);
	CHECK_EQ_U64(found.ts, t);
	CHECK(procs__exited(r, met_gone));
	CHECK(!procs__exited(r, read_then_gone));
	CHECK_EQ_U64(procs__stats(r)->gone_mapless, 1);
	CHECK_EQ_U64(procs__stats(r)->exits_found, 0);
	CHECK_EQ_U64(procs__gone_ready(r, t + 1, &due), 1);
	CHECK_EQ_U64(due, 1);
	CHECK_EQ_U64(procs__find_mapless_exits(r, procs_now(), note_found, &found), 0);
	CHECK_EQ_U64(found.n, 1);
	procs__free(r);
out:
	kill(read_then_gone, SIGKILL);
	kill(met_gone, SIGKILL);
}

/*
 * A recording's exit record written for an exit found (ST_EXIT_FOUND) ends
 * the process and counts as found, as the live run's look did, and one
 * written for a mapless exit (ST_EXIT_MAPLESS) counts as that; the kernel's
 * own exit record ends one without counting.
 */
static void check_found_exit_record(void)
{
	struct proc_registry *r = procs__new();
	struct st_proc_event pe = { .kind = ST_REC_PROC, .what = ST_PROC_EXIT };
	pid_t a = paused_child(), b = paused_child();
	uint64_t t;

	CHECK(r != NULL);
	if (!r)
		goto out;
	CHECK_EQ_U64(procs__see(r, a, procs_now()), 0);
	CHECK_EQ_U64(procs__see(r, b, procs_now()), 0);
	t = procs_now();
	pe.pid = (__u32)a;
	pe.ts = t;
	procs__on_record(r, &pe);
	CHECK(procs__exited(r, a));
	CHECK_EQ_U64(procs__stats(r)->exits_found, 0);
	pe.pid = (__u32)b;
	pe.map_flags = ST_EXIT_FOUND;
	procs__on_record(r, &pe);
	CHECK(procs__exited(r, b));
	CHECK_EQ_U64(procs__stats(r)->exits_found, 1);
	CHECK_EQ_U64(procs__stats(r)->gone_mapless, 0);
	pe.pid = 2000000005; /* known from an event alone */
	pe.map_flags = ST_EXIT_MAPLESS;
	CHECK_EQ_U64(procs__see(r, (int)pe.pid, t), -ESRCH);
	procs__on_record(r, &pe);
	CHECK(procs__exited(r, (int)pe.pid));
	CHECK_EQ_U64(procs__stats(r)->exits_found, 1);
	CHECK_EQ_U64(procs__stats(r)->gone_mapless, 1);
	procs__free(r);
out:
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
}

/* What the listener heard: maps() calls per pid, and the count of mappings at the last one. */
struct pushes {
	int pid[4];
	size_t calls[4], nmaps[4];
};

static void pushes__maps(void *ctx, int pid, const struct proc_map *maps, size_t n)
{
	struct pushes *p = ctx;
	size_t i;

	(void)maps;
	for (i = 0; i < 4; i++) {
		if (p->pid[i] == pid) {
			p->calls[i]++;
			p->nmaps[i] = n;
		}
	}
}

/*
 * procs__push_met_only(): a process no event met is not told to the
 * listener, however its mappings change (fork, exec, map); its first event
 * tells its mappings as the records made them, once; later changes are told
 * at once. One met only after its exit is not told (no view may load it).
 */
static void check_push_met_only(void)
{
	const int a = 2000000031, b = 2000000032;
	struct proc_registry *r = procs__new();
	struct pushes p = { .pid = { a, b } };
	struct proc_map lib = { .start = 0x10000, .end = 0x20000, .inode = 1, .prot = PROC_MAP_X,
				.path = "/nonexistent/liba.so" };

	CHECK(r != NULL);
	if (!r)
		return;
	procs__listen(r, &(struct procs_listener){ .maps = pushes__maps, .ctx = &p });
	procs__push_met_only(r, true);
	procs__fork(r, getpid(), a, 100); /* this process: met by the fork, told */
	procs__fork(r, getpid(), b, 100);
	procs__exec(r, a, 200);
	procs__map(r, a, 300, &lib);
	procs__exec(r, b, 200);
	CHECK_EQ_U64(p.calls[0], 0);
	CHECK_EQ_U64(procs__see(r, a, 400), 0); /* based by its records: no /proc read */
	CHECK_EQ_U64(p.calls[0], 1);
	CHECK_EQ_U64(p.nmaps[0], 1);
	CHECK_EQ_U64(procs__see(r, a, 450), 0);
	CHECK_EQ_U64(p.calls[0], 1);
	lib.start = 0x30000;
	lib.end = 0x40000;
	procs__map(r, a, 500, &lib);
	CHECK_EQ_U64(p.calls[0], 2);
	CHECK_EQ_U64(p.nmaps[0], 2);
	procs__exit(r, b, 600);
	CHECK_EQ_U64(procs__see(r, b, 550), 0); /* an event read after its exit */
	CHECK_EQ_U64(p.calls[1], 0);
	procs__listen(r, NULL);
	procs__free(r);
}

/*
 * procs__see_ending() of a process known from records: the listener hears
 * what the records made, once, as at procs__see() (the copy unwinder needs
 * the mappings for the event at hand). The reads: check_exec_late().
 */
static void check_see_ending(void)
{
	const int a = 2000000041;
	struct proc_registry *r = procs__new();
	struct pushes p = { .pid = { a } };
	struct proc_map lib = { .start = 0x10000, .end = 0x20000, .inode = 1, .prot = PROC_MAP_X,
				.path = "/nonexistent/liba.so" };

	CHECK(r != NULL);
	if (!r)
		return;
	procs__read_exec_late(r, true);
	procs__listen(r, &(struct procs_listener){ .maps = pushes__maps, .ctx = &p });
	procs__push_met_only(r, true);
	procs__exec(r, a, 200);
	procs__map(r, a, 300, &lib);
	CHECK_EQ_U64(procs__see_ending(r, a, 400), PROCS_RECORDS_ONLY);
	CHECK_EQ_U64(p.calls[0], 1);
	CHECK_EQ_U64(p.nmaps[0], 1);
	CHECK_EQ_U64(procs__see_ending(r, a, 450), PROCS_RECORDS_ONLY);
	CHECK_EQ_U64(p.calls[0], 1);
	procs__listen(r, NULL);
	procs__free(r);
}

/*
 * Events after the exit record (a sample taken late in do_exit): of N
 * processes gone from /proc, none comes back as a new process, and all N
 * are forgotten with their exits; a pid that lives again (reused, its fork
 * not seen) is a new process and stays. An empty queue forgets nothing.
 */
static void check_late_after_exit(uint64_t addr)
{
	enum { N = 8 };
	const int base = 2000000100;
	struct proc_registry *r = procs__new();
	struct proc_map m = { 0 };
	struct proc_loc loc;
	uint64_t t;
	pid_t child;
	int i;

	CHECK(r != NULL);
	if (!r)
		return;
	procs__forget_unmet(r, 1000);
	CHECK_EQ_U64(own_mapping(addr, &m), 0);
	for (i = 0; i < N; i++) {
		CHECK_EQ_U64(procs__set_maps(r, base + i, 50, &m, 1), 0);
		procs__exit(r, base + i, 100);
		CHECK_EQ_U64(procs__see(r, base + i, 150), (uint64_t)-ESRCH);
	}
	child = paused_child();
	CHECK_EQ_U64(procs__see(r, child, procs_now()), 0);
	procs__exit(r, child, procs_now());
	t = procs_now();
	CHECK_EQ_U64(procs__see(r, child, t + 1), 0); /* alive: the pid's new process */
	CHECK_EQ_U64(procs__forget_gone(r, t + 2, NULL, NULL), 0);
	CHECK_EQ_U64(procs__stats(r)->forgotten, N);
	for (i = 0; i < N; i++)
		CHECK_EQ_U64(procs__resolve(r, base + i, 150, addr, &loc), (uint64_t)-ESRCH);
	CHECK_EQ_U64(procs__resolve(r, child, procs_now(), addr, &loc), 0);
	kill(child, SIGKILL);
	CHECK(waitpid(child, NULL, 0) == child);
	free(m.path);
	procs__free(r);
}

/*
 * A description from BPF (bpf/met.bpf.h) of a process gone before its read:
 * it is known from then on, as from a read (from its image's start), the
 * listener hears it once at the end, a description that came short is
 * counted, a repeat changes nothing, and one after the pid's exit starts
 * the pid's next process there.
 */
static void check_describe(uint64_t addr)
{
	const int a = 2000000051;
	struct proc_registry *r = procs__new();
	struct pushes p = { .pid = { a } };
	struct proc_map m = { 0 };
	struct proc_loc loc;

	CHECK(r != NULL);
	if (!r || own_mapping(addr, &m) || !m.path) {
		procs__free(r);
		return;
	}
	procs__listen(r, &(struct procs_listener){ .maps = pushes__maps, .ctx = &p });
	CHECK_EQ_U64(procs__see(r, a, 100), (uint64_t)-ESRCH);
	CHECK_EQ_U64(procs__stats(r)->pid_gone, 0); /* counted only for an event with a user stack */
	procs__count_gone(r, a);
	procs__count_gone(r, a);
	CHECK_EQ_U64(procs__stats(r)->pid_gone, 1);
	procs__describe_record(r, a, 200, &m);
	CHECK_EQ_U64(p.calls[0], 0);
	procs__describe_end(r, a, 200, 2); /* one of two came */
	CHECK_EQ_U64(p.calls[0], 1);
	CHECK_EQ_U64(p.nmaps[0], 1);
	CHECK_EQ_U64(procs__stats(r)->desc_short, 1);
	CHECK_EQ_U64(procs__stats(r)->pid_gone, 0);
	CHECK(procs__resolve(r, a, 100, addr, &loc) == 0 && loc.file != NULL);
	/* The look ahead applied it, the records come in their turn: nothing new. */
	CHECK_EQ_U64(procs__describe(r, a, 200, &m), 0);
	procs__describe_record(r, a, 200, &m);
	procs__describe_end(r, a, 200, 1);
	CHECK_EQ_U64(p.calls[0], 1);
	CHECK_EQ_U64(procs__stats(r)->desc_short, 1);
	/* The pid's next process, described after the exit: from the exit on. */
	procs__exit(r, a, 300);
	CHECK(procs__exited(r, a));
	CHECK_EQ_U64(procs__describe(r, a, 400, &m), 0);
	procs__describe_done(r, a);
	CHECK(!procs__exited(r, a));
	CHECK_EQ_U64(p.calls[0], 2);
	CHECK(procs__resolve(r, a, 250, addr, &loc) == 0 && loc.file != NULL);
	CHECK(procs__resolve(r, a, 350, addr, &loc) == 0 && loc.file != NULL);
	CHECK_EQ_U64(procs__epoch(r, a, 350), 300);
	procs__listen(r, NULL);
	procs__free(r);
	free(m.path);
}

int main(void)
{
	uint64_t addr = (uintptr_t)reg_test_target + 3;
	struct proc_registry *r;
	struct elf_file *self;
	struct expect e;

	self = elf_file__open("/proc/self/exe");
	CHECK(self != NULL);
	if (!self || expect__init(&e, self, addr))
		return CHECK_DONE() | 1;
	r = procs__new();
	CHECK(r != NULL);
	if (!r)
		return CHECK_DONE();
	check_live_and_gone(r, addr, &e);
	check_times(r, addr);
	procs__free(r);
	check_exec_late(addr, &e);
	check_find_exits();
	check_find_mapless_exits();
	check_found_exit_record();
	check_push_met_only();
	check_see_ending();
	check_late_after_exit(addr);
	check_describe(addr);
	elf_file__free(self);
	CHECK(reg_test_target(1) == 10);
	return CHECK_DONE();
}
