// SPDX-License-Identifier: GPL-2.0
/* One call renders a report in any format. */
#include <errno.h>

#include "lib/out/render.h"

static out_render_capture_fn capture;
static void *capture_ctx;

void out_render_capture(out_render_capture_fn fn, void *ctx)
{
	capture = fn;
	capture_ctx = ctx;
}

int out_render(FILE *f, const char *dir, struct report *r, enum out_format fmt,
	       const struct out_opts *o)
{
	if (capture)
		return capture(capture_ctx, r, o);
	switch (fmt) {
	case OUT_FMT_TEXT: out_text(f, r, &o->text); break;
	case OUT_FMT_FOLDED: out_folded(f, r, &o->folded); break;
	case OUT_FMT_PPROF: return out_pprof(f, r, &o->pprof);
	case OUT_FMT_SPEEDSCOPE: return out_speedscope(f, r, &o->speedscope);
	case OUT_FMT_PERF_SCRIPT: return out_perf_script(f, r, &o->perf_script);
	case OUT_FMT_FLAMEGRAPH: return out_flamegraph(f, r, &o->flamegraph);
	case OUT_FMT_CTF: return out_ctf(dir, r, &o->ctf);
	default: return -EOPNOTSUPP; /* json is per event: out_json_event() */
	}
	return fflush(f) || ferror(f) ? -EIO : 0;
}
