/* SPDX-License-Identifier: GPL-2.0 */
/* Diagnostics: one line each on stderr, prefixed with the program name. */
#ifndef ST_LOG_H
#define ST_LOG_H

#include <stdbool.h>
#include <stdint.h>

/* Set by the front end; every diagnostic starts with "stacktap: ". */
extern bool st_verbose;

/**
 * st_err() - print one error line "stacktap: <msg>" on stderr.
 */
void st_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * st_warn() - print one warning line "stacktap: warning: <msg>" on stderr.
 */
void st_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * st_info() - print one line on stderr only when st_verbose is set.
 */
void st_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/**
 * st_plural() - @one or @many, as @n asks: "1 probe point", "2 probe points".
 *
 * Return: @one when @n is 1, else @many.
 */
const char *st_plural(uint64_t n, const char *one, const char *many);

#endif
