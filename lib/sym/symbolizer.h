/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The symbolizer: names decoded frames (lib/sym/event_frames.h) in one batch
 * over many events. Kernel frames come from kallsyms (a module's frames keep
 * its name); user frames already carry their file model and offset, and
 * are grouped by file and sorted by offset so each file's name sources are
 * visited once per batch, in address order. It owns the "pc - 1 for return
 * addresses" rule, and counts what it cannot name.
 *
 * Where a user frame's name comes from, in order (docs/names.md): the perf
 * map of its process for anonymous code (JIT); the file's symbol table
 * (its own .symtab, its debug file's, MiniDebugInfo merged with .dynsym);
 * .gopclntab for Go files without .symtab; DWARF's name when nothing else
 * has one. DWARF then adds the frames inlined at that address, as frames of
 * their own (REPORT_FRAME_INLINE) above it, and source lines; each distinct
 * mangled name is demangled once.
 *
 * A frame without a name is named by where it is, so the same code merges
 * across processes and runs: "[unknown] (FILE+0xOFFSET)" with the file's
 * base name, as perf names a shared object; "[unknown] ([anon])" for
 * anonymous code (JIT) no perf map names, as perf does; "[unknown]" outside
 * every mapping.
 */
#ifndef ST_SYMBOLIZER_H
#define ST_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symbolizer;
struct proc_registry;
struct event_frames;
struct jit_maps_stats;

struct symbolizer_stats {
	uint64_t kernel_unknown; /* kernel address outside every symbol */
	uint64_t user_no_map;    /* user address outside every mapping known at its time */
	uint64_t user_no_sym;    /* mapped, but no symbol covers it */
	uint64_t jit_named;      /* anonymous code named by its process's perf map */
	uint64_t inline_frames;  /* inline frames added */
};

/* What naming adds; symbolizer__new() starts with demangling and inline frames on. */
struct symbolizer_opts {
	bool demangle; /* C++ and Rust names as people read them (--no-demangle: off) */
	bool inlines;  /* frames inlined at an address, from DWARF */
	bool lines;    /* source file and line of each frame, from DWARF (--lines, -v) */
	bool recorded; /* a replay: perf maps only from symbolizer__set_perf_map(), never /proc */
};

/**
 * symbolizer__new() - a symbolizer over @procs (borrowed: it must outlive it).
 *
 * Return: the symbolizer, or NULL with errno set (logged).
 */
struct symbolizer *symbolizer__new(struct proc_registry *procs);

/**
 * symbolizer__load_kernel() - start reading kallsyms now, on a thread, not
 * at the first kernel frame: for commands that capture kernel stacks, so its
 * cost (~50 ms) is paid while they run (lib/session/run.c starts it as the
 * run loop starts) rather than before the banner or when the report is due
 * (or at snoop's first event).
 */
void symbolizer__load_kernel(struct symbolizer *sz);

/** symbolizer__set_opts() - name from now on as @o says (copied). */
void symbolizer__set_opts(struct symbolizer *sz, const struct symbolizer_opts *o);

/**
 * symbolizer__see() - an event of @pid: the first time, its perf map is
 * read (lib/sym/jit_maps.h), while the process is surely alive.
 */
void symbolizer__see(struct symbolizer *sz, int pid);

/** symbolizer__exited() - @pid exited: its perf map is read a last time and kept. */
void symbolizer__exited(struct symbolizer *sz, int pid);

/**
 * symbolizer__keep_perf_map() - a settled stack of @pid has code outside a
 * file, named at the report by @pid's perf map: it stays after
 * symbolizer__forget().
 */
void symbolizer__keep_perf_map(struct symbolizer *sz, int pid);

/**
 * symbolizer__forget() - @pid is forgotten, its stacks settled
 * (lib/proc/registry.h procs__forget_gone()): what is kept of its perf map
 * goes unless it holds lines or symbolizer__keep_perf_map() asked for it.
 */
void symbolizer__forget(struct symbolizer *sz, int pid);

/**
 * symbolizer__set_perf_map() - @pid's perf map is @text (@len bytes, the
 * lines of a /tmp/perf-PID.map a recording kept): JIT frames of @pid are
 * named from it, and /proc is never asked about @pid's map.
 *
 * Return: 0 or -ENOMEM.
 */
int symbolizer__set_perf_map(struct symbolizer *sz, int pid, const char *text, size_t len);

/**
 * symbolizer__refresh() - re-read the perf maps that changed: before a
 * report names what was collected (lib/pipeline/raw_stacks.c does it).
 */
void symbolizer__refresh(struct symbolizer *sz);

/** symbolizer__procs() - Return: the registry user frames are decoded with. */
struct proc_registry *symbolizer__procs(const struct symbolizer *sz);

/**
 * symbolizer__name() - name every frame of @n decoded events, in one pass
 * over their addresses sorted by file and offset (kernel: by address).
 *
 * Names live as long as the symbolizer. Return: 0 or -ENOMEM.
 */
int symbolizer__name(struct symbolizer *sz, struct event_frames *efs, size_t n);

/**
 * symbolizer__remember() - with @on, symbolizer__name() names each
 * distinct (file, offset) and kernel address once and remembers it for its
 * next calls; off forgets it all. Only for a span in which no file model
 * or process is freed (one report: raw_stacks__report()). Remembering that
 * cannot start (no memory) is simply not done.
 */
void symbolizer__remember(struct symbolizer *sz, bool on);

/* Naming's progress: @done of @total stacks named (a report: lib/pipeline/raw_stacks.c). */
typedef void (*symbolizer_progress_fn)(void *ctx, size_t done, size_t total);

/** symbolizer__on_progress() - have @fn told how a long naming goes (NULL: nobody). */
void symbolizer__on_progress(struct symbolizer *sz, symbolizer_progress_fn fn, void *ctx);

/** symbolizer__progress() - tell the progress function, if any, that @done of @total are named. */
void symbolizer__progress(const struct symbolizer *sz, size_t done, size_t total);

/** symbolizer__stats() - what could not be named so far. */
const struct symbolizer_stats *symbolizer__stats(const struct symbolizer *sz);

/** symbolizer__jit_stats() - Return: the perf maps' figures (lib/sym/jit_maps.h). */
const struct jit_maps_stats *symbolizer__jit_stats(const struct symbolizer *sz);

/** symbolizer__report() - one stderr line per nonzero loss counter; figures with --debug. */
void symbolizer__report(const struct symbolizer *sz);

/** symbolizer__free() - NULL is fine. */
void symbolizer__free(struct symbolizer *sz);

#endif
