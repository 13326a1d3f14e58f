// SPDX-License-Identifier: GPL-2.0
/*
 * libdlchain.so, built without frame pointers: lib_entry -> lib_mid ->
 * lib_leaf -> the caller's callback. dlopen'ed by dlchain after tracing began.
 */
#define NOINLINE __attribute__((noinline, noipa))

static volatile long sink;

NOINLINE void lib_leaf(void (*cb)(void))
{
	cb();
	sink++;
}

NOINLINE void lib_mid(void (*cb)(void))
{
	lib_leaf(cb);
	sink++;
}

NOINLINE void lib_entry(void (*cb)(void))
{
	lib_mid(cb);
	sink++;
}
