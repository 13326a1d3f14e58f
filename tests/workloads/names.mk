# SPDX-License-Identifier: GPL-2.0
# Workloads of the name sources (issue 9): lib/sym/{demangle,dwarf_inline,perf_map,gopclntab}
# and lib/elf/minidebug. Included by the main Makefile. gcc/g++ 12, go 1.19.
#
#   cxx_names      C++ templates, a lambda, std::function and a virtual call
#                  (tests/unit/test_demangle.c)
#   go_names       a Go chain (main.main -> main.work -> main.leaf), built with .symtab,
#                  stripped (-ldflags=-s) and as a stripped PIE (tests/unit/test_gopclntab.c)
#   minidebug      a PIE exporting md_leaf (-rdynamic), stripped Fedora-style with
#                  .gnu_debugdata naming its static functions (make-minidebug.sh);
#                  minidebug_full is the unstripped build (tests/unit/test_minidebug.c)
#   inline         -O2 -g: in_b2 and in_b inlined into in_a (tests/unit/test_dwarf_inline.c);
#                  inline.debug is its separate debug file (objcopy --only-keep-debug);
#                  dwz/ holds copies of inline and cxx_names whose DWARF dwz moved in part
#                  to dwz/common.debug (.gnu_debugaltlink), as Debian's and Fedora's debug
#                  packages have it; inline_clang is the clang build (DWARF 5 with .debug_addr
#                  and no .debug_aranges, where eu-addr2line finds no DWARF at all)
#   jit_fp         jit.c with frame pointers: with -m, JIT stubs named by /tmp/perf-PID.map
#                  (tests/unit/test_perf_map.c)
#   librust_legacy.so, librust_v0.so
#                  the Rust objects of tests/fixtures/rust/ linked as shared libraries
#                  (no dependencies); rust_names dlopen()s one and calls into it
#                  (tests/integration/test_names.sh, tests/unit/test_symbolizer.c)
#   vdso_clock     a system call made from inside the vDSO (tests/integration/test_names.sh)

NAMES_CXXFLAGS := -std=gnu++17 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls
GO ?= go
# No network, no module, no cgo; the build cache stays in the build directory.
GO_ENV := GO111MODULE=off GOFLAGS= GOPROXY=off CGO_ENABLED=0 GOCACHE=$(abspath $(O))/gocache
GO_NAMES := $(O)/workloads/go_names $(O)/workloads/go_names_stripped \
	    $(O)/workloads/go_names_pie
NAMES_WORKLOADS := $(O)/workloads/inline $(O)/workloads/inline.debug \
		   $(O)/workloads/dwz/common.debug $(O)/workloads/inline_clang $(O)/workloads/cxx_names $(O)/workloads/jit_fp $(GO_NAMES) \
		   $(O)/workloads/minidebug $(O)/workloads/minidebug_full \
		   $(O)/workloads/librust_legacy.so $(O)/workloads/librust_v0.so \
		   $(O)/workloads/rust_names $(O)/workloads/vdso_clock

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

$(O)/workloads/go_names: tests/workloads/go_names.go tests/workloads/names.mk
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(GO_ENV) $(GO) build -trimpath -o $@ $<

$(O)/workloads/go_names_stripped: tests/workloads/go_names.go tests/workloads/names.mk
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(GO_ENV) $(GO) build -trimpath -ldflags=-s -o $@ $<

$(O)/workloads/go_names_pie: tests/workloads/go_names.go tests/workloads/names.mk
	$(call msg,GO,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(GO_ENV) $(GO) build -trimpath -buildmode=pie -ldflags=-s -o $@ $<

$(O)/workloads/minidebug_full: tests/workloads/minidebug.c tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -fPIE -pie -rdynamic $< -o $@

$(O)/workloads/minidebug: $(O)/workloads/minidebug_full tests/workloads/make-minidebug.sh
	$(call msg,MINIDBG,$@)
	$(Q)tests/workloads/make-minidebug.sh $< $@

$(O)/workloads/inline: tests/workloads/inline.c tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -fno-optimize-sibling-calls $< -o $@

$(O)/workloads/inline.debug: $(O)/workloads/inline
	$(call msg,OBJCOPY,$@)
	$(Q)objcopy --only-keep-debug $< $@

# dwz records the common file's path as given: absolute, so libdw finds it from anywhere.
# Two copies of cxx_names give it plenty to share (dwz moves what several files have).
$(O)/workloads/dwz/common.debug: $(O)/workloads/inline $(O)/workloads/cxx_names
	$(call msg,DWZ,$@)
	$(Q)rm -rf $(@D) && mkdir -p $(@D)
	$(Q)cp $^ $(@D)/ && cp $(@D)/cxx_names $(@D)/cxx_names2
	$(Q)dwz -m $(abspath $@) -M $(abspath $@) $(@D)/inline $(@D)/cxx_names $(@D)/cxx_names2

$(O)/workloads/inline_clang: tests/workloads/inline.c tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CLANG,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wno-unknown-attributes \
		-fno-optimize-sibling-calls $< -o $@

$(O)/workloads/librust_%.so: tests/fixtures/rust/names-%.o tests/workloads/names.mk
	$(call msg,LD,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -shared -nostdlib -Wl,--build-id=sha1 $< -o $@

$(O)/workloads/rust_names: tests/workloads/rust_names.c tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer $< -o $@ -ldl

$(O)/workloads/vdso_clock: tests/workloads/vdso_clock.c tests/workloads/golib.h tests/workloads/names.mk
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -fno-omit-frame-pointer $< -o $@
