/* SPDX-License-Identifier: GPL-2.0 */
/* C++ symbol demangling through libstdc++'s __cxa_demangle. */
#ifndef ST_DEMANGLE_H
#define ST_DEMANGLE_H

/**
 * sym_demangle() - demangle an Itanium C++ ABI name ("_Z...").
 * @name: a symbol name, as found in the symbol table
 *
 * Return: a malloc'ed demangled name the caller frees, or NULL when @name is
 * not mangled, is malformed, or memory ran out (errno tells which: EINVAL or
 * ENOMEM; 0 for "not mangled").
 */
char *sym_demangle(const char *name);

#endif
