// SPDX-License-Identifier: GPL-2.0
/*
 * Can this kernel's BPF schedule a bpf_task_work, in which of the kfunc's
 * forms, and from which program type? Asked of the program that would do it.
 *
 * Why per program type. Kernels disagree: upstream 6.18.2+ verifies a
 * task_work callback as sleepable whatever program schedules it, while
 * other builds (this project's CI machine among them) refuse the request
 * from every program that is not sleepable itself ("sleepable callback in a
 * program that is not sleepable"), and kernels before 6.18 have no such
 * kfunc. A probe of some other program type answers for that type only: a
 * sleepable SYSCALL program may schedule one where a perf_event sampler may
 * not. So each type a tool captures from (feature_prog) is probed by
 * loading a few instructions of exactly that type that make the request.
 *
 * Why two forms. 6.18 has bpf_task_work_schedule_resume_impl(task, tw,
 * map, callback, aux); later kernels add the four-argument
 * bpf_task_work_schedule_resume() and change _impl's prototype, which
 * libbpf 1.1 then refuses for the whole object even when the extern is
 * weak. The BPF objects are therefore built twice, each declaring one
 * form (bpf/deferred.bpf.h), and the form chosen here picks the object
 * (st_skel_open()). The form is the first that a sleepable SYSCALL program
 * loads and runs with: 0 from the kfunc proves the request, and its empty
 * callback runs harmlessly when this thread returns from bpf().
 *
 * Everything is probed once and kept for the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "lib/session/features.h"

#define INSN(c, d, s_, o, i)                                                             \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s_), .off = (o), .imm = (i) })

/* Room for a probe's program: the longest form is 22 instructions. */
#define TW_MAX_INSNS 24

/* A verifier log of a probe this small fits many times over. */
#define TW_LOG_SIZE (64 * 1024)

struct tw_prog {
	const char *name; /* as a user of libbpf's SEC() names knows it */
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
	bool sleepable;
};

static const struct tw_prog tw_progs[FEATURE_PROG_MAX] = {
	[FEATURE_PROG_SYSCALL] = { "syscall (sleepable)", BPF_PROG_TYPE_SYSCALL, 0, true },
	[FEATURE_PROG_PERF_EVENT] = { "perf_event", BPF_PROG_TYPE_PERF_EVENT, 0, false },
	[FEATURE_PROG_TRACEPOINT] = { "tracepoint", BPF_PROG_TYPE_TRACEPOINT, 0, false },
	[FEATURE_PROG_TP_BTF] = { "tp_btf", BPF_PROG_TYPE_TRACING, BPF_TRACE_RAW_TP, false },
	[FEATURE_PROG_KPROBE] = { "uprobe", BPF_PROG_TYPE_KPROBE, 0, false },
	[FEATURE_PROG_UPROBE_S] = { "uprobe.s", BPF_PROG_TYPE_KPROBE, 0, true },
};

/* The VMA iterator's kfuncs, as tw_kernel.vma_iter[] holds their BTF ids. */
enum { TW_VMA_NEW, TW_VMA_NEXT, TW_VMA_DESTROY, TW_VMA_KFUNCS };

/* What the kernel's BTF says, read once. */
struct tw_kernel {
	int kfunc[FEATURE_TW_FORMS];    /* BTF id of each form's kfunc, or -1 */
	int tp_btf_target;              /* btf_trace_sched_switch: tp_btf's attach point */
	int vma_iter[TW_VMA_KFUNCS];    /* bpf_iter_task_vma_new/_next/_destroy, or -1 */
};

/* The probe's own BTF: the map value's struct bpf_task_work and two functions' types. */
struct tw_btf {
	struct btf *btf;
	int val_id, main_id, cb_id;
};

static struct {
	bool probed;
	bool k_read; /* k read from the kernel's BTF */
	struct tw_kernel k;
	enum feature_tw_form form; /* the first form that loads; that works, if one does */
	char form_why[400];
	int result[FEATURE_PROG_MAX]; /* 0 or -errno, once probed */
	char why[FEATURE_PROG_MAX][400];
} tw;

