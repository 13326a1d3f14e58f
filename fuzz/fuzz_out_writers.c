// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the writers (lib/out): names come from ELF files and
 * processes we do not control, so every writer must render any bytes
 * without a crash, a leak or undefined behaviour. The input is a list of
 * frames, one per line: a kind letter (k u i m), a flags digit, then the
 * name; an empty line ends a stack. Every stack goes into one report that
 * is rendered in every format (CTF into a temporary directory).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/out/json.h"
#include "lib/out/render.h"
#include "lib/report/report.h"

#define MAX_FRAMES 64

static const char *const kinds = "kuim";

/* Frames of one line each until an empty line or the end; returns where it stopped. */
static const char *parse_stack(const char *p, const char *end, struct report_frame *fr,
			       char **names, size_t *n)
{
	*n = 0;
	while (p < end && *n < MAX_FRAMES) {
		const char *nl = memchr(p, '\n', end - p), *e = nl ? nl : end;
		const char *k;

		if (e == p)
			return e + 1;
		k = strchr(kinds, *p);
		names[*n] = strndup(p + 1, e - p - 1);
		fr[*n] = (struct report_frame){
			.name = names[*n], .kind = k && *k ? (uint8_t)(k - kinds) : REPORT_FRAME_USER,
			.addr = (uint64_t)(e - p) << 12, .file_off = (uint64_t)(e - p),
			.module = (e - p) % 3 ? names[*n] : NULL, .build_id = (e - p) % 2 ? "ab12" : NULL,
			.src_file = (e - p) % 5 ? NULL : names[*n], .line = (uint32_t)(e - p),
			.flags = (uint8_t)((e - p) & 3),
		};
		(*n)++;
		p = e + (nl != NULL);
	}
	return p;
}

static void render_all(struct report *r, struct report *other)
{
	static const enum out_format fmts[] = { OUT_FMT_TEXT, OUT_FMT_FOLDED, OUT_FMT_PPROF,
						OUT_FMT_SPEEDSCOPE, OUT_FMT_PERF_SCRIPT,
						OUT_FMT_FLAMEGRAPH };
	static const char *const ev[] = { "e\"v\\" };
	struct out_opts o = { .text.label.lines = true, .folded.annotate = true,
			      .ctf = { .events = ev, .nevents = 1, .hostname = "h\"" } };
	char dir[] = "/tmp/fuzz-ctf.XXXXXX";
	size_t i, len;
	char *buf;
	FILE *f;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		f = open_memstream(&buf, &len);
		if (!f)
			abort();
		out_render(f, NULL, r, fmts[i], &o);
		fclose(f);
		free(buf);
	}
	f = open_memstream(&buf, &len);
	out_flamegraph_diff(f, other, r, &o.flamegraph);
	fclose(f);
	free(buf);
	if (mkdtemp(dir)) {
		out_render(NULL, dir, r, OUT_FMT_CTF, &o);
		unlink(strcat(strcpy(buf = malloc(sizeof(dir) + 16), dir), "/metadata"));
		unlink(strcat(strcpy(buf, dir), "/stream"));
		rmdir(dir);
		free(buf);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct report *r = report__new(REPORT_BY_PID | REPORT_LINES);
	struct report *other = report__new(REPORT_BY_PID | REPORT_LINES);
	struct report_info info = { .value = size % 3, .period_ns = 1000, .event = "fuzz" };
	struct report_frame fr[MAX_FRAMES];
	char *names[MAX_FRAMES];
	size_t n, i, stacks = 0;

	if (!r || !other || report__set_info(r, &info) || report__set_info(other, &info))
		abort();
	while (p < end && stacks++ < 16) {
		p = parse_stack(p, end, fr, names, &n);
		/* The first frames are the kernel's, as many as the stack number says. */
		report__add(stacks % 2 ? r : other, (int)stacks, n ? "c;o m" : "", fr,
			    n ? stacks % (n + 1) : 0, n ? n - stacks % (n + 1) : 0, stacks, stacks * 7, 0);
		report__add(r, (int)stacks, "comm", fr, 0, n, 1, 1, 0);
		for (i = 0; i < n; i++)
			free(names[i]);
	}
	render_all(r, other);
	report__free(r);
	report__free(other);
	return 0;
}
