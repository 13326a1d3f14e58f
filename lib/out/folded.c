// SPDX-License-Identifier: GPL-2.0
/* Folded stacks, as flamegraph.pl reads them. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out/folded.h"
#include "lib/out/frame_label.h"
#include "lib/util/grow.h"

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

/*
 * Each distinct frame's piece of a line (";NAME" and its mark), made once
 * per report and copied whole after: a system-wide report writes each
 * frame some twenty times, and escaping its name byte by byte each time
 * was most of the writing. Without the memory, pieces are made in place.
 */
struct fold_piece {
	size_t off;   /* in fold_pieces.text */
	uint32_t len; /* UINT32_MAX: not made yet */
};

struct fold_pieces {
	struct fold_piece *v; /* by report_stack__frame_id() */
	size_t n;
	char *text;
	size_t len, cap;
	struct fold_line scratch; /* where a piece is made: it never fills the line */
};

static void pieces__init(struct fold_pieces *p, size_t n)
{
	size_t i;

	p->v = n ? malloc(n * sizeof(*p->v)) : NULL;
	p->n = p->v ? n : 0;
	for (i = 0; i < p->n; i++)
		p->v[i].len = UINT32_MAX;
	p->text = NULL;
	p->len = p->cap = 0;
	p->scratch.f = NULL;
	p->scratch.n = 0;
}

static void pieces__fini(struct fold_pieces *p)
{
	free(p->v);
	free(p->text);
}

/* Frame @fr (numbered @id) into @l, its piece made first if need be; @p NULL: made in place. */
static void pieces__put(struct fold_pieces *p, struct fold_line *l, uint32_t id,
			const struct report_frame *fr, const struct folded_opts *o)
{
	struct fold_piece *pc = p && id < p->n ? &p->v[id] : NULL;

	if (pc && pc->len == UINT32_MAX) {
		p->scratch.n = 0;
		folded__frame(&p->scratch, fr, o);
		if (array_reserve((void **)&p->text, &p->cap, p->len + p->scratch.n, 1))
			pc = NULL;
		else {
			memcpy(p->text + p->len, p->scratch.b, p->scratch.n);
			*pc = (struct fold_piece){ p->len, (uint32_t)p->scratch.n };
			p->len += p->scratch.n;
		}
	}
	if (pc)
		line__put(l, p->text + pc->off, pc->len);
	else
		folded__frame(l, fr, o);
}

/* One line of @s; frames through @p when given (NULL: each made in place). */
static void folded__stack(FILE *f, const struct report_stack *s, const struct folded_opts *o,
			  struct fold_pieces *p)
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
		pieces__put(p, &l, report_stack__frame_id(s, i - 1), report_stack__frame(s, i - 1), o);
	line__put(&l, num, (size_t)snprintf(num, sizeof(num), " %" PRIu64 "\n",
					    o->weight ? s->weight / (o->weight_div ? o->weight_div : 1)
						      : s->count));
	line__flush(&l);
}

void out_folded_stack(FILE *f, const struct report_stack *s, const struct folded_opts *o)
{
	folded__stack(f, s, o, NULL);
}

void out_folded(FILE *f, struct report *r, const struct folded_opts *o)
{
	struct fold_pieces *p = malloc(sizeof(*p));
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(r, &n);
	if (p)
		pieces__init(p, report__nframes(r));
	for (i = 0; v && i < n; i++) {
		if (i + 1 < n)
			report_stack__prefetch(v[i + 1]);
		folded__stack(f, v[i], o, p);
	}
	if (p)
		pieces__fini(p);
	free(p);
	fflush(f);
}
