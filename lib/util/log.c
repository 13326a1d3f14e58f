// SPDX-License-Identifier: GPL-2.0
/* Diagnostics: one line each on stderr, prefixed with the program name. */
#include <stdarg.h>
#include <stdio.h>

#include "lib/util/log.h"

bool st_verbose;

static void log__line(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "stacktap: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void st_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log__line("", fmt, ap);
	va_end(ap);
}

void st_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log__line("warning: ", fmt, ap);
	va_end(ap);
}

const char *st_plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

void st_info(const char *fmt, ...)
{
	va_list ap;

	if (!st_verbose)
		return;
	va_start(ap, fmt);
	log__line("", fmt, ap);
	va_end(ap);
}
