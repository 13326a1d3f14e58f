// SPDX-License-Identifier: GPL-2.0
/* perf-script text, as perf script prints it. */
#include <errno.h>

#include "lib/out/frame_label.h"
#include "lib/out/perf_script.h"

/* perf's DSO column: the file, "[kernel.kallsyms]", a module in brackets, or "[unknown]". */
static void perf_script__dso(FILE *f, const struct report_frame *fr)
{
	if (fr->kind == REPORT_FRAME_KERNEL)
		fprintf(f, fr->module ? " ([%s])" : " ([kernel.kallsyms])", fr->module);
	else if (fr->module)
		fprintf(f, " (%s)", fr->module);
	else
		fputs(" ([unknown])", f);
}

/*
 * One frame line. Unknown functions read "[unknown]" and marks their own
 * text, as one word-group before the DSO; an inlined frame ends "(inlined)"
 * without a DSO, as perf prints inline entries.
 */
static void perf_script__frame(FILE *f, const struct report_stack *s, size_t i)
{
	const struct report_frame *fr = report_stack__frame(s, i);
	uint64_t addr = frame_pc(s, i);

	fprintf(f, "\t%16llx ", (unsigned long long)addr);
	if (fr->flags & REPORT_FRAME_HAS_SYM)
		fprintf(f, "%s+0x%llx", fr->name, (unsigned long long)fr->sym_off);
	else if (fr->kind == REPORT_FRAME_KERNEL || fr->kind == REPORT_FRAME_USER)
		fputs("[unknown]", f);
	else
		fputs(fr->name, f);
	if (fr->kind == REPORT_FRAME_INLINE)
		fputs(" (inlined)", f);
	else
		perf_script__dso(f, fr);
	fputc('\n', f);
}

void out_perf_script_record(FILE *f, const struct report_stack *s, uint64_t period,
			    const char *event)
{
	size_t i;

	fprintf(f, "%s %5d/%-5d ", s->comm[0] ? s->comm : ":-1", s->pid,
		s->tid >= 0 ? s->tid : s->pid);
	if (s->cpu >= 0)
		fprintf(f, "[%03d] ", s->cpu);
	fprintf(f, "%5llu.%06llu: %10llu %s: \n", (unsigned long long)(s->ts / 1000000000),
		(unsigned long long)(s->ts % 1000000000 / 1000), (unsigned long long)period, event);
	for (i = 0; i < s->nk + s->nu; i++)
		perf_script__frame(f, s, i);
	fputc('\n', f);
}

int out_perf_script(FILE *f, struct report *r, const struct perf_script_opts *o)
{
	const struct report_info *info = report__info(r);
	const char *event = o->event ? o->event : info->event ? info->event : "stacktap";
	struct report_stack **v;
	uint64_t k, t = 0;
	size_t n, i;

	v = report__sorted(r, &n);
	for (i = 0; v && i < n; i++) {
		struct report_stack s = *v[i];
		uint64_t share = s.count ? s.weight / s.count : 0;

		for (k = 0; k < s.count; k++) {
			uint64_t period = info->value == REPORT_EVENTS ? 1 : share;

			if (k == 0 && info->value != REPORT_EVENTS)
				period += s.weight - share * s.count;
			/*
			 * A timeline on which each record lasts its period (an event, 1 us:
			 * the smallest step perf script's time shows), for readers that
			 * weigh records by time.
			 */
			s.ts = t;
			t += info->value == REPORT_EVENTS ? 1000 : period;
			out_perf_script_record(f, &s, period, event);
		}
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}
