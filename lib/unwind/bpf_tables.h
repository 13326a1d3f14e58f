/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading unwind tables into the BPF walker's maps (bpf/unwind_maps.h):
 * each ELF file's rows once into st_urows, each process's executable
 * mappings into st_uprocs. A view of the process registry: it hears each
 * process's mappings (bpf_tables__set_maps()) and gets each file's table
 * through a table source (lib/unwind/table.h). Memory is bounded by the map
 * sizes chosen before load; a file whose rows do not fit is counted and
 * walked by frame pointers.
 */
#ifndef ST_UNWIND_BPF_TABLES_H
#define ST_UNWIND_BPF_TABLES_H

#include <stdint.h>

#include "lib/unwind/table.h"

struct bpf_object;
struct bpf_tables;

/* Twins of the BPF map sizes: defaults for --unwind-rows and --unwind-procs. */
#define BPF_TABLES_ROWS_DEFAULT (1u << 21) /* 16 MiB of rows: libc + python3 ~ 150k */
#define BPF_TABLES_PROCS_DEFAULT 1024

struct bpf_tables_stats {
	uint64_t rows_used, rows_max;
	uint64_t files;          /* files with rows loaded */
	uint64_t files_no_room;  /* files whose rows did not fit: frame pointers only */
	uint64_t files_no_table; /* files without any unwind information */
	uint64_t procs;          /* processes loaded (now) */
	uint64_t procs_no_room;  /* processes that did not fit in st_uprocs */
	uint64_t maps_dropped;   /* executable mappings beyond ST_UNW_MAX_MAPS */
};

/**
 * bpf_tables_size() - size the walker's maps; call between open and load.
 *
 * Return: 0 or -errno.
 */
int bpf_tables_size(struct bpf_object *obj, uint32_t max_rows, uint32_t max_procs);

/**
 * bpf_tables__new() - take over a loaded object's walker maps (mmaps st_urows).
 * @src: where the table of a mapped file comes from (copied)
 *
 * Return: the loader, or NULL with errno set (logged).
 */
struct bpf_tables *bpf_tables__new(struct bpf_object *obj, const struct unwind_table_source *src);

struct proc_map;

/**
 * bpf_tables__set_maps() - load @pid with these mappings (sorted by start).
 *
 * Return: 0, or -ENOSPC when st_uprocs is full.
 */
int bpf_tables__set_maps(struct bpf_tables *t, int pid, const struct proc_map *maps, size_t n);

/** bpf_tables__remove_process() - forget an exited process (its files stay loaded). */
void bpf_tables__remove_process(struct bpf_tables *t, int pid);

/** bpf_tables__stats() - current figures. */
const struct bpf_tables_stats *bpf_tables__stats(const struct bpf_tables *t);

/** bpf_tables__report() - stderr lines for what did not fit; silent when all did. */
void bpf_tables__report(const struct bpf_tables *t);

/** bpf_tables__free() - NULL is fine. */
void bpf_tables__free(struct bpf_tables *t);

#endif
