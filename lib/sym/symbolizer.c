// SPDX-License-Identifier: GPL-2.0
/* The symbolizer: decoded frames named in batches sorted by file and offset. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf_file.h"
#include "lib/report/report.h"
#include "lib/sym/dwarf_inline.h"
#include "lib/sym/event_frames.h"
#include "lib/sym/gopclntab.h"
#include "lib/sym/jit_maps.h"
#include "lib/sym/ksyms_source.h"
#include "lib/sym/name_arena.h"
#include "lib/sym/name_memo.h"
#include "lib/sym/perf_map.h"
#include "lib/sym/sources.h"
#include "lib/sym/symbolizer.h"
#include "lib/util/grow.h"
#include "lib/util/log.h"
#include "lib/util/safe_open.h"

/*
 * What one distinct address of a file names: the real function (raw, as
 * its source has it) with its start when known, the source line, and the
 * frames inlined there (in the pool).
 */
struct addr_name {
	uint64_t vaddr, start;
	const char *name;
	const char *shown; /* remembered ones: name as shown (demangled), found once */
	const char *src_file;
	/*
	 * A kernel address: its symbol, kept by value (ksym.name NULL: none).
	 * The kernel-symbol door answers in one static slot that the next
	 * question overwrites, and a recording's table moves as it grows.
	 */
	struct ksym ksym;
	uint32_t line, inl_first, inl_n;
	bool has_vaddr, has_start;
};

struct symbolizer {
	struct proc_registry *procs;
	struct name_arena *names; /* names made here, and demangled ones */
	struct jit_maps *jit;
	struct symbolizer_opts opts;
	struct symbolizer_stats stats;
	/*
	 * One symbolizer__name() call's inline frames, which events then take
	 * in; while remembering, every call's since symbolizer__remember().
	 */
	struct report_frame *pool;
	size_t npool, cap;
	/*
	 * While remembering: (file, offset) or (NULL, kernel address) -> known[i];
	 * unnamed: (path, offset) -> known[i] of a frame named by them.
	 */
	struct name_memo *memo, *unnamed;
	struct addr_name *known;
	size_t nknown, known_cap;
	symbolizer_progress_fn progress;
	void *progress_ctx;
	/*
	 * symbolizer__name()'s frames to look up, kept from call to call: a
	 * report's batches would each map (and fault in) megabytes afresh.
	 */
	struct name_ref *user_refs, *kernel_refs;
	size_t user_cap, kernel_cap;
};

/* One frame to name: where to look it up, and the frame. */
struct name_ref {
	struct elf_file *file; /* user frames: the file model; kernel frames: NULL */
	uint64_t key;          /* what is looked up: file offset or kernel address, see lookup_at */
	struct report_frame *f;
	struct frame_src *src; /* user frames: where its inline frames are noted */
};

struct symbolizer *symbolizer__new(struct proc_registry *procs)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return NULL;
	sz->procs = procs;
	sz->opts = (struct symbolizer_opts){ .demangle = true, .inlines = true };
	sz->names = name_arena__new();
	sz->jit = jit_maps__new();
	if (!sz->names || !sz->jit) {
		symbolizer__free(sz);
		errno = ENOMEM;
		return NULL;
	}
	return sz;
}

/*
 * kallsyms is read through the kernel-symbol door (lib/sym/ksyms_source.h):
 * user-only work never pays for it. Here its reading starts on a thread, so
 * the command attaches and says so meanwhile, and the first question waits
 * only for what is left; a replay's door answers from the recording.
 */
void symbolizer__load_kernel(struct symbolizer *sz)
{
	(void)sz;
	ksyms_source_preload();
}

void symbolizer__set_opts(struct symbolizer *sz, const struct symbolizer_opts *o)
{
	sz->opts = *o;
	if (o->recorded)
		jit_maps__recorded_only(sz->jit);
}

