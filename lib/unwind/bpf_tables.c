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
#include "lib/elf/elf_file.h"
#include "lib/proc/maps.h"
#include "lib/unwind/bpf_tables.h"
#include "lib/unwind/page_index.h"
#include "lib/unwind/row_space.h"
#include "lib/unwind/table.h"
#include "lib/util/grow.h"
#include "lib/util/htab.h"
#include "lib/util/log.h"

/*
 * Where one file's rows live in st_urows; nrows 0 = no rows (no table, no
 * room, over the cap). Its page index follows the rows in the same range:
 * ix_blocks slots from first_row + nrows. @users counts the live processes
 * whose entry points at it: at 0 its range goes back to the free space.
 */
struct loaded_file {
	const struct unwind_table *table;
	uint32_t first_row, nrows;
	uint32_t ix_blocks, ix_shift;
	uint32_t users;
	bool over_cap; /* more rows than a file may take: none loaded, never built again */
};

/*
 * A file over the per-file cap, by (device, inode): later processes that map
 * it get frame pointers there at once, its table neither kept nor built
 * again (libLLVM, ~950k rows, is mapped by every clang a build runs).
 */
struct over_cap_file {
	struct hnode node; /* (device, inode) */
};

/* What one loaded process's entry points at, and its mappings while tables are pending. */
struct loaded_proc {
	struct hnode node; /* (pid, 0) */
	const struct unwind_table **tabs;
	size_t ntabs;
	struct proc_map *pending; /* lazy: the mappings to load again once built */
	size_t npending;
	bool met; /* when_met: an event of it arrived, so its tables are loaded */
	bool clear; /* unmet, and known to have no st_uprocs entry (none put, none copied) */
	bool clear_due; /* unmet, its fork's copy of its parent's entry deleted later (t->due) */
};

/* Rows written per batch update: 64k rows, a 256 KiB index array. */
#define ROWS_BATCH 65536u

struct bpf_tables {
	struct unwind_table_source src;
	struct bpf_tables_hooks hooks;
	int rows_fd;   /* st_urows */
	bool rows_mapped; /* st_urows is mmapable: rows are copied into a mapped window */
	uint32_t *keys; /* 0..ROWS_BATCH-1, the indexes of one batch update */
	struct row_space space;
	uint32_t file_cap;
	int procs_fd;
	uint64_t procs_max;
	struct loaded_file *files;
	size_t nfiles, cap;
	struct htab procs; /* struct loaded_proc */
	struct htab over_cap; /* struct over_cap_file */
	int *waiting;      /* lazy: pids with pending tables, oldest first */
	size_t nwaiting, waiting_cap;
	int *due;          /* when_met: pids whose entry, a fork's copy, goes before rows are freed */
	size_t ndue, due_cap;
	const struct unwind_table **idle; /* tables no live process maps, least recent first */
	size_t nidle, idle_cap;
	uint64_t idle_rows;
	struct bpf_tables_stats st;
	uint32_t gen; /* of the last st_uprocs entry put */
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
	t->file_cap = (uint32_t)(t->st.rows_max / BPF_TABLES_FILE_SHARE);
	t->rows_fd = bpf_map__fd(rows);
	t->rows_mapped = bpf_map__map_flags(rows) & BPF_F_MMAPABLE;
	t->keys = calloc(ROWS_BATCH, sizeof(*t->keys));
	t->procs_fd = bpf_map__fd(procs);
	t->procs_max = bpf_map__max_entries(procs);
	if (row_space__init(&t->space, (uint32_t)t->st.rows_max) || !t->keys) {
		bpf_tables__free(t);
		errno = ENOMEM;
		return NULL;
	}
	return t;
}

void bpf_tables__set_hooks(struct bpf_tables *t, const struct bpf_tables_hooks *h)
{
	t->hooks = *h;
	if (t->hooks.when_met)
		t->hooks.lazy = true;
}

static struct loaded_file *tables__find_file(struct bpf_tables *t, const struct unwind_table *ut)
{
	size_t i;

	for (i = 0; i < t->nfiles; i++)
		if (t->files[i].table == ut)
			return &t->files[i];
	return NULL;
}

static struct loaded_proc *tables__proc(struct bpf_tables *t, int pid);

