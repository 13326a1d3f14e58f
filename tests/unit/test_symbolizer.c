// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of lib/sym/symbolizer.c with every name source plugged in:
 * frames of real files, decoded through the process registry and named in
 * one batch, as the tools do. The files are the name workloads
 * (tests/workloads/names.mk): the Rust fixtures linked as libraries (legacy
 * and v0 mangling), the stripped Go build (.gopclntab), the MiniDebugInfo
 * build, the -O2 -g inline workload (inline frames and lines), and this
 * process's own anonymous code named by a /tmp/perf-PID.map it writes.
 *
 * Each file is "mapped" into this process's registry entry with
 * procs__set_maps() (the registry opens it through /proc/self/root, checked
 * against its inode), so the frames go the way a traced process's do.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/elf/elf_file.h"
#include "lib/proc/registry.h"
#include "lib/sym/event_frames.h"
#include "lib/sym/symbolizer.h"
#include "tests/unit/check.h"
#include "tests/unit/elf_syms.h"

/* Lines of tests/workloads/inline.c (its IN_* markers), as test_dwarf_inline.c has them. */
#define IN_B2_CALL 35
#define IN_B_CALL 42
#define IN_A_CALL 49

/* Where the test maps its files: far from anything this process maps. */
#define MAP_BASE 0x100000000000ull
#define MAP_STEP 0x10000000ull

static const char *workload(const char *name)
{
	static char path[8][512];
	static int i;
	const char *o = getenv("O") ? getenv("O") : "build";

	i = (i + 1) % 8;
	snprintf(path[i], sizeof(path[i]), "%s/workloads/%s", o, name);
	return path[i];
}

struct fixture {
	struct proc_registry *procs;
	struct symbolizer *sz;
	struct proc_map maps[8];
	char paths[8][512];
	size_t nmaps;
	int pid;
};

/* Maps all of @path at the next free base, as a process would map a file it runs. */
static uint64_t fixture__map(struct fixture *fx, const char *path)
{
	struct proc_map *m = &fx->maps[fx->nmaps];
	struct stat st;

	if (stat(path, &st) || fx->nmaps == 8)
		return 0;
	snprintf(fx->paths[fx->nmaps], sizeof(fx->paths[0]), "%s", path);
	if (path[0] != '/' && getcwd(fx->paths[fx->nmaps], sizeof(fx->paths[0])))
		snprintf(fx->paths[fx->nmaps] + strlen(fx->paths[fx->nmaps]),
			 sizeof(fx->paths[0]) - strlen(fx->paths[fx->nmaps]), "/%s", path);
	*m = (struct proc_map){ .start = MAP_BASE + fx->nmaps * MAP_STEP,
				.end = MAP_BASE + fx->nmaps * MAP_STEP +
				       (((uint64_t)st.st_size + 4095) & ~4095ull),
				.inode = st.st_ino, .dev_major = major(st.st_dev),
				.dev_minor = minor(st.st_dev), .prot = PROC_MAP_R | PROC_MAP_X,
				.path = fx->paths[fx->nmaps] };
	fx->nmaps++;
	return m->start;
}

/* Maps an anonymous executable range (JIT code) at @start. */
static void fixture__map_anon(struct fixture *fx, uint64_t start, uint64_t len)
{
	fx->paths[fx->nmaps][0] = '\0';
	fx->maps[fx->nmaps] = (struct proc_map){ .start = start, .end = start + len,
						 .prot = PROC_MAP_R | PROC_MAP_X,
						 .path = fx->paths[fx->nmaps] };
	fx->nmaps++;
}

static int fixture__start(struct fixture *fx, const struct symbolizer_opts *o)
{
	fx->pid = getpid();
	fx->procs = procs__new();
	fx->sz = fx->procs ? symbolizer__new(fx->procs) : NULL;
	if (!fx->sz)
		return -1;
	symbolizer__set_opts(fx->sz, o);
	return procs__set_maps(fx->procs, fx->pid, 1, fx->maps, fx->nmaps);
}

