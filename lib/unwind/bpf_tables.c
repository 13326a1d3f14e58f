// SPDX-License-Identifier: GPL-2.0
/* Loading unwind tables into the BPF walker's maps. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/record.h"
#include "bpf/unwind_maps.h"
#include "lib/proc/maps.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/table.h"
#include "lib/util/log.h"

/* Where one file's rows live in st_urows; nrows 0 = not loaded (no room or no table). */
struct loaded_file {
	const struct unwind_table *table;
	uint32_t first_row, nrows;
};

struct bpf_tables {
	struct unwind_table_source src;
	struct unwind_row *rows; /* mmapped st_urows */
	size_t rows_bytes;
	int procs_fd;
	int ustats_fd; /* st_ustats: why walks stopped, per CPU */
	uint64_t procs_max;
	struct loaded_file *files;
	size_t nfiles, cap;
	struct bpf_tables_stats st;
	bool warned_full;
};

int bpf_tables_size(struct bpf_object *obj, uint32_t max_rows, uint32_t max_procs)
{
	struct bpf_map *rows = bpf_object__find_map_by_name(obj, "st_urows");
	struct bpf_map *procs = bpf_object__find_map_by_name(obj, "st_uprocs");
	int err;

	if (!rows || !procs)
		return -ENOENT;
	err = bpf_map__set_max_entries(rows, max_rows);
	return err ? err : bpf_map__set_max_entries(procs, max_procs);
}

struct bpf_tables *bpf_tables__new(struct bpf_object *obj, const struct unwind_table_source *src)
{
	struct bpf_map *rows = bpf_object__find_map_by_name(obj, "st_urows");
	struct bpf_map *procs = bpf_object__find_map_by_name(obj, "st_uprocs");
	struct bpf_tables *t;

	if (!rows || !procs) {
		st_err("unwind: BPF object has no unwind table maps");
		errno = ENOENT;
		return NULL;
	}
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->src = *src;
	t->st.rows_max = bpf_map__max_entries(rows);
	t->rows_bytes = t->st.rows_max * sizeof(struct unwind_row);
	t->rows = mmap(NULL, t->rows_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(rows), 0);
	t->procs_fd = bpf_map__fd(procs);
	t->procs_max = bpf_map__max_entries(procs);
	t->ustats_fd = bpf_object__find_map_by_name(obj, "st_ustats") ?
			       bpf_map__fd(bpf_object__find_map_by_name(obj, "st_ustats")) : -1;
	if (t->rows == MAP_FAILED) {
		int err = errno;

		st_err("unwind: cannot map the row table: %s", strerror(err));
		if (t->rows == MAP_FAILED)
			t->rows = NULL;
		bpf_tables__free(t);
		errno = err;
		return NULL;
	}
	return t;
}

static struct loaded_file *tables__find_file(struct bpf_tables *t, const struct unwind_table *ut)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].table == ut)
			return &t->files[i];
	return NULL;
}

/* Copies a table's rows into st_urows once; counts a file that does not fit. */
static struct loaded_file *tables__load_file(struct bpf_tables *t, const struct unwind_table *ut)
{
	struct loaded_file *f = tables__find_file(t, ut);

	if (f)
		return f;
	if (t->nfiles == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct loaded_file *v = realloc(t->files, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->files = v;
		t->cap = cap;
	}
	f = &t->files[t->nfiles++];
	*f = (struct loaded_file){ .table = ut };
	if (!ut->rows.n) {
		t->st.files_no_table++;
	} else if (ut->rows.n > t->st.rows_max - t->st.rows_used) {
		t->st.files_no_room++;
		if (!t->warned_full)
			st_warn("unwind: row table full (%llu rows): %s and later files fall back to "
				"frame pointers (raise --unwind-rows)",
				(unsigned long long)t->st.rows_max, ut->path);
		t->warned_full = true;
	} else {
		f->first_row = t->st.rows_used;
		f->nrows = ut->rows.n;
		memcpy(t->rows + f->first_row, ut->rows.rows, ut->rows.n * sizeof(*ut->rows.rows));
		t->st.rows_used += ut->rows.n;
		t->st.files++;
	}
	return f;
}

static void tables__fill_map(struct bpf_tables *t, int pid, const struct proc_map *m,
			     struct st_umap *um)
{
	const struct unwind_table *ut = t->src.table(t->src.ctx, pid, m);
	const struct loaded_file *f = ut ? tables__load_file(t, ut) : NULL;
	uint64_t vaddr;

