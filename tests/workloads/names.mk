# SPDX-License-Identifier: GPL-2.0
# Workloads of the name sources (issue 9): lib/sym/{demangle,dwarf_inline,perf_map,gopclntab}
# and lib/elf/minidebug. Included by the main Makefile. gcc/g++ 12, go 1.19.
#
#   cxx_names      C++ templates, a lambda, std::function and a virtual call
#                  (tests/unit/test_demangle.c)

NAMES_CXXFLAGS := -std=gnu++17 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls
NAMES_WORKLOADS := $(O)/workloads/cxx_names

workloads: $(NAMES_WORKLOADS)

$(O)/workloads/cxx_names: tests/workloads/cxx_names.cc tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(NAMES_CXXFLAGS) $< -o $@
