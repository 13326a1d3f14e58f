/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe specs ("t:CAT:NAME", "u:PATH:SYM", "ur:PATH:SYM", "usdt:PATH:PROV:NAME",
 * "k:FUNC"): one parser for all tools.
 */
#ifndef ST_PROBE_SPEC_H
#define ST_PROBE_SPEC_H

#include <stddef.h>

enum probe_kind {
	PROBE_TRACEPOINT, /* t:CATEGORY:NAME, wildcards allowed in both */
	PROBE_UPROBE,     /* u:PATH_OR_LIB:SYMBOL */
	PROBE_USDT,       /* usdt:PATH:PROVIDER:NAME */
	PROBE_KFUNC,      /* k:FUNCTION (fentry, else kprobe) */
	PROBE_URETPROBE,  /* ur:PATH_OR_LIB:SYMBOL: the function's return */
	PROBE_KIND_MAX,
};

struct probe_spec {
	enum probe_kind kind;
	char *text;     /* the spec as given, for messages */
	char *target;   /* tracepoint category, binary/library, or kernel function */
	char *name;     /* tracepoint name, symbol, or USDT provider */
	char *name2;    /* USDT probe name */
};

/**
 * probe_spec__parse() - parse one spec.
 * @err: receives a one-line reason on failure
 *
 * Accepted prefixes: t/tp/tracepoint, u/uprobe, ur/uretprobe, usdt,
 * k/kfunc/p (bcc's kprobe).
 * Return: 0, -EINVAL (malformed; *err says why) or -ENOMEM.
 */
int probe_spec__parse(const char *text, struct probe_spec *out, char *err, size_t errlen);

/** probe_spec__release() - free the strings of a parsed spec. */
void probe_spec__release(struct probe_spec *spec);

/** probe_kind_name() - "tracepoint", "uprobe", "uretprobe", "usdt" or "kernel function". */
const char *probe_kind_name(enum probe_kind kind);

#endif
