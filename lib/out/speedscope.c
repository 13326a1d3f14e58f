// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope writer. Frames are shared by every profile of the file and
 * identified by what they show: label, source file and line. Profiles are
 * the stacks grouped by process (or thread), in order of first sight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out/frame_label.h"
#include "lib/out/json.h"
#include "lib/out/speedscope.h"
#include "lib/stack/store.h"

struct ss {
	struct stack_store *frames; /* (label, src_file, line) -> index + 1 */
	struct report_stack **v;
	size_t n;
	size_t *frame_of;           /* per stack and frame: the frame's index */
	size_t *off;                /* per stack: where its frames start in frame_of */
	int err;
};

static size_t ss__frame(struct ss *s, FILE *f, const struct report_frame *fr, bool *first)
{
	struct frame_label_opts lo = {};
	char label[FRAME_LABEL_MAX];
	struct stack_entry *e;
	size_t len, key_len;
	char *key;

	frame_label(fr, &lo, label, sizeof(label));
	len = strlen(label);
	key_len = len + 1 + sizeof(fr->src_file) + sizeof(fr->line);
	key = calloc(1, key_len);
	if (!key) {
		s->err = -ENOMEM;
		return 0;
	}
	memcpy(key, label, len);
	memcpy(key + len + 1, &fr->src_file, sizeof(fr->src_file));
	memcpy(key + len + 1 + sizeof(fr->src_file), &fr->line, sizeof(fr->line));
	e = stack_store__add(s->frames, key, key_len, 0);
	free(key);
	if (!e) {
		s->err = -ENOMEM;
		return 0;
	}
	if (e->data)
		return (size_t)(uintptr_t)e->data - 1;
	e->data = (void *)(uintptr_t)stack_store__len(s->frames);
	fputs(*first ? "\n{\"name\":" : ",\n{\"name\":", f);
	*first = false;
	json_string(f, label);
	if (fr->src_file) {
		fputs(",\"file\":", f);
		json_string(f, fr->src_file);
	}
	if (fr->src_file && fr->line)
		fprintf(f, ",\"line\":%u", fr->line);
	fputc('}', f);
	return (size_t)(uintptr_t)e->data - 1;
}

/* "shared": every frame once; remembers each stack's frame indices. */
static void ss__frames(struct ss *s, FILE *f)
{
	size_t i, j, total = 0;
	bool first = true;

	for (i = 0; i < s->n; i++)
		total += s->v[i]->nk + s->v[i]->nu;
	s->frame_of = calloc(total + 1, sizeof(*s->frame_of));
	s->off = calloc(s->n + 1, sizeof(*s->off));
	if (!s->frame_of || !s->off) {
		s->err = -ENOMEM;
		return;
	}
	fputs("\"shared\":{\"frames\":[", f);
	for (i = 0, total = 0; i < s->n && !s->err; i++) {
		s->off[i] = total;
		for (j = 0; j < s->v[i]->nk + s->v[i]->nu; j++)
			s->frame_of[total++] = ss__frame(s, f, report_stack__frame(s->v[i], j), &first);
	}
	fputs("]},\n", f);
}

static bool ss__same_group(const struct report_stack *a, const struct report_stack *b,
			   bool per_thread)
{
	if (a->pid != b->pid)
		return false;
	return !per_thread || a->tid == b->tid;
}

/* One sampled profile: stacks @i.. of the group of v[@first]. */
static void ss__profile(struct ss *s, FILE *f, size_t first, const struct speedscope_opts *o,
			const char *unit, bool *done)
{
	const struct report_stack *g = s->v[first];
	uint64_t total = 0;
	size_t i, j;
	bool sep = false;
	char name[64 + ST_COMM_LEN];

	if (o->per_thread && g->tid >= 0)
		snprintf(name, sizeof(name), "%s (pid %d, tid %d)", g->comm, g->pid, g->tid);
	else if (g->pid > 0)
		snprintf(name, sizeof(name), "%s (pid %d)", g->comm, g->pid);
	else
		snprintf(name, sizeof(name), "%s", o->name ? o->name : "stacktap");
	fputs("{\"type\":\"sampled\",\"name\":", f);
	json_string(f, name);
	fprintf(f, ",\"unit\":\"%s\",\"startValue\":0,\n\"samples\":[", unit);
	for (i = first; i < s->n; i++) {
		const struct report_stack *st = s->v[i];

		if (done[i] || !ss__same_group(g, st, o->per_thread))
			continue;
		fputs(sep ? ",\n[" : "\n[", f);
		/* Root first: the model keeps the innermost frame first. */
		for (j = st->nk + st->nu; j > 0; j--)
			fprintf(f, "%zu%s", s->frame_of[s->off[i] + j - 1], j > 1 ? "," : "");
		fputc(']', f);
		sep = true;
	}
	fputs("],\n\"weights\":[", f);
	sep = false;
	for (i = first; i < s->n; i++) {
		const struct report_stack *st = s->v[i];
		uint64_t w = o->weight ? st->weight : st->count;

		if (done[i] || !ss__same_group(g, st, o->per_thread))
			continue;
		fprintf(f, "%s%llu", sep ? "," : "", (unsigned long long)w);
		total += w;
		done[i] = true;
		sep = true;
	}
	fprintf(f, "],\"endValue\":%llu}", (unsigned long long)total);
}

int out_speedscope(FILE *f, struct report *r, const struct speedscope_opts *o)
{
	struct ss s = {};
	const char *unit = o->weight ? "nanoseconds" : "none";
	bool *done = NULL, sep = false;
	size_t i;

	s.frames = stack_store__new();
	s.v = report__sorted(r, &s.n);
	if (!s.frames || (s.n && !(done = calloc(s.n, sizeof(*done)))))
		s.err = -ENOMEM;
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n", f);
	fputs("\"exporter\":\"stacktap\",\"name\":", f);
	json_string(f, o->name ? o->name : "stacktap");
	fputs(",\"activeProfileIndex\":0,\n", f);
	if (!s.err)
		ss__frames(&s, f);
	fputs("\"profiles\":[\n", f);
	for (i = 0; !s.err && i < s.n; i++) {
		if (done[i])
			continue;
		fputs(sep ? ",\n" : "", f);
		ss__profile(&s, f, i, o, unit, done);
		sep = true;
	}
	fputs("]}\n", f);
	free(done);
	free(s.frame_of);
	free(s.off);
	stack_store__free(s.frames);
	if (s.err)
		return s.err;
	return fflush(f) || ferror(f) ? -EIO : 0;
}
