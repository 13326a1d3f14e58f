// SPDX-License-Identifier: GPL-2.0
/* Text output in the layout of bcc's stackcount. */
#include "lib/out/text.h"

void out_text_frames(FILE *f, const struct report_stack *s, const struct text_opts *o)
{
	char buf[FRAME_LABEL_MAX];
	size_t i;

	for (i = 0; i < s->nk + s->nu; i++) {
		if (i == s->nk && o->delimiter && s->nk && s->nu)
			fprintf(f, "    --\n");
		fprintf(f, "  %s\n", frame_label(report_stack__frame(s, i), &o->label, buf, sizeof(buf)));
	}
}

void out_text_stack(FILE *f, const struct report_stack *s, const struct text_opts *o)
{
	out_text_frames(f, s, o);
	if (o->per_pid)
		fprintf(f, "    %s [%d]\n", s->comm, s->pid);
	if (o->unit)
		fprintf(f, "    %llu %s\n\n",
			(unsigned long long)(s->weight / (o->weight_div ? o->weight_div : 1)),
			o->unit);
	else
		fprintf(f, "    %llu\n\n", (unsigned long long)s->count);
}

void out_text(FILE *f, struct report *r, const struct text_opts *o)
{
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(r, &n);
	for (i = 0; v && i < n; i++) {
		if (i + 1 < n)
			report_stack__prefetch(v[i + 1]);
		out_text_stack(f, v[i], o);
	}
	fflush(f);
}
