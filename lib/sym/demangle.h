/* SPDX-License-Identifier: GPL-2.0 */
/* Symbol demangling through libiberty: C++ (Itanium ABI) and Rust (legacy and v0). */
#ifndef ST_DEMANGLE_H
#define ST_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Longest mangled name we hand to libiberty. Its demangler keeps about 72
 * bytes of stack per input character (component and substitution arrays on
 * the stack), so this cap bounds a call at about 600 KiB of stack; real names,
 * even Boost's, stay below it.
 */
#define SYM_DEMANGLE_MAX_LEN 8192
/*
 * Longest demangled name we produce. Back-references make the output of a
 * hostile name exponential in its length; real names stay below 64 KiB.
 */
#define SYM_DEMANGLE_MAX_OUT (256 * 1024)

/**
 * sym_is_mangled() - whether @name looks mangled, from its prefix alone.
 * @name: a symbol name, as found in a symbol table; NULL is fine
 *
 * Cheap (no parsing, no allocation): callers use it to skip the demangler for
 * plain C names, which are most of libc and the kernel.
 *
 * Return: true for the "_Z" (C++ and legacy Rust) and "_R" (Rust v0) prefixes.
 */
bool sym_is_mangled(const char *name);

/**
 * sym_demangle_buf() - demangle @name into a caller buffer, snprintf-style.
 * @name: a symbol name, as found in a symbol table; NULL is fine
 * @buf:  where the demangled name goes, always NUL-terminated when @size > 0
 * @size: bytes at @buf (may be 0 to ask for the length)
 *
 * Demangles as perf and c++filt show names: C++ with parameters and
 * qualifiers (DMGL_PARAMS | DMGL_ANSI), compiler clone suffixes kept
 * ("foo() [clone .isra.0]", "[clone .cold]"); legacy Rust ("_ZN...17h<hash>E")
 * without the hash; Rust v0 ("_R...") without crate disambiguators. Rust
 * legacy is tried before C++ because the two share the "_ZN" prefix.
 *
 * Meant to be called once per distinct symbol: the caller keeps the result
 * (in its string arena) next to the mangled name. Makes no allocation of its
 * own beyond libiberty's.
 *
 * Return: the length of the whole demangled name (not counting the NUL; when
 * it is >= @size the output was cut), 0 when @name is not mangled (the
 * caller shows it as is), -EINVAL when it is mangled but malformed,
 * -ENAMETOOLONG when it is longer than SYM_DEMANGLE_MAX_LEN, or -E2BIG when
 * its demangled form would pass SYM_DEMANGLE_MAX_OUT (a hostile name).
 */
int sym_demangle_buf(const char *name, char *buf, size_t size);

/**
 * sym_demangle() - demangle @name into a new string.
 * @name: a symbol name, as found in a symbol table; NULL is fine
 *
 * The same demangling as sym_demangle_buf().
 *
 * Return: a malloc'ed demangled name the caller frees, or NULL when @name is
 * not mangled, is malformed or too long, or memory ran out (errno says which:
 * 0 for "not mangled", EINVAL, ENAMETOOLONG, E2BIG, ENOMEM).
 */
char *sym_demangle(const char *name);

#endif
