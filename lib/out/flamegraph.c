// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graph writer: the stacks become one tree, root ("all") first, then
 * the process, then user frames from the outermost, then kernel frames; the
 * page (lib/out/flamegraph.html, built into the binary) lays it out.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out/flamegraph.h"
#include "lib/out/frame_label.h"
#include "lib/out/json.h"
#include "lib/stack/store.h"

/* The page, built in from lib/out/flamegraph.html (the Makefile rebuilds this file when it changes). */
__asm__(".pushsection .rodata\n"
	".global st_flamegraph_page\n"
	"st_flamegraph_page:\n"
	".incbin \"lib/out/flamegraph.html\"\n"
	".global st_flamegraph_page_end\n"
	"st_flamegraph_page_end:\n"
	".byte 0\n"
	".popsection\n");
extern const char st_flamegraph_page[], st_flamegraph_page_end[];

struct fg_node {
	long parent;   /* -1: the root */
	uint64_t name; /* index in the names */
	char kind;     /* a all, p process, k kernel, u user, i inlined, m mark */
	uint64_t value, before;
};

struct fg {
	struct stack_store *names, *index; /* label -> name + 1; (parent, kind, name) -> node + 1 */
	struct fg_node *v;
	size_t n, cap;
	const struct flamegraph_opts *o;
	int err;
};

static uint64_t fg__name(struct fg *g, const char *s)
{
	struct stack_entry *e = stack_store__add(g->names, s, strlen(s) + 1, 0);

	if (!e) {
		g->err = -ENOMEM;
		return 0;
	}
	if (!e->data)
		e->data = (void *)(uintptr_t)stack_store__len(g->names);
	return (uint64_t)(uintptr_t)e->data - 1;
}

/* The child of @parent with this kind and name, made when new. Return: its index, or -1. */
static long fg__child(struct fg *g, long parent, char kind, const char *name)
{
	struct { long parent; uint64_t name, kind; } key = { parent, fg__name(g, name), kind };
	struct stack_entry *e;
	struct fg_node *v;

	if (g->err)
		return -1;
	e = stack_store__add(g->index, &key, sizeof(key), 0);
	if (!e) {
		g->err = -ENOMEM;
		return -1;
	}
	if (e->data)
		return (long)(uintptr_t)e->data - 1;
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 256;
		v = realloc(g->v, g->cap * sizeof(*v));
		if (!v) {
			g->err = -ENOMEM;
			return -1;
		}
		g->v = v;
	}
	g->v[g->n] = (struct fg_node){ .parent = parent, .name = key.name, .kind = kind };
	e->data = (void *)(uintptr_t)++g->n;
	return (long)g->n - 1;
}

static char fg__kind(const struct report_frame *fr)
{
	switch (fr->kind) {
	case REPORT_FRAME_KERNEL: return 'k';
	case REPORT_FRAME_INLINE: return 'i';
	case REPORT_FRAME_MARK: return 'm';
	default: return 'u';
	}
}

/* Add @s's value along its path: all, process, user frames outermost first, kernel frames. */
static void fg__add(struct fg *g, const struct report_stack *s, bool before)
{
	struct frame_label_opts lo = { .lines = g->o->lines };
	uint64_t div = g->o->weight_div ? g->o->weight_div : 1;
	uint64_t value = g->o->weight ? s->weight / div : s->count;
	char label[FRAME_LABEL_MAX];
	long node = 0;
	size_t i;

	if (s->pid > 0)
		snprintf(label, sizeof(label), "%s [%d]", s->comm, s->pid);
	else
		snprintf(label, sizeof(label), "%s", s->comm[0] ? s->comm : "?");
	*(before ? &g->v[0].before : &g->v[0].value) += value;
	node = fg__child(g, 0, 'p', label);
	for (i = s->nk + s->nu; node >= 0; i--) {
		*(before ? &g->v[node].before : &g->v[node].value) += value;
		if (!i)
			break;
		frame_label(report_stack__frame(s, i - 1), &lo, label, sizeof(label));
		node = fg__child(g, node, fg__kind(report_stack__frame(s, i - 1)), label);
	}
}

static void fg__add_report(struct fg *g, struct report *r, bool before)
{
	struct report_stack **v;
	size_t n, i;

	v = report__sorted(r, &n);
	for (i = 0; v && i < n && !g->err; i++)
		fg__add(g, v[i], before);
}

static const char *fg__unit(const struct report_info *info, const struct flamegraph_opts *o)
{
	if (o->unit)
		return o->unit;
	if (o->weight)
		return info->value == REPORT_EVENTS ? "events" : "ns";
	return info->value == REPORT_SAMPLES ? "samples" :
	       info->value == REPORT_OFFCPU ? "blocks" : "events";
}

static void fg__write(struct fg *g, FILE *f, const struct report_info *info, bool diff)
{
	struct stack_entry **names = stack_store__entries(g->names);
	size_t i, nnames = stack_store__len(g->names);

	fwrite(st_flamegraph_page, 1, (size_t)(st_flamegraph_page_end - st_flamegraph_page), f);
	fputs("<script id=\"fg-data\" type=\"application/json\">\n{\"title\":", f);
	json_string_html(f, g->o->title ? g->o->title : "stacktap");
	fputs(",\"subtitle\":", f);
	json_string_html(f, g->o->subtitle ? g->o->subtitle : info->event ? info->event : "");
	fputs(",\"unit\":", f);
	json_string_html(f, fg__unit(info, g->o));
	fprintf(f, ",\"diff\":%s,\n\"names\":[", diff ? "true" : "false");
	for (i = 0; names && i < nnames; i++) {
		fputs(i ? ",\n" : "\n", f);
		json_string_html(f, (const char *)names[i]->key);
	}
	fputs("],\n\"nodes\":[", f);
	for (i = 0; i < g->n; i++) {
		const struct fg_node *nd = &g->v[i];

		fprintf(f, "%s[%ld,%llu,\"%c\",%llu", i ? ",\n" : "\n", nd->parent,
			(unsigned long long)nd->name, nd->kind, (unsigned long long)nd->value);
		if (diff)
			fprintf(f, ",%llu", (unsigned long long)nd->before);
		fputc(']', f);
	}
	fputs("]}\n</script>\n</body>\n</html>\n", f);
	free(names);
}

static int fg__render(FILE *f, struct report *before, struct report *after,
		      const struct flamegraph_opts *o)
{
	struct fg g = { .o = o };

	g.names = stack_store__new();
	g.index = stack_store__new();
	if (g.names && g.index && fg__child(&g, -1, 'a', "all") == 0) {
		if (before)
			fg__add_report(&g, before, true);
		fg__add_report(&g, after, false);
	} else {
		g.err = -ENOMEM;
	}
	if (!g.err)
		fg__write(&g, f, report__info(after), before != NULL);
	stack_store__free(g.names);
	stack_store__free(g.index);
	free(g.v);
	if (g.err)
		return g.err;
	return fflush(f) || ferror(f) ? -EIO : 0;
}

int out_flamegraph(FILE *f, struct report *r, const struct flamegraph_opts *o)
{
	return fg__render(f, NULL, r, o);
}

int out_flamegraph_diff(FILE *f, struct report *before, struct report *after,
			const struct flamegraph_opts *o)
{
	return fg__render(f, before, after, o);
}
