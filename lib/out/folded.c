// SPDX-License-Identifier: GPL-2.0
/* Folded stacks, as flamegraph.pl reads them. */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "lib/out/folded.h"
#include "lib/out/frame_label.h"

/*
 * A line is gathered here and written at once: a report writes millions of
 * short names, and one stdio call per name cost more than the copying.
 * Unlocked: one thread writes.
 */
struct fold_line {
	FILE *f;
	size_t n;
	char b[16384];
};

static void line__flush(struct fold_line *l)
{
	fwrite_unlocked(l->b, 1, l->n, l->f);
	l->n = 0;
}

static void line__put(struct fold_line *l, const char *s, size_t n)
{
	if (n > sizeof(l->b) - l->n)
		line__flush(l);
	if (n > sizeof(l->b)) {
		fwrite_unlocked(s, 1, n, l->f);
		return;
	}
	memcpy(l->b + l->n, s, n);
	l->n += n;
}

static void line__putc(struct fold_line *l, char c)
{
	if (l->n == sizeof(l->b))
		line__flush(l);
	l->b[l->n++] = c;
}

/*
 * ';' separates frames and ' ' the count: neither may appear inside a name.
 * At most @max bytes of @name, ';' and ' ' made ':' and '_', copied byte by
 * byte into the line: most names are short, and a strcspn() and a copy for
 * each piece between spaces cost more.
 */
static void folded__name_max(struct fold_line *l, const char *name, size_t max)
{
	size_t room, k;
	char c, *o;

	while (*name && max) {
		if (l->n == sizeof(l->b))
			line__flush(l);
		room = sizeof(l->b) - l->n < max ? sizeof(l->b) - l->n : max;
		o = l->b + l->n;
		for (k = 0; k < room && (c = name[k]); k++)
			o[k] = c == ';' ? ':' : c == ' ' ? '_' : c;
		l->n += k;
		name += k;
		max -= k;
	}
}

static void folded__name(struct fold_line *l, const char *name)
{
	folded__name_max(l, name, SIZE_MAX);
}

static void folded__frame(struct fold_line *l, const struct report_frame *fr,
			  const struct folded_opts *o)
{
	struct frame_label_opts lo = { .lines = o->lines, .no_inline_mark = true };
	char buf[FRAME_LABEL_MAX];

	line__putc(l, ';');
	/* A label that is the name alone needs no copy (frame_label() cuts it as here). */
	if (!(fr->kind == REPORT_FRAME_KERNEL && fr->module) &&
	    !(o->lines && fr->src_file && fr->line))
		folded__name_max(l, fr->name ? fr->name : "(null)", FRAME_LABEL_MAX - 1);
	else
		folded__name(l, frame_label(fr, &lo, buf, sizeof(buf)));
	if (o->annotate && fr->kind == REPORT_FRAME_KERNEL)
		line__put(l, "_[k]", 4);
	else if (o->annotate && fr->kind == REPORT_FRAME_INLINE)
		line__put(l, "_[i]", 4);
}

void out_folded_stack(FILE *f, const struct report_stack *s, const struct folded_opts *o)
{
	struct fold_line l; /* not zeroed: 16 KiB a line */
	char num[48];
	size_t i;

	l.f = f;
	l.n = 0;
	folded__name(&l, s->comm);
	if (o->per_pid)
		line__put(&l, num, (size_t)snprintf(num, sizeof(num), "-%d", s->pid));
	for (i = s->nk + s->nu; i > 0; i--)
		folded__frame(&l, report_stack__frame(s, i - 1), o);
	line__put(&l, num, (size_t)snprintf(num, sizeof(num), " %" PRIu64 "\n",
					    o->weight ? s->weight / (o->weight_div ? o->weight_div : 1)
						      : s->count));
	line__flush(&l);
}

void out_folded(FILE *f, struct report *r, const struct folded_opts *o)
{
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(r, &n);
	for (i = 0; v && i < n; i++) {
		if (i + 1 < n)
			report_stack__prefetch(v[i + 1]);
		out_folded_stack(f, v[i], o);
	}
	fflush(f);
}
