// SPDX-License-Identifier: GPL-2.0
/* Symbol demangling through libiberty: C++ (Itanium ABI) and Rust (legacy and v0). */
#include <errno.h>
#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sym/demangle.h"

/* What perf, c++filt and gdb pass: parameters and cv-qualifiers shown. */
#define DEMANGLE_OPTS (DMGL_PARAMS | DMGL_ANSI)

/* Most demangled names fit; longer ones take a second, exact-size pass. */
#define DEMANGLE_STACK_BUF 512

/* libiberty streams the output in pieces; we keep what fits and count the rest. */
struct demangle_sink {
	char *buf;
	size_t size, len;
};

static void demangle_sink__put(const char *s, size_t n, void *opaque)
{
	struct demangle_sink *sink = opaque;
	size_t room;

	if (n && sink->len + 1 < sink->size) { /* Rust streams empty pieces as NULL */
		room = sink->size - 1 - sink->len;
		memcpy(sink->buf + sink->len, s, n < room ? n : room);
	}
	sink->len += n;
}

bool sym_is_mangled(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

static bool demangle__run(const char *name, struct demangle_sink *sink)
{
	/*
	 * Legacy Rust names are valid Itanium names ("_ZN...17h<hash>E"), so
	 * Rust goes first; it rejects what it does not recognise before C++ has
	 * a go. A failed attempt may have streamed part of a name: start over.
	 */
	sink->len = 0;
	if (rust_demangle_callback(name, DEMANGLE_OPTS, demangle_sink__put, sink))
		return true;
	sink->len = 0;
	if (name[1] == 'Z' &&
	    cplus_demangle_v3_callback(name, DEMANGLE_OPTS, demangle_sink__put, sink))
		return true;
	sink->len = 0;
	return false;
}

int sym_demangle_buf(const char *name, char *buf, size_t size)
{
	struct demangle_sink sink = { .buf = buf, .size = size };
	char base[SYM_DEMANGLE_MAX_LEN + 1];
	const char *at;
	size_t len;

	if (size)
		buf[0] = '\0';
	if (!sym_is_mangled(name))
		return 0;
	len = strnlen(name, SYM_DEMANGLE_MAX_LEN + 1);
	if (len > SYM_DEMANGLE_MAX_LEN)
		return -ENAMETOOLONG;
	/*
	 * A symbol version ("_Znwm@GLIBCXX_3.4", "foo@@V1" in .symtab) or "@plt"
	 * is no part of the mangling: demangle what precedes it and keep it as
	 * c++filt does.
	 */
	at = memchr(name, '@', len);
	if (at) {
		memcpy(base, name, (size_t)(at - name));
		base[at - name] = '\0';
	}
	if (!demangle__run(at ? base : name, &sink))
		return -EINVAL;
	if (at)
		demangle_sink__put(at, len - (size_t)(at - name), &sink);
	if (size)
		buf[sink.len < size ? sink.len : size - 1] = '\0';
	/* A name of 2 GiB cannot come from an 8 KiB input; still, never wrap. */
	return sink.len > (size_t)__INT_MAX__ ? -EINVAL : (int)sink.len;
}

char *sym_demangle(const char *name)
{
	char small[DEMANGLE_STACK_BUF], *out;
	int len;

	errno = 0;
	len = sym_demangle_buf(name, small, sizeof(small));
	if (len <= 0) {
		errno = -len;
		return NULL;
	}
	out = malloc((size_t)len + 1);
	if (!out) {
		errno = ENOMEM;
		return NULL;
	}
	if ((size_t)len < sizeof(small))
		memcpy(out, small, (size_t)len + 1);
	else if (sym_demangle_buf(name, out, (size_t)len + 1) != len)
		goto err_free; /* the demangler is deterministic; belt and braces */
	return out;

err_free:
	free(out);
	errno = EINVAL;
	return NULL;
}
