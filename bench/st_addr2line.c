// SPDX-License-Identifier: GPL-2.0
/*
 * st-addr2line: lib/sym/dwarf_inline over many (file, address) pairs, printed
 * the way `eu-addr2line -a -f -i` prints them, so the two can be diffed and
 * timed side by side (bench/bench_names.sh, tests/scripts/test_addr2line.sh).
 *
 *   st-addr2line -e FILE < ADDRS       addresses (hex), one per line
 *   st-addr2line < PAIRS                "FILE ADDR" lines, any number of files
 *
 * Each file's addresses are resolved as one sorted batch (the way the
 * symbolizer will call the module); results are printed per file, files in
 * order of first appearance, each file's addresses in input order: what
 * one eu-addr2line process per file, fed that file's addresses, prints.
 * A file without DWARF is looked up by build ID under /usr/lib/debug.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sym/dwarf_inline.h"

struct req {
	uint64_t addr;
	size_t pos;      /* input order within its file */
	size_t off, len; /* the printed block in the file's output buffer */
};

struct file_reqs {
	char *path;
	struct req *v;
	size_t n, cap;
};

struct reqs {
	struct file_reqs *files;
	size_t n, cap;
};

static void *xrealloc(void *p, size_t n, size_t size)
{
	p = n && size > SIZE_MAX / n ? NULL : realloc(p, n * size);
	if (!p) {
		fprintf(stderr, "st-addr2line: out of memory\n");
		exit(1);
	}
	return p;
}

static struct file_reqs *file_of(struct reqs *r, const char *path)
{
	size_t i;

	for (i = r->n; i-- > 0;)
		if (!strcmp(r->files[i].path, path))
			return &r->files[i];
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 8;
		r->files = xrealloc(r->files, r->cap, sizeof(*r->files));
	}
	memset(&r->files[r->n], 0, sizeof(r->files[0]));
	r->files[r->n].path = strdup(path);
	return &r->files[r->n++];
}

static void add_req(struct file_reqs *f, uint64_t addr)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 1024;
		f->v = xrealloc(f->v, f->cap, sizeof(*f->v));
	}
	f->v[f->n] = (struct req){ .addr = addr, .pos = f->n };
	f->n++;
}

static int read_input(struct reqs *r, const char *only)
{
	char line[4096], path[4096], *end;
	unsigned long long addr;
	const char *a;

	while (fgets(line, sizeof(line), stdin)) {
		if (only) {
			a = line;
		} else if (sscanf(line, "%4095s", path) == 1) {
			a = line + strlen(path) + (line[0] == ' ' ? 1 : 0);
			while (*a == ' ' || *a == '\t')
				a++;
		} else {
			continue;
		}
		errno = 0;
		addr = strtoull(a, &end, 16);
		if (errno || end == a) {
			fprintf(stderr, "st-addr2line: bad input line: %s", line);
			return -EINVAL;
		}
		add_req(file_of(r, only ? only : path), addr);
	}
	return 0;
}

