/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report model every writer renders from: stacks of symbolized frames
 * with their counts, weights and labels.
 *
 * A frame is more than its name: user frames carry the file they were
 * mapped from, its build ID and the offset in it (so a writer can emit
 * pprof mappings or a recording can be symbolized elsewhere), source file
 * and line when known, and a kind: kernel, user, user code inlined into the
 * frame that follows it, or a mark that is no code at all ("[truncated]",
 * "[unwind stopped: REASON]", "[user stack lost: REASON]").
 *
 * Stacks whose frames read the same are one stack. What "the same" means is
 * chosen per report: names and kinds always; the process when split by
 * process; the address with -v; source lines when they are shown. Strings
 * are interned, so within one report two equal strings are one pointer;
 * frames too: two frames of a report equal in every field are one entry of
 * its frame table, which report_stack__frame() points into.
 */
#ifndef ST_REPORT_H
#define ST_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/record.h"

enum report_frame_kind {
	REPORT_FRAME_KERNEL = 0, /* a kernel function (or "[unknown] 0xADDR") */
	REPORT_FRAME_USER,       /* a user function, or "[unknown] (FILE+0xOFF)", "[unknown] ([anon])" */
	REPORT_FRAME_INLINE,     /* user code inlined into the frame that follows, same address */
	REPORT_FRAME_MARK,       /* no code: why the stack ends here */
};

/* report_frame.flags */
#define REPORT_FRAME_HAS_OFF (1u << 0) /* file_off is the offset in module's file */
#define REPORT_FRAME_HAS_SYM (1u << 1) /* name is a symbol (not "[unknown] ..." or a mark) */
#define REPORT_FRAME_RETURN (1u << 2)  /* addr is a return address: the call is at addr - 1 */

struct report_frame {
	const char *name;     /* what a person reads; never NULL */
	const char *module;   /* user: the mapped file's path; kernel: the module; NULL: vmlinux or none */
	const char *build_id; /* of module's file, lowercase hex; NULL when unknown */
	const char *src_file; /* NULL when unknown */
	uint64_t addr;        /* as captured: kernel address, or user run-time address */
	uint64_t file_off;    /* with REPORT_FRAME_HAS_OFF */
	uint64_t sym_off;     /* with REPORT_FRAME_HAS_SYM: addr minus the symbol's start */
	uint32_t line;        /* 0 when unknown */
	uint8_t kind;         /* enum report_frame_kind */
	uint8_t flags;        /* REPORT_FRAME_* */
};

struct report_stack {
	int pid;              /* 0 when the report does not split by process */
	int tid, cpu;         /* one event's (snoop); -1 in merged reports */
	uint64_t ts;          /* one event's time, ns (bpf_ktime_get_ns); 0 in merged reports */
	char comm[ST_COMM_LEN];
	size_t nk, nu;        /* frames 0 .. nk kernel, then nu user; innermost first */
	/*
	 * Read through report_stack__frame(). In a report, fi holds nk + nu
	 * indexes into the report's table of distinct frames (*frames, which
	 * moves as it grows): a system-wide report repeats each frame some
	 * twenty times, and 64 bytes a copy was most of its memory. One event
	 * outside a report (snoop) has fi NULL and its frames in order at
	 * *frames.
	 */
	const struct report_frame *const *frames;
	const uint32_t *fi;
	uint64_t count;       /* events, samples or blocks merged here */
	uint64_t weight;      /* in the report's weight unit (report_info) */
	unsigned flags;       /* ST_EV_* seen on any merged event */
};

/** report_stack__frame() - Return: frame @i (< nk + nu) of @s, innermost first. */
static inline const struct report_frame *report_stack__frame(const struct report_stack *s,
							     size_t i)
{
	return s->fi ? &(*s->frames)[s->fi[i]] : &(*s->frames)[i];
}

/**
 * report_stack__frame_id() - Return: the number frame @i of @s has in its
 * report (below report__nframes()), the same for equal frames of any of
 * its stacks; UINT32_MAX for a stack outside a report. A writer keeps what
 * it made of a frame under it, and makes it once.
 */
static inline uint32_t report_stack__frame_id(const struct report_stack *s, size_t i)
{
	return s->fi ? s->fi[i] : UINT32_MAX;
}

/**
 * report_stack__prefetch() - start loading the frames of @s, which lie
 * scattered over the report's frame table: a writer going through stacks
 * one by one calls it on the next stack while it writes this one, so the
 * loads overlap instead of stalling one after another.
 */
static inline void report_stack__prefetch(const struct report_stack *s)
{
	size_t i;

	for (i = 0; i < s->nk + s->nu; i++)
		__builtin_prefetch(report_stack__frame(s, i));
}

/* report__new() flags: what keeps two stacks apart besides their frames' names. */
#define REPORT_BY_PID (1u << 0)  /* the process (pid and comm) */
#define REPORT_ADDRS (1u << 1)   /* each frame's address (-v) */
#define REPORT_LINES (1u << 2)   /* source file and line; without it they are dropped */
#define REPORT_BY_COMM (1u << 3) /* the comm: every output that prints it (all but text) */

/* What count and weight mean, for writers that say so (pprof sample types, perf-script). */
enum report_value {
	REPORT_EVENTS = 0, /* count: events; weight: events */
	REPORT_SAMPLES,    /* count: samples; weight: CPU time, ns (count × period_ns) */
	REPORT_OFFCPU,     /* count: switch-outs; weight: time off the CPU, ns */
};

struct report_info {
	enum report_value value;
	uint64_t period_ns; /* REPORT_SAMPLES: the time each sample stands for */
	const char *event;  /* "cpu-clock", "sched_switch", a probe spec; NULL: unnamed */
};

struct report;

/** report__new() - @flags: REPORT_*. Return: an empty report, or NULL (ENOMEM). */
struct report *report__new(unsigned flags);

/** report__flags() - Return: the REPORT_* flags it was made with. */
unsigned report__flags(const struct report *r);

/** report__set_info() - say what counts and weights mean (copied; event string interned). */
int report__set_info(struct report *r, const struct report_info *info);

/** report__info() - Return: what counts and weights mean (REPORT_EVENTS by default). */
const struct report_info *report__info(const struct report *r);

/**
 * report__add() - add @count events of total @weight with these frames.
 * @frames: nk kernel then nu user frames, innermost first; copied (strings interned)
 *
 * Return: 0 or -ENOMEM.
 */
int report__add(struct report *r, int pid, const char *comm, const struct report_frame *frames,
		size_t nk, size_t nu, uint64_t count, uint64_t weight, unsigned flags);

/**
 * report__same_strings() - with @on, the caller promises that a string it
 * passed keeps its text at its address until it turns this off (it frees
 * no names meanwhile): report__add() then trusts a pointer it has seen.
 */
void report__same_strings(struct report *r, bool on);

/** report__len() - Return: the number of distinct stacks. */
size_t report__len(const struct report *r);

/** report__nframes() - Return: the number of distinct frames (report_stack__frame_id()). */
size_t report__nframes(const struct report *r);

/**
 * report__sorted() - stacks by ascending count (ties by weight, then frames).
 *
 * Return: an array owned by the report, valid until the next call or change;
 * NULL when empty or out of memory (*n = 0).
 */
struct report_stack **report__sorted(struct report *r, size_t *n);

/** report__total() - Return: the sum of every stack's count (@weight: of weights). */
uint64_t report__total(const struct report *r, bool weight);

/** report__clear() - forget every stack (interval output); the info stays. */
void report__clear(struct report *r);

/** report__free() - NULL is fine. */
void report__free(struct report *r);

#endif
