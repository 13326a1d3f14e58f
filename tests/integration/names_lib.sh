# SPDX-License-Identifier: GPL-2.0
# The C++ workload's known chain, shared by test_names.sh (text, folded, JSON,
# --no-demangle) and test_formats.sh (every --format through its reader):
# cxx_names (tests/workloads/cxx_names.cc) traced by a uprobe at app::leaf(int).
# Sourced after lib.sh.

CXX=$W/cxx_names
CXX_LEAF=_ZN3app4leafEi
# Leaf first, as text output prints it; inline frames marked " (inlined)".
CXX_CHAIN=("app::leaf(int)"
	"main::{lambda(int)#1}::operator()(int) const"
	"__invoke_impl<long int, main(int, char**)::<lambda(int)>&, int> (inlined)"
	"__invoke_r<long int, main(int, char**)::<lambda(int)>&, int> (inlined)"
	"std::_Function_handler<long (int), main::{lambda(int)#1}>::_M_invoke(std::_Any_data const&, int&&)"
	"std::function<long (int)>::operator()(int) const (inlined)"
	"app::Square::area(std::function<long (int)> const&) const"
	"app::Rec<app::Shape, 12>::go(app::Shape const&, int, std::function<long (int)> const&)"
	main __libc_start_call_main __libc_start_main _start)
