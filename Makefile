# SPDX-License-Identifier: GPL-2.0
# stacktap build: one Makefile, quiet unless V=1.
#
#   make            build build/stacktap
#   make deps       install every Debian package the build and tests need
#   make demo       build, then profile the bundled demo workload
#   make check      unit, integration (root) and fuzz smoke tests
#   make bench      benchmarks against bcc / bpftrace / perf (needs bench-deps)
#   make SAN=address,undefined check   the same under sanitizers

.DELETE_ON_ERROR:
.SUFFIXES:
.SECONDEXPANSION:

O       ?= build
CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
SAN     ?=
# `make check` and `make demo` build with one job per CPU: a fresh clone's
# build is a fifth of the suite's time when done one file at a time.
NPROC   := $(shell nproc 2>/dev/null || echo 1)

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Packages `make deps` installs: build, tests, fuzzing. Besides Debian's
# essential ones (coreutils, grep, sed, mawk, findutils, diffutils), the tests
# call jq, python3, binutils (readelf, objdump, nm), bpftrace (the other tracer
# of test_bad_input.sh), strace, util-linux's unshare and setpriv and mount's
# mount (tests/fresh-ns.sh, test_fresh_machine.sh); the output tests golang-go
# (go tool pprof), babeltrace2, chromium and nodejs; the layout tests lld and
# mold (binaries linked each way); the name tests g++, xz-utils (MiniDebugInfo),
# dwz and elfutils (test_dwarf_inline checks against eu-addr2line).
DEB_PKGS := gcc make clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev \
	    pkg-config binutils binutils-dev jq libclang-rt-14-dev procps libc6-dbg \
	    golang-go babeltrace2 chromium nodejs python3 bpftrace strace util-linux mount \
	    lld mold libiberty-dev liblzma-dev g++ elfutils xz-utils dwz \
	    libzstd-dev
# Packages `make bench-deps` adds: the peer tools we measure against.
BENCH_PKGS := bpfcc-tools linux-perf linux-headers-amd64 bc python3.11-dbg time

WARN    := -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers
CFLAGS  ?= -O2 -g
ST_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -I. -I$(O) $(CFLAGS)
LDLIBS  := -lbpf -lelf -ldw -lz -lzstd -llzma -liberty -lpthread -lstdc++
ifneq ($(SAN),)
ST_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer
LDFLAGS   += -fsanitize=$(SAN)
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_x86 -I. -I$(O) -Wall -Werror \
	      -I/usr/include/$(shell $(CC) -dumpmachine) \
	      -Wno-unused-function

