/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading unwind tables into the BPF walker's maps (bpf/unwind_maps.h):
 * each ELF file's rows once into st_urows, each process's executable
 * mappings into st_uprocs. A view of the process registry: it hears each
 * process's mappings (bpf_tables__set_maps()) and gets each file's table
 * through a table source (lib/unwind/table.h). Memory is bounded by the map
 * sizes chosen before load; a file whose rows do not fit, or that would
 * take more than its share, is counted and walked by frame pointers. Rows
 * live as long as a live process maps their file (lib/unwind/row_space.h);
 * in when_met mode those of idle tables stay until the space is wanted.
 */
#ifndef ST_UNWIND_BPF_TABLES_H
#define ST_UNWIND_BPF_TABLES_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/unwind/table.h"

struct bpf_object;
struct proc_map;
struct bpf_tables;

/*
 * Twins of the sizes the BPF object declares (bpf/ustack.bpf.h). A tool
 * sizes both to the machine before load (capture_maps_size()).
 */
#define BPF_TABLES_ROWS_DEFAULT (1u << 21) /* 16 MiB of rows: libc + python3 ~ 150k */
#define BPF_TABLES_PROCS_DEFAULT 1024
/*
 * No file may hold more than this share of the row table (1/4): one huge
 * library (libLLVM: ~1.9M rows) must not leave every other file to frame
 * pointers. A file over the cap is walked by frame pointers, and counted.
 */
#define BPF_TABLES_FILE_SHARE 4
/*
 * Rows of the tables (in user memory: not those read in place from the
 * table cache) kept built after no live process maps their file, for the
 * next run of the same program: 8 MiB.
 */
#define BPF_TABLES_IDLE_ROWS (1u << 20)
/*
 * Idle tables kept at most, whatever their rows: each keeps its file model
 * (an open fd, symbols) with it, and rows read in place from the table
 * cache count for nothing above, so a machine rebuilding binaries all day
 * kept one for every binary ever run. A program run again after 64 others
 * has its table loaded again from the cache.
 */
#define BPF_TABLES_IDLE_FILES 64

struct bpf_tables_stats {
	uint64_t rows_used, rows_max; /* slots of st_urows: rows and page indexes */
	uint64_t index_slots;         /* of rows_used, slots of page indexes */
	uint64_t rows_peak;      /* most rows in use at once */
	uint64_t files;          /* files with rows loaded (now) */
	uint64_t files_no_room;  /* files whose rows did not fit: frame pointers only */
	uint64_t files_no_index; /* files whose rows fit without their page index: searched whole */
	uint64_t files_over_cap; /* files over the per-file cap (rows_max / BPF_TABLES_FILE_SHARE) */
	uint64_t files_no_table; /* files without any unwind information */
	uint64_t files_freed;    /* files whose rows were freed: no live process maps them */
	uint64_t rows_freed;     /* the rows those held */
	uint64_t procs_served;   /* lazy: processes loaded again once their tables were built */
	uint64_t built_later;    /* tables built for those (the rest were built meanwhile) */
	uint64_t tables_released; /* idle tables freed, least recently used first */
	uint64_t procs;          /* processes loaded (now) */
	uint64_t procs_no_room;  /* processes that did not fit in st_uprocs */
	uint64_t maps_dropped;   /* executable mappings beyond ST_UNW_MAX_MAPS */
};

/*
 * How a table's life follows the processes (all optional):
 *  - lazy: a mapped file whose table is not built yet is left out of the
 *    process's entry (its code looks "not loaded yet" to the walker, which
 *    then sends a stack copy) and built later by bpf_tables__build_pending(),
 *    so that loading a process does not wait for table building: for what
 *    is loaded before the first poll (the -p target), until
 *    bpf_tables__end_lazy();
 *  - when_met: lazy for the whole run, and a table is built only when an
 *    event of a process that maps its file arrives (bpf_tables__serve_now()),
 *    never by bpf_tables__build_pending(): a system-wide profile meets few
 *    of the programs the machine runs, and building tables for the others
 *    was most of its own CPU. Implies lazy;
 *  - built(): is the table of @m built (or known not to be buildable)?
 *  - taken(): the loader keeps @t from now until release() (its rows in
 *    st_urows, or idle): what @t hangs on must stay until then;
 *  - release(): no live process has mapped the file of @t for a while (its
 *    rows left st_urows at once, or in when_met mode when the space was
 *    wanted or now; see BPF_TABLES_IDLE_ROWS): the table may be freed.
 *    Each taken() is followed by exactly one release(), unless the loader
 *    is freed first.
 */
