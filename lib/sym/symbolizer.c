// SPDX-License-Identifier: GPL-2.0
/* The symbolizer: decoded frames named in batches sorted by file and offset. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/elf/elf_file.h"
#include "lib/report/report.h"
#include "lib/stack/store.h"
#include "lib/sym/event_frames.h"
#include "lib/sym/ksyms_source.h"
#include "lib/sym/symbolizer.h"
#include "lib/util/log.h"
#include "lib/util/safe_open.h"

struct symbolizer {
	struct proc_registry *procs;
	struct stack_store *names; /* names made here ("[unknown] (libc.so.6+0x1234)"), interned */
	struct symbolizer_stats stats;
};

/* One frame to name: where to look it up, and the frame. */
struct name_ref {
	struct elf_file *file; /* user frames: the file model; kernel frames: NULL */
	uint64_t key;          /* what is looked up: file offset or kernel address, see lookup_at */
	struct report_frame *f;
};

struct symbolizer *symbolizer__new(struct proc_registry *procs)
{
	struct symbolizer *sz = calloc(1, sizeof(*sz));

	if (!sz)
		return NULL;
	sz->procs = procs;
	sz->names = stack_store__new();
	if (!sz->names) {
		free(sz);
		errno = ENOMEM;
		return NULL;
	}
	return sz;
}

struct proc_registry *symbolizer__procs(const struct symbolizer *sz)
{
	return sz->procs;
}

/*
 * A return address points after the call; when the call is a function's
 * last instruction (a noreturn callee) it already belongs to the next
 * function, or to no function at all. Looking up @at - 1 names the caller
 * correctly. This is the one place the rule is applied, for kernel
 * addresses and user file offsets alike; a frame's own addr, file_off and
 * sym_off stay those of the return address.
 */
static uint64_t lookup_at(const struct report_frame *f, uint64_t at)
{
	return (f->flags & REPORT_FRAME_RETURN) && at ? at - 1 : at;
}

/* Return: the symbolizer's copy of @s (NULL when out of memory). */
static const char *symbolizer__intern(struct symbolizer *sz, const char *s)
{
	struct stack_entry *e = stack_store__add(sz->names, s, strlen(s) + 1, 0);

	return e ? (const char *)e->key : NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * A frame in a file but in no symbol: named by its file and offset; a report
 * that found only another build of the file says so (docs/recording.md).
 */
static int name__file_offset(struct symbolizer *sz, struct report_frame *f, uint8_t why)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "[unknown] (%s+%#llx%s)",
		 f->module ? base_name(f->module) : "?", (unsigned long long)f->file_off,
		 why == SAFE_OPEN_OTHER_BUILD ? ", other build" : "");
	sz->stats.user_no_sym++;
	f->name = symbolizer__intern(sz, buf);
	return f->name ? 0 : -ENOMEM;
}

/*
 * Code outside any file: one name for all of it, as perf's "[anon]", so
 * stacks through JIT code merge. SEAM(jit): the perf map of @pid
 * (lib/sym/perf_map.h: perf_map__find(map, f->addr), run-time addresses)
 * names such frames before this fallback.
 */
static int name__anon(struct symbolizer *sz, int pid, struct report_frame *f)
{
	char buf[128];

	(void)pid;
	snprintf(buf, sizeof(buf), "[unknown] (%s)", f->module ? f->module : "[anon]");
	sz->stats.user_no_sym++;
	f->name = symbolizer__intern(sz, buf);
	return f->name ? 0 : -ENOMEM;
}

/* User frames whose file model is known join the batch; the others are named now. */
static int name__collect_user(struct symbolizer *sz, const struct event_frames *ef, size_t i,
			      struct name_ref *refs, size_t *n)
{
	struct report_frame *f = &ef->v[i];
	const struct frame_src *src = &ef->src[i];

