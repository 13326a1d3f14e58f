// SPDX-License-Identifier: GPL-2.0
/* JSON Lines output. */
#include <stdbool.h>

#include "lib/out/json.h"

static void json__string(FILE *f, const char *s, bool html)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || (html && (c == '<' || c == '>' || c == '&')))
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void json_string(FILE *f, const char *s)
{
	json__string(f, s, false);
}

void json_string_html(FILE *f, const char *s)
{
	json__string(f, s, true);
}

/* Frames @from .. @to of @s as a JSON array. */
static void json_frames(FILE *f, const struct report_stack *s, size_t from, size_t to,
			const struct frame_label_opts *lo)
{
	char buf[FRAME_LABEL_MAX];
	size_t i;

	fputc('[', f);
	for (i = from; i < to; i++) {
		if (i > from)
			fputc(',', f);
		json_string(f, frame_label(report_stack__frame(s, i), lo, buf, sizeof(buf)));
	}
	fputc(']', f);
}

void out_json_event(FILE *f, double time_s, const char *probe, const struct report_stack *s,
		    const struct frame_label_opts *lo)
{
	fprintf(f, "{\"time\":%.6f,\"comm\":", time_s);
	json_string(f, s->comm);
	fprintf(f, ",\"pid\":%d,\"tid\":%d,\"cpu\":%d,\"probe\":", s->pid, s->tid, s->cpu);
	json_string(f, probe);
	fputs(",\"kernel\":", f);
	json_frames(f, s, 0, s->nk, lo);
	fputs(",\"user\":", f);
	json_frames(f, s, s->nk, s->nk + s->nu, lo);
	fputs("}\n", f);
}