const char *feature_prog_name(enum feature_prog p)
{
	return p < FEATURE_PROG_MAX ? tw_progs[p].name : "?";
}

const char *feature_tw_form_name(enum feature_tw_form f)
{
	switch (f) {
	case FEATURE_TW_4ARG: return "bpf_task_work_schedule_resume";
	case FEATURE_TW_IMPL: return "bpf_task_work_schedule_resume_impl";
	default: return "none";
	}
}

/*
 * The kernel's BTF, mapped rather than read where the kernel allows it:
 * sysfs hands it out 4 KiB a read(), ~1,350 system calls for its 5.5 MB.
 * Else read, as libbpf does.
 */
static struct btf *tw__vmlinux_btf(void)
{
	int fd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	void *p = MAP_FAILED;
	struct btf *b = NULL;
	struct stat st;

	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0)
		p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (p != MAP_FAILED) {
		b = btf__new(p, st.st_size); /* a copy */
		munmap(p, st.st_size);
	}
	return b ? b : btf__load_vmlinux_btf();
}

static void tw__read_kernel(struct tw_kernel *k)
{
	static const char *const vma_kfuncs[TW_VMA_KFUNCS] = { "bpf_iter_task_vma_new",
								"bpf_iter_task_vma_next",
								"bpf_iter_task_vma_destroy" };
	struct btf *vm = tw__vmlinux_btf();
	size_t i;

	k->kfunc[FEATURE_TW_NONE] = -1;
	k->kfunc[FEATURE_TW_4ARG] = -1;
	k->kfunc[FEATURE_TW_IMPL] = -1;
	k->tp_btf_target = -1;
	for (i = 0; i < TW_VMA_KFUNCS; i++)
		k->vma_iter[i] = -1;
	if (!vm)
		return;
	k->kfunc[FEATURE_TW_4ARG] = btf__find_by_name_kind(vm, "bpf_task_work_schedule_resume",
							   BTF_KIND_FUNC);
	k->kfunc[FEATURE_TW_IMPL] = btf__find_by_name_kind(
		vm, "bpf_task_work_schedule_resume_impl", BTF_KIND_FUNC);
	k->tp_btf_target = btf__find_by_name_kind(vm, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
	for (i = 0; i < TW_VMA_KFUNCS; i++)
		k->vma_iter[i] = btf__find_by_name_kind(vm, vma_kfuncs[i], BTF_KIND_FUNC);
	btf__free(vm);
}

/* The kernel's BTF read once, by the first probe that needs it. */
static void tw__kernel(void)
{
	if (!tw.k_read)
		tw__read_kernel(&tw.k);
	tw.k_read = true;
}

/* The map value (a struct bpf_task_work, found by the kernel by its type's name) and the functions. */
static int tw__btf(struct tw_btf *pb)
{
	struct btf *b = btf__new_empty();
	int u64, task_work, vp, proto;

	if (!b)
		return -errno;
	pb->btf = b;
	btf__add_int(b, "int", 4, BTF_INT_SIGNED); /* type 1: the map key and return type */
	u64 = btf__add_int(b, "unsigned long long", 8, 0);
	task_work = btf__add_struct(b, "bpf_task_work", 8);
	btf__add_field(b, "__opaque", u64, 0, 0);
	pb->val_id = btf__add_struct(b, "st_probe_val", 8);
	btf__add_field(b, "tw", task_work, 0, 0);
	vp = btf__add_ptr(b, 0);
	proto = btf__add_func_proto(b, 1);
	btf__add_func_param(b, "ctx", vp);
	pb->main_id = btf__add_func(b, "st_probe_tw", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(b, 1);
	btf__add_func_param(b, "map", vp);
	btf__add_func_param(b, "key", vp);
	btf__add_func_param(b, "value", vp);
	pb->cb_id = btf__add_func(b, "st_probe_tw_cb", BTF_FUNC_STATIC, proto);
	if (pb->cb_id < 0)
		return pb->cb_id;
	return btf__load_into_kernel(b);
}

/*
 * The probe: look up the map's one value, request a task_work on the
 * current task with an empty callback, return what the kfunc returned.
 * Return: the number of instructions; *cb_at: the callback's first.
 */
static int tw__insns(struct bpf_insn *in, int map, int kfunc, enum feature_tw_form form,
		     int *cb_at)
{
	int n = 0, ld_cb;

	in[n++] = INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0);
	in[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map);
	in[n++] = INSN(0, 0, 0, 0, 0);
	in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0);
	in[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
	in[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	in[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 2, 0);
	in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, -ENOENT);
	in[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_0, 0, 0);
	in[n++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_task_btf);
	in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_0, 0, 0);
	in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_6, 0, 0);
	in[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_3, BPF_PSEUDO_MAP_FD, 0, map);
	in[n++] = INSN(0, 0, 0, 0, 0);
	ld_cb = n;
	in[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_4, BPF_PSEUDO_FUNC, 0, 0);
	in[n++] = INSN(0, 0, 0, 0, 0);
	if (form == FEATURE_TW_IMPL) /* aux__prog: NULL, the kernel fills it in */
		in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_5, 0, 0, 0);
	in[n++] = INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, kfunc);
	in[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	*cb_at = n;
	in[ld_cb].imm = n - ld_cb - 1; /* relative to the next instruction */
	in[n++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	in[n++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	return n;
}

/*
 * A line of the verifier's log worth showing: its last one that is not a
 * statistic; with the line before it where the last only says that a
 * callback failed ("kfunc ... failed callback verification"), the reason
 * being the line before.
 */
void feature_verifier_words(const char *log, char *out, size_t len)
{
	const char *line = log, *end, *last = NULL, *prev = NULL;
	int last_n = 0, prev_n = 0;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if (end == line || !strncmp(line, "processed ", 10) ||
		    !strncmp(line, "-- END PROG LOAD LOG --", 23) ||
		    !strncmp(line, "verification time", 17) || !strncmp(line, "stack depth", 11))
			continue;
		prev = last;
		prev_n = last_n;
		last = line;
		last_n = (int)(end - line);
	}
	if (!last)
		snprintf(out, len, "%s", "");
	else if (prev && memmem(last, last_n, "failed callback verification", 28))
		snprintf(out, len, "%.*s; %.*s", prev_n, prev, last_n, last);
	else
		snprintf(out, len, "%.*s", last_n, last);
}

int feature_prog_load(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n,
		      struct bpf_prog_load_opts *po, char *why, size_t len)
{
	int fd = bpf_prog_load(type, "st_probe", "GPL", insns, n, po), err;
	char *log;

	if (fd >= 0)
		return fd;
	err = -errno;
	/* Again with the verifier's log, for its words. */
	log = calloc(1, TW_LOG_SIZE);
	po->log_buf = log;
	po->log_size = log ? TW_LOG_SIZE : 0;
	po->log_level = log ? 1 : 0;
	fd = bpf_prog_load(type, "st_probe", "GPL", insns, n, po);
	if (fd >= 0) /* refused once, not twice: take the first answer */
		close(fd);
	why[0] = 0;
	if (log)
		feature_verifier_words(log, why, len);
	if (!why[0])
		snprintf(why, len, "%s", strerror(-err));
	else
		snprintf(why + strlen(why), len - strlen(why), " (%s)", strerror(-err));
	free(log);
	return err;
}

/*
 * Loads the probe as a program of type @p calling @form's kfunc. Return:
 * its fd, or -errno with the kernel's reason in @why.
 */
static int tw__load(enum feature_prog p, enum feature_tw_form form, int map,
		    const struct tw_btf *pb, char *why, size_t len)
{
	struct bpf_insn insns[TW_MAX_INSNS];
	int cb_at, n = tw__insns(insns, map, tw.k.kfunc[form], form, &cb_at), err;
	struct bpf_func_info fi[2] = { { 0, pb->main_id }, { cb_at, pb->cb_id } };
	LIBBPF_OPTS(bpf_prog_load_opts, po, .prog_btf_fd = btf__fd(pb->btf), .func_info = fi,
		    .func_info_cnt = 2, .func_info_rec_size = sizeof(fi[0]));
	enum bpf_prog_type type;

	err = feature_prog_opts(p, &type, &po, why, len);
	return err ? err : feature_prog_load(type, insns, n, &po, why, len);
}

int feature_prog_opts(enum feature_prog p, enum bpf_prog_type *type,
		      struct bpf_prog_load_opts *po, char *why, size_t len)
{
	if (p >= FEATURE_PROG_MAX)
		return -EINVAL;
	*type = tw_progs[p].type;
	po->expected_attach_type = tw_progs[p].attach;
	po->prog_flags = tw_progs[p].sleepable ? BPF_F_SLEEPABLE : 0;
	if (p != FEATURE_PROG_TP_BTF)
		return 0;
	tw__kernel();
	if (tw.k.tp_btf_target < 0) {
		snprintf(why, len, "the kernel's BTF has no btf_trace_sched_switch");
		return -EOPNOTSUPP;
	}
	po->attach_btf_id = tw.k.tp_btf_target;
	return 0;
}

/*
 * The sleepable SYSCALL probe, loaded and run: does @form's request work at
 * all here? @loaded: whether it loaded (the kernel resolved the kfunc in
 * this form and took its arguments). Return: 0, or -errno with the reason
 * in @why.
 */
static int tw__try_form(enum feature_tw_form form, int map, const struct tw_btf *pb, char *why,
			size_t len, bool *loaded)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int fd = tw__load(FEATURE_PROG_SYSCALL, form, map, pb, why, len), err;

	*loaded = fd >= 0;
	if (fd < 0)
		return fd;
	err = bpf_prog_test_run_opts(fd, &run);
	close(fd);
	if (err) {
		snprintf(why, len, "its test run failed: %s", strerror(-err));
		return err;
	}
	/*
	 * -ENOMEM where the kernel cannot allocate the request's context: 7.x
	 * does it with kmalloc_nolock(), which fails on a CPU without
	 * cmpxchg16b (seen in qemu with -cpu qemu64,-cx16).
	 */
	if ((int)run.retval)
		snprintf(why, len, "the request answered %s", strerror(-(int)run.retval));
	return (int)run.retval;
}

