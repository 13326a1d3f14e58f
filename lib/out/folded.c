// SPDX-License-Identifier: GPL-2.0
/* Folded stacks, as flamegraph.pl reads them. */
#include "lib/out/folded.h"

/* ';' separates frames and ' ' the count: neither may appear inside a name. */
static void folded__name(FILE *f, const char *name)
{
	for (; *name; name++)
		fputc(*name == ';' ? ':' : *name == ' ' ? '_' : *name, f);
}

void out_folded_stack(FILE *f, const struct report_stack *s, const struct folded_opts *o)
{
	size_t i;

	folded__name(f, s->comm);
	for (i = s->nk + s->nu; i > s->nk; i--) {
		fputc(';', f);
		folded__name(f, s->frames[i - 1]);
	}
	for (i = s->nk; i > 0; i--) {
		fputc(';', f);
		folded__name(f, s->frames[i - 1]);
		if (o->annotate_kernel)
			fputs("_[k]", f);
	}
	fprintf(f, " %llu\n", (unsigned long long)(o->weight ? s->weight : s->count));
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
