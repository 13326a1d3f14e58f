// SPDX-License-Identifier: GPL-2.0
/* C++ symbol demangling through libstdc++'s __cxa_demangle (link with -lstdc++). */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "lib/sym/demangle.h"

/* The C ABI of libstdc++'s demangler (cxxabi.h is C++ only). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/*
 * Symbol tables are hostile input and the demangler recurses on nesting;
 * real mangled names stay far below this (the kernel's KSYM_NAME_LEN is 512).
 */
#define DEMANGLE_MAX_LEN 8192

char *sym_demangle(const char *name)
{
	int status = 0;
	char *out;

	errno = 0;
	if (!name || strncmp(name, "_Z", 2) || strnlen(name, DEMANGLE_MAX_LEN) == DEMANGLE_MAX_LEN)
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status == 0 && out)
		return out;
	errno = status == -1 ? ENOMEM : EINVAL;
	return NULL;
}