static void fixture__free(struct fixture *fx)
{
	symbolizer__free(fx->sz);
	procs__free(fx->procs);
	memset(fx, 0, sizeof(*fx));
}

/* The run-time address of @name + @off in @path mapped at @base (its .symtab's address). */
static uint64_t addr_of(const char *path, uint64_t base, const char *name, uint64_t off)
{
	struct elf_file *ef = elf_file__open(path);
	struct test_syms ts = { 0 };
	const struct test_sym *s;
	uint64_t at = 0, foff;

	if (ef && !test_syms__read(path, &ts) && (s = test_syms__find(&ts, name)) &&
	    !elf_file__vaddr_to_offset(ef, s->addr + off, &foff))
		at = base + foff;
	test_syms__free(&ts);
	elf_file__free(ef);
	return at;
}

/* One event of @n user addresses (innermost first), named alone; names joined by " | ". */
static void name_stack(struct fixture *fx, const uint64_t *ips, size_t n, char *out, size_t len)
{
	struct event_frames ef;
	size_t i, used = 0;

	out[0] = '\0';
	if (event_frames__build(&ef, fx->sz, fx->pid, 2, ips, 0, n, NULL, 0)) {
		snprintf(out, len, "(failed)");
		return;
	}
	for (i = 0; i < ef.nu && used < len; i++)
		used += (size_t)snprintf(out + used, len - used, "%s%s%s", i ? " | " : "",
					 ef.v[i].name,
					 ef.v[i].kind == REPORT_FRAME_INLINE ? " (inlined)" : "");
	event_frames__release(&ef);
}

static const struct symbolizer_opts defaults = { .demangle = true, .inlines = true };

/*
 * The Rust libraries: each function's own symbol, demangled through the
 * symbolizer, legacy and v0; and with demangling off, the symbol as it is.
 * The second frame is a return address at the very end of apply (a tail of
 * 5 bytes): pc - 1 names apply, not the function after it.
 */
static void test_rust(void)
{
	const char *v0 = workload("librust_v0.so"), *legacy = workload("librust_legacy.so");
	const char *v0_area = "_RNvXNtCsd7U9rWHuKO9_5names6shapesNtB2_6SquareNtB2_4Area4area";
	const char *v0_apply = "_RINvCsd7U9rWHuKO9_5names5applyNCNvB2_11names_entry0EB2_";
	const char *lg_area = "_ZN61_$LT$names..shapes..Square$u20$as$u20$names..shapes..Area$GT$"
			      "4area17h299ac83e0c87a0adE";
	struct fixture fx = { 0 };
	uint64_t b0, b1, ips[2];
	char got[1024];

	b0 = fixture__map(&fx, v0);
	b1 = fixture__map(&fx, legacy);
	CHECK(fixture__start(&fx, &defaults) == 0);
	ips[0] = addr_of(v0, b0, v0_area, 1);
	ips[1] = addr_of(v0, b0, v0_apply, 5);
	CHECK(ips[0] && ips[1]);
	name_stack(&fx, ips, 2, got, sizeof(got));
	CHECK_STR(got, "<names::shapes::Square as names::shapes::Area>::area | "
		       "names::apply::<names::names_entry::{closure#0}>");
	ips[0] = addr_of(legacy, b1, lg_area, 1);
	ips[1] = addr_of(legacy, b1, "_ZN5names5apply17h1d495b8d43a122dfE", 5);
	name_stack(&fx, ips, 2, got, sizeof(got));
	CHECK_STR(got, "<names::shapes::Square as names::shapes::Area>::area | names::apply");

	symbolizer__set_opts(fx.sz, &(struct symbolizer_opts){ .inlines = true });
	name_stack(&fx, ips, 1, got, sizeof(got));
	CHECK_STR(got, lg_area);
	fixture__free(&fx);
}

/*
 * Go stripped of .symtab: named from .gopclntab at the addresses the
 * unstripped build's symbols give (the two builds share their text layout;
 * the stripped PIE is traced by tests/integration/test_names.sh).
 */