/*
 * The copies of their parents' entries that forks made (bpf_tables__fork())
 * go now, before any rows are freed: those rows are all they may name. Most
 * such children exec or exit first, and BPF then deletes the copy itself: a
 * delete at each fork was a syscall for every short process.
 */
static void tables__clear_due(struct bpf_tables *t)
{
	struct loaded_proc *lp;
	__u32 key;
	size_t i;

	for (i = 0; i < t->ndue; i++) {
		lp = tables__proc(t, t->due[i]);
		if (!lp || !lp->clear_due)
			continue; /* gone, or met and put since */
		key = t->due[i];
		bpf_map_delete_elem(t->procs_fd, &key);
		lp->clear_due = false;
		lp->clear = true;
	}
	t->ndue = 0;
}

/* Before the due list grows: the pids that exited or were met since leave it. */
static void tables__compact_due(struct bpf_tables *t)
{
	const struct loaded_proc *lp;
	size_t i, k = 0;

	for (i = 0; i < t->ndue; i++) {
		lp = tables__proc(t, t->due[i]);
		if (lp && lp->clear_due)
			t->due[k++] = t->due[i];
	}
	t->ndue = k;
}

/* @f's range of st_urows goes back to the free space, and @f from the loaded files. */
static void tables__free_rows(struct bpf_tables *t, struct loaded_file *f)
{
	tables__clear_due(t);
	if (f->nrows && !row_space__free(&t->space, f->first_row, f->nrows + f->ix_blocks)) {
		t->st.rows_freed += f->nrows + f->ix_blocks;
		t->st.index_slots -= f->ix_blocks;
		t->st.files_freed++;
		t->st.files--;
	}
	t->st.rows_used = t->space.used;
	*f = t->files[--t->nfiles];
}

/* An idle table goes: its rows first, if still in st_urows (when_met keeps them). */
static void tables__release(struct bpf_tables *t, const struct unwind_table *ut)
{
	struct loaded_file *f = tables__find_file(t, ut);

	if (f && !f->users)
		tables__free_rows(t, f);
	if (t->hooks.release)
		t->hooks.release(t->hooks.ctx, ut);
}

/*
 * Tables no live process maps stay built while their rows in memory add up
 * to at most BPF_TABLES_IDLE_ROWS, and they are at most
 * BPF_TABLES_IDLE_FILES: short-lived processes run the same few programs
 * again and again, and building a table costs far more than keeping it.
 * Beyond that the least recently used go (built again when mapped again),
 * and a deleted file's at once. Rows read in place from the cache file count for nothing:
 * a clang run after run kept loading libLLVM's and libclang-cpp's 2M rows.
 */
static void tables__idle(struct bpf_tables *t, const struct unwind_table *ut)
{
	/* A deleted file is never mapped again: kept idle, it only pins its disk space. */
	if (ut->file && elf_file__unlinked(ut->file)) {
		t->st.tables_released++;
		tables__release(t, ut);
		return;
	}
	if (t->nidle == t->idle_cap) {
		size_t cap = t->idle_cap ? t->idle_cap * 2 : 64;
		const struct unwind_table **v = realloc(t->idle, cap * sizeof(*v));

		if (!v) {
			tables__release(t, ut);
			return;
		}
		t->idle = v;
		t->idle_cap = cap;
	}
	t->idle[t->nidle++] = ut;
	t->idle_rows += unwind_table__heap_rows(ut);
	while ((t->idle_rows > BPF_TABLES_IDLE_ROWS || t->nidle > BPF_TABLES_IDLE_FILES) &&
	       t->nidle) {
		const struct unwind_table *old = t->idle[0];

		t->idle_rows -= unwind_table__heap_rows(old);
		memmove(t->idle, t->idle + 1, --t->nidle * sizeof(*t->idle));
		t->st.tables_released++;
		tables__release(t, old);
	}
}

void bpf_tables__release_unlinked(struct bpf_tables *t)
{
	const struct unwind_table *ut;
	size_t i, k = 0;

	for (i = 0; i < t->nidle; i++) {
		ut = t->idle[i];
		if (!ut->file || !elf_file__unlinked(ut->file)) {
			t->idle[k++] = ut;
			continue;
		}
		t->idle_rows -= unwind_table__heap_rows(ut);
		t->st.tables_released++;
		tables__release(t, ut); /* touches no idle entry; frees @ut */
	}
	t->nidle = k;
}