	switch (src->kind) {
	case FRAME_SRC_FILE:
		if (!src->file)
			return name__file_offset(sz, f, src->why);
		refs[(*n)++] = (struct name_ref){ src->file, lookup_at(f, f->file_off), f };
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

/*
 * User frames, grouped by file and in offset order: each file's symbol
 * table is read once (on its first lookup) and walked forward. Seams, in
 * the order docs/names.md gives them:
 * SEAM(go): no symbol in a file without symbols: gopclntab__find() of the
 *   file's ELF_PART_GOPCLNTAB, at the same link-time address (vaddr).
 * SEAM(inline): per run of one file, dwarf_inline__batch() over its sorted
 *   vaddrs (ELF_PART_DWARF) gives each frame its inline chain and line.
 * SEAM(demangle): the names found here are what sym_demangle_buf() turns
 *   into what people read, once per distinct name.
 */
static int name__user_batch(struct symbolizer *sz, struct name_ref *refs, size_t n)
{
	const struct elf_sym *s = NULL;
	uint64_t vaddr = 0;
	size_t i;
	int err = 0;

	qsort(refs, n, sizeof(*refs), name_ref__cmp);
	for (i = 0; i < n && !err; i++) {
		struct report_frame *f = refs[i].f;

		if (!i || refs[i].file != refs[i - 1].file || refs[i].key != refs[i - 1].key) {
			s = NULL;
			if (!elf_file__offset_to_vaddr(refs[i].file, refs[i].key, &vaddr))
				s = elf_file__find_sym(refs[i].file, vaddr);
		}
		if (!s) {
			err = name__file_offset(sz, f, SAFE_OPEN_OK);
			continue;
		}
		f->name = s->name;
		f->sym_off = vaddr + (f->file_off - refs[i].key) - s->addr;
		f->flags |= REPORT_FRAME_HAS_SYM;
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
		f->name = symbolizer__intern(sz, buf);
		return f->name ? 0 : -ENOMEM;
	}
	f->name = k->name;
	f->module = k->module;
	f->sym_off = f->addr - k->addr;
	f->flags |= REPORT_FRAME_HAS_SYM;
	return 0;
}

/* Kernel frames in address order (kallsyms is one sorted table). */
static int name__kernel_batch(struct symbolizer *sz, struct name_ref *refs, size_t n)
{
	const struct ksym *k = NULL;
	size_t i;
	int err = 0;

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
	user = calloc(total + 1, sizeof(*user));
	kernel = calloc(total + 1, sizeof(*kernel));
	if (!user || !kernel) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n && !err; i++) {
		for (j = 0; j < efs[i].nk; j++)
			kernel[nk++] = (struct name_ref){ NULL, lookup_at(&efs[i].v[j], efs[i].v[j].addr),
							  &efs[i].v[j] };
		for (j = efs[i].nk; j < efs[i].nk + efs[i].nu && !err; j++)
			err = name__collect_user(sz, &efs[i], j, user, &nu);
	}
	if (!err)
		err = name__user_batch(sz, user, nu);
	if (!err)
		err = name__kernel_batch(sz, kernel, nk);
out:
	free(user);
	free(kernel);
	return err;
}

const struct symbolizer_stats *symbolizer__stats(const struct symbolizer *sz)
{
	return &sz->stats;
}

void symbolizer__report(const struct symbolizer *sz)
{
	const struct symbolizer_stats *s = &sz->stats;

	if (s->kernel_unknown)
		fprintf(stderr, "stacktap: %llu kernel frames without a symbol\n",
			(unsigned long long)s->kernel_unknown);
	if (s->user_no_map)
		fprintf(stderr, "stacktap: %llu user frames outside every known mapping\n",
			(unsigned long long)s->user_no_map);
	if (s->user_no_sym)
		fprintf(stderr, "stacktap: %llu user frames without a symbol\n",
			(unsigned long long)s->user_no_sym);
}

void symbolizer__free(struct symbolizer *sz)
{
	if (!sz)
		return;
	stack_store__free(sz->names);
	free(sz);
}