static void test_go(void)
{
	const char *full = workload("go_names");
	static const char *const stripped[] = { "go_names_stripped" };
	struct test_syms ts = { 0 };
	const struct test_sym *work, *gomain, *goexit;
	uint64_t base, ips[3];
	char got[512];
	size_t i;

	CHECK(test_syms__read(full, &ts) == 0);
	work = test_syms__find(&ts, "main.work");
	gomain = test_syms__find(&ts, "main.main");
	goexit = test_syms__find(&ts, "runtime.goexit.abi0"); /* its .symtab name */
	CHECK(work && gomain && goexit);
	for (i = 0; work && gomain && goexit && i < 1; i++) {
		struct fixture fx = { 0 };
		const char *path = workload(stripped[i]);
		struct elf_file *ef = elf_file__open(path);
		uint64_t off[3];

		base = fixture__map(&fx, path);
		CHECK(fixture__start(&fx, &defaults) == 0);
		CHECK(ef && !elf_file__vaddr_to_offset(ef, work->addr + 4, &off[0]) &&
		      !elf_file__vaddr_to_offset(ef, gomain->addr + 8, &off[1]) &&
		      !elf_file__vaddr_to_offset(ef, goexit->addr + 1, &off[2]));
		ips[0] = base + off[0];
		ips[1] = base + off[1];
		ips[2] = base + off[2];
		name_stack(&fx, ips, 3, got, sizeof(got));
		CHECK_STR(got, "main.work | main.main | runtime.goexit");
		elf_file__free(ef);
		fixture__free(&fx);
	}
	test_syms__free(&ts);
}

/* MiniDebugInfo: the static functions are named from .gnu_debugdata, md_leaf from .dynsym. */
static void test_minidebug(void)
{
	const char *full = workload("minidebug_full"), *mini = workload("minidebug");
	struct fixture fx = { 0 };
	struct test_syms ts = { 0 };
	static const char *const fn[] = { "md_leaf", "md_inner", "md_outer" };
	struct elf_file *ef = elf_file__open(mini);
	uint64_t base, ips[3], off;
	char got[512];
	size_t i;

	base = fixture__map(&fx, mini);
	CHECK(fixture__start(&fx, &defaults) == 0);
	CHECK(test_syms__read(full, &ts) == 0);
	for (i = 0; i < 3; i++) {
		const struct test_sym *s = test_syms__find(&ts, fn[i]);

		ips[i] = s && ef && !elf_file__vaddr_to_offset(ef, s->addr + 2, &off) ? base + off : 0;
	}
	name_stack(&fx, ips, 3, got, sizeof(got));
	CHECK_STR(got, "md_leaf | md_inner | md_outer");
	test_syms__free(&ts);
	elf_file__free(ef);
	fixture__free(&fx);
}

/* The return address right after in_a's call of in_c (e8 rel32), from in_a's own bytes. */
static uint64_t call_return(const char *path, uint64_t base, const struct test_sym *caller,
			    const struct test_sym *callee)
{
	struct elf_file *ef = elf_file__open(path);
	uint64_t off, ret = 0;
	uint8_t code[4096];
	int32_t rel;
	size_t i;
	FILE *f = fopen(path, "rb");

	if (!ef || !f || caller->size > sizeof(code) ||
	    elf_file__vaddr_to_offset(ef, caller->addr, &off) || fseek(f, (long)off, SEEK_SET) ||
	    fread(code, 1, caller->size, f) != caller->size)
		goto out;
	for (i = 0; i + 5 <= caller->size; i++) {
		memcpy(&rel, code + i + 1, 4);
		if (code[i] == 0xe8 && caller->addr + i + 5 + (int64_t)rel == callee->addr)
			ret = base + off + i + 5;
	}
out:
	if (f)
		fclose(f);
	elf_file__free(ef);
	return ret;
}