static int tw__map(const struct tw_btf *pb)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .btf_fd = btf__fd(pb->btf), .btf_key_type_id = 1,
		    .btf_value_type_id = pb->val_id);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "st_probe_tw", 4, 8, 1, &mo);

	return fd < 0 ? -errno : fd;
}

/* Probes each program type with @form. */
static void tw__probe_progs(enum feature_tw_form form, int map, const struct tw_btf *pb)
{
	enum feature_prog p;
	int fd;

	for (p = 0; p < FEATURE_PROG_MAX; p++) {
		if (p == FEATURE_PROG_SYSCALL) /* probed with the form */
			continue;
		fd = tw__load(p, form, map, pb, tw.why[p], sizeof(tw.why[p]));
		tw.result[p] = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
}

/* @form's refusal @why into tw.form_why: in place of what it said (@first), or after it. */
static void tw__add_why(enum feature_tw_form form, const char *why, bool first)
{
	size_t n = first ? 0 : strlen(tw.form_why);

	snprintf(tw.form_why + n, sizeof(tw.form_why) - n, "%s%s: %s", n ? "; " : "",
		 feature_tw_form_name(form), why);
}

/* Every answer at once: one BTF, one map, a program a form and a type. */
static void tw__probe(void)
{
	static const enum feature_tw_form forms[] = { FEATURE_TW_4ARG, FEATURE_TW_IMPL };
	struct tw_btf pb = {};
	int map = -1, err = -EOPNOTSUPP;
	enum feature_prog p;
	size_t i;

	tw.probed = true;
	tw__kernel();
	snprintf(tw.form_why, sizeof(tw.form_why), "the kernel has no bpf_task_work kfunc");
	if (tw.k.kfunc[FEATURE_TW_4ARG] >= 0 || tw.k.kfunc[FEATURE_TW_IMPL] >= 0) {
		err = tw__btf(&pb);
		map = err ? err : tw__map(&pb);
		err = map < 0 ? map : -EOPNOTSUPP;
		if (map < 0)
			snprintf(tw.form_why, sizeof(tw.form_why), "its probe's BTF or map: %s",
				 strerror(-map));
	}
	for (i = 0; map >= 0 && i < sizeof(forms) / sizeof(forms[0]); i++) {
		char why[200] = "";
		bool loaded;

		if (tw.k.kfunc[forms[i]] < 0)
			continue;
		err = tw__try_form(forms[i], map, &pb, why, sizeof(why), &loaded);
		if (loaded && tw.form == FEATURE_TW_NONE)
			tw.form = forms[i]; /* the object to open, even if no request works */
		if (!err) {
			tw.form = forms[i];
			break;
		}
		/* Each form's refusal, the first one's first. */
		tw__add_why(forms[i], why, i == 0 || tw.k.kfunc[forms[0]] < 0);
	}
	tw.result[FEATURE_PROG_SYSCALL] = err;
	if (!err)
		tw__probe_progs(tw.form, map, &pb);
	for (p = 0; p < FEATURE_PROG_MAX; p++) {
		if (err)
			tw.result[p] = err;
		if (err)
			snprintf(tw.why[p], sizeof(tw.why[p]), "%s", tw.form_why);
	}
	if (map >= 0)
		close(map);
	btf__free(pb.btf);
}

static void tw__ensure(void)
{
	enum feature_prog p;

	if (tw.probed)
		return;
	tw__probe(); /* also when faked: the object to open is the kernel's form */
	if (!feature_env_set(FEATURE_ENV_NO_TASK_WORK))
		return;
	for (p = 0; p < FEATURE_PROG_MAX; p++) {
		tw.result[p] = -EOPNOTSUPP;
		snprintf(tw.why[p], sizeof(tw.why[p]), "%s=1", FEATURE_ENV_NO_TASK_WORK);
	}
}

enum feature_tw_form feature_task_work_form(void)
{
	tw__ensure();
	return tw.form;
}

int feature_task_work(enum feature_prog p, char *why, size_t len)
{
	if (p >= FEATURE_PROG_MAX)
		return -EINVAL;
	tw__ensure();
	if (why && len)
		snprintf(why, len, "%s", tw.result[p] ? tw.why[p] : "");
	return tw.result[p];
}

int feature_task_work_from(unsigned progs, char *why, size_t len)
{
	enum feature_prog p;
	char reason[240];
	int err;

	if (!progs) {
		snprintf(why, len, "no program of this command was named to the probe");
		return -EINVAL;
	}
	for (p = 0; p < FEATURE_PROG_MAX; p++) {
		if (!(progs & FEATURE_PROG_BIT(p)))
			continue;
		err = feature_task_work(p, reason, sizeof(reason));
		if (err) {
			snprintf(why, len, "%s programs: %s", tw_progs[p].name, reason);
			return err;
		}
	}
	if (why && len)
		why[0] = 0;
	return 0;
}

/*
 * The VMA iterator, open-coded as the met filter uses it (bpf/met.bpf.h): a
 * tracepoint program that starts one over the current task, takes one VMA
 * and ends it. Return: its fd, or -errno with the verifier's words in @why.
 */
static int tw__load_vma_iter(char *why, size_t len)
{
	const int *id = tw.k.vma_iter;
	const struct bpf_insn insns[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_task_btf),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id[TW_VMA_NEW]),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -8),
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id[TW_VMA_NEXT]),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, -8),
		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id[TW_VMA_DESTROY]),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po);
	int i;

	for (i = 0; i < TW_VMA_KFUNCS; i++)
		if (id[i] < 0) {
			snprintf(why, len, "the kernel has no bpf_iter_task_vma kfuncs");
			return -EOPNOTSUPP;
		}
	return feature_prog_load(BPF_PROG_TYPE_TRACEPOINT, insns,
				 sizeof(insns) / sizeof(insns[0]), &po, why, len);
}

bool feature_vma_iter(char *why, size_t len)
{
	static int result = 1; /* 1: not probed yet */
	static char reason[240];
	int fd;

	if (result == 1) {
		tw__kernel();
		fd = tw__load_vma_iter(reason, sizeof(reason));
		result = fd < 0 ? fd : 0;
		if (fd >= 0)
			close(fd);
	}
	if (why && len)
		snprintf(why, len, "%s", result ? reason : "");
	return !result;
}
