// SPDX-License-Identifier: GPL-2.0
/* Text output in the layout of bcc's stackcount. */
#include "lib/out/text.h"

void out_text_stack(FILE *f, const struct report_stack *s, const struct text_opts *o)
{
	size_t i;

	for (i = 0; i < s->nk; i++)
		fprintf(f, "  %s\n", s->frames[i]);
	if (o->delimiter && s->nk && s->nu)
		fprintf(f, "    --\n");
	for (i = s->nk; i < s->nk + s->nu; i++)
		fprintf(f, "  %s\n", s->frames[i]);
	if (o->per_pid)
		fprintf(f, "    %s [%d]\n", s->comm, s->pid);
	if (o->unit)
		fprintf(f, "    %llu %s\n\n", (unsigned long long)s->weight, o->unit);
	else
		fprintf(f, "    %llu\n\n", (unsigned long long)s->count);
}

void out_text(FILE *f, struct report *r, const struct text_opts *o)
{
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(r, &n);
	for (i = 0; v && i < n; i++)
		out_text_stack(f, v[i], o);
	fflush(f);
}
