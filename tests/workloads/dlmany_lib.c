// SPDX-License-Identifier: GPL-2.0
/*
 * libdlmany<LIBN>.so, built without frame pointers with -DLIBN=<i>:
 * lib<i>_entry -> lib<i>_mid -> lib<i>_leaf -> the caller's callback. The
 * libraries differ only in their names, so their code lies at the same
 * offsets: only the file tells them apart.
 */
#define NOINLINE __attribute__((noinline, noipa))
#define CAT3(a, b, c) a##b##c
#define NAME(n, f) CAT3(lib, n, f)

static volatile long sink;

NOINLINE void NAME(LIBN, _leaf)(void (*cb)(void))
{
	cb();
	sink++;
}

NOINLINE void NAME(LIBN, _mid)(void (*cb)(void))
{
	NAME(LIBN, _leaf)(cb);
	sink++;
}

NOINLINE void NAME(LIBN, _entry)(void (*cb)(void))
{
	NAME(LIBN, _mid)(cb);
	sink++;
}
