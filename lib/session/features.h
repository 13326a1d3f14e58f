/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel features the capture library can do without, probed at run time. */
#ifndef ST_FEATURES_H
#define ST_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include <bpf/bpf.h>

/* Set to 1, it makes feature_task_storage() answer no: the tests' way to the fallback. */
#define FEATURE_ENV_NO_TASK_STORAGE "STACKTAP_TEST_NO_TASK_STORAGE"

/**
 * feature_task_storage() - can BPF maps of type BPF_MAP_TYPE_TASK_STORAGE
 * be created here? The walk cache (bpf/ucache.bpf.h) keeps each task's
 * last walk in one. Probed once, by creating one (needs root).
 * @why: the reason when not (may be NULL)
 * @len: its size
 *
 * Return: true when they can.
 */
bool feature_task_storage(char *why, size_t len);

/* Set to 1, it makes every task_work probe answer no: the tests' way to the sync fallback. */
#define FEATURE_ENV_NO_TASK_WORK "STACKTAP_TEST_NO_TASK_WORK"

/* The program types a capture runs in, each probed on its own (lib/session/feature_tw.c). */
enum feature_prog {
	FEATURE_PROG_SYSCALL,    /* sleepable; proves the kfunc's form works at all */
	FEATURE_PROG_PERF_EVENT, /* profile's cpu-clock sampler */
	FEATURE_PROG_TRACEPOINT, /* count and snoop at t: */
	FEATURE_PROG_TP_BTF,     /* offcpu at sched_switch */
	FEATURE_PROG_KPROBE,     /* uprobes, uretprobes, USDT (and kprobes) */
	FEATURE_PROG_UPROBE_S,   /* sleepable uprobes */
	FEATURE_PROG_MAX
};

#define FEATURE_PROG_BIT(p) (1u << (p))

/* Which form of the task_work kfunc the kernel takes (the objects are built once for each). */
enum feature_tw_form {
	FEATURE_TW_NONE, /* neither: user stacks are taken at the event */
	FEATURE_TW_4ARG, /* bpf_task_work_schedule_resume(task, tw, map, callback) */
	FEATURE_TW_IMPL, /* bpf_task_work_schedule_resume_impl(..., aux__prog), 6.18 */
	FEATURE_TW_FORMS
};

/**
 * feature_task_work() - may a program of type @p schedule a bpf_task_work
 * here? Probed once for every type, by loading a program of that type that
 * makes the request (needs root).
 * @why: the reason when not, the verifier's own words where it gave some
 * (may be NULL)
 * @len: its size
 *
 * Return: 0 when it may, else -errno.
 */
int feature_task_work(enum feature_prog p, char *why, size_t len);

/**
 * feature_task_work_from() - feature_task_work() for every program type in
 * @progs (FEATURE_PROG_BIT()s): the programs of one BPF object share its
 * config, so all of them must be able to. 0 @progs answers no.
 * @why: the first refusal, naming its program type
 * @len: its size
 *
 * Return: 0 when all may, else the first refusal's -errno.
 */
int feature_task_work_from(unsigned progs, char *why, size_t len);

/**
 * feature_task_work_form() - the kfunc form the BPF objects are opened in:
 * the one whose request works, else the first the kernel resolves (a load
 * then fails on no extern, whether or not a request would work).
 *
 * Return: FEATURE_TW_NONE when the kernel resolves neither.
 */
enum feature_tw_form feature_task_work_form(void);

/** feature_tw_form_name() - Return: the kfunc's name for @f, "none" for none. */
const char *feature_tw_form_name(enum feature_tw_form f);

/** feature_prog_name() - Return: @p as libbpf's SEC() names it. */
const char *feature_prog_name(enum feature_prog p);

/**
 * feature_vma_iter() - may a tracepoint program walk the current task's
 * mappings with the open-coded VMA iterator (bpf_iter_task_vma_new/_next/
 * _destroy), as the met filter describes a process (bpf/met.bpf.h)?
 * Probed once, by loading such a program.
 * @why: the reason when not (may be NULL)
 * @len: its size
 *
 * Return: true when it may.
 */
bool feature_vma_iter(char *why, size_t len);

/** feature_env_set() - Return: whether the tests' switch @name is set to 1 in the environment. */
bool feature_env_set(const char *name);

/** feature_helper() - Return: whether programs of @type may call @helper here. */
bool feature_helper(enum bpf_prog_type type, enum bpf_func_id helper);

/* Set to 1, it makes feature_compat() answer yes: the tests' way to the compat objects. */
#define FEATURE_ENV_COMPAT "STACKTAP_TEST_COMPAT"

/**
 * feature_compat() - must the BPF objects be opened in their compat build
 * (Makefile's *.compat.bpf.o, bpf/compat.bpf.h)? The normal build calls
 * helpers kernels before 5.17 lack (bpf_loop(), bpf_find_vma(),
 * bpf_get_current_task_btf(), bpf_task_pt_regs(), bpf_get_attach_cookie()):
 * where one is refused, its callbacks alone make every program fail to
 * load. Probed once, by asking the kernel for each helper (needs root).
 * @why: the first helper refused, and what the compat build costs (may be NULL)
 * @len: its size
 *
 * Return: true when the compat build is the one to load.
 */
bool feature_compat(char *why, size_t len);

/** feature_map() - Return: whether maps of @type can be created here. */
bool feature_map(enum bpf_map_type type);

/**
 * feature_prog_loads() - does an empty program of type @p load here (a
 * sleepable uprobe, a tp_btf at sched_switch)?
 * @why: the verifier's words when not
 * @len: its size
 *
 * Return: 0 when it loads, else -errno.
 */
int feature_prog_loads(enum feature_prog p, char *why, size_t len);

/**
 * feature_prog_opts() - the type and load options of a program of kind @p
 * (its attach point for tp_btf, sleepable for uprobe.s).
 * @why: the reason when it cannot be had (no BTF target)
 *
 * Return: 0, or -errno.
 */
int feature_prog_opts(enum feature_prog p, enum bpf_prog_type *type,
		      struct bpf_prog_load_opts *po, char *why, size_t len);

/**
 * feature_prog_load() - load a probe's program of @type (@n @insns, @po
 * made by the caller), and on a refusal say why: the verifier's words, from
 * a second load with its log, then the errno in parentheses.
 * @why: the reason when refused
 * @len: its size
 *
 * Return: the program's fd, or -errno.
 */
int feature_prog_load(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n,
		      struct bpf_prog_load_opts *po, char *why, size_t len);

/**
 * feature_verifier_words() - the line of a verifier log worth showing: its
 * last one that is not a statistic (insns processed, time, stack depth).
 * @log: the log, NUL-terminated
 * @out: receives the line ("" when none)
 * @len: its size
 */
void feature_verifier_words(const char *log, char *out, size_t len);

#endif