/*
 * when_met: the rows of idle files stay in st_urows until the space is
 * wanted, least recently used first. Under churn the next sampled process
 * maps the same libc and ld.so: writing their rows and page index again at
 * each was a fifth of a system-wide profile's own CPU. No live entry names
 * an idle file's rows, so handing them to another file is safe.
 */
static void tables__evict_idle(struct bpf_tables *t, uint32_t slots)
{
	struct loaded_file *f;
	size_t i;

	for (i = 0; i < t->nidle && row_space__largest(&t->space) < slots; i++) {
		f = tables__find_file(t, t->idle[i]);
		if (f && !f->users)
			tables__free_rows(t, f);
	}
}

/* @ut is mapped again: no longer idle. Return: whether it was idle. */
static bool tables__unidle(struct bpf_tables *t, const struct unwind_table *ut)
{
	size_t i;

	for (i = t->nidle; i-- > 0;) {
		if (t->idle[i] == ut) {
			t->idle_rows -= unwind_table__heap_rows(ut);
			memmove(&t->idle[i], &t->idle[i + 1], (--t->nidle - i) * sizeof(*t->idle));
			return true;
		}
	}
	return false;
}

/*
 * Rows go into st_urows through a window of the map (BPF_F_MMAPABLE; the
 * mmap offset picks the pages) mapped for one write only: one memcpy, where
 * batch updates took ~0.1 s for node's 372k rows at start-up. Only the
 * window is mapped, and only for the copy: an mmap of the whole array maps
 * all its pages at once, and 16 MiB of rows would stay resident here.
 *
 * Return: 0, or -errno when the window cannot be mapped (then batch updates).
 */
/* Rows and page-index slots are both 8-byte entries of st_urows. */
#define ROW_ENTRY_SIZE sizeof(struct unwind_row)
_Static_assert(sizeof(struct st_urow_ix) == ROW_ENTRY_SIZE, "an index slot is one row entry");

static int tables__write_mapped(struct bpf_tables *t, uint32_t first, const void *rows, uint32_t n)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t lo = (uint64_t)first * ROW_ENTRY_SIZE, hi = lo + (uint64_t)n * ROW_ENTRY_SIZE;
	uint64_t off = lo & ~(page - 1);
	size_t len = (size_t)(((hi + page - 1) & ~(page - 1)) - off);
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, t->rows_fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	memcpy((char *)p + (lo - off), rows, (size_t)n * ROW_ENTRY_SIZE);
	munmap(p, len);
	return 0;
}

static int tables__write_rows(struct bpf_tables *t, uint32_t first, const void *rows, uint32_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	uint32_t done, i, chunk;
	__u32 count;
	int err;

	if (t->rows_mapped && n) {
		err = tables__write_mapped(t, first, rows, n);
		if (!err)
			return 0;
		st_info("unwind: cannot map the row table (%s); writing rows by batch updates",
			strerror(-err));
		t->rows_mapped = false;
	}
	for (done = 0; done < n; done += chunk) {
		chunk = n - done < ROWS_BATCH ? n - done : ROWS_BATCH;
		for (i = 0; i < chunk; i++)
			t->keys[i] = first + done + i;
		count = chunk;
		if (bpf_map_update_batch(t->rows_fd, t->keys,
					 (const char *)rows + (size_t)done * sizeof(struct unwind_row),
					 &count, &opts)) {
			st_err("unwind: cannot write %u rows into the row table: %s", chunk,
			       strerror(errno));
			return -errno;
		}
	}
	return 0;
}

/*
 * Where @ut's rows and page index go: a range of st_urows, or none (counted
 * by why). A file whose index cannot be built is loaded without one (its
 * searches cover all its rows).
 */
