// SPDX-License-Identifier: GPL-2.0
/*
 * st-symbolize: the symbolizer's own path (lib/proc registry, event_frames,
 * symbolizer__name() in batches of 4096 with inline frames, lines and
 * demangling) over (file, offset) frames, printed the way
 * `eu-addr2line -a -f -i` prints them, so the two can be timed side by side
 * and compared (bench/bench_names.sh).
 *
 *   st-symbolize < FRAMES      "PATH OFFSET [r]" lines: OFFSET in the file
 *                              (hex), r for a return address (pc - 1 applies)
 *
 * Each file is mapped into a registry entry of this process, as the files of
 * a traced process are, and each frame is one event, named in batches as
 * count, profile and offcpu name their stacks. Output, per input line in
 * order: "0xOFFSET", then per frame (innermost first) the name and
 * "FILE:LINE" ("??:0" when DWARF says nothing). Options, to see what each
 * part costs: -q prints nothing but the counts on stderr; -I no inline
 * frames, -L no lines, -D no demangling.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "lib/proc/registry.h"
#include "lib/sym/event_frames.h"
#include "lib/sym/symbolizer.h"

/* As lib/pipeline/raw_stacks.c names stacks: large enough to share file visits. */
#define BATCH 4096
/* Where files are "mapped": far apart, one slot each. */
#define MAP_BASE 0x100000000000ull
#define MAP_STEP 0x100000000ull
#define MAX_FILES 4096

struct frame_in {
	uint32_t file;
	uint64_t off;
	bool ret;
};

struct input {
	struct proc_map maps[MAX_FILES];
	size_t nfiles;
	struct frame_in *v;
	size_t n, cap;
};

static void die(const char *what)
{
	fprintf(stderr, "st-symbolize: %s\n", what);
	exit(1);
}

static uint32_t file_of(struct input *in, const char *path)
{
	struct proc_map *m;
	struct stat st;
	size_t i;

	for (i = in->nfiles; i-- > 0;)
		if (!strcmp(in->maps[i].path, path))
			return (uint32_t)i;
	if (in->nfiles == MAX_FILES)
		die("too many files");
	if (stat(path, &st))
		st = (struct stat){ 0 }; /* unreadable: its frames stay unknown, as in a run */
	m = &in->maps[in->nfiles];
	*m = (struct proc_map){ .start = MAP_BASE + in->nfiles * MAP_STEP,
				.end = MAP_BASE + (in->nfiles + 1) * MAP_STEP,
				.inode = st.st_ino, .dev_major = major(st.st_dev),
				.dev_minor = minor(st.st_dev), .prot = PROC_MAP_R | PROC_MAP_X,
				.path = strdup(path) };
	if (!m->path)
		die("out of memory");
	return (uint32_t)in->nfiles++;
}

static void read_input(struct input *in)
{
	char line[8192], path[4096], flag[8];
	unsigned long long off;
	int k;

	while (fgets(line, sizeof(line), stdin)) {
		flag[0] = '\0';
		k = sscanf(line, "%4095s %llx %7s", path, &off, flag);
		if (k < 2)
			continue;
		if (in->n == in->cap) {
			in->cap = in->cap ? in->cap * 2 : 4096;
			in->v = realloc(in->v, in->cap * sizeof(*in->v));
			if (!in->v)
				die("out of memory");
		}
		in->v[in->n++] = (struct frame_in){ file_of(in, path), off, flag[0] == 'r' };
	}
}

static void print_frames(const struct event_frames *ef, uint64_t off)
{
	size_t i;

	printf("0x%llx\n", (unsigned long long)off);
	for (i = 0; i < ef->nu; i++)
		printf("%s\n%s:%u\n", ef->v[i].name, ef->v[i].src_file ? ef->v[i].src_file : "??",
		       ef->v[i].line);
}

/* Names frames [first, first + n) as one batch. Return: the frames named. */
static size_t name_batch(struct symbolizer *sz, const struct input *in, size_t first, size_t n,
			 int pid, bool quiet)
{
	struct event_frames ef[BATCH];
	size_t i, frames = 0;
	uint64_t ip;

	for (i = 0; i < n; i++) {
		const struct frame_in *f = &in->v[first + i];

		ip = in->maps[f->file].start + f->off;
		if (event_frames__decode(&ef[i], NULL, sz, pid, 2, &ip, 0, 1, NULL, 0))
			die("out of memory");
		if (f->ret)
			ef[i].v[0].flags |= REPORT_FRAME_RETURN;
	}
	if (symbolizer__name(sz, ef, n))
		die("out of memory");
	for (i = 0; i < n; i++) {
		frames += ef[i].nu;
		if (!quiet)
			print_frames(&ef[i], in->v[first + i].off);
		event_frames__release(&ef[i]);
	}
	return frames;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	static struct input in;
	struct symbolizer_opts o = { .demangle = true, .inlines = true, .lines = true };
	struct proc_registry *procs;
	bool quiet = false;
	struct symbolizer *sz;
	size_t i, frames = 0;
	double t0;
	int pid = getpid(), c;

	while ((c = getopt(argc, argv, "qILD")) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'I': o.inlines = false; break;
		case 'L': o.lines = false; break;
		case 'D': o.demangle = false; break;
		default: die("usage: st-symbolize [-q] [-I] [-L] [-D] < FRAMES");
		}
	}
	read_input(&in);
	t0 = now_ms();
	procs = procs__new();
	sz = procs ? symbolizer__new(procs) : NULL;
	if (!sz || procs__set_maps(procs, pid, 1, in.maps, in.nfiles))
		die("cannot set up the registry");
	symbolizer__set_opts(sz, &o);
	for (i = 0; i < in.n; i += BATCH)
		frames += name_batch(sz, &in, i, in.n - i < BATCH ? in.n - i : BATCH, pid, quiet);
	fflush(stdout);
	fprintf(stderr, "st-symbolize: %zu addresses in %zu files, %zu frames named in %.1f ms\n",
		in.n, in.nfiles, frames, now_ms() - t0);
	symbolizer__free(sz);
	procs__free(procs);
	for (i = 0; i < in.nfiles; i++)
		free(in.maps[i].path);
	free(in.v);
	return 0;
}