struct proc_registry *symbolizer__procs(const struct symbolizer *sz)
{
	return sz->procs;
}

void symbolizer__see(struct symbolizer *sz, int pid)
{
	jit_maps__see(sz->jit, pid);
}

void symbolizer__exited(struct symbolizer *sz, int pid)
{
	jit_maps__exited(sz->jit, pid);
}

void symbolizer__keep_perf_map(struct symbolizer *sz, int pid)
{
	jit_maps__keep(sz->jit, pid);
}

void symbolizer__forget(struct symbolizer *sz, int pid)
{
	jit_maps__forget(sz->jit, pid);
}

int symbolizer__set_perf_map(struct symbolizer *sz, int pid, const char *text, size_t len)
{
	struct perf_map *pm = perf_map__parse(text, len);

	return pm ? jit_maps__set(sz->jit, pid, pm) : -ENOMEM;
}

void symbolizer__refresh(struct symbolizer *sz)
{
	jit_maps__refresh(sz->jit);
}

/*
 * A return address points after the call; when the call is a function's
 * last instruction (a noreturn callee) it already belongs to the next
 * function, or to no function at all. Looking up @at - 1 names the caller
 * correctly. This is the one place the rule is applied, for kernel
 * addresses, user file offsets and JIT addresses alike; a frame's own addr,
 * file_off and sym_off stay those of the return address.
 */
static uint64_t lookup_at(const struct report_frame *f, uint64_t at)
{
	return (f->flags & REPORT_FRAME_RETURN) && at ? at - 1 : at;
}

