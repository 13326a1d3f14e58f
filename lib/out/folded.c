// SPDX-License-Identifier: GPL-2.0
/* Folded stacks, as flamegraph.pl reads them. */
#include <stdint.h>
#include <string.h>

#include "lib/out/folded.h"
#include "lib/out/frame_label.h"

/*
 * ';' separates frames and ' ' the count: neither may appear inside a name.
 * Unlocked: a report writes millions of these bytes, one thread writes them.
 */
/* At most @max bytes of @name, ';' and ' ' made ':' and '_': a folded line's separators. */
static void folded__name_max(FILE *f, const char *name, size_t max)
{
	size_t n;

	while (*name && max) {
		n = strcspn(name, "; ");
		if (n > max)
			n = max;
		fwrite_unlocked(name, 1, n, f);
		name += n;
		max -= n;
		if (!*name || !max)
			break;
		putc_unlocked(*name == ';' ? ':' : '_', f);
		name++;
		max--;
	}
}

static void folded__name(FILE *f, const char *name)
{
	folded__name_max(f, name, SIZE_MAX);
}

static void folded__frame(FILE *f, const struct report_frame *fr, const struct folded_opts *o)
{
	struct frame_label_opts lo = { .lines = o->lines, .no_inline_mark = true };
	char buf[FRAME_LABEL_MAX];

	putc_unlocked(';', f);
	/* A label that is the name alone needs no copy (frame_label() cuts it as here). */
	if (!(fr->kind == REPORT_FRAME_KERNEL && fr->module) &&
	    !(o->lines && fr->src_file && fr->line))
		folded__name_max(f, fr->name ? fr->name : "(null)", FRAME_LABEL_MAX - 1);
	else
		folded__name(f, frame_label(fr, &lo, buf, sizeof(buf)));
	if (o->annotate && fr->kind == REPORT_FRAME_KERNEL)
		fputs("_[k]", f);
	else if (o->annotate && fr->kind == REPORT_FRAME_INLINE)
		fputs("_[i]", f);
}

void out_folded_stack(FILE *f, const struct report_stack *s, const struct folded_opts *o)
{
	size_t i;

	folded__name(f, s->comm);
	if (o->per_pid)
		fprintf(f, "-%d", s->pid);
	for (i = s->nk + s->nu; i > 0; i--)
		folded__frame(f, &s->frames[i - 1], o);
	fprintf(f, " %llu\n",
		(unsigned long long)(o->weight ? s->weight / (o->weight_div ? o->weight_div : 1) :
						 s->count));
}

void out_folded(FILE *f, struct report *r, const struct folded_opts *o)
{
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(r, &n);
	for (i = 0; v && i < n; i++)
		out_folded_stack(f, v[i], o);
	fflush(f);
}
