// SPDX-License-Identifier: GPL-2.0
/* Symbol demangling through libiberty: C++ (Itanium ABI) and Rust (legacy and v0). */
#include <errno.h>
#include <libiberty/demangle.h>
#include <setjmp.h>
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
	jmp_buf too_long;
};

static void demangle_sink__put(const char *s, size_t n, void *opaque)
{
	struct demangle_sink *sink = opaque;
	size_t room;

	/*
	 * Back-references let a short hostile name expand exponentially (a
	 * 60-byte Rust v0 name kept libiberty printing for minutes). Leaving
	 * by longjmp is safe: the callback variants keep all their state on
	 * the stack and never call malloc.
	 */
	if (n > SYM_DEMANGLE_MAX_OUT - sink->len)
		longjmp(sink->too_long, 1);
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

/*
 * Demangles @name, then appends @suffix (a symbol version) as is.
 * Return: 0, -EINVAL (not a name either demangler takes), -E2BIG (output past the cap).
 */
static int demangle__run(const char *name, const char *suffix, size_t suffix_len,
			 struct demangle_sink *sink)
{
	if (setjmp(sink->too_long)) {
		sink->len = 0;
		return -E2BIG;
	}
	/*
	 * Legacy Rust names are valid Itanium names ("_ZN...17h<hash>E"), so
	 * Rust goes first; it rejects what it does not recognise before C++ has
	 * a go. A failed attempt may have streamed part of a name: start over.
	 */
	sink->len = 0;
	if (!rust_demangle_callback(name, DEMANGLE_OPTS, demangle_sink__put, sink)) {
		sink->len = 0;
		if (name[1] != 'Z' ||
		    !cplus_demangle_v3_callback(name, DEMANGLE_OPTS, demangle_sink__put, sink)) {
			sink->len = 0;
			return -EINVAL;
		}
	}
	if (suffix_len)
		demangle_sink__put(suffix, suffix_len, sink);
	return 0;
}

int sym_demangle_buf(const char *name, char *buf, size_t size)
{
	struct demangle_sink sink = { .buf = buf, .size = size };
	char base[SYM_DEMANGLE_MAX_LEN + 1];
	const char *at;
	size_t len;
	int err;

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
	err = demangle__run(at ? base : name, at, at ? len - (size_t)(at - name) : 0, &sink);
	if (err) {
		if (size) /* no half-printed name */
			buf[0] = '\0';
		return err;
	}
	if (size)
		buf[sink.len < size ? sink.len : size - 1] = '\0';
	return (int)sink.len; /* at most SYM_DEMANGLE_MAX_OUT */
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