static void tables__place(struct bpf_tables *t, struct loaded_file *f)
{
	const struct unwind_table *ut = f->table;
	struct page_index ix;
	uint32_t slots;

	if (!ut->rows.n) {
		t->st.files_no_table++;
		return;
	}
	if (page_index__build(ut->rows.rows, ut->rows.n, &ix))
		memset(&ix, 0, sizeof(ix));
	if (ut->rows.n > t->file_cap) {
		/* Warned once; the summary at exit counts them all. */
		if (!t->st.files_over_cap++)
			st_warn("unwind: %s: %zu rows, more than a file may take (%u, a 1/%d share of "
				"--unwind-rows): frame pointers there",
				ut->path, ut->rows.n, t->file_cap, BPF_TABLES_FILE_SHARE);
		f->over_cap = true;
		goto out;
	}
	slots = (uint32_t)ut->rows.n + ix.nblocks;
	if (row_space__largest(&t->space) < slots)
		tables__evict_idle(t, slots);
	if (slots > t->file_cap || row_space__alloc(&t->space, slots, &f->first_row)) {
		/* No room for the index too: the rows alone, searched whole, beat frame pointers. */
		page_index__release(&ix);
		slots = (uint32_t)ut->rows.n;
		if (!row_space__alloc(&t->space, slots, &f->first_row))
			t->st.files_no_index++;
		else
			slots = 0;
	}
	if (!slots) {
		t->st.files_no_room++;
		if (!t->warned_full)
			st_warn("unwind: row table full (%llu rows): %s and later files fall back to "
				"frame pointers (raise --unwind-rows)",
				(unsigned long long)t->st.rows_max, ut->path);
		t->warned_full = true;
		goto out;
	}
	if (tables__write_rows(t, f->first_row, ut->rows.rows, (uint32_t)ut->rows.n) ||
	    (ix.nblocks &&
	     tables__write_rows(t, f->first_row + (uint32_t)ut->rows.n, ix.slots, ix.nblocks))) {
		row_space__free(&t->space, f->first_row, slots);
		t->st.files_no_room++;
		goto out;
	}
	f->nrows = (uint32_t)ut->rows.n;
	f->ix_blocks = ix.nblocks;
	f->ix_shift = ix.shift;
	t->st.index_slots += ix.nblocks;
	t->st.rows_used = t->space.used;
	if (t->st.rows_used > t->st.rows_peak)
		t->st.rows_peak = t->st.rows_used;
	t->st.files++;
out:
	page_index__release(&ix);
	/* The BPF walker has its copy: mapped rows leave memory until a copy's walk reads some. */
	unwind_table__drop_pages(ut);
}

/* The loaded file of @ut, its rows copied into st_urows the first time. */
static struct loaded_file *tables__load_file(struct bpf_tables *t, const struct unwind_table *ut)
{
	struct loaded_file *f = tables__find_file(t, ut);
	struct loaded_file nf = { .table = ut };

	if (f) {
		if (!f->users)
			tables__unidle(t, ut); /* idle with its rows kept (when_met): in use again */
		return f;
	}
	if (t->nfiles == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct loaded_file *v = realloc(t->files, cap * sizeof(*v));

		if (!v)
			return NULL;
		t->files = v;
		t->cap = cap;
	}
	/* Kept from here (loaded or idle) until tables__release(): taken unless already kept. */
	if (!tables__unidle(t, ut) && t->hooks.taken)
		t->hooks.taken(t->hooks.ctx, ut);
	/* Placed apart: making room may move the loaded files in their array. */
	tables__place(t, &nf);
	f = &t->files[t->nfiles++];
	*f = nf;
	return f;
}

/*
 * One fewer live process maps @ut: at none, its rows are freed (when_met:
 * kept until the space is wanted, tables__evict_idle()) and the table idles.
 */
static void tables__unuse(struct bpf_tables *t, const struct unwind_table *ut)
{
	struct loaded_file *f = tables__find_file(t, ut);

	if (!f || (f->users && --f->users))
		return;
	if (f->over_cap && t->hooks.release) {
		tables__free_rows(t, f);
		t->st.tables_released++;
		t->hooks.release(t->hooks.ctx, ut);
		return;
	}
	if (!t->hooks.when_met || !f->nrows)
		tables__free_rows(t, f);
	tables__idle(t, ut);
}

static struct loaded_proc *tables__proc(struct bpf_tables *t, int pid)
{
	return (struct loaded_proc *)htab__first(&t->procs, (uint64_t)(uint32_t)pid, 0);
}