/* What a person reads for @raw (a name that lives as long as the symbolizer). */
static const char *symbolizer__shown(struct symbolizer *sz, const char *raw)
{
	return sz->opts.demangle ? name_arena__demangled(sz->names, raw) : raw;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * While remembering: what (@obj, @key) names, for the next frames and
 * calls. Not remembered (no memory) is only slower.
 */
static void name__keep_in(struct symbolizer *sz, struct name_memo *memo, const void *obj,
			  uint64_t key, const struct addr_name *an)
{
	struct addr_name *v;
	size_t cap;

	if (!memo || sz->nknown >= UINT32_MAX)
		return;
	if (sz->nknown == sz->known_cap) {
		cap = sz->known_cap ? sz->known_cap * 2 : 1024;
		v = cap > SIZE_MAX / sizeof(*v) ? NULL : realloc(sz->known, cap * sizeof(*v));
		if (!v)
			return;
		sz->known = v;
		sz->known_cap = cap;
	}
	if (name_memo__put(memo, obj, key, (uint32_t)sz->nknown))
		return;
	sz->known[sz->nknown] = *an;
	sz->known[sz->nknown++].shown = an->name ? symbolizer__shown(sz, an->name) : NULL;
}

static void name__keep(struct symbolizer *sz, const void *obj, uint64_t key,
		       const struct addr_name *an)
{
	name__keep_in(sz, sz->memo, obj, key, an);
}

/* While remembering: what (@obj, @key) was found to name in @memo, or NULL. */
static const struct addr_name *name__known_in(const struct symbolizer *sz,
					      const struct name_memo *memo, const void *obj,
					      uint64_t key)
{
	uint32_t i;

	return memo && name_memo__find(memo, obj, key, &i) ? &sz->known[i] : NULL;
}

static const struct addr_name *name__known(const struct symbolizer *sz, const void *obj,
					   uint64_t key)
{
	return name__known_in(sz, sz->memo, obj, key);
}

/*
 * A frame in a file but in no symbol: named by its file and offset; a report
 * that found only another build of the file says so (docs/recording.md).
 * While remembering, each (path, offset) is written once: the name is kept
 * with the reason in its vaddr, and used again only for the same reason.
 */
static int name__file_offset(struct symbolizer *sz, struct report_frame *f, uint8_t why)
{
	const struct addr_name *an = name__known_in(sz, sz->unnamed, f->module, f->file_off);
	char buf[512];

	sz->stats.user_no_sym++;
	if (an && an->vaddr == why) {
		f->name = an->name;
		return 0;
	}
	snprintf(buf, sizeof(buf), "[unknown] (%s+%#llx%s)",
		 f->module ? base_name(f->module) : "?", (unsigned long long)f->file_off,
		 why == SAFE_OPEN_OTHER_BUILD ? ", other build" : "");
	f->name = name_arena__intern(sz->names, buf);
	if (f->name && !an)
		name__keep_in(sz, sz->unnamed, f->module, f->file_off,
			      &(struct addr_name){ .vaddr = why, .name = f->name });
	return f->name ? 0 : -ENOMEM;
}

/*
 * Code outside any file: named by the perf map of its process (run-time
 * addresses), else one name for all of it, as perf's "[anon]", so stacks
 * through unnamed JIT code merge.
 */
static int name__anon(struct symbolizer *sz, int pid, struct report_frame *f)
{
	const struct perf_map_sym *s = jit_maps__find(sz->jit, pid, lookup_at(f, f->addr));
	const char *raw;
	char buf[128];

	if (s) {
		raw = name_arena__intern(sz->names, s->name); /* the map may be re-read */
		f->name = raw ? symbolizer__shown(sz, raw) : NULL;
		f->sym_off = f->addr - s->start;
		f->flags |= REPORT_FRAME_HAS_SYM;
		sz->stats.jit_named++;
		return f->name ? 0 : -ENOMEM;
	}
	snprintf(buf, sizeof(buf), "[unknown] (%s)", f->module ? f->module : "[anon]");
	sz->stats.user_no_sym++;
	f->name = name_arena__intern(sz->names, buf);
	return f->name ? 0 : -ENOMEM;
}

/* User frames whose file model is known join the batch; the others are named now. */
static int name__collect_user(struct symbolizer *sz, const struct event_frames *ef, size_t i,
			      struct name_ref *refs, size_t *n)
{
	struct report_frame *f = &ef->v[i];
	struct frame_src *src = &ef->src[i];

	switch (src->kind) {
	case FRAME_SRC_FILE:
		if (!src->file)
			return name__file_offset(sz, f, src->why);
		refs[(*n)++] = (struct name_ref){ src->file, lookup_at(f, f->file_off), f, src };
		return 0;
	case FRAME_SRC_ANON:
		return name__anon(sz, ef->pid, f);
	case FRAME_SRC_NO_MAP:
		sz->stats.user_no_map++;
		f->name = "[unknown]";
		return 0;
	default:
		return 0; /* a mark: already named */
	}
}

static int name_ref__cmp(const void *pa, const void *pb)
{
	const struct name_ref *a = pa, *b = pb;

	if (a->file != b->file)
		return (uintptr_t)a->file < (uintptr_t)b->file ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return 0;
}

/* The function at @an->vaddr: .gopclntab for Go files without .symtab, else the symbols. */
static void name__function(struct elf_file *file, struct addr_name *an)
{
	const struct gopclntab *go = sources__go(file);
	const struct go_func *g = go ? gopclntab__find(go, an->vaddr) : NULL;
	const struct elf_sym *s;

	if (g) {
		an->name = g->name;
		an->start = g->entry;
		an->has_start = true;
		return;
	}
	s = elf_file__find_sym(file, an->vaddr);
	if (s) {
		an->name = s->name;
		an->start = s->addr;
		an->has_start = true;
	}
}

/* A source path as eu-addr2line shows it: a relative one joined to its unit's directory. */
static const char *name__src_path(struct symbolizer *sz, const struct dwarf_frame *fr)
{
	char buf[4096];

	if (!fr->file)
		return NULL;
	if (fr->file[0] == '/' || !fr->comp_dir)
		return name_arena__intern(sz->names, fr->file);
	snprintf(buf, sizeof(buf), "%s/%s", fr->comp_dir, fr->file);
	return name_arena__intern(sz->names, buf);
}

static int pool__push(struct symbolizer *sz, const struct report_frame *f)
{
	struct report_frame *v;
	size_t cap;

	if (sz->npool == sz->cap) {
		cap = sz->cap ? sz->cap * 2 : 256;
		if (cap > UINT32_MAX || cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(sz->pool, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sz->pool = v;
		sz->cap = cap;
	}
	sz->pool[sz->npool++] = *f;
	return 0;
}

/* The DWARF step of one file's batch: dwarf_inline__batch() hands each address here. */
struct dwarf_step {
	struct symbolizer *sz;
	struct addr_name *an;
	const uint32_t *which; /* the batch's address i is an[which[i]] */
};

static int name__dwarf_cb(void *ctx, size_t idx, const struct dwarf_frame *fr, size_t n)
{
	struct dwarf_step *st = ctx;
	struct symbolizer *sz = st->sz;
	struct addr_name *an = &st->an[st->which[idx]];
	struct report_frame in;
	size_t k;

	if (!n)
		return 0;
	if (!an->name)
		an->name = fr[n - 1].func; /* no symbol: DWARF's name of the real function */
	if (sz->opts.lines) {
		an->src_file = name__src_path(sz, &fr[n - 1]);
		an->line = fr[n - 1].line;
	}
	if (!sz->opts.inlines)
		return 0;
	an->inl_first = (uint32_t)sz->npool;
	for (k = 0; k + 1 < n; k++) {
		if (!fr[k].func)
			continue; /* an inlined body DWARF does not name: nothing to show */
		in = (struct report_frame){ .name = symbolizer__shown(sz, fr[k].func),
					    .kind = REPORT_FRAME_INLINE };
		if (!in.name || pool__push(sz, &in))
			return -ENOMEM;
		if (sz->opts.lines) {
			sz->pool[sz->npool - 1].src_file = name__src_path(sz, &fr[k]);
			sz->pool[sz->npool - 1].line = fr[k].line;
		}
	}
	an->inl_n = (uint32_t)(sz->npool - an->inl_first);
	return 0;
}

/* Inline frames and lines for the @m distinct addresses of one file, in one DWARF batch. */
static int name__dwarf_batch(struct symbolizer *sz, struct elf_file *file, struct addr_name *an,
			     size_t m)
{
	struct dwarf_inline *di = sources__dwarf(file);
	uint64_t *addrs = NULL;
	uint32_t *which = NULL;
	struct dwarf_step st = { sz, an, NULL };
	size_t i, k = 0;
	int err = 0;

	if (!di)
		return 0;
	addrs = calloc(m, sizeof(*addrs));
	which = calloc(m, sizeof(*which));
	if (!addrs || !which) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < m; i++) {
		if (!an[i].has_vaddr)
			continue;
		addrs[k] = an[i].vaddr;
		which[k++] = (uint32_t)i;
	}
	st.which = which;
	err = dwarf_inline__batch(di, addrs, k, sz->opts.lines, name__dwarf_cb, &st);
out:
	free(addrs);
	free(which);
	return err;
}

/* The frames of one distinct address get its names. */
static int name__apply(struct symbolizer *sz, const struct name_ref *r, const struct addr_name *an)
{
	struct report_frame *f = r->f;

	r->src->inl_first = an->inl_first;
	r->src->inl_n = an->inl_n;
	sz->stats.inline_frames += an->inl_n;
	f->src_file = an->src_file;
	f->line = an->line;
	if (!an->name)
		return name__file_offset(sz, f, SAFE_OPEN_OK);
	f->name = an->shown ? an->shown : symbolizer__shown(sz, an->name);
	if (an->has_start) {
		f->sym_off = an->vaddr + (f->file_off - r->key) - an->start;
		f->flags |= REPORT_FRAME_HAS_SYM;
	}
	return f->name ? 0 : -ENOMEM;
}

/*
 * One file's frames, sorted by offset: each distinct offset is named once
 * (the symbol table is walked forward), then DWARF gives the inline frames
 * and lines of all of them in one batch, then every frame takes its names.
 */
static int name__file_run(struct symbolizer *sz, struct name_ref *refs, size_t n)
{
	struct elf_file *file = refs[0].file;
	struct addr_name *an;
	size_t i, m = 0;
	int err = 0;

	an = calloc(n, sizeof(*an));
	if (!an)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (i && refs[i].key == refs[i - 1].key)
			continue;
		an[m].has_vaddr = !elf_file__offset_to_vaddr(file, refs[i].key, &an[m].vaddr);
		if (an[m].has_vaddr)
			name__function(file, &an[m]);
		m++;
	}
	if (sz->opts.inlines || sz->opts.lines)
		err = name__dwarf_batch(sz, file, an, m);
	for (i = 0, m = 0; i < n && !err; i++) {
		if (i && refs[i].key != refs[i - 1].key)
			m++;
		if (!i || refs[i].key != refs[i - 1].key)
			name__keep(sz, file, refs[i].key, &an[m]);
		err = name__apply(sz, &refs[i], &an[m]);
	}
	free(an);
	return err;
}

/* A distinct (file, offset) of a batch: its first frame, and the chain of the others. */
struct name_group {
	struct name_ref r;
	uint32_t first;
};

static int name_group__cmp(const void *pa, const void *pb)
{
	return name_ref__cmp(&((const struct name_group *)pa)->r,
			     &((const struct name_group *)pb)->r);
}

static uint64_t name_ref__hash(const struct name_ref *r)
{
	uint64_t h = ((uintptr_t)r->file ^ (r->key * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;

	return h ^ (h >> 29);
}

/*
 * Sorts @refs by (file, offset) by sorting only the distinct pairs: the
 * stacks of a batch share most of their frames (a profile's 100k frames are
 * some 10k addresses), and sorting every frame was a seventh of a report.
 * Equal pairs end up together, as a sort of all of them leaves them.
 */
static int name__sort_refs(struct name_ref *refs, size_t n)
{
	size_t nb = 64, i, ng = 0, k = 0;
	uint32_t *slot, *next, g, j;
	struct name_group *grp;
	struct name_ref *out;
	int err = -ENOMEM;

	while (nb < 2 * n)
		nb *= 2;
	slot = calloc(nb, sizeof(*slot));
	next = malloc((n + 1) * sizeof(*next));
	grp = malloc((n + 1) * sizeof(*grp));
	out = malloc((n + 1) * sizeof(*out));
	if (!slot || !next || !grp || !out || n >= UINT32_MAX)
		goto out;
	for (i = 0; i < n; i++) {
		size_t h = name_ref__hash(&refs[i]) & (nb - 1);

		while ((g = slot[h]) && (grp[g - 1].r.file != refs[i].file ||
					 grp[g - 1].r.key != refs[i].key))
			h = (h + 1) & (nb - 1);
		if (!g) {
			grp[ng] = (struct name_group){ .r = refs[i], .first = UINT32_MAX };
			slot[h] = g = ++ng;
		}
		next[i] = grp[g - 1].first; /* the chain runs backwards: order among equals is free */
		grp[g - 1].first = i;
	}
	qsort(grp, ng, sizeof(*grp), name_group__cmp);
	for (i = 0; i < ng; i++)
		for (j = grp[i].first; j != UINT32_MAX; j = next[j])
			out[k++] = refs[j];
	memcpy(refs, out, n * sizeof(*refs));
	err = 0;
out:
	free(slot);
	free(next);
	free(grp);
	free(out);
	return err;
}

/* User frames, grouped by file and in offset order: one run per file. */
static int name__user_batch(struct symbolizer *sz, struct name_ref *refs, size_t n)
{
	const struct addr_name *an;
	size_t i, j, miss = 0;
	int err = 0;

	/* Frames named before are named now; only the others are sorted and looked up. */
	for (i = 0; sz->memo && i < n && !err; i++) {
		an = name__known(sz, refs[i].file, refs[i].key);
		if (an)
			err = name__apply(sz, &refs[i], an);
		else
			refs[miss++] = refs[i];
	}
	if (sz->memo)
		n = miss;
	if (!err)
		err = name__sort_refs(refs, n);

	for (i = 0; i < n && !err; i = j) {
		for (j = i + 1; j < n && refs[j].file == refs[i].file; j++)
			;
		err = name__file_run(sz, refs + i, j - i);
	}
	return err;
}

static int symbolizer__kernel_name(struct symbolizer *sz, struct report_frame *f,
				   const struct ksym *k)
{
	char buf[64];

	if (!k) {
		sz->stats.kernel_unknown++;
		snprintf(buf, sizeof(buf), "[unknown] %#llx", (unsigned long long)f->addr);
		f->name = name_arena__intern(sz->names, buf);
		return f->name ? 0 : -ENOMEM;
	}
	f->name = symbolizer__shown(sz, k->name); /* Rust in the kernel is mangled too */
	f->module = k->module;
	f->sym_off = f->addr - k->addr;
	f->flags |= REPORT_FRAME_HAS_SYM;
	return f->name ? 0 : -ENOMEM;
}

/* Kernel frames while remembering: each distinct address is looked up once. */
static int name__kernel_known(struct symbolizer *sz, struct name_ref *refs, size_t n)
{
	const struct addr_name *an;
	struct addr_name fresh;
	size_t i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		an = name__known(sz, NULL, refs[i].key);
		if (!an) {
			const struct ksym *k = ksyms_source_find(refs[i].key);

			fresh = (struct addr_name){ .ksym = k ? *k : (struct ksym){ 0 } };
			name__keep(sz, NULL, refs[i].key, &fresh);
			an = &fresh;
		}
		err = symbolizer__kernel_name(sz, refs[i].f, an->ksym.name ? &an->ksym : NULL);
	}
	return err;
}

/* Kernel frames in address order (kallsyms is one sorted table). */
static int name__kernel_batch(struct symbolizer *sz, struct name_ref *refs, size_t n)
{
	const struct ksym *k = NULL;
	size_t i;
	int err = 0;

	if (!n)
		return 0;
	if (sz->memo)
		return name__kernel_known(sz, refs, n);
	qsort(refs, n, sizeof(*refs), name_ref__cmp);
	for (i = 0; i < n && !err; i++) {
		if (!i || refs[i].key != refs[i - 1].key)
			k = ksyms_source_find(refs[i].key); /* kallsyms, or as recorded */
		err = symbolizer__kernel_name(sz, refs[i].f, k);
	}
	return err;
}

int symbolizer__name(struct symbolizer *sz, struct event_frames *efs, size_t n)
{
	struct name_ref *user, *kernel;
	size_t i, j, total = 0, nu = 0, nk = 0;
	int err = 0;

	for (i = 0; i < n; i++)
		total += efs[i].nk + efs[i].nu;
	if (array_reserve((void **)&sz->user_refs, &sz->user_cap, total + 1, sizeof(*user)) ||
	    array_reserve((void **)&sz->kernel_refs, &sz->kernel_cap, total + 1, sizeof(*kernel)))
		return -ENOMEM;
	user = sz->user_refs;
	kernel = sz->kernel_refs;
	if (!sz->memo)
		sz->npool = 0; /* remembered names keep their inline frames */
	for (i = 0; i < n && !err; i++) {
		for (j = 0; j < efs[i].nk; j++)
			kernel[nk++] = (struct name_ref){ NULL, lookup_at(&efs[i].v[j], efs[i].v[j].addr),
							  &efs[i].v[j], NULL };
		for (j = efs[i].nk; j < efs[i].nk + efs[i].nu && !err; j++)
			err = name__collect_user(sz, &efs[i], j, user, &nu);
	}
	if (!err)
		err = name__user_batch(sz, user, nu);
	if (!err)
		err = name__kernel_batch(sz, kernel, nk);
	for (i = 0; i < n && !err; i++)
		event_frames__trim_plumbing(&efs[i]);
	/* Last: inline frames move the frames the refs point at. */
	for (i = 0; i < n && !err && sz->npool; i++)
		err = event_frames__add_inline(&efs[i], sz->pool);
	return err;
}

/* The lookup scratch: a report's batches are done, or the symbolizer is. */
static void symbolizer__drop_refs(struct symbolizer *sz)
{
	free(sz->user_refs);
	free(sz->kernel_refs);
	sz->user_refs = sz->kernel_refs = NULL;
	sz->user_cap = sz->kernel_cap = 0;
}

void symbolizer__remember(struct symbolizer *sz, bool on)
{
	name_memo__free(sz->memo);
	name_memo__free(sz->unnamed);
	free(sz->known);
	sz->memo = on ? name_memo__new() : NULL;
	sz->unnamed = sz->memo ? name_memo__new() : NULL;
	sz->known = NULL;
	sz->nknown = sz->known_cap = 0;
	sz->npool = 0;
	symbolizer__drop_refs(sz);
}

void symbolizer__on_progress(struct symbolizer *sz, symbolizer_progress_fn fn, void *ctx)
{
	sz->progress = fn;
	sz->progress_ctx = ctx;
}

void symbolizer__progress(const struct symbolizer *sz, size_t done, size_t total)
{
	if (sz->progress)
		sz->progress(sz->progress_ctx, done, total);
}

const struct symbolizer_stats *symbolizer__stats(const struct symbolizer *sz)
{
	return &sz->stats;
}

const struct jit_maps_stats *symbolizer__jit_stats(const struct symbolizer *sz)
{
	return jit_maps__stats(sz->jit);
}

void symbolizer__report(const struct symbolizer *sz)
{
	const struct symbolizer_stats *s = &sz->stats;
	const struct name_arena_stats *ns = name_arena__stats(sz->names);
	const struct jit_maps_stats *js = jit_maps__stats(sz->jit);

	if (s->kernel_unknown)
		fprintf(stderr, "stacktap: %llu kernel %s without a symbol\n", (unsigned long long)s->kernel_unknown,
			st_plural(s->kernel_unknown, "frame", "frames"));
	if (s->user_no_map)
		fprintf(stderr, "stacktap: %llu user %s outside every known mapping\n", (unsigned long long)s->user_no_map,
			st_plural(s->user_no_map, "frame", "frames"));
	if (s->user_no_sym)
		fprintf(stderr, "stacktap: %llu user %s without a symbol\n", (unsigned long long)s->user_no_sym,
			st_plural(s->user_no_sym, "frame", "frames"));
	st_info("names: %llu inline frames added, %llu JIT frames named from %llu perf map reads "
		"(%llu refused; %llu processes' entries held, %llu freed with their process), "
		"%llu names demangled (%llu looked mangled but were not)",
		(unsigned long long)s->inline_frames, (unsigned long long)s->jit_named,
		(unsigned long long)js->maps_read, (unsigned long long)js->refused,
		(unsigned long long)js->held, (unsigned long long)js->dropped,
		(unsigned long long)ns->demangled, (unsigned long long)ns->malformed);
}

void symbolizer__free(struct symbolizer *sz)
{
	if (!sz)
		return;
	name_arena__free(sz->names);
	jit_maps__free(sz->jit);
	name_memo__free(sz->memo);
	name_memo__free(sz->unnamed);
	free(sz->known);
	free(sz->pool);
	symbolizer__drop_refs(sz);
	free(sz);
}
