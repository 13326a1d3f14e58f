// SPDX-License-Identifier: GPL-2.0
/*
 * cxx_names N [GO_FIFO]: C++ names with a known chain, N times:
 *
 *   main
 *    -> app::Rec<app::Shape, 12>::go(app::Shape const&, int, std::function<long (int)> const&)
 *    -> app::Square::area(std::function<long (int)> const&) const     (virtual call)
 *    -> std::_Function_handler<long (int), main::{lambda(int)#1}>::_M_invoke(...)
 *    -> main::{lambda(int)#1}::operator()(int) const
 *    -> app::leaf(int)                                                 (one getppid)
 *
 * A template with a non-type argument, a virtual call, std::function and a
 * lambda: the shapes C++ names take. noipa keeps every frame out of line
 * (no .isra/.constprop clones), so the chain is exact.
 * Built by tests/workloads/names.mk.
 */
#include <functional>
#include <memory>

#include "golib.h"

#define NOINLINE __attribute__((noinline, noipa))

namespace app {

static volatile long sink;

NOINLINE long leaf(int k)
{
	sink += workload_getppid();
	return k;
}

struct Shape {
	virtual ~Shape() = default;
	virtual long area(const std::function<long(int)> &fn) const = 0;
};

struct Square : Shape {
	long side = 3;
	NOINLINE long area(const std::function<long(int)> &fn) const override
	{
		return fn((int)(side * side));
	}
};

struct Circle : Shape {
	long r = 2;
	NOINLINE long area(const std::function<long(int)> &fn) const override
	{
		return fn((int)(3 * r * r));
	}
};

template <typename T, int N> struct Rec {
	NOINLINE static long go(const T &shape, int k, const std::function<long(int)> &fn)
	{
		return shape.area(fn) + N + k;
	}
};

} // namespace app

int main(int argc, char **argv)
{
	std::unique_ptr<app::Shape> shape;
	long n, i, total = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: cxx_names N [GO_FIFO]\n");
		return 2;
	}
	n = atol(argv[1]);
	/* Chosen at run time, so the call stays virtual. */
	if (argc > 3)
		shape.reset(new app::Circle);
	else
		shape.reset(new app::Square);
	std::function<long(int)> fn = [&](int v) NOINLINE -> long { return app::leaf(v) + total; };
	workload_ready_go(argc > 2 ? argv[2] : NULL);
	for (i = 0; i < n; i++)
		total += app::Rec<app::Shape, 12>::go(*shape, (int)i, fn) & 1;
	return 0;
}