static void loaded_proc__free(struct loaded_proc *lp)
{
	size_t i;

	for (i = 0; i < lp->npending; i++)
		free(lp->pending[i].path);
	free(lp->pending);
	free(lp->tabs);
	free(lp);
}

/* @pid's loader state, made empty when new. Return: it, or NULL when out of memory. */
static struct loaded_proc *tables__new_proc(struct bpf_tables *t, int pid)
{
	struct loaded_proc *lp = tables__proc(t, pid);

	if (lp)
		return lp;
	lp = calloc(1, sizeof(*lp));
	if (!lp || (lp->node.k1 = (uint32_t)pid, htab__insert(&t->procs, &lp->node))) {
		free(lp);
		return NULL;
	}
	t->st.procs = t->procs.n;
	return lp;
}

/* @pid's entry now points at @tabs (owned from here): use them, then unuse the old ones. */
static int tables__set_users(struct bpf_tables *t, int pid, const struct unwind_table **tabs,
			     size_t n)
{
	struct loaded_proc *lp = tables__new_proc(t, pid);
	const struct unwind_table **old;
	size_t i, nold;

	if (!lp) {
		free(tabs);
		return -ENOMEM;
	}
	lp->clear = lp->clear_due = false; /* its entry is put next */
	for (i = 0; i < n; i++)
		tables__find_file(t, tabs[i])->users++;
	old = lp->tabs;
	nold = lp->ntabs;
	lp->tabs = tabs;
	lp->ntabs = n;
	for (i = 0; i < nold; i++)
		tables__unuse(t, old[i]);
	free(old);
	return 0;
}

/* Adds @ut to @tabs unless there already (a file mapped twice counts once). */
static void tables__note(const struct unwind_table **tabs, size_t *n, const struct unwind_table *ut)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (tabs[i] == ut)
			return;
	tabs[(*n)++] = ut;
}

static uint64_t tables__dev(const struct proc_map *m)
{
	return (uint64_t)m->dev_major << 32 | m->dev_minor;
}

/* Is @m's file known to be over the per-file cap? */
static bool tables__over_cap(const struct bpf_tables *t, const struct proc_map *m)
{
	return m->path[0] == '/' && htab__first(&t->over_cap, tables__dev(m), m->inode);
}

bool bpf_tables__over_cap(const struct bpf_tables *t, const struct proc_map *m)
{
	return tables__over_cap(t, m);
}

/* @m's file proved over the cap: remembered (not when out of memory: then built again). */
static void tables__note_over_cap(struct bpf_tables *t, const struct proc_map *m)
{
	struct over_cap_file *o;

	if (m->path[0] != '/' || tables__over_cap(t, m) || !(o = calloc(1, sizeof(*o))))
		return;
	o->node.k1 = tables__dev(m);
	o->node.k2 = m->inode;
	if (htab__insert(&t->over_cap, &o->node))
		free(o);
}

/* Return: false when the mapping is left out for now (lazy: its table is not built yet). */
static bool tables__fill_map(struct bpf_tables *t, int pid, const struct proc_map *m,
			     struct st_umap *um, const struct unwind_table **tabs, size_t *ntabs)
{
	const struct unwind_table *ut = NULL;
	const struct loaded_file *f = NULL;
	uint64_t vaddr;

	*um = (struct st_umap){ .start = m->start, .end = m->end };
	if (tables__over_cap(t, m))
		return true; /* frame pointers there; its table is not built again */
	/* Lazy start-up: a file's table may not be built yet (the [vdso]'s comes from memory). */
	if (m->path[0] == '/' && t->hooks.lazy && t->hooks.built &&
	    !t->hooks.built(t->hooks.ctx, pid, m))
		return false;
	ut = t->src.table(t->src.ctx, pid, m);
	if (ut && (f = tables__load_file(t, ut)))
		tables__note(tabs, ntabs, ut);
	if (f && f->over_cap)
		tables__note_over_cap(t, m);
	if (!f || !f->nrows || unwind_table__map_vaddr(ut, m->pgoff, &vaddr))
		return true; /* without rows (anonymous JIT code, a file without tables): fp */
	/* row pc = (addr - start + vaddr) - base */
	um->bias = m->start - vaddr + ut->base;
	um->first_row = f->first_row;
	um->nrows = f->nrows;
	um->ix_row = f->first_row + f->nrows;
	um->ix_blocks = f->ix_blocks;
	um->ix_shift = f->ix_shift;
	return true;
}

