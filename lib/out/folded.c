// SPDX-License-Identifier: GPL-2.0
/* Folded stacks, as flamegraph.pl reads them. */
#include "lib/out/folded.h"
#include "lib/out/frame_label.h"

/*
 * ';' separates frames and ' ' the count: neither may appear inside a name.
 * Unlocked: a report writes millions of these bytes, one thread writes them.
 */
static void folded__name(FILE *f, const char *name)
{
	for (; *name; name++)
		putc_unlocked(*name == ';' ? ':' : *name == ' ' ? '_' : *name, f);
}

static void folded__frame(FILE *f, const struct report_frame *fr, const struct folded_opts *o)
{
	struct frame_label_opts lo = { .lines = o->lines, .no_inline_mark = true };
	char buf[FRAME_LABEL_MAX];

	putc_unlocked(';', f);
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
