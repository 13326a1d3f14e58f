// SPDX-License-Identifier: GPL-2.0
/* A frame as one line of text. */
#include <stdio.h>
#include <string.h>

#include "lib/out/frame_label.h"

/* Appends @s to @buf at *@used as label__put("%s") does, without printf's cost. */
static void label__str(char *buf, size_t len, size_t *used, const char *s)
{
	size_t n = strlen(s), room;

	if (*used >= len)
		return;
	room = len - *used - 1;
	memcpy(buf + *used, s, n < room ? n : room);
	buf[*used + (n < room ? n : room)] = '\0';
	*used += n;
}

/* Appends to @buf at *@used; stops quietly once @len is reached. */
static void label__put(char *buf, size_t len, size_t *used, const char *fmt, const char *s,
		       unsigned long long v)
{
	int n;

	if (*used >= len)
		return;
	n = s ? snprintf(buf + *used, len - *used, fmt, s, v) :
		snprintf(buf + *used, len - *used, fmt, v);
	if (n > 0)
		*used += (size_t)n;
}

const char *frame_label(const struct report_frame *f, const struct frame_label_opts *o, char *buf,
			size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (o->addrs && f->kind != REPORT_FRAME_MARK && f->kind != REPORT_FRAME_INLINE)
		label__put(buf, len, &used, "%#llx ", NULL, f->addr);
	label__str(buf, len, &used, f->name ? f->name : "(null)"); /* as printf showed it */
	if (f->kind == REPORT_FRAME_KERNEL && f->module)
		label__put(buf, len, &used, " [%s]", f->module, 0);
	if (f->kind == REPORT_FRAME_INLINE && !o->no_inline_mark)
		label__put(buf, len, &used, "%s", " (inlined)", 0);
	if (o->lines && f->src_file && f->line)
		label__put(buf, len, &used, " at %s:%llu", f->src_file, f->line);
	return buf;
}

uint64_t frame_pc(const struct report_stack *s, size_t i)
{
	const struct report_frame *f = report_stack__frame(s, i);

	while (i + 1 < s->nk + s->nu && f->kind == REPORT_FRAME_INLINE && !f->addr)
		f = report_stack__frame(s, ++i);
	return f->kind == REPORT_FRAME_MARK ? 0 : f->addr;
}