/* The separate debug file of @path by build ID, as eu-addr2line finds it. */
static char *debug_file_of(const char *path)
{
	const unsigned char *id;
	char *out = NULL;
	ssize_t len, i;
	size_t at;
	int fd;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	len = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : -1;
	if (len > 1) {
		out = malloc(64 + 2 * (size_t)len);
		at = (size_t)sprintf(out, "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (i = 1; i < len; i++)
			at += (size_t)sprintf(out + at, "%02x", id[i]);
		strcpy(out + at, ".debug");
	}
	elf_end(elf);
	close(fd);
	return out;
}

static struct dwarf_inline *open_dwarf(const char *path)
{
	struct dwarf_inline *di = NULL;
	char *dbg;
	int fd;
	Dwarf *dw;

	/* Only the file itself if it has DWARF: probe quietly first. */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;
	if (dw)
		di = dwarf_inline__open(path);
	dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	if (di)
		return di;
	dbg = debug_file_of(path);
	if (dbg && access(dbg, R_OK) == 0)
		di = dwarf_inline__open(dbg);
	free(dbg);
	return di;
}

/* One memory stream per file; each address's block is a slice of it. */
struct printer {
	struct file_reqs *f;
	FILE *o;
};

/* Prints a location as eu-addr2line does: FILE:LINE[:COLUMN], or ??:0. */
static void print_loc(FILE *o, const struct dwarf_frame *fr, bool nl)
{
	if (!fr->file) {
		fputs(nl ? "??:0\n" : "??:0", o);
		return;
	}
	if (fr->file[0] != '/' && fr->comp_dir)
		fprintf(o, "%s/", fr->comp_dir);
	fprintf(o, "%s:%u", fr->file, fr->line);
	if (fr->column)
		fprintf(o, ":%u", fr->column);
	if (nl)
		fputc('\n', o);
}

static int print_block(void *ctx, size_t idx, const struct dwarf_frame *fr, size_t n)
{
	struct printer *p = ctx;
	struct req *r = &p->f->v[idx];
	FILE *o = p->o;
	size_t i;

	r->off = (size_t)ftello(o);
	fprintf(o, "0x%016llx\n", (unsigned long long)r->addr);
	if (!n || !fr[0].func) {
		fputs("??\n", o);
		print_loc(o, n ? &fr[0] : &(struct dwarf_frame){ 0 }, true);
	} else {
		/* The first line names the innermost function and, if inlined, where. */
		if (n > 1) {
			fprintf(o, "%s inlined at ", fr[0].func);
			print_loc(o, &fr[1], false);
			fprintf(o, " in %s\n", fr[n - 1].func ? fr[n - 1].func : "??");
		} else {
			fprintf(o, "%s\n", fr[0].func);
		}
		print_loc(o, &fr[0], true);
		for (i = 1; i < n; i++) {
			fprintf(o, "%s\n", fr[i].func ? fr[i].func : "??");
			print_loc(o, &fr[i], true);
		}
	}
	r->len = (size_t)ftello(o) - r->off;
	return 0;
}

static int req_by_addr(const void *a, const void *b)
{
	const struct req *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int req_by_pos(const void *a, const void *b)
{
	const struct req *x = a, *y = b;

	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void resolve_file(struct file_reqs *f)
{
	struct dwarf_inline *di = open_dwarf(f->path);
	struct printer p = { .f = f };
	uint64_t *addrs;
	char *out = NULL;
	size_t i, out_len = 0;

	p.o = open_memstream(&out, &out_len);
	if (!p.o)
		xrealloc(NULL, 0, 0);
	qsort(f->v, f->n, sizeof(*f->v), req_by_addr);
	addrs = xrealloc(NULL, f->n + 1, sizeof(*addrs));
	for (i = 0; i < f->n; i++)
		addrs[i] = f->v[i].addr;
	if (di)
		dwarf_inline__batch(di, addrs, f->n, print_block, &p);
	else
		for (i = 0; i < f->n; i++)
			print_block(&p, i, NULL, 0);
	free(addrs);
	dwarf_inline__free(di);
	fclose(p.o);
	qsort(f->v, f->n, sizeof(*f->v), req_by_pos);
	for (i = 0; i < f->n; i++)
		fwrite(out + f->v[i].off, 1, f->v[i].len, stdout);
	free(out);
}

int main(int argc, char **argv)
{
	struct reqs r = { 0 };
	const char *only = NULL;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "-e")) {
		only = argv[2];
	} else if (argc != 1) {
		fprintf(stderr, "usage: st-addr2line [-e FILE] < ADDRS (or \"FILE ADDR\" lines)\n"
				"example: nm -n /bin/ls | awk '{print \"0x\" $1}' | "
				"st-addr2line -e /bin/ls\n");
		return 2;
	}
	if (read_input(&r, only))
		return 2;
	for (i = 0; i < r.n; i++) {
		resolve_file(&r.files[i]);
		free(r.files[i].v);
		free(r.files[i].path);
	}
	free(r.files);
	return 0;
}