	*um = (struct st_umap){ .start = m->start, .end = m->end };
	/* Without rows (anonymous JIT code, a file without tables): frame pointers. */
	if (!f || !f->nrows || unwind_table__map_vaddr(ut, m->pgoff, &vaddr))
		return;
	/* row pc = (addr - start + vaddr) - base */
	um->bias = m->start - vaddr + ut->base;
	um->first_row = f->first_row;
	um->nrows = f->nrows;
}

int bpf_tables__set_maps(struct bpf_tables *t, int pid, const struct proc_map *maps, size_t n)
{
	struct st_uproc *p = calloc(1, sizeof(*p));
	__u32 key = pid;
	size_t i;
	int err;

	if (!p)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		/* Every executable mapping: the walker treats a pc in none as not loaded yet. */
		if (!(maps[i].prot & PROC_MAP_X))
			continue;
		if (p->n == ST_UNW_MAX_MAPS) {
			t->st.maps_dropped++;
			continue;
		}
		tables__fill_map(t, pid, &maps[i], &p->maps[p->n++]);
	}
	/* A refresh replaces the entry; only a new one counts as a process. */
	err = bpf_map_update_elem(t->procs_fd, &key, p, BPF_NOEXIST);
	if (!err)
		t->st.procs++;
	else if (errno == EEXIST)
		err = bpf_map_update_elem(t->procs_fd, &key, p, BPF_EXIST);
	free(p);
	if (err) {
		t->st.procs_no_room++;
		return -ENOSPC;
	}
	return 0;
}

void bpf_tables__remove_process(struct bpf_tables *t, int pid)
{
	__u32 key = pid;

	if (!bpf_map_delete_elem(t->procs_fd, &key) && t->st.procs)
		t->st.procs--;
}

const struct bpf_tables_stats *bpf_tables__stats(const struct bpf_tables *t)
{
	return &t->st;
}

/* The BPF walker's counters (bpf/unwind.bpf.h st_ustats), summed over CPUs. */
static uint64_t tables__ustat(const struct bpf_tables *t, __u32 key)
{
	int ncpus = libbpf_num_possible_cpus(), i;
	uint64_t sum = 0, *v;

	if (t->ustats_fd < 0 || ncpus <= 0)
		return 0;
	v = calloc(ncpus, sizeof(*v));
	if (v && !bpf_map_lookup_elem(t->ustats_fd, &key, v))
		for (i = 0; i < ncpus; i++)
			sum += v[i];
	free(v);
	return sum;
}

static const char *const ustop_names[ST_USTOP_MAX] = {
	[ST_USTOP_NO_TABLE] = "no unwind table for the pc (table mode)",
	[ST_USTOP_BAD_CFA] = "CFA not above sp or misaligned",
	[ST_USTOP_READ_FAILED] = "reading the stack failed",
	[ST_USTOP_DEPTH] = "depth limit",
	[ST_USTOP_UNSUPPORTED] = "unwind rule not supported (e.g. signal frame)",
	[ST_USTOP_FP_END] = "no unwind table and no frame pointer",
	[ST_USTOP_NO_MAPPING] = "code not loaded yet (copy taken)",
};

void bpf_tables__report(const struct bpf_tables *t)
{
	const struct bpf_tables_stats *s = &t->st;
	uint64_t n;
	int k;

	/* Memory: rows in use, and what the maps reserve (rows + per-process mapping arrays). */
	st_info("unwind tables: %llu files, %llu rows (%llu KiB) of %llu, %llu processes now; "
		"maps reserve %llu KiB rows + %llu KiB processes",
		(unsigned long long)s->files, (unsigned long long)s->rows_used,
		(unsigned long long)(s->rows_used * sizeof(struct unwind_row) / 1024),
		(unsigned long long)s->rows_max, (unsigned long long)s->procs,
		(unsigned long long)(s->rows_max * sizeof(struct unwind_row) / 1024),
		(unsigned long long)(t->procs_max * sizeof(struct st_uproc) / 1024));
	for (k = 0; k < ST_USTOP_MAX; k++) {
		n = ustop_names[k] ? tables__ustat(t, k) : 0;
		if (n)
			fprintf(stderr, "stacktap: %llu user stacks stopped early: %s\n",
				(unsigned long long)n, ustop_names[k]);
	}
	if (s->files_no_room)
		fprintf(stderr, "stacktap: %llu files unwound by frame pointers: row table full\n",
			(unsigned long long)s->files_no_room);
	if (s->procs_no_room)
		fprintf(stderr, "stacktap: %llu processes without tables: process table full\n",
			(unsigned long long)s->procs_no_room);
	if (s->maps_dropped)
		fprintf(stderr, "stacktap: %llu executable mappings beyond %d per process ignored\n",
			(unsigned long long)s->maps_dropped, ST_UNW_MAX_MAPS);
}

void bpf_tables__free(struct bpf_tables *t)
{
	if (!t)
		return;
	if (t->rows)
		munmap(t->rows, t->rows_bytes);
	free(t->files);
	free(t);
}
