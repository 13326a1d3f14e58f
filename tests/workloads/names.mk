# SPDX-License-Identifier: GPL-2.0
# Workloads of the name sources (issue 9): lib/sym/{demangle,dwarf_inline,perf_map,gopclntab}
# and lib/elf/minidebug. Included by the main Makefile. gcc/g++ 12, go 1.19.
#
#   cxx_names      C++ templates, a lambda, std::function and a virtual call
#                  (tests/unit/test_demangle.c)
#   jit_fp         jit.c with frame pointers: with -m, JIT stubs named by /tmp/perf-PID.map
#                  (tests/unit/test_perf_map.c)

NAMES_CXXFLAGS := -std=gnu++17 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls
NAMES_WORKLOADS := $(O)/workloads/cxx_names $(O)/workloads/jit_fp

workloads: $(NAMES_WORKLOADS)

$(O)/workloads/cxx_names: tests/workloads/cxx_names.cc tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CXX) $(NAMES_CXXFLAGS) $< -o $@

$(O)/workloads/jit_fp: tests/workloads/jit.c tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer \
		-mno-omit-leaf-frame-pointer -fno-optimize-sibling-calls $< -o $@
