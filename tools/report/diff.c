// SPDX-License-Identifier: GPL-2.0
/*
 * stacktap report --diff BEFORE AFTER: both recordings replayed through
 * their command as a report replays one, but what the command hands to
 * out_render() is kept (out_render_capture()) instead of written; the two
 * report models then make one diff flame graph (lib/out/flamegraph.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/out/render.h"
#include "lib/report/report.h"
#include "lib/util/grow.h"
#include "tools/report/report.h"

struct diff_side {
	const char *path;
	struct report *r;          /* what the command rendered, copied */
	struct flamegraph_opts fg; /* how it would have drawn its flame graph */
	char command[32];
	struct report_frame *row; /* diff__add()'s scratch */
	size_t row_cap;
};

/* @s of another report added to @d's, its frames gathered in a row (report__add() takes one). */
static int diff__add(struct diff_side *d, const struct report_stack *s)
{
	size_t i, n = s->nk + s->nu;

	if (array_reserve((void **)&d->row, &d->row_cap, n, sizeof(*d->row)))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		d->row[i] = *report_stack__frame(s, i);
	return report__add(d->r, s->pid, s->comm, d->row, s->nk, s->nu, s->count, s->weight,
			   s->flags);
}

/* The command's report, copied: the command frees its own when out_render() returns. */
static int diff__capture(void *ctx, struct report *r, const struct out_opts *o)
{
	struct diff_side *d = ctx;
	struct report_stack **v;
	size_t n, i;
	int err = 0;

	if (!d->r) {
		d->r = report__new(report__flags(r));
		if (!d->r || report__set_info(d->r, report__info(r)))
			return -ENOMEM;
	}
	d->fg = o->flamegraph;
	v = report__sorted(r, &n);
	for (i = 0; v && i < n && !err; i++)
		err = diff__add(d, v[i]);
	return err;
}

/* Replays one side with its command, keeping what it would have printed. */
static int diff__side(const struct report_args *a, struct diff_side *d)
{
	struct replay_opts ro = report__replay_opts(a, d->path);
	struct replay *rp = replay__open(&ro, NULL, 0);
	const struct st_recordable *cmd;
	char name[64], **argv = NULL;
	int argc, ret = 1;

	if (!rp)
		return 1;
	cmd = st_recordable(replay__command(rp));
	snprintf(d->command, sizeof(d->command), "%s", replay__command(rp));
	if (!cmd || !strcmp(cmd->name, "snoop")) {
		fprintf(stderr, "stacktap: %s: a recording of '%s': --diff compares stacks of "
				"count, profile or offcpu\n", d->path, d->command);
		goto out;
	}
	snprintf(name, sizeof(name), "stacktap %s", cmd->name);
	argv = report__command_argv(rp, cmd, a, name, &argc);
	if (!argv)
		goto out;
	out_render_capture(diff__capture, d);
	ret = cmd->main(argc, argv);
	out_render_capture(NULL, NULL);
	replay__report(rp);
	if (!ret && replay__damaged(rp))
		ret = 1;
	if (!ret && !d->r) {
		fprintf(stderr, "stacktap: %s: nothing to compare\n", d->path);
		ret = 1;
	}
out:
	free(argv);
	replay__close(rp);
	return ret;
}

/* The format is the diff flame graph: --format flamegraph, or none. */
static int diff__format(const struct report_args *a)
{
	const char *f = NULL;
	int i;

	for (i = 0; i < a->npass; i++) {
		if (!strcmp(a->pass[i], "--format") && i + 1 < a->npass)
			f = a->pass[i + 1];
		else if (!strncmp(a->pass[i], "--format=", 9))
			f = a->pass[i] + 9;
	}
	if (f && strcmp(f, "flamegraph")) {
		fprintf(stderr, "stacktap report: --diff draws a flame graph: --format flamegraph, "
				"not %s\n", f);
		return 2;
	}
	return 0;
}

int report__diff(const struct report_args *a)
{
	struct diff_side before = { .path = a->before }, after = { .path = a->after };
	struct report_args side = *a;
	FILE *f = NULL;
	int ret = diff__format(a);

	side.output = NULL; /* each side renders nowhere: its report is captured */
	if (!ret)
		ret = diff__side(&side, &before);
	if (!ret)
		ret = diff__side(&side, &after);
	if (!ret && strcmp(before.command, after.command)) {
		fprintf(stderr, "stacktap: --diff: %s records %s, %s records %s: compare one command\n",
			before.path, before.command, after.path, after.command);
		ret = 1;
	}
	if (!ret) {
		f = a->output ? fopen(a->output, "w") : stdout;
		if (!f)
			fprintf(stderr, "stacktap: %s: %s\n", a->output, strerror(errno));
		after.fg.title = "stacktap report --diff";
		ret = !f || out_flamegraph_diff(f, before.r, after.r, &after.fg) ? 1 : 0;
	}
	if (f && f != stdout && fclose(f))
		ret = 1;
	report__free(before.r);
	report__free(after.r);
	free(before.row);
	free(after.row);
	return ret;
}
