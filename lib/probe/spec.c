// SPDX-License-Identifier: GPL-2.0
/* Probe specs: one parser for all tools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probe/spec.h"

struct prefix {
	const char *word;
	enum probe_kind kind;
	int fields; /* colon-separated fields after the prefix */
};

static const struct prefix prefixes[] = {
	{ "t", PROBE_TRACEPOINT, 2 },  { "tp", PROBE_TRACEPOINT, 2 },
	{ "tracepoint", PROBE_TRACEPOINT, 2 },
	{ "u", PROBE_UPROBE, 2 },      { "uprobe", PROBE_UPROBE, 2 },
	{ "ur", PROBE_URETPROBE, 2 },  { "uretprobe", PROBE_URETPROBE, 2 },
	{ "usdt", PROBE_USDT, 3 },     { "U", PROBE_USDT, 3 },
	{ "k", PROBE_KFUNC, 1 },       { "kfunc", PROBE_KFUNC, 1 },
	{ "p", PROBE_KFUNC, 1 },
};

const char *probe_kind_name(enum probe_kind kind)
{
	switch (kind) {
	case PROBE_TRACEPOINT: return "tracepoint";
	case PROBE_UPROBE: return "uprobe";
	case PROBE_URETPROBE: return "uretprobe";
	case PROBE_USDT: return "usdt";
	case PROBE_KFUNC: return "kernel function";
	case PROBE_KIND_MAX: break;
	}
	return "probe";
}

static const struct prefix *spec__prefix(const char *text, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strlen(prefixes[i].word) == len && !strncmp(prefixes[i].word, text, len))
			return &prefixes[i];
	return NULL;
}

static const char *const usage_of[] = {
	[PROBE_TRACEPOINT] = "t:CATEGORY:NAME",
	[PROBE_UPROBE] = "u:PATH_OR_LIB:SYMBOL",
	[PROBE_USDT] = "usdt:PATH:PROVIDER:NAME",
	[PROBE_KFUNC] = "k:FUNCTION",
	[PROBE_URETPROBE] = "ur:PATH_OR_LIB:SYMBOL",
};

/*
 * Splits @rest into @want fields. A path may itself hold a colon, so the
 * fields after it are taken from the right.
 */
static int spec__split(char *rest, int want, char **f)
{
	int i;

	for (i = want - 1; i > 0; i--) {
		char *c = strrchr(rest, ':');

		if (!c)
			return -EINVAL;
		*c = '\0';
		f[i] = c + 1;
	}
	f[0] = rest;
	for (i = 0; i < want; i++)
		if (!*f[i])
			return -EINVAL;
	return 0;
}

int probe_spec__parse(const char *text, struct probe_spec *out, char *err, size_t errlen)
{
	const struct prefix *p;
	const char *colon = strchr(text, ':');
	char *copy, *f[3] = { NULL, NULL, NULL };

	memset(out, 0, sizeof(*out));
	p = colon ? spec__prefix(text, colon - text) : NULL;
	if (!p) {
		snprintf(err, errlen,
			 "'%s': unknown probe type (want t:CAT:NAME, u:PATH:SYMBOL, ur:PATH:SYMBOL, "
			 "usdt:PATH:PROVIDER:NAME or k:FUNCTION)", text);
		return -EINVAL;
	}
	copy = strdup(colon + 1);
	if (!copy)
		return -ENOMEM;
	if ((p->kind == PROBE_KFUNC && strchr(copy, ':')) || spec__split(copy, p->fields, f)) {
		snprintf(err, errlen, "'%s': malformed %s spec (want %s)", text,
			 probe_kind_name(p->kind), usage_of[p->kind]);
		free(copy);
		return -EINVAL;
	}
	out->kind = p->kind;
	out->text = strdup(text);
	out->target = strdup(f[0]);
	out->name = f[1] ? strdup(f[1]) : NULL;
	out->name2 = f[2] ? strdup(f[2]) : NULL;
	free(copy);
	if (!out->text || !out->target || (f[1] && !out->name) || (f[2] && !out->name2)) {
		probe_spec__release(out);
		return -ENOMEM;
	}
	return 0;
}

void probe_spec__release(struct probe_spec *spec)
{
	free(spec->text);
	free(spec->target);
	free(spec->name);
	free(spec->name2);
	memset(spec, 0, sizeof(*spec));
}