/* Lazy: keep @pid's mappings to load again once their tables are built. */
static int tables__wait(struct bpf_tables *t, int pid, const struct proc_map *maps, size_t n)
{
	struct loaded_proc *lp = tables__proc(t, pid);
	struct proc_map *v = calloc(n ? n : 1, sizeof(*v));
	size_t i, k = 0;
	bool queued;

	if (!lp || !v)
		goto err_free;
	for (i = 0; i < n; i++) {
		if (!(maps[i].prot & PROC_MAP_X))
			continue;
		v[k] = maps[i];
		if (!(v[k++].path = strdup(maps[i].path)))
			goto err_free;
	}
	queued = lp->pending != NULL;
	for (i = 0; i < lp->npending; i++)
		free(lp->pending[i].path);
	free(lp->pending);
	lp->pending = v;
	lp->npending = k;
	if (queued)
		return 0;
	if (t->nwaiting == t->waiting_cap) {
		size_t cap = t->waiting_cap ? t->waiting_cap * 2 : 16;
		int *w = realloc(t->waiting, cap * sizeof(*w));

		if (!w)
			return -ENOMEM; /* stays pending; served when another process is */
		t->waiting = w;
		t->waiting_cap = cap;
	}
	t->waiting[t->nwaiting++] = pid;
	return 0;
err_free:
	for (i = 0; v && i < k; i++)
		free(v[i].path);
	free(v);
	return -ENOMEM;
}

/* Puts @p as @pid's entry, new or a refresh. */
static int tables__put(struct bpf_tables *t, int pid, struct st_uproc *p)
{
	__u32 key = pid;
	int err;

	/*
	 * A new generation for every load: the BPF walk cache (bpf/ucache.bpf.h)
	 * keeps a walk only as long as the tables it was made with.
	 */
	if (!++t->gen)
		++t->gen;
	p->gen = t->gen;
	err = bpf_map_update_elem(t->procs_fd, &key, p, BPF_ANY);
	if (err) {
		t->st.procs_no_room++;
		return -ENOSPC;
	}
	return 0;
}

/*
 * when_met: a process no event has met yet is not loaded at all, not even
 * with the tables already built: it has no st_uprocs entry (its events,
 * if any, come with copies) and no rows written for it. Most processes of a
 * busy machine are never sampled; loading each one's libc at its exec and
 * freeing it at its exit was most of a system-wide profile's own CPU under
 * churn.
 *
 * Return: 0 or -ENOMEM.
 */
static int tables__wait_unmet(struct bpf_tables *t, int pid, const struct proc_map *maps, size_t n)
{
	struct loaded_proc *lp = tables__new_proc(t, pid);
	__u32 key = pid;

	if (!lp)
		return -ENOMEM;
	/*
	 * A fork's entry is its parent's, copied by BPF: it names rows this
	 * process does not hold, which go when the parent's last user exits.
	 * Deleted once; not at every mapping of every process (a syscall each
	 * was an eighth of a system-wide profile's CPU under churn).
	 */
	if (!lp->clear)
		bpf_map_delete_elem(t->procs_fd, &key);
	lp->clear = true;
	lp->clear_due = false;
	return tables__wait(t, pid, maps, n);
}

/*
 * BPF copies the parent's entry at the fork when the parent has one: when
 * the parent is known not to (unmet and clear), neither has the child.
 * Unsure (the parent unknown: its exit read first), the child is not clear.
 */
void bpf_tables__fork(struct bpf_tables *t, int parent, int child)
{
	const struct loaded_proc *pp = tables__proc(t, parent);
	struct loaded_proc *lp;

	if (!t->hooks.when_met)
		return;
	lp = tables__new_proc(t, child);
	if (!lp || lp->met)
		return;
	lp->clear = pp && !pp->met && pp->clear;
	if (lp->clear || lp->clear_due)
		return;
	if (t->ndue == t->due_cap)
		tables__compact_due(t);
	if (array_reserve((void **)&t->due, &t->due_cap, t->ndue + 1, sizeof(*t->due))) {
		__u32 key = child;

		bpf_map_delete_elem(t->procs_fd, &key); /* no room to note it: at once */
		lp->clear = true;
		return;
	}
	t->due[t->ndue++] = child;
	lp->clear_due = true;
}