TOOLS    := $(patsubst tools/%/,%,$(sort $(dir $(wildcard tools/*/*.c))))
BPF_SRCS := $(wildcard tools/*/*.bpf.c)
SKELS    := $(foreach s,$(BPF_SRCS),$(O)/skel/$(notdir $(s:.bpf.c=.skel.h)) \
		$(O)/skel/$(notdir $(s:.bpf.c=.tw4.skel.h)) \
		$(O)/skel/$(notdir $(s:.bpf.c=.compat.skel.h)))
TOOL_SRCS := $(filter-out %.bpf.c,$(wildcard tools/*/*.c))
LIB_SRCS := $(shell find lib -name '*.c' | sort)
SRC_SRCS := $(wildcard src/*.c)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNITS    := $(patsubst tests/unit/%.c,$(O)/tests/%,$(UNIT_SRCS))
WORKLOAD_SRCS := $(wildcard tests/workloads/*.c)
FUZZ_SRCS := $(wildcard fuzz/fuzz_*.c)
FUZZERS  := $(patsubst fuzz/%.c,$(O)/fuzz/%,$(FUZZ_SRCS))
HDRS     := $(shell find lib bpf tools src tests/unit -name '*.h')

LIB_OBJS  := $(patsubst %.c,$(O)/obj/%.o,$(LIB_SRCS))
TOOL_OBJS := $(patsubst %.c,$(O)/obj/%.o,$(TOOL_SRCS))
SRC_OBJS  := $(patsubst %.c,$(O)/obj/%.o,$(SRC_SRCS))

all: $(O)/stacktap

# The version --version prints: the release, and the commit when built from git.
ST_VERSION := 0.1
ST_GIT := $(shell git describe --always --dirty 2>/dev/null)
$(O)/version.h: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)v='#define ST_VERSION "$(ST_VERSION)$(if $(ST_GIT), (git $(ST_GIT)))"'; \
		[ "$$(cat $@ 2>/dev/null)" = "$$v" ] || echo "$$v" > $@
$(O)/obj/src/main.o: $(O)/version.h
FORCE:

# --- dependencies -----------------------------------------------------------

# npm: Debian's package, unless the installed nodejs brings its own (it then
# conflicts with Debian's npm). The output tests' readers from npm (speedscope's schema, ajv, playwright-core
# driving Debian's chromium), pinned by tests/js/package-lock.json.
deps:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS)
	command -v npm >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm
	cd tests/js && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error

bench-deps: deps
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BENCH_PKGS)

# Installs the packages only when one is missing, so the README's commands are
# the whole set-up on a fresh machine.
need-deps:
	@for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' \
		|| { echo "make: $$p missing, running make deps" >&2; $(MAKE) --no-print-directory deps; exit $$?; }; \
	done; \
	command -v npm >/dev/null && [ -f tests/js/node_modules/.package-lock.json ] \
		|| { echo "make: tests/js/node_modules missing, running make deps" >&2; $(MAKE) --no-print-directory deps; }

# --- BPF --------------------------------------------------------------------

# The BPF programs are compiled against this kernel's BTF (CO-RE).
$(O)/vmlinux.h:
	$(call msg,GEN,$@)
	$(Q)test -r /sys/kernel/btf/vmlinux || { echo "make: /sys/kernel/btf/vmlinux:" \
		"missing: this kernel has no BTF, which the BPF programs are compiled against" \
		"(CONFIG_DEBUG_INFO_BTF=y)" >&2; exit 1; }
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(O)/bpf/%.bpf.o: tools/$$*/$$*.bpf.c $(O)/vmlinux.h $(wildcard bpf/*.h) $(wildcard tools/*/*.h)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $(filter %.bpf.c,$^) -o $@

# The same object declaring the four-argument task_work kfunc of kernels after
# 6.18 (bpf/deferred.bpf.h); user space opens the one the kernel takes
# (lib/session/skel_open.h).
$(O)/bpf/%.tw4.bpf.o: tools/$$*/$$*.bpf.c $(O)/vmlinux.h $(wildcard bpf/*.h) $(wildcard tools/*/*.h)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DST_TW_4ARG -c $(filter %.bpf.c,$^) -o $@

# The same object for kernels without bpf_loop() and the other helpers its
# capture needs (5.10): the kernel's frame-pointer walk, nothing deferred,
# nothing counted in the kernel (bpf/compat.bpf.h). Same maps, programs and
# variables; user space opens it where the probe says so (skel_open.h).
$(O)/bpf/%.compat.bpf.o: tools/$$*/$$*.bpf.c $(O)/vmlinux.h $(wildcard bpf/*.h) $(wildcard tools/*/*.h)
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DST_COMPAT -c $(filter %.bpf.c,$^) -o $@

# The BPF header library is a DAG whose every header compiles alone (bpf/state.bpf.h lists it):
# each one is compiled by itself, as the only include of an object of its own.
BPF_HDRS := $(wildcard bpf/*.bpf.h)
BPF_HDR_CHECKS := $(patsubst bpf/%.bpf.h,$(O)/hdrcheck/%.o,$(BPF_HDRS)) \
		  $(patsubst bpf/%.bpf.h,$(O)/hdrcheck/%.compat.o,$(BPF_HDRS))

$(O)/hdrcheck/%.o: bpf/%.bpf.h $(O)/vmlinux.h $(wildcard bpf/*.h)
	$(call msg,HDRCHECK,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -x c -c $< -o $@

# And so in the compat build (bpf/compat.bpf.h).
$(O)/hdrcheck/%.compat.o: bpf/%.bpf.h $(O)/vmlinux.h $(wildcard bpf/*.h)
	$(call msg,HDRCHECK,$< (compat))
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DST_COMPAT -x c -c $< -o $@

bpf-headers: $(BPF_HDR_CHECKS)

$(O)/skel/%.tw4.skel.h: $(O)/bpf/%.tw4.bpf.o
	$(call msg,SKEL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf_tw4 > $@

# A skeleton serves both builds only where they agree on every map, program
# and variable offset: everything but the ELF bytes must read the same.
$(O)/skel/%.compat.skel.h: $(O)/bpf/%.compat.bpf.o $(O)/skel/%.skel.h
	$(call msg,SKEL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf_compat > $@
	$(Q)tests/skel-shape.sh $(O)/skel/$*.skel.h $@ $(subst -,_,$*)_bpf

$(O)/skel/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$*)_bpf > $@

# --- user space -------------------------------------------------------------

$(O)/obj/%.o: %.c $(HDRS) | $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ST_CFLAGS) -c $< -o $@

# A tool's objects include its own BPF skeleton: an edit of its BPF program
# alone must rebuild them too (the order-only list above only makes sure
# every skeleton exists before any object is compiled).
tool_objs = $(patsubst %.c,$(O)/obj/%.o,$(filter-out %.bpf.c,$(wildcard $(dir $(1))*.c)))
$(foreach s,$(BPF_SRCS),$(eval $(call tool_objs,$(s)): $(O)/skel/$(notdir $(s:.bpf.c=.skel.h)) \
	$(O)/skel/$(notdir $(s:.bpf.c=.tw4.skel.h)) $(O)/skel/$(notdir $(s:.bpf.c=.compat.skel.h))))

$(O)/libstacktap.a: $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(O)/stacktap: $(SRC_OBJS) $(TOOL_OBJS) $(O)/libstacktap.a
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $(SRC_OBJS) $(TOOL_OBJS) $(O)/libstacktap.a $(LDLIBS) -o $@

# --- tests ------------------------------------------------------------------

$(O)/tests/%: tests/unit/%.c tests/unit/check.h $(O)/libstacktap.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ST_CFLAGS) $(LDFLAGS) $< $(O)/libstacktap.a $(LDLIBS) -o $@

# Helpers of the script tests: tests/helpers/NAME.c -> $(O)/tests/NAME (not run by themselves).
HELPERS := $(patsubst tests/helpers/%.c,$(O)/tests/%,$(wildcard tests/helpers/*.c))
$(O)/tests/%: tests/helpers/%.c $(O)/libstacktap.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ST_CFLAGS) $(LDFLAGS) $< $(O)/libstacktap.a $(LDLIBS) -o $@

# The flame graph page is built into its writer (.incbin).
$(O)/obj/lib/out/flamegraph.o $(O)/fuzz/obj/lib/out/flamegraph.o: lib/out/flamegraph.html

# Workloads with known call chains; each file's first line comment names its build.
include $(wildcard tests/workloads/*.mk)
include tests/kernels/matrix.mk

FUZZ_CFLAGS := -std=gnu11 -D_GNU_SOURCE -I. -I$(O) -g -O1 \
	       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_LIB_OBJS := $(patsubst %.c,$(O)/fuzz/obj/%.o,$(LIB_SRCS))
$(O)/fuzz/obj/%.o: %.c $(HDRS)
	$(call msg,CLANG,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -c $< -o $@

$(O)/fuzz/libstacktap-san.a: $(FUZZ_LIB_OBJS)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

$(O)/fuzz/%: fuzz/%.c $(O)/fuzz/libstacktap-san.a
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(O)/fuzz/libstacktap-san.a $(LDLIBS) -o $@

# Bench helpers built from lib/ (bench/st_*.c), e.g. st-symbolize.
BENCH_TOOLS := $(patsubst bench/st_%.c,$(O)/bench/st-%,$(wildcard bench/st_*.c))
$(O)/bench/st-%: bench/st_%.c $(O)/libstacktap.a
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ST_CFLAGS) $(LDFLAGS) $< $(O)/libstacktap.a $(LDLIBS) -o $@

tests: $(O)/stacktap $(UNITS) $(HELPERS) workloads $(FUZZERS) $(BENCH_TOOLS) bpf-headers

check: need-deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) tests
	$(Q)O=$(O) tests/run.sh

demo: need-deps
	$(Q)$(MAKE) --no-print-directory -j$(NPROC) $(O)/stacktap workloads
	$(Q)tests/demo.sh $(O)

bench: $(O)/stacktap workloads $(BENCH_TOOLS)
	$(Q)bench/run.sh $(O)

clean:
	rm -rf $(O)

.PHONY: all deps bench-deps need-deps tests check demo bench clean workloads bpf-headers FORCE