struct bpf_tables_hooks {
	bool lazy;
	bool when_met;
	bool (*built)(void *ctx, int pid, const struct proc_map *m);
	void (*taken)(void *ctx, const struct unwind_table *t);
	void (*release)(void *ctx, const struct unwind_table *t);
	void *ctx;
};

/**
 * bpf_tables_size() - size the walker's maps; call between open and load.
 *
 * Return: 0 or -errno.
 */
int bpf_tables_size(struct bpf_object *obj, uint32_t max_rows, uint32_t max_procs);

/**
 * bpf_tables__new() - take over a loaded object's walker maps.
 * @src: where the table of a mapped file comes from (copied)
 *
 * Return: the loader, or NULL with errno set (logged).
 */
struct bpf_tables *bpf_tables__new(struct bpf_object *obj, const struct unwind_table_source *src);

/** bpf_tables__set_hooks() - how tables follow the processes (copied; see above). */
void bpf_tables__set_hooks(struct bpf_tables *t, const struct bpf_tables_hooks *h);

/**
 * bpf_tables__set_maps() - load @pid with these mappings (sorted by start).
 *
 * Return: 0, or -ENOSPC when st_uprocs is full.
 */
int bpf_tables__set_maps(struct bpf_tables *t, int pid, const struct proc_map *maps, size_t n);

/**
 * bpf_tables__fork() - @child was forked from @parent (before its mappings
 * come): whether BPF may have copied @parent's entry to it, which the
 * child's own mappings replace, or when_met must delete.
 */
void bpf_tables__fork(struct bpf_tables *t, int parent, int child);

/**
 * bpf_tables__remove_process() - forget an exited process; the rows of
 * files no live process maps any more are freed.
 */
void bpf_tables__remove_process(struct bpf_tables *t, int pid);

/**
 * bpf_tables__build_pending() - lazy mode: build the tables one process
 * waits for, then load them into its entry (never in when_met mode).
 *
 * Return: 1 when a process was served, 0 when none waits.
 */
int bpf_tables__build_pending(struct bpf_tables *t);

/**
 * bpf_tables__release_unlinked() - the idle tables of files deleted since
 * they idled go now (release()): no process can map such a file again, and
 * keeping its model keeps the deleted file's disk space.
 */
void bpf_tables__release_unlinked(struct bpf_tables *t);

/**
 * bpf_tables__end_lazy() - start-up is over: from now on a process's tables
 * are built when it is loaded (so its events are walked in BPF, not sent as
 * 16 KiB copies); what still waits is served as before. No effect in
 * when_met mode.
 */
void bpf_tables__end_lazy(struct bpf_tables *t);

/**
 * bpf_tables__serve_now() - lazy mode: an event of @pid needed a stack copy;
 * if @pid waits for tables, build and load them now, so that its next
 * events are walked in BPF (cheap when it waits for nothing).
 */
void bpf_tables__serve_now(struct bpf_tables *t, int pid);

/**
 * bpf_tables__over_cap() - is @m's file one whose table proved larger than
 * a file may take? The walker uses frame pointers there, and so may the
 * user-space unwinder of copies, rather than build it again.
 *
 * Return: true when it is.
 */
bool bpf_tables__over_cap(const struct bpf_tables *t, const struct proc_map *m);

/** bpf_tables__stats() - current figures. */
const struct bpf_tables_stats *bpf_tables__stats(const struct bpf_tables *t);

/**
 * bpf_tables__report() - stderr lines for what did not fit; silent when all
 * did. @memory: also the rows and map memory used, peak and freed (-v).
 */
void bpf_tables__report(const struct bpf_tables *t, bool memory);

/** bpf_tables__free() - NULL is fine. */
void bpf_tables__free(struct bpf_tables *t);

#endif
