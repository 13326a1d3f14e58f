// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "lib/pipeline/tool_report.h"
#include "lib/util/log.h"

int tool_report__print(const struct tool_report *tr)
{
	struct report *r = report__new(tr->report_flags);
	int err = 0, ret = 0;

	if (tr->agg && (err = agg_reader__read(tr->agg, tr->on_agg, tr->ctx))) {
		st_err("%s: reading the in-kernel counts: %s", tr->tool, strerror(-err));
		ret = err;
	}
	if (!r || report__set_info(r, tr->info) || raw_stacks__report(tr->raw, tr->sym, r)) {
		st_err("%s: out of memory while building the report", tr->tool);
		ret = -ENOMEM;
	} else if ((err = out_render(tr->out, tr->output, r, tr->format, tr->oo))) {
		st_err("%s: %s: %s", tr->tool, tr->output ? tr->output : "stdout", strerror(-err));
		ret = err;
	}
	report__free(r);
	return ret;
}
