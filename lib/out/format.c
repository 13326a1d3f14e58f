// SPDX-License-Identifier: GPL-2.0
/* Output formats by name. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/out/format.h"

static const char *const out_format_names[OUT_FMT_N] = {
	[OUT_FMT_TEXT] = "text",
	[OUT_FMT_FOLDED] = "folded",
	[OUT_FMT_JSON] = "json",
	[OUT_FMT_PPROF] = "pprof",
	[OUT_FMT_SPEEDSCOPE] = "speedscope",
	[OUT_FMT_PERF_SCRIPT] = "perf-script",
	[OUT_FMT_FLAMEGRAPH] = "flamegraph",
	[OUT_FMT_CTF] = "ctf",
};

const char *out_format_name(enum out_format fmt)
{
	return fmt < OUT_FMT_N ? out_format_names[fmt] : "?";
}

bool out_format_is_dir(enum out_format fmt)
{
	return fmt == OUT_FMT_CTF;
}

bool out_format_is_binary(enum out_format fmt)
{
	return fmt == OUT_FMT_PPROF;
}

/* "text, folded or pprof": the names in @can, as a list a person reads. */
static void out_format__list(unsigned can, char *buf, size_t len)
{
	size_t used = 0, left = __builtin_popcount(can);
	int i, n;

	buf[0] = '\0';
	for (i = 0; i < OUT_FMT_N && used < len; i++) {
		if (!(can & OUT_FMT_BIT(i)))
			continue;
		left--;
		n = snprintf(buf + used, len - used, "%s%s", out_format_names[i],
			     left > 1 ? ", " : left == 1 ? " or " : "");
		if (n > 0)
			used += (size_t)n;
	}
}

int out_format_parse(const char *name, unsigned can, enum out_format *fmt, char *err, size_t len)
{
	char want[160];
	int i;

	out_format__list(can, want, sizeof(want));
	for (i = 0; i < OUT_FMT_N; i++) {
		if (strcmp(name, out_format_names[i]))
			continue;
		if (!(can & OUT_FMT_BIT(i))) {
			snprintf(err, len, "format '%s': not one this command writes (want %s)",
				 name, want);
			return -EOPNOTSUPP;
		}
		*fmt = i;
		return 0;
	}
	snprintf(err, len, "format '%s': unknown (want %s)", name, want);
	return -EINVAL;
}