/* when_met: is @pid one no event has met yet (tables__wait_unmet())? */
static bool tables__unmet(struct bpf_tables *t, int pid)
{
	const struct loaded_proc *lp = t->hooks.when_met ? tables__proc(t, pid) : NULL;

	return t->hooks.when_met && (!lp || !lp->met);
}

int bpf_tables__set_maps(struct bpf_tables *t, int pid, const struct proc_map *maps, size_t n)
{
	struct st_uproc *p;
	const struct unwind_table **tabs;
	size_t i, ntabs = 0;
	bool waits = false;
	int err = -ENOMEM;

	/* Before the entry is allocated: it is large (ST_UNW_MAX_MAPS mappings), and most are unmet. */
	if (tables__unmet(t, pid))
		return tables__wait_unmet(t, pid, maps, n);
	p = calloc(1, sizeof(*p));
	tabs = calloc(n ? n : 1, sizeof(*tabs));
	if (!p || !tabs)
		goto out;
	for (i = 0; i < n; i++) {
		/* Every executable mapping: the walker treats a pc in none as not loaded yet. */
		if (!(maps[i].prot & PROC_MAP_X))
			continue;
		if (p->n == ST_UNW_MAX_MAPS) {
			t->st.maps_dropped++;
			continue;
		}
		if (tables__fill_map(t, pid, &maps[i], &p->maps[p->n], tabs, &ntabs))
			p->n++;
		else
			waits = true;
	}
	err = tables__set_users(t, pid, tabs, ntabs);
	tabs = NULL;
	t->st.procs = t->procs.n;
	if (!err && waits)
		err = tables__wait(t, pid, maps, n);
	if (!err)
		err = tables__put(t, pid, p);
	if (!err && !waits)
		st_info("unwind: tables of process %d loaded", pid);
out:
	free(tabs);
	free(p);
	return err;
}

/* Drops @pid from the waiting list (it exited, or was served). */
static void tables__unwait(struct bpf_tables *t, int pid)
{
	size_t i;

	for (i = 0; i < t->nwaiting; i++) {
		if (t->waiting[i] == pid) {
			memmove(&t->waiting[i], &t->waiting[i + 1],
				(t->nwaiting - i - 1) * sizeof(*t->waiting));
			t->nwaiting--;
			return;
		}
	}
}

void bpf_tables__remove_process(struct bpf_tables *t, int pid)
{
	struct loaded_proc *lp = tables__proc(t, pid);
	__u32 key = pid;
	size_t i;

	/*
	 * BPF may have deleted it at the exit; it surely did an unmet fork's
	 * copy (an exit record comes after that delete), and user space put
	 * none for it.
	 */
	if (!lp || !(lp->clear || lp->clear_due))
		bpf_map_delete_elem(t->procs_fd, &key);
	tables__unwait(t, pid);
	if (!lp)
		return;
	htab__remove(&t->procs, &lp->node);
	t->st.procs = t->procs.n;
	for (i = 0; i < lp->ntabs; i++)
		tables__unuse(t, lp->tabs[i]);
	loaded_proc__free(lp);
}