/*
 * The -O2 -g workload: the return address in in_a lies in the bodies of
 * in_b2 and in_b inlined into it, which become frames of their own above
 * in_a; with lines, each frame has the line of its call.
 */
static void test_inline(const char *path)
{
	struct fixture fx = { 0 };
	struct test_syms ts = { 0 };
	const struct test_sym *in_a, *in_c;
	struct event_frames ef;
	uint64_t base, ips[2];
	char got[512];

	base = fixture__map(&fx, path);
	CHECK(fixture__start(&fx, &defaults) == 0);
	CHECK(test_syms__read(path, &ts) == 0);
	in_a = test_syms__find(&ts, "in_a");
	in_c = test_syms__find(&ts, "in_c");
	CHECK(in_a && in_c);
	if (!in_a || !in_c)
		goto out;
	ips[0] = addr_of(path, base, "in_c", 0);
	ips[1] = call_return(path, base, in_a, in_c);
	CHECK(ips[1] != 0);
	name_stack(&fx, ips, 2, got, sizeof(got));
	CHECK_STR(got, "in_c | in_b2 (inlined) | in_b (inlined) | in_a");

	symbolizer__set_opts(fx.sz, &(struct symbolizer_opts){ .demangle = true, .inlines = true,
								.lines = true });
	CHECK(event_frames__build(&ef, fx.sz, fx.pid, 2, ips, 0, 2, NULL, 0) == 0);
	CHECK_EQ_U64(ef.nu, 4);
	if (ef.nu == 4) {
		CHECK(ef.v[1].src_file && strstr(ef.v[1].src_file, "tests/workloads/inline.c"));
		CHECK_EQ_U64(ef.v[1].line, IN_B2_CALL);
		CHECK_EQ_U64(ef.v[2].line, IN_B_CALL);
		CHECK_EQ_U64(ef.v[3].line, IN_A_CALL);
		/* The inline frames stand at in_a's return address; in_a keeps its own offset. */
		CHECK(ef.v[3].kind == REPORT_FRAME_USER && (ef.v[3].flags & REPORT_FRAME_HAS_SYM) &&
		      ef.v[3].sym_off == ips[1] - addr_of(path, base, "in_a", 0));
		event_frames__release(&ef);
	}
	symbolizer__set_opts(fx.sz, &(struct symbolizer_opts){ .demangle = true });
	name_stack(&fx, ips, 2, got, sizeof(got));
	CHECK_STR(got, "in_c | in_a");
out:
	test_syms__free(&ts);
	fixture__free(&fx);
}

/*
 * Anonymous code named by this process's perf map, read when the process is
 * first seen; a line written later is found when a lookup misses (the file
 * changed); an address no line covers stays "[unknown] ([anon])".
 */
static void test_perf_map(void)
{
	struct fixture fx = { 0 };
	uint64_t page = 0x7e0000000000ull, ips[3];
	char path[64], got[512];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "%llx 40 jit_outer\n%llx 20 _ZN3app4leafEi\n", (unsigned long long)page,
		(unsigned long long)page + 0x40);
	fclose(f);
	fixture__map_anon(&fx, page, 4096);
	CHECK(fixture__start(&fx, &defaults) == 0);
	symbolizer__see(fx.sz, fx.pid);
	ips[0] = page + 0x41;
	ips[1] = page + 0x40; /* a return address at the end of jit_outer: pc - 1 is in it */
	ips[2] = page + 0x200;
	name_stack(&fx, ips, 3, got, sizeof(got));
	CHECK_STR(got, "app::leaf(int) | jit_outer | [unknown] ([anon])");
	/* The JIT writes more after the lookup of page + 0x200 was checked. */
	usleep(150 * 1000);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%llx 100 later_blob\n", (unsigned long long)page + 0x200);
		fclose(f);
	}
	name_stack(&fx, ips + 2, 1, got, sizeof(got));
	CHECK_STR(got, "later_blob");
	unlink(path);

	/* A recording's map: used as it is, /proc never asked (the file is gone now). */
	snprintf(got, sizeof(got), "%llx 80 recorded_blob\n", (unsigned long long)page);
	CHECK(symbolizer__set_perf_map(fx.sz, fx.pid, got, strlen(got)) == 0);
	symbolizer__see(fx.sz, fx.pid);
	name_stack(&fx, ips, 2, got, sizeof(got));
	CHECK_STR(got, "recorded_blob | recorded_blob");
	fixture__free(&fx);
}

/* The address of kernel function @name in /proc/kallsyms (0 when absent or hidden). */
static uint64_t kallsyms_addr(const char *name)
{
	char line[512], sym[256], type;
	unsigned long long a;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &a, &type, sym) == 3 && !strcmp(sym, name))
			found = a;
	if (f)
		fclose(f);
	return found;
}

/*
 * A kernel stack whose top is a tracepoint's iterator (the kernel's unwinder
 * shows __traceiter_sched_switch above __schedule on some off-CPU stacks and
 * not on others): once named, it starts at __schedule, as the others do.
 */
static void test_trim_traceiter(void)
{
	uint64_t ips[2] = { kallsyms_addr("__traceiter_sched_switch"), kallsyms_addr("__schedule") };
	struct fixture fx = { 0 };
	struct event_frames ef;

	if (!ips[0] || !ips[1]) {
		fprintf(stderr, "  (kallsyms hides addresses: trim not checked)\n");
		CHECK(geteuid() != 0); /* as root the addresses are there */
		return;
	}
	ips[0] += 4;
	ips[1] += 40;
	CHECK(fixture__start(&fx, &defaults) == 0);
	CHECK(event_frames__build(&ef, fx.sz, fx.pid, 2, ips, 2, 0, NULL, 0) == 0);
	CHECK(ef.nk == 1 && ef.nu == 0);
	CHECK(ef.nk == 1 && !strcmp(ef.v[0].name, "__schedule"));
	event_frames__release(&ef);
	fixture__free(&fx);
}

/* One kernel address named alone, into @out. */
static void name_kernel(struct fixture *fx, uint64_t ip, char *out, size_t len)
{
	struct event_frames ef;

	snprintf(out, len, "(failed)");
	if (event_frames__build(&ef, fx->sz, fx->pid, 2, &ip, 1, 0, NULL, 0))
		return;
	if (ef.nk == 1)
		snprintf(out, len, "%s", ef.v[0].name);
	event_frames__release(&ef);
}

/*
 * While remembering, a kernel address named once keeps its own name after
 * other addresses are looked up: the kernel-symbol door answers in one
 * slot that each question overwrites (a live profile once named a
 * _raw_spin_unlock_irqrestore leaf asm_sysvec_apic_timer_interrupt).
 */
static void test_kernel_remembered(void)
{
	uint64_t a = kallsyms_addr("__schedule"), b = kallsyms_addr("do_syscall_64");
	struct fixture fx = { 0 };
	char got[256];

	if (!a || !b) {
		fprintf(stderr, "  (kallsyms hides addresses: kernel memo not checked)\n");
		CHECK(geteuid() != 0);
		return;
	}
	CHECK(fixture__start(&fx, &defaults) == 0);
	symbolizer__remember(fx.sz, true);
	name_kernel(&fx, a + 8, got, sizeof(got));
	CHECK_STR(got, "__schedule");
	name_kernel(&fx, b + 8, got, sizeof(got));
	CHECK_STR(got, "do_syscall_64");
	name_kernel(&fx, a + 8, got, sizeof(got));
	CHECK_STR(got, "__schedule");
	fixture__free(&fx);
}

int main(void)
{
	test_trim_traceiter();
	test_kernel_remembered();
	test_rust();
	test_go();
	test_minidebug();
	test_inline(workload("inline"));
	/* The same with its DWARF moved in part to a dwz file (.gnu_debugaltlink). */
	test_inline(workload("dwz/inline"));
	test_perf_map();
	return CHECK_DONE();
}