/* Builds what @pid waits for and loads its entry again. */
static void tables__serve(struct bpf_tables *t, int pid)
{
	struct loaded_proc *lp = tables__proc(t, pid);
	struct proc_map *maps;
	bool lazy = t->hooks.lazy;
	size_t i, n;

	tables__unwait(t, pid);
	if (!lp || !lp->pending)
		return;
	maps = lp->pending;
	n = lp->npending;
	lp->pending = NULL;
	lp->npending = 0;
	lp->met = true;
	for (i = 0; i < n; i++)
		if (maps[i].path[0] == '/' && !t->hooks.built(t->hooks.ctx, pid, &maps[i]) &&
		    t->src.table(t->src.ctx, pid, &maps[i]))
			t->st.built_later++;
	t->hooks.lazy = false;
	bpf_tables__set_maps(t, pid, maps, n);
	t->hooks.lazy = lazy;
	t->st.procs_served++;
	for (i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

int bpf_tables__build_pending(struct bpf_tables *t)
{
	if (!t->nwaiting || t->hooks.when_met)
		return 0;
	tables__serve(t, t->waiting[0]);
	return 1;
}

void bpf_tables__end_lazy(struct bpf_tables *t)
{
	t->hooks.lazy = t->hooks.when_met;
}

void bpf_tables__serve_now(struct bpf_tables *t, int pid)
{
	const struct loaded_proc *lp = t->nwaiting ? tables__proc(t, pid) : NULL;

	if (lp && lp->pending)
		tables__serve(t, pid);
}

const struct bpf_tables_stats *bpf_tables__stats(const struct bpf_tables *t)
{
	return &t->st;
}

/* Rows in use, the most at once, what was freed, and what the maps take. */
static void tables__report_memory(const struct bpf_tables *t)
{
	const struct bpf_tables_stats *s = &t->st;

	fprintf(stderr,
		"stacktap: unwind tables: %llu files, %llu rows (%llu KiB; page indexes %llu of them) "
		"of %llu now, peak %llu; "
		"freed %llu files, %llu rows; %llu processes now, %llu loaded late with %llu "
		"tables built for them; %zu tables idle (%llu rows), %llu released\n",
		(unsigned long long)s->files, (unsigned long long)s->rows_used,
		(unsigned long long)(s->rows_used * sizeof(struct unwind_row) / 1024),
		(unsigned long long)s->index_slots, (unsigned long long)s->rows_max, (unsigned long long)s->rows_peak,
		(unsigned long long)s->files_freed, (unsigned long long)s->rows_freed,
		(unsigned long long)s->procs, (unsigned long long)s->procs_served,
		(unsigned long long)s->built_later, t->nidle, (unsigned long long)t->idle_rows,
		(unsigned long long)s->tables_released);
	fprintf(stderr,
		"stacktap: unwind maps: rows %llu KiB reserved; processes %llu KiB now (%zu B each, "
		"at most %llu)\n",
		(unsigned long long)(s->rows_max * sizeof(struct unwind_row) / 1024),
		(unsigned long long)(s->procs * sizeof(struct st_uproc) / 1024),
		sizeof(struct st_uproc), (unsigned long long)t->procs_max);
}

void bpf_tables__report(const struct bpf_tables *t, bool memory)
{
	const struct bpf_tables_stats *s = &t->st;

	if (memory)
		tables__report_memory(t);
	if (s->files_no_room)
		fprintf(stderr, "stacktap: %llu files unwound by frame pointers: row table full\n",
			(unsigned long long)s->files_no_room);
	if (s->files_no_index)
		fprintf(stderr, "stacktap: %llu files loaded without their page index: row table "
				"full (their searches cover all their rows)\n",
			(unsigned long long)s->files_no_index);
	if (s->files_over_cap)
		fprintf(stderr, "stacktap: %llu files unwound by frame pointers: over the per-file "
				"cap of %u rows\n",
			(unsigned long long)s->files_over_cap, t->file_cap);
	if (s->procs_no_room)
		fprintf(stderr, "stacktap: %llu processes without tables: process table full\n",
			(unsigned long long)s->procs_no_room);
	if (s->maps_dropped)
		fprintf(stderr, "stacktap: %llu executable mappings beyond %d per process ignored\n",
			(unsigned long long)s->maps_dropped, ST_UNW_MAX_MAPS);
}

static void tables__drop_proc(struct hnode *n)
{
	loaded_proc__free((struct loaded_proc *)n);
}

static void tables__drop_over_cap(struct hnode *n)
{
	free(n);
}

void bpf_tables__free(struct bpf_tables *t)
{
	if (!t)
		return;
	free(t->keys);
	htab__drain(&t->procs, tables__drop_proc);
	htab__drain(&t->over_cap, tables__drop_over_cap);
	row_space__release(&t->space);
	free(t->idle);
	free(t->waiting);
	free(t->due);
	free(t->files);
	free(t);
}
